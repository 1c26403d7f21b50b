/*
 * lines - a growing buffer with a read position.  Lines handed out stay
 * in place until the next fill, which first moves the unread rest to the
 * front, so reading many lines is linear.
 */
#include "lines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

void lines_init(struct lines *l)
{
	memset(l, 0, sizeof *l);
}

void lines_free(struct lines *l)
{
	free(l->buf);
	lines_init(l);
}

int lines_fill(struct lines *l, int fd)
{
	ssize_t n;

	if (l->start) {
		memmove(l->buf, l->buf + l->start, l->len - l->start);
		l->len -= l->start;
		l->start = 0;
	}
	if (l->cap - l->len < 65536) {
		size_t cap = l->cap ? l->cap * 2 : 131072;
		char *b;
		if (l->len > LINES_MAX) {
			errno = EMSGSIZE; /* one line longer than any agent sends */
			return -1;
		}
		if (!(b = realloc(l->buf, cap)))
			return -1;
		l->buf = b;
		l->cap = cap;
	}
	do
		n = read(fd, l->buf + l->len, l->cap - l->len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if (n == 0) {
		l->eof = 1;
		return 0;
	}
	l->len += (size_t)n;
	return 1;
}

char *lines_next(struct lines *l, size_t *len)
{
	char *line, *nl;

	if (l->start >= l->len)
		return NULL;
	line = l->buf + l->start;
	if (!(nl = memchr(line, '\n', l->len - l->start)))
		return NULL;
	*nl = '\0';
	*len = (size_t)(nl - line);
	l->start += *len + 1;
	return line;
}

int write_line(int fd, const char *buf, size_t len)
{
	struct iovec iov[2] = { { (void *)buf, len }, { (void *)"\n", 1 } };
	size_t left = len + 1;

	while (left) {
		ssize_t n = writev(fd, iov, 2);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		left -= (size_t)n;
		for (int i = 0; i < 2 && n > 0; i++) {
			size_t take = (size_t)n < iov[i].iov_len ? (size_t)n : iov[i].iov_len;
			iov[i].iov_base = (char *)iov[i].iov_base + take;
			iov[i].iov_len -= take;
			n -= (ssize_t)take;
		}
	}
	return 0;
}
