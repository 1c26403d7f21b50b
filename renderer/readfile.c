/*
 * readfile - a whole small file into memory (readfile.h).
 *
 * The size comes from fstat on the open file, and the read stops at that
 * size plus one byte, so a file that grows while it is read cannot make
 * the reader allocate or take more than it checked.
 */
#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads up to cap bytes; the count, or -1 with errno. */
static ssize_t read_up_to(int fd, char *buf, size_t cap)
{
	size_t got = 0;

	while (got < cap) {
		ssize_t r = read(fd, buf + got, cap - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

char *read_small_file(const char *path, size_t max, enum readfile_links links, size_t *len, char *err,
		      size_t errlen)
{
	int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | (links == READFILE_NOFOLLOW ? O_NOFOLLOW : 0);
	int fd = open(path, flags);
	char *buf = NULL;
	struct stat st;
	ssize_t got;

	if (fd < 0) {
		int open_errno = errno;
		if (errno == ENOENT)
			snprintf(err, errlen, "does not exist");
		else if (errno == ELOOP && links == READFILE_NOFOLLOW)
			snprintf(err, errlen, "is a symbolic link; put the file itself in the folder");
		else
			snprintf(err, errlen, "cannot be opened: %s", strerror(errno));
		errno = open_errno;
		return NULL;
	}
	if (fstat(fd, &st) < 0) {
		snprintf(err, errlen, "cannot be read: %s", strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "is not a regular file");
	} else if ((unsigned long long)st.st_size > max) {
		snprintf(err, errlen, "has %lld bytes, more than the %zu it may have", (long long)st.st_size,
			 max);
	} else if (!(buf = malloc((size_t)st.st_size + 2))) {
		snprintf(err, errlen, "is too big to read into memory (%lld bytes)", (long long)st.st_size);
	} else if ((got = read_up_to(fd, buf, (size_t)st.st_size + 1)) < 0) {
		snprintf(err, errlen, "cannot be read: %s", strerror(errno));
		free(buf);
		buf = NULL;
	} else if ((size_t)got > (size_t)st.st_size) {
		snprintf(err, errlen, "changed while it was read");
		free(buf);
		buf = NULL;
	} else {
		buf[got] = '\0';
		*len = (size_t)got;
	}
	close(fd);
	return buf;
}
