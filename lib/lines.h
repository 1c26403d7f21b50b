/*
 * lines - split a byte stream into newline-terminated lines, of any
 * length (a JSON-RPC line can be megabytes), without losing a partial
 * line between reads.
 */
#ifndef HB_LINES_H
#define HB_LINES_H

#include <stddef.h>
#include <sys/types.h>

struct lines {
	char *buf;
	size_t start, len, cap;         /* unread bytes are buf[start..len) */
	int eof;
};

#define LINES_MAX (64u << 20) /* a line longer than this is an error */

void lines_init(struct lines *l);
void lines_free(struct lines *l);
/* Read what fd has; 1 data, 0 end of file, -1 error (errno). */
int lines_fill(struct lines *l, int fd);
/* The next whole line without its '\n' (NUL-terminated, valid until the
 * next lines_fill), or NULL when none is complete.  *len gets its length. */
char *lines_next(struct lines *l, size_t *len);
/* Write all of buf and a newline; 0 or -1. */
int write_line(int fd, const char *buf, size_t len);

#endif
