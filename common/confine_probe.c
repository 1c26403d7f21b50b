/*
 * confine_probe - a test-only tool that tries, from inside a service,
 * what its confinement should refuse or allow, and says what happened:
 * the tests' way to show that each family is confined as declared
 * (tests/integration/itest_confine.c).  It exists only when the broker's
 * environment sets HB_CONFINE_PROBE=1 (the service loop then serves it as
 * confine_probe_<service>), like HB_FAILPOINTS.
 *
 * Arguments, each optional: read (a path to open for reading), write (a
 * path to create and write), connect ("a.b.c.d:port", a TCP connection),
 * exec (a program to start), and the attacks of a service that would act
 * as the user: unix (a path: a new Unix socket connected to it, e.g.
 * front.sock), dgram (true: a datagram socket pair, which could send to a
 * named socket), io_uring (true: a ring, which makes sockets past the
 * filter), netlink (true: a netlink socket), signal (pids to kill with
 * signal 0).  The answer is a JSON object with "ok" or the error's name
 * for each (signal: one per pid, in order), and with environ (true) the
 * names of its environment, with fds (true) the Unix socket addresses its
 * own descriptors are bound or connected to.
 */
#include "confine_probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *outcome(int rc, int err)
{
	return rc == 0 ? "ok" : err == EACCES ? "EACCES" : err == EPERM ? "EPERM" : strerror(err);
}

static const char *try_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e = errno;

	if (fd >= 0)
		close(fd);
	return outcome(fd < 0 ? -1 : 0, e);
}

static const char *try_write(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), e = errno, rc = -1;

	if (fd >= 0) {
		rc = write(fd, "probe\n", 6) == 6 ? 0 : -1;
		e = errno;
		close(fd);
	}
	return outcome(rc, e);
}

static const char *try_connect(const char *where)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char host[64];
	const char *colon = strrchr(where, ':');
	int fd, rc, e;

	if (!colon || (size_t)(colon - where) >= sizeof host)
		return "bad address";
	memcpy(host, where, (size_t)(colon - where));
	host[colon - where] = '\0';
	sa.sin_port = htons((unsigned short)atoi(colon + 1));
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		return "bad address";
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return outcome(-1, errno);
	rc = connect(fd, (struct sockaddr *)&sa, sizeof sa);
	e = errno;
	close(fd);
	return outcome(rc, e);
}

static const char *try_exec(const char *path)
{
	int fds[2], e = 0, st;
	pid_t pid;

	if (pipe(fds) < 0)
		return outcome(-1, errno);
	if ((pid = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
		return outcome(-1, errno);
	}
	if (pid == 0) {
		char *const argv[] = { (char *)path, NULL };

		close(fds[0]);
		execv(path, argv);
		e = errno;
		if (write(fds[1], &e, sizeof e) < 0)
			_exit(126);
		_exit(127);
	}
	close(fds[1]);
	if (read(fds[0], &e, sizeof e) != (ssize_t)sizeof e)
		e = 0; /* the pipe closed on exec: it started */
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return outcome(e ? -1 : 0, e);
}

static const char *try_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, rc, e;

	if (strlen(path) >= sizeof sa.sun_path)
		return "bad address";
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return outcome(-1, errno);
	rc = connect(fd, (struct sockaddr *)&sa, sizeof sa);
	e = errno;
	close(fd);
	return outcome(rc, e);
}

static const char *try_dgram_pair(void)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
		return outcome(-1, errno);
	close(sv[0]);
	close(sv[1]);
	return "ok";
}

static const char *try_io_uring(void)
{
#ifdef SYS_io_uring_setup
	unsigned char params[120]; /* struct io_uring_params, zeroed */
	long fd;

	memset(params, 0, sizeof params);
	if ((fd = syscall(SYS_io_uring_setup, 4, params)) < 0)
		return outcome(-1, errno);
	close((int)fd);
	return "ok";
#else
	return "ENOSYS";
#endif
}

static const char *try_netlink(void)
{
#ifdef AF_NETLINK
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return outcome(-1, errno);
	close(fd);
	return "ok";
#else
	return "ENOSYS";
#endif
}

static json_t *env_names(void)
{
	extern char **environ;
	json_t *names = json_array();

	for (char **e = environ; *e; e++)
		json_array_append_new(names, json_stringn(*e, strcspn(*e, "=")));
	return names;
}

/* The Unix addresses (path, or @name) this process's sockets are bound or
 * connected to: a descriptor inherited from the broker would show here. */
static json_t *unix_fds(void)
{
	json_t *out = json_array();
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	while (d && (de = readdir(d))) {
		int fd = atoi(de->d_name);

		for (int peer = 0; peer < 2 && de->d_name[0] != '.'; peer++) {
			struct sockaddr_un sa;
			socklen_t len = sizeof sa;
			int rc = peer ? getpeername(fd, (struct sockaddr *)&sa, &len)
				      : getsockname(fd, (struct sockaddr *)&sa, &len);

			if (rc < 0 || sa.sun_family != AF_UNIX || len <= offsetof(struct sockaddr_un, sun_path))
				continue;
			if (sa.sun_path[0] == '\0')
				sa.sun_path[0] = '@';
			json_array_append_new(out, json_stringn(sa.sun_path,
							       strnlen(sa.sun_path, len - offsetof(struct sockaddr_un, sun_path))));
		}
	}
	if (d)
		closedir(d);
	return out;
}

int hb_confine_probe(struct hb_call *call, const json_t *args)
{
	json_t *out = json_object();
	const char *v;
	char *text;
	int rc;

	if ((v = json_string_value(json_object_get(args, "read"))))
		json_object_set_new(out, "read", json_string(try_read(v)));
	if ((v = json_string_value(json_object_get(args, "write"))))
		json_object_set_new(out, "write", json_string(try_write(v)));
	if ((v = json_string_value(json_object_get(args, "connect"))))
		json_object_set_new(out, "connect", json_string(try_connect(v)));
	if ((v = json_string_value(json_object_get(args, "exec"))))
		json_object_set_new(out, "exec", json_string(try_exec(v)));
	if ((v = json_string_value(json_object_get(args, "unix"))))
		json_object_set_new(out, "unix", json_string(try_unix(v)));
	if (json_is_true(json_object_get(args, "dgram")))
		json_object_set_new(out, "dgram", json_string(try_dgram_pair()));
	if (json_is_true(json_object_get(args, "io_uring")))
		json_object_set_new(out, "io_uring", json_string(try_io_uring()));
	if (json_is_true(json_object_get(args, "netlink")))
		json_object_set_new(out, "netlink", json_string(try_netlink()));
	if (json_is_array(json_object_get(args, "signal"))) {
		json_t *pids = json_object_get(args, "signal"), *pid, *got = json_array();
		size_t i;

		json_array_foreach(pids, i, pid) {
			int k = kill((pid_t)json_integer_value(pid), 0), e = errno;

			json_array_append_new(got, json_string(outcome(k, e)));
		}
		json_object_set_new(out, "signal", got);
	}
	if (json_is_true(json_object_get(args, "environ")))
		json_object_set_new(out, "environ", env_names());
	if (json_is_true(json_object_get(args, "fds")))
		json_object_set_new(out, "fds", unix_fds());
	text = json_dumps(out, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(out);
	rc = text ? hb_call_succeed(call, text) : hb_call_fail(call, "out of memory");
	free(text);
	return rc;
}
