/*
 * regular_file - see regular_file.h.  fstat on the opened descriptor, not
 * stat on the name, so that what is judged is what is read; and the read
 * stops one byte past the bound, so a file that grew after the fstat is
 * still refused rather than read whole.
 */
#include "regular_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file that is not a regular one is, in words. */
static const char *kind_of(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO (named pipe)";
	if (S_ISDIR(mode))
		return "a folder";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a plain file";
}

/* Read up to max+1 bytes of fd into a new buffer; -1 with errno. */
static char *read_bounded(int fd, size_t max, size_t *got)
{
	char *buf = malloc(max + 2);
	size_t n = 0;

	if (!buf)
		return NULL;
	while (n <= max) {
		ssize_t r = read(fd, buf + n, max + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int saved = errno;
			free(buf);
			errno = saved;
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*got = n;
	return buf;
}

int hb_read_regular_file(const char *path, size_t max_bytes, char **out, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	size_t got = 0;
	char *buf;
	int fd, saved;

	*out = NULL;
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0) {
		saved = errno;
		snprintf(err, errlen, saved == ENOENT ? "%s does not exist" : "cannot open %s: %s", path,
			 strerror(saved));
		errno = saved;
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		saved = errno;
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(saved));
		close(fd);
		errno = saved;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s is %s, not a regular file; replace it with a plain file or delete it",
			 path, kind_of(st.st_mode));
		close(fd);
		errno = EINVAL;
		return -1;
	}
	if (st.st_size > 0 && (unsigned long long)st.st_size > max_bytes) {
		snprintf(err, errlen, "%s is %lld bytes, more than the %zu bytes it may have; fix or delete it",
			 path, (long long)st.st_size, max_bytes);
		close(fd);
		errno = EFBIG;
		return -1;
	}
	buf = read_bounded(fd, max_bytes, &got);
	saved = errno;
	close(fd);
	if (!buf) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(saved));
		errno = saved;
		return -1;
	}
	if (got > max_bytes) {
		snprintf(err, errlen, "%s is more than the %zu bytes it may have; fix or delete it", path, max_bytes);
		free(buf);
		errno = EFBIG;
		return -1;
	}
	*out = buf;
	if (len)
		*len = got;
	return 0;
}
