/*
 * child_pipes - the two pipes of a bridge the broker launched: its output
 * (stdout and stderr), relayed line by line into the broker's log with a
 * key ("codex s-..."), and its status fd (like s6's notification-fd: the
 * bridge finds its number in HB_STATUS_FD and writes the sentence of each
 * failure there, one line each; common/status_fd.h), whose last line is
 * kept as the reason of a start that fails.  Neither is parsed: the log
 * lines pass as they are, whatever their shape.
 */
#ifndef HB_CHILD_PIPES_H
#define HB_CHILD_PIPES_H

#include <poll.h>
#include <stddef.h>

#define CHILD_PIPES_LINE_MAX 2048   /* a longer line of output is logged in pieces */
/* The kept sentence: room for the longest hb_log_error_text writes (1022
 * bytes and its newline), so that one is never kept in pieces. */
#define CHILD_PIPES_STATUS_MAX 1024

struct child_pipes {
	int out, status;                /* the read ends, -1 once closed */
	char key[160];
	char buf[CHILD_PIPES_LINE_MAX];
	size_t len;
	char sbuf[CHILD_PIPES_STATUS_MAX];
	size_t slen;
	char last[CHILD_PIPES_STATUS_MAX]; /* the last sentence on the status fd, or "" */
};

/* Both pipes (close-on-exec, the read ends non-blocking); the child's
 * write ends in *out_w and *status_w, for the caller to close after the
 * fork.  0, or -1 with err (nothing left open). */
int child_pipes_open(struct child_pipes *p, const char *key, int *out_w, int *status_w, char *err, size_t errlen);
/* The open read ends to poll (at most max); how many. */
int child_pipes_poll_fds(const struct child_pipes *p, struct pollfd *fds, int max);
/* fd is readable or closed: 1 when it was one of p's (then read). */
int child_pipes_read(struct child_pipes *p, int fd);
/* The child ended: read what it left, then close both (a grandchild still
 * writing is not waited for). */
void child_pipes_close(struct child_pipes *p);

#endif
