/*
 * activation - accept the front socket from the service manager only when
 * it is what the broker would have bound: a listening AF_UNIX stream
 * socket bound to front.sock in the broker's runtime folder (which main
 * has made private before), its file a socket of this user that no one
 * else may open.  Anything else is refused and the broker does not start:
 * listening on a socket somebody else chose would answer clients we do not
 * know, or leave ours talking to nobody (docs/deploying.md, "Socket
 * activation").  listen_fds.c takes the sockets; this file judges them.
 */
#include "activation.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "listen_fds.h"

/* More than one is refused; a few more are taken so that they are closed. */
#define ACTIVATION_FDS_MAX 8

static int sock_option(int fd, int option, int *value)
{
	socklen_t len = sizeof *value;

	return getsockopt(fd, SOL_SOCKET, option, value, &len);
}

/* The name fd is bound to, into name; -1 with err when it has none. */
static int bound_path(int fd, char *name, size_t namelen, char *err, size_t errlen)
{
	struct sockaddr_un addr;
	socklen_t len = sizeof addr;
	size_t off = offsetof(struct sockaddr_un, sun_path), n;

	memset(&addr, 0, sizeof addr);
	if (getsockname(fd, (struct sockaddr *)&addr, &len) < 0) {
		snprintf(err, errlen, "cannot read the address of fd %d: %s", fd, strerror(errno));
		return -1;
	}
	if (addr.sun_family != AF_UNIX) {
		snprintf(err, errlen, "fd %d is not a Unix socket (AF_UNIX), e.g. a TCP one", fd);
		return -1;
	}
	n = len > off ? strnlen(addr.sun_path, len - off) : 0;
	if (n == 0) {
		snprintf(err, errlen, "fd %d is bound to no path (unnamed or abstract)", fd);
		return -1;
	}
	if (n >= namelen)
		n = namelen - 1;
	memcpy(name, addr.sun_path, n);
	name[n] = '\0';
	return 0;
}

/* The socket file at path: this user's, a socket, no one else may connect to. */
static int check_file(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "%s is not a socket file", path);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s belongs to uid %ld, not to you (uid %ld)", path, (long)st.st_uid,
			 (long)geteuid());
		return -1;
	}
	/* Connecting takes write permission on the socket file. */
	if (st.st_mode & 022) {
		snprintf(err, errlen,
			 "%s has mode %04o: others may connect (want no write permission for group and others, "
			 "e.g. SocketMode=0600)",
			 path, (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int check_one(int fd, const char *path, char *err, size_t errlen)
{
	char name[sizeof ((struct sockaddr_un *)0)->sun_path + 1], why[320];
	struct stat st;
	int type = 0, listening = 0;

	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "fd %d is not a socket", fd);
		return -1;
	}
	if (bound_path(fd, name, sizeof name, err, errlen) < 0)
		return -1;
	if (sock_option(fd, SO_TYPE, &type) < 0 || type != SOCK_STREAM) {
		snprintf(err, errlen, "fd %d (%s) is not a stream socket (ListenStream=, not ListenDatagram=)", fd, name);
		return -1;
	}
	/* Checked here, not left to ZeroMQ: libzmq 4.3 aborts the process
	 * (ipc_listener.cpp's assert) on a passed socket that does not listen. */
	if (sock_option(fd, SO_ACCEPTCONN, &listening) < 0 || !listening) {
		snprintf(err, errlen, "fd %d (%s) is not listening", fd, name);
		return -1;
	}
	/* The same file, not only the same string: a parent may be a link
	 * (/tmp on macOS), and the runtime folder may be named with "//". */
	if (strcmp(name, path) != 0 && !same_file(name, path)) {
		snprintf(err, errlen, "fd %d is bound to %s, not to %s (front.sock in the runtime folder)", fd, name, path);
		return -1;
	}
	if (check_file(path, why, sizeof why) < 0) {
		snprintf(err, errlen, "fd %d: %s", fd, why);
		return -1;
	}
	return 0;
}

int activation_front_fd(const char *path, int *fd, char *err, size_t errlen)
{
	int fds[ACTIVATION_FDS_MAX], n, rc = 0;
	char why[400];

	n = listen_fds_take(fds, ACTIVATION_FDS_MAX, why, sizeof why);
	if (n < 0) {
		snprintf(err, errlen, "socket activation refused: %s", why);
		return -1;
	}
	if (n == 0)
		return 0;
	if (n > 1) {
		snprintf(err, errlen,
			 "socket activation refused: the service manager passed %d sockets; hb-broker takes one, %s",
			 n, path);
		rc = -1;
	} else if (check_one(fds[0], path, why, sizeof why) < 0) {
		snprintf(err, errlen, "socket activation refused: %s; not starting rather than listening on another socket",
			 why);
		rc = -1;
	}
	if (rc < 0) {
		for (int i = 0; i < n; i++)
			close(fds[i]);
		return -1;
	}
	*fd = fds[0];
	return 1;
}
