/*
 * listen_fds - sd_listen_fds() without libsystemd, and launchd's
 * launch_activate_socket() on macOS (only there: the Linux build needs
 * nothing of launchd's).
 *
 * systemd's protocol (sd_listen_fds(3)): LISTEN_PID is the pid the
 * sockets are meant for, LISTEN_FDS how many, and they are the fds from 3
 * on; LISTEN_FDNAMES names them, which the broker does not need (it tells
 * its socket by the path, activation.c).  Variables meant for another pid
 * (a parent that did not unset them) are not ours: no sockets.
 */
#ifdef __APPLE__
/* launch.h pulls in Mach headers whose types strict POSIX mode hides. */
#define _DARWIN_C_SOURCE 1
#endif
#include "listen_fds.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __APPLE__
#include <launch.h>
#endif

/* fd survives exec no more: the services the broker starts must not hold
 * the front socket. */
static int set_cloexec(int fd, char *err, size_t errlen)
{
	int flags = fcntl(fd, F_GETFD);

	if (flags < 0 || fcntl(fd, F_SETFD, flags | FD_CLOEXEC) < 0) {
		snprintf(err, errlen, "the socket passed as fd %d cannot be used: %s", fd, strerror(errno));
		return -1;
	}
	return 0;
}

#ifdef __APPLE__

int listen_fds_take(int *fds, int max, char *err, size_t errlen)
{
	int *got = NULL, rc;
	size_t n = 0;
	int e = launch_activate_socket(LISTEN_FDS_LAUNCHD_NAME, &got, &n);

	/* ESRCH: not started by launchd; ENOENT: a plist without the socket. */
	if (e == ESRCH || e == ENOENT)
		return 0;
	if (e != 0) {
		snprintf(err, errlen, "launchd did not hand over the socket \"%s\" of the plist's Sockets key: %s",
			 LISTEN_FDS_LAUNCHD_NAME, strerror(e));
		return -1;
	}
	rc = (int)n;
	if (n > (size_t)max) {
		snprintf(err, errlen, "launchd passed %zu sockets for \"%s\"; hb-broker takes at most %d",
			 n, LISTEN_FDS_LAUNCHD_NAME, max);
		rc = -1;
	}
	for (size_t i = 0; i < n && rc >= 0; i++)
		if (set_cloexec(got[i], err, errlen) < 0)
			rc = -1;
	for (size_t i = 0; i < n; i++) {
		if (rc < 0)
			close(got[i]);
		else
			fds[i] = got[i];
	}
	free(got);
	return rc;
}

#else

#define LISTEN_FDS_START 3

/* A decimal number >= 0 that fits in a long, or -1. */
static long parse_count(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return errno || end == s || *end || v < 0 ? -1 : v;
}

static int take_from_env(int *fds, int max, char *err, size_t errlen)
{
	const char *pid_s = getenv("LISTEN_PID"), *n_s = getenv("LISTEN_FDS");
	long pid, n;

	if (!pid_s || !n_s)
		return 0;
	pid = parse_count(pid_s);
	n = parse_count(n_s);
	if (pid < 0 || n < 0) {
		snprintf(err, errlen, "LISTEN_PID=%.32s and LISTEN_FDS=%.32s from the service manager are not numbers",
			 pid_s, n_s);
		return -1;
	}
	if (pid != (long)getpid())
		return 0;
	if (n > max) {
		snprintf(err, errlen, "the service manager passed %ld sockets (LISTEN_FDS); hb-broker takes at most %d",
			 n, max);
		return -1;
	}
	for (int i = 0; i < (int)n; i++) {
		int fd = LISTEN_FDS_START + i;

		if (fcntl(fd, F_GETFD) < 0) {
			snprintf(err, errlen, "LISTEN_FDS=%ld, but fd %d is not open", n, fd);
			return -1;
		}
		if (set_cloexec(fd, err, errlen) < 0)
			return -1;
		fds[i] = fd;
	}
	return (int)n;
}

int listen_fds_take(int *fds, int max, char *err, size_t errlen)
{
	int n = take_from_env(fds, max, err, errlen);

	if (unsetenv("LISTEN_PID") < 0 || unsetenv("LISTEN_FDS") < 0 || unsetenv("LISTEN_FDNAMES") < 0) {
		snprintf(err, errlen, "cannot unset the service manager's LISTEN_* variables: %s", strerror(errno));
		return -1;
	}
	return n;
}

#endif
