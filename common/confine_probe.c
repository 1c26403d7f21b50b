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
 * exec (a program to start).  The answer is a JSON object with "ok" or
 * the error's name for each.
 */
#include "confine_probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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
	text = json_dumps(out, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(out);
	rc = text ? hb_call_succeed(call, text) : hb_call_fail(call, "out of memory");
	free(text);
	return rc;
}
