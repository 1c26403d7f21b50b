/*
 * lock - flock(2) on <runtime>/hb-broker.lock.  The lock ends with the
 * process, so a crashed broker never leaves a stale lock behind; the fd is
 * close-on-exec so services never inherit it.
 */
#include "lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

int lock_take(const char *path, char *err, size_t errlen)
{
	char pid[32] = "";
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	ssize_t n;

	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		n = read(fd, pid, sizeof pid - 1);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		snprintf(err, errlen, "another hb-broker (pid %s) is already running with %s",
			 pid[0] ? pid : "unknown", path);
		close(fd);
		return -1;
	}
	n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return 0; /* fd intentionally kept open: it is the lock */
}
