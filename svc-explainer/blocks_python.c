/*
 * blocks_python - runs Debian's Python 3 once for a building block, with
 * its input on stdin and its time and output bounded (see blocks_python.h).
 */
#include "blocks_python.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "clock.h"

struct run {
	int in, out;          /* our ends: its stdin, its stdout; -1 once closed */
	const char *input;
	size_t input_len, written;
	char *buf;
	size_t len, cap, max;
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int nonblocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ? -1 : 0;
}

/* Feeds more input; closes stdin once all is written or the program no
 * longer reads it (EPIPE: it ended, which its output tells). */
static void feed(struct run *r)
{
	ssize_t n = write(r->in, r->input + r->written, r->input_len - r->written);

	if (n > 0)
		r->written += (size_t)n;
	if ((n < 0 && errno != EAGAIN && errno != EINTR) || r->written == r->input_len)
		close_fd(&r->in);
}

/* Reads what there is: 1 at the end of its output, 0 for more, -1 when
 * over the limit or out of memory. */
static int drain(struct run *r)
{
	if (r->cap - r->len < 4096) {
		size_t cap = r->cap ? r->cap * 2 : 16384;
		char *b = realloc(r->buf, cap);
		if (!b)
			return -1;
		r->buf = b;
		r->cap = cap;
	}
	ssize_t n = read(r->out, r->buf + r->len, r->cap - r->len - 1);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : 1;
	if (n == 0)
		return 1;
	r->len += (size_t)n;
	return r->len > r->max ? -1 : 0;
}

/* The program's exit status once it has ended by the deadline; -1 (after
 * killing its group) when it has not. */
static int reap(pid_t pid, long long deadline)
{
	int status;
	struct timespec tick = { 0, 5 * 1000 * 1000 };

	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		if (w < 0 && errno != EINTR)
			return -1;
		if (hb_monotonic_ms() >= deadline)
			break;
		nanosleep(&tick, NULL);
	}
	(void)killpg(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return -1;
}

/* Pumps input and output until its output ends: 0, -1 on the time limit,
 * -2 on the output limit. */
static int pump(struct run *r, long long deadline)
{
	for (;;) {
		struct pollfd p[2] = { { .fd = r->out, .events = POLLIN }, { .fd = r->in, .events = POLLOUT } };
		long long left = deadline - hb_monotonic_ms();
		int got;

		if (left <= 0)
			return -1;
		got = poll(p, r->in >= 0 ? 2 : 1, (int)left);
		if (got < 0 && errno != EINTR)
			return -1;
		if (got <= 0)
			continue;
		if (r->in >= 0 && (p[1].revents & (POLLOUT | POLLERR | POLLHUP)))
			feed(r);
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			int d = drain(r);
			if (d < 0)
				return -2;
			if (d > 0)
				return 0;
		}
	}
}

int blocks_python(const char *script, const char *input, size_t len, int timeout_ms, size_t max_out, char **out,
		  size_t *out_len, char *err, size_t errlen)
{
	char *argv[] = { BLOCKS_PYTHON, "-I", "-c", (char *)script, NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", "LANG=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1", NULL };
	int in[2] = { -1, -1 }, outp[2] = { -1, -1 }, null = -1, pumped, status;
	long long deadline = hb_monotonic_ms() + timeout_ms;
	struct run r = { .in = -1, .out = -1, .input = input, .input_len = len, .max = max_out };
	char why[256];
	pid_t pid;

	*out = NULL;
	*out_len = 0;
	if (access(BLOCKS_PYTHON, X_OK) != 0) {
		snprintf(err, errlen, "%s is not installed (Debian's python3 package)", BLOCKS_PYTHON);
		return -1;
	}
	if (child_pipe(in) < 0 || child_pipe(outp) < 0 || (null = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "cannot start %s: %s", BLOCKS_PYTHON, strerror(errno));
		goto fail;
	}
	struct child_exec x = { .path = BLOCKS_PYTHON, .argv = argv, .envp = envp, .in = in[0], .out = outp[1],
				.err = null, .keep = -1,
				.flags = CHILD_OWN_GROUP | CHILD_PARENT_DEATH | CHILD_DEFAULT_SIGNALS };
	pid = child_start(&x, why, sizeof why);
	close_fd(&in[0]);
	close_fd(&outp[1]);
	close_fd(&null);
	if (pid < 0) {
		snprintf(err, errlen, "cannot start %s: %s", BLOCKS_PYTHON, why);
		goto fail;
	}
	r.in = in[1];
	r.out = outp[0];
	in[1] = outp[0] = -1;
	if (nonblocking(r.in) < 0 || nonblocking(r.out) < 0) {
		close_fd(&r.in);
		close_fd(&r.out);
		reap(pid, 0);
		snprintf(err, errlen, "cannot talk to %s: %s", BLOCKS_PYTHON, strerror(errno));
		goto fail;
	}
	if (len == 0)
		close_fd(&r.in);
	pumped = pump(&r, deadline);
	close_fd(&r.in);
	close_fd(&r.out);
	status = reap(pid, pumped == 0 ? deadline : 0);
	if (pumped == -2) {
		snprintf(err, errlen, "the highlighter wrote more than %zu bytes and was stopped", max_out);
		goto fail;
	}
	if (pumped < 0 || status < 0) {
		snprintf(err, errlen, "the highlighter took longer than %d ms and was stopped", timeout_ms);
		goto fail;
	}
	if (status != 0) {
		snprintf(err, errlen, "%s ended with status %d", BLOCKS_PYTHON, status);
		goto fail;
	}
	r.buf = r.buf ? r.buf : malloc(1);
	if (!r.buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	r.buf[r.len] = '\0';
	*out = r.buf;
	*out_len = r.len;
	return 0;
fail:
	close_fd(&in[0]);
	close_fd(&in[1]);
	close_fd(&outp[0]);
	close_fd(&outp[1]);
	close_fd(&null);
	free(r.buf);
	return -1;
}
