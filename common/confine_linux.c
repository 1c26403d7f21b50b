/*
 * confine_linux - the Linux seam of confine.h: no_new_privs, Landlock for
 * the file system, a seccomp filter for the system calls.
 *
 * Landlock restricts only the thread that asks and what it starts later,
 * so this runs while the service has one thread (before libzmq's).  The
 * rights handled are the ones the running kernel knows (its ABI); a
 * kernel without Landlock runs the service with the other two layers,
 * and the log says so.  Connecting to the broker's ipc socket is not a
 * file right Landlock handles, so the runtime folder need not be given.
 *
 * Where the kernel's Landlock has scopes (ABI 6), the service's domain
 * is also scoped: it cannot signal a process outside it (the broker, the
 * other services, the user's programs) nor connect to an abstract Unix
 * socket made outside it.  A service with `exec` gets the scopes alone,
 * without file rules.
 *
 * The seccomp filter answers EPERM (EACCES for a refused socket) rather
 * than killing: a library that probes a call gets an error it handles,
 * and the service keeps serving.  Under AddressSanitizer ptrace stays
 * allowed: LeakSanitizer's check at exit stops the threads with it.
 *
 * Sealing (hb_confine_seal) comes later, once the service's own sockets
 * to the broker are connected: a second filter, on every thread, refuses
 * any new Unix socket.  A pathname socket is not a file right Landlock
 * handles, and every process of the user listens on one (front.sock, the
 * session bus, ssh-agent): whoever can connect to them acts as the user.
 */
#ifdef __linux__
#define _GNU_SOURCE /* O_PATH, for a rule on a device that cannot be opened */

#include "confine.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
/* ABI 6: the scopes (Debian 12's headers predate them) */
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define SCOPE_SIGNAL (1ULL << 1)
#ifndef SECCOMP_FILTER_FLAG_TSYNC
#define SECCOMP_FILTER_FLAG_TSYNC (1UL << 0)
#endif
#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#define SYS_io_uring_enter 426
#define SYS_io_uring_register 427
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

/* landlock_ruleset_attr as ABI 6 knows it; older kernels are given the
 * prefix they know. */
struct ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

#if defined(__x86_64__)
#define AUDIT_ARCH_HERE AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define AUDIT_ARCH_HERE AUDIT_ARCH_AARCH64
#endif

#define FS_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define FS_FILE                                                                                             \
	(LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_EXECUTE |         \
	 LANDLOCK_ACCESS_FS_TRUNCATE)
#define FS_WRITE                                                                                            \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |     \
	 LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |           \
	 LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SYM)

/* Always readable: the libraries, the system's settings (TLS roots, DNS),
 * the process's own view of itself. */
static const char *const system_read[] = { "/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc",
					    "/proc", "/sys", "/run", "/opt" };

/* The kernel's Landlock ABI, or 0 with *why set: a kernel without it
 * answers ENOSYS or EOPNOTSUPP; EPERM comes from a system-call filter
 * around this process (a container's, or a systemd unit's allow list),
 * which must be named, not taken for an old kernel. */
static int landlock_abi(const char **why)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	if (abi > 0)
		return (int)abi;
	*why = errno == EPERM ? "none (Landlock is refused by a system-call filter around this service: "
				"a container's or a systemd unit's)"
			      : "none (this kernel has no Landlock)";
	return 0;
}

/* The devices a service may use: /dev itself holds /dev/shm, where other
 * programs keep their shared memory. */
static const char *const devices_read[] = { "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
					     "/dev/tty", "/dev/pts" };
static const char *const devices_write[] = { "/dev/null", "/dev/full", "/dev/tty", "/dev/pts" };

/* One path-beneath rule; a path that does not exist is skipped.  A file
 * (not a folder) takes only the rights of a file. */
static int allow(int ruleset, const char *path, uint64_t rights, uint64_t handled, char *err, size_t errlen)
{
	struct landlock_path_beneath_attr rule = { .allowed_access = rights & handled };
	struct stat st;
	int fd = open(path, O_PATH | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? 0 : (snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno)), -1);
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		rule.allowed_access &= FS_FILE;
	rule.parent_fd = fd;
	if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) < 0) {
		snprintf(err, errlen, "Landlock refused a rule for %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* files: 0 for scopes alone (a service that starts programs). */
static int apply_landlock(const struct hb_confine *c, int abi, int files, char *err, size_t errlen)
{
	uint64_t handled = FS_READ | FS_WRITE | LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
			   LANDLOCK_ACCESS_FS_MAKE_BLOCK;
	struct ruleset_attr attr = { 0 };
	size_t attr_size = abi >= 6 ? sizeof attr : abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
	int ruleset, rc = -1;

	if (abi >= 2)
		handled |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		handled |= LANDLOCK_ACCESS_FS_TRUNCATE;
	attr.handled_access_fs = files ? handled : 0;
	if (abi >= 6)
		attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL;
	if ((ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0)) < 0)
		return snprintf(err, errlen, "Landlock: cannot make a ruleset: %s", strerror(errno)), -1;
	if (!files)
		goto seal;
	for (size_t i = 0; i < sizeof system_read / sizeof system_read[0]; i++)
		if (allow(ruleset, system_read[i], FS_READ | LANDLOCK_ACCESS_FS_EXECUTE, handled, err, errlen) < 0)
			goto out;
	for (size_t i = 0; i < sizeof devices_read / sizeof devices_read[0]; i++)
		if (allow(ruleset, devices_read[i], FS_READ, handled, err, errlen) < 0)
			goto out;
	for (size_t i = 0; i < sizeof devices_write / sizeof devices_write[0]; i++)
		if (allow(ruleset, devices_write[i], FS_READ | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE,
			  handled, err, errlen) < 0)
			goto out;
	if (c->read_any && allow(ruleset, "/", FS_READ, handled, err, errlen) < 0)
		goto out;
	for (int i = 0; i < c->nread; i++)
		if (allow(ruleset, c->read[i], FS_READ, handled, err, errlen) < 0)
			goto out;
	for (int i = 0; i < c->nwrite; i++)
		if (allow(ruleset, c->write[i],
			  FS_READ | FS_WRITE | LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE, handled, err,
			  errlen) < 0)
			goto out;
seal:
	if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0) {
		snprintf(err, errlen, "Landlock: cannot restrict this process: %s", strerror(errno));
		goto out;
	}
	rc = 0;
out:
	close(ruleset);
	return rc;
}

/* The calls no service needs.  -1 ends the list. */
static const int denied_calls[] = {
#if !defined(__SANITIZE_ADDRESS__)
	SYS_ptrace,
#endif
	SYS_process_vm_readv, SYS_process_vm_writev, SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot,
	SYS_kexec_load, SYS_kexec_file_load, SYS_init_module, SYS_finit_module, SYS_delete_module, SYS_reboot,
	SYS_swapon, SYS_swapoff, SYS_acct, SYS_bpf, SYS_perf_event_open, SYS_keyctl, SYS_add_key, SYS_request_key,
	SYS_open_by_handle_at, SYS_name_to_handle_at, SYS_userfaultfd, SYS_syslog, SYS_quotactl, SYS_settimeofday,
	SYS_clock_settime, SYS_adjtimex, SYS_clock_adjtime, SYS_fanotify_init, SYS_setns,
	/* io_uring opens and connects sockets without the socket call the
	 * filter sees; pidfd_getfd copies another process's descriptors */
	SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register, SYS_pidfd_getfd,
#ifdef SYS_iopl
	SYS_iopl,
#endif
#ifdef SYS_ioperm
	SYS_ioperm,
#endif
#ifdef SYS_fsopen
	SYS_fsopen, SYS_fsconfig, SYS_fsmount, SYS_fspick, SYS_move_mount, SYS_open_tree,
#endif
	-1,
};

/* Programs, for a service that starts none; namespaces, which only a
 * program's sandbox might want. */
static const int denied_without_exec[] = { SYS_execve, SYS_execveat, SYS_unshare, -1 };

#define MAX_FILTER 160

static int add(struct sock_filter *f, int *n, struct sock_filter ins)
{
	if (*n >= MAX_FILTER)
		return -1;
	f[(*n)++] = ins;
	return 0;
}

static int deny_list(struct sock_filter *f, int *n, const int *calls)
{
	for (; *calls >= 0; calls++)
		if (add(f, n, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)*calls, 0, 1)) < 0 ||
		    add(f, n, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)) < 0)
			return -1;
	return 0;
}

static int apply_seccomp(const struct hb_confine *c, char *err, size_t errlen)
{
#ifdef AUDIT_ARCH_HERE
	struct sock_filter f[MAX_FILTER];
	struct sock_fprog prog;
	int n = 0, ok = 1;

	ok &= add(f, &n, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch))) == 0;
	ok &= add(f, &n, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_HERE, 1, 0)) == 0;
	ok &= add(f, &n, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)) == 0;
	ok &= add(f, &n, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))) == 0;
#if defined(__x86_64__)
	/* the x32 calls, which would pass a list of x86-64 numbers */
	ok &= add(f, &n, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1)) == 0;
	ok &= add(f, &n, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)) == 0;
#endif
	ok &= deny_list(f, &n, denied_calls) == 0;
	if (!c->exec)
		ok &= deny_list(f, &n, denied_without_exec) == 0;
	if (!c->network) {
		/* socket(AF_INET | AF_INET6 | AF_PACKET | AF_NETLINK, ...): refused */
		ok &= add(f, &n, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 6)) == 0;
		ok &= add(f, &n, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]))) == 0;
		ok &= add(f, &n, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 3, 0)) == 0;
		ok &= add(f, &n, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_NETLINK, 2, 0)) == 0;
		ok &= add(f, &n, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, 1, 0)) == 0;
		ok &= add(f, &n, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_PACKET, 0, 1)) == 0;
		ok &= add(f, &n, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES)) == 0;
	}
	ok &= add(f, &n, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)) == 0;
	if (!ok)
		return snprintf(err, errlen, "the seccomp filter does not fit in %d instructions", MAX_FILTER), -1;
	prog.len = (unsigned short)n;
	prog.filter = f;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		return snprintf(err, errlen, "seccomp refused the filter: %s", strerror(errno)), -1;
	return 0;
#else
	(void)c;
	(void)err;
	(void)errlen;
	log_warn(NULL, "confine: no seccomp filter for this processor; the system calls are not restricted");
	return 0;
#endif
}

int hb_confine_apply(const struct hb_confine *c, char *err, size_t errlen)
{
	const char *fs = NULL;
	int abi = landlock_abi(&fs);

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return snprintf(err, errlen, "cannot set no_new_privs: %s", strerror(errno)), -1;
	if (abi > 0 && (!c->exec || abi >= 6)) { /* else fs says why there is no Landlock */
		if (apply_landlock(c, abi, !c->exec, err, errlen) < 0)
			return -1;
		fs = c->read_any ? "read anywhere, write only its folders (Landlock)" : "its folders only (Landlock)";
	}
	if (c->exec)
		fs = "none (it starts programs, which keep their own access)";
	if (apply_seccomp(c, err, errlen) < 0)
		return -1;
	log_info(NULL, "confined: no_new_privs; files: %s; network: %s; programs: %s; signals and abstract sockets: %s",
		 fs, c->network ? "yes" : "none", c->exec ? "yes" : "none",
		 abi >= 6 ? "its own only (Landlock scopes)" : "not scoped (Landlock before ABI 6)");
	return 0;
}

int hb_confine_seal(char *err, size_t errlen)
{
#ifdef AUDIT_ARCH_HERE
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_HERE, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		/* socket(AF_UNIX, ...) */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 2),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 6, 7),
		/* socketpair(AF_UNIX, not SOCK_STREAM, ...): a datagram end
		 * may still send to a named socket */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socketpair, 0, 6),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf), /* the type, without SOCK_CLOEXEC and SOCK_NONBLOCK */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOCK_STREAM, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = (unsigned short)(sizeof f / sizeof f[0]), .filter = f };

	/* every thread: libzmq's and the workers' exist by now */
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0)
		return snprintf(err, errlen, "seccomp refused the sealing filter: %s", strerror(errno)), -1;
	log_info(NULL, "sealed: no new Unix socket from here on");
	return 0;
#else
	(void)err;
	(void)errlen;
	return 0;
#endif
}

#endif
