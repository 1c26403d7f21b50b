/*
 * smallfile - a small regular file read whole, safely.
 *
 * The file is opened with O_NONBLOCK so that a FIFO without a writer does
 * not block open() (a FIFO's open waits for the other end otherwise);
 * fstat on the descriptor, not the name, then says what was opened, so
 * nothing can be swapped in between; only then is O_NONBLOCK cleared, as
 * it means nothing to a regular file.  Reading stops one byte past the
 * bound, so a file that grows while it is read is still refused, never
 * read without end.
 */
#include "smallfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO (a named pipe)";
	if (S_ISDIR(m))
		return "a folder";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/* Up to max + 1 bytes of fd into a new buffer: 0, or -1 with err. */
static int read_all(int fd, const char *path, size_t max, char **out, size_t *len, char *err, size_t errlen)
{
	char *buf = malloc(max + 2);
	size_t n = 0;

	if (!buf) {
		snprintf(err, errlen, "out of memory to read %s", path);
		return -1;
	}
	while (n <= max) {
		ssize_t r = read(fd, buf + n, max + 1 - n);

		if (r == 0)
			break;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "%s cannot be read: %s", path, strerror(errno));
			free(buf);
			return -1;
		}
		n += (size_t)r;
	}
	if (n > max) {
		snprintf(err, errlen, "%s is larger than the %zu bytes such a file can hold: it is not the file "
				      "expected there", path, max);
		free(buf);
		return -1;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int hb_read_small_file(const char *path, size_t max, char **out, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	int fd, flags, rc = -1;

	*out = NULL;
	*len = 0;
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		snprintf(err, errlen, "%s cannot be opened: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		snprintf(err, errlen, "%s cannot be examined: %s", path, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s is %s, not a regular file: it was refused so that reading it cannot "
				      "block", path, kind_of(st.st_mode));
	} else if ((size_t)st.st_size > max) {
		snprintf(err, errlen, "%s is larger than the %zu bytes such a file can hold (%lld bytes): it is "
				      "not the file expected there", path, max, (long long)st.st_size);
	} else if ((flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		snprintf(err, errlen, "%s cannot be read: %s", path, strerror(errno));
	} else if (read_all(fd, path, max, out, len, err, errlen) == 0) {
		rc = 1;
	}
	close(fd);
	return rc;
}
