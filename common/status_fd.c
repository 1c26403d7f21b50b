/*
 * status_fd - see status_fd.h.  Only a FIFO is taken: a number that
 * names some other descriptor (a stale variable inherited from a shell)
 * must never be written to.
 */
#include "status_fd.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

int hb_status_fd_take(void)
{
	const char *v = getenv("HB_STATUS_FD");
	struct stat st;
	char *end;
	long fd;
	int fl;

	if (!v)
		return -1;
	errno = 0;
	fd = strtol(v, &end, 10);
	unsetenv("HB_STATUS_FD");
	if (errno || end == v || *end || fd < 3 || fd > INT_MAX)
		return -1;
	if (fstat((int)fd, &st) < 0 || !S_ISFIFO(st.st_mode) || (fl = fcntl((int)fd, F_GETFL)) < 0 ||
	    fcntl((int)fd, F_SETFL, fl | O_NONBLOCK) < 0 || fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0)
		return -1;
	return (int)fd;
}
