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
 * The seccomp filter answers EPERM (EACCES for a refused socket) rather
 * than killing: a library that probes a call gets an error it handles,
 * and the service keeps serving.  Under AddressSanitizer ptrace stays
 * allowed: LeakSanitizer's check at exit stops the threads with it.
 */
#ifdef __linux__

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

#if defined(__x86_64__)
#define AUDIT_ARCH_HERE AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define AUDIT_ARCH_HERE AUDIT_ARCH_AARCH64
#endif

#define FS_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
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

/* One path-beneath rule; a path that does not exist is skipped. */
static int allow(int ruleset, const char *path, uint64_t rights, uint64_t handled, char *err, size_t errlen)
{
	struct landlock_path_beneath_attr rule = { .allowed_access = rights & handled };
	int fd = open(path, O_RDONLY | O_CLOEXEC); /* O_PATH is a GNU name */

	if (fd < 0)
		return errno == ENOENT ? 0 : (snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno)), -1);
	rule.parent_fd = fd;
	if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) < 0) {
		snprintf(err, errlen, "Landlock refused a rule for %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int apply_landlock(const struct hb_confine *c, int abi, char *err, size_t errlen)
{
	uint64_t handled = FS_READ | FS_WRITE | LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
			   LANDLOCK_ACCESS_FS_MAKE_BLOCK;
	struct landlock_ruleset_attr attr = { 0 };
	int ruleset, rc = -1;

	if (abi >= 2)
		handled |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		handled |= LANDLOCK_ACCESS_FS_TRUNCATE;
	attr.handled_access_fs = handled;
	if ((ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0)) < 0)
		return snprintf(err, errlen, "Landlock: cannot make a ruleset: %s", strerror(errno)), -1;
	for (size_t i = 0; i < sizeof system_read / sizeof system_read[0]; i++)
		if (allow(ruleset, system_read[i], FS_READ | LANDLOCK_ACCESS_FS_EXECUTE, handled, err, errlen) < 0)
			goto out;
	/* /dev/null, /dev/urandom, a terminal */
	if (allow(ruleset, "/dev", FS_READ | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE, handled,
		  err, errlen) < 0 ||
	    (c->read_any && allow(ruleset, "/", FS_READ, handled, err, errlen) < 0))
		goto out;
	for (int i = 0; i < c->nread; i++)
		if (allow(ruleset, c->read[i], FS_READ, handled, err, errlen) < 0)
			goto out;
	for (int i = 0; i < c->nwrite; i++)
		if (allow(ruleset, c->write[i],
			  FS_READ | FS_WRITE | LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE, handled, err,
			  errlen) < 0)
			goto out;
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
		/* socket(AF_INET | AF_INET6 | AF_PACKET, ...): refused */
		ok &= add(f, &n, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 5)) == 0;
		ok &= add(f, &n, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]))) == 0;
		ok &= add(f, &n, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 2, 0)) == 0;
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
	if (c->exec) {
		fs = "none (it starts programs, which keep their own access)";
	} else if (abi > 0) { /* else fs says why there is no Landlock */
		if (apply_landlock(c, abi, err, errlen) < 0)
			return -1;
		fs = c->read_any ? "read anywhere, write only its folders (Landlock)" : "its folders only (Landlock)";
	}
	if (apply_seccomp(c, err, errlen) < 0)
		return -1;
	log_info(NULL, "confined: no_new_privs; files: %s; network: %s; programs: %s", fs,
		 c->network ? "yes" : "none", c->exec ? "yes" : "none");
	return 0;
}

#endif
