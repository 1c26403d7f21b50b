/*
 * child_pipes - see child_pipes.h.  Reads never block: what is in a pipe
 * is taken, a partial line waits for its end (or for the pipe's).
 */
#include "child_pipes.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static int nonblocking_pipe(int fd[2])
{
	if (pipe(fd) < 0)
		return -1;
	if (fcntl(fd[0], F_SETFD, FD_CLOEXEC) < 0 || fcntl(fd[1], F_SETFD, FD_CLOEXEC) < 0 ||
	    fcntl(fd[0], F_SETFL, O_NONBLOCK) < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	return 0;
}

int child_pipes_open(struct child_pipes *p, const char *key, int *out_w, int *status_w, char *err, size_t errlen)
{
	int out[2], status[2];

	memset(p, 0, sizeof *p);
	p->out = p->status = -1;
	snprintf(p->key, sizeof p->key, "%s", key);
	if (nonblocking_pipe(out) < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	if (nonblocking_pipe(status) < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		close(out[0]);
		close(out[1]);
		return -1;
	}
	p->out = out[0];
	p->status = status[0];
	*out_w = out[1];
	*status_w = status[1];
	return 0;
}

static void output_line(struct child_pipes *p, const char *line)
{
	hb_log(HB_LOG_INFO, p->key, "%s", line);
}

static void status_line(struct child_pipes *p, const char *line)
{
	if (*line)
		snprintf(p->last, sizeof p->last, "%s", line);
}

/* Read what fd has into buf (of size, *len used), each whole line to
 * take; at the end of the pipe the rest too, and fd is closed (-1). */
static void drain(int *fd, char *buf, size_t size, size_t *len, struct child_pipes *p,
		  void (*take)(struct child_pipes *, const char *))
{
	for (;;) {
		ssize_t n = read(*fd, buf + *len, size - 1 - *len);
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0 || errno != EAGAIN) {
				if (*len) {
					buf[*len] = '\0';
					take(p, buf);
					*len = 0;
				}
				close(*fd);
				*fd = -1;
			}
			return;
		}
		*len += (size_t)n;
		buf[*len] = '\0';
		while ((nl = strchr(buf, '\n'))) {
			*nl = '\0';
			take(p, buf);
			*len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, *len + 1);
		}
		if (*len == size - 1) {
			take(p, buf);
			*len = 0;
		}
	}
}

int child_pipes_poll_fds(const struct child_pipes *p, struct pollfd *fds, int max)
{
	int n = 0;

	if (p->out >= 0 && n < max)
		fds[n++] = (struct pollfd){ .fd = p->out, .events = POLLIN };
	if (p->status >= 0 && n < max)
		fds[n++] = (struct pollfd){ .fd = p->status, .events = POLLIN };
	return n;
}

int child_pipes_read(struct child_pipes *p, int fd)
{
	if (fd < 0)
		return 0;
	if (fd == p->out)
		drain(&p->out, p->buf, sizeof p->buf, &p->len, p, output_line);
	else if (fd == p->status)
		drain(&p->status, p->sbuf, sizeof p->sbuf, &p->slen, p, status_line);
	else
		return 0;
	return 1;
}

void child_pipes_close(struct child_pipes *p)
{
	if (p->out >= 0)
		drain(&p->out, p->buf, sizeof p->buf, &p->len, p, output_line);
	if (p->status >= 0)
		drain(&p->status, p->sbuf, sizeof p->sbuf, &p->slen, p, status_line);
	if (p->out >= 0)
		close(p->out);
	if (p->status >= 0)
		close(p->status);
	p->out = p->status = -1;
}
