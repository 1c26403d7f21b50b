/*
 * line_child - see line_child.h.  Waits poll at most a second at a time,
 * so a deadline is looked at at least that often.
 */
#include "line_child.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"

int line_child_start(struct line_child *lc, char *const argv[], char *const envp[], int flags, char *err,
		     size_t errlen)
{
	int child_flags = flags & LINE_CHILD_OUR_GROUP ? flags & ~LINE_CHILD_OUR_GROUP : flags | CHILD_OWN_GROUP;

	memset(lc, 0, sizeof *lc);
	if (child_spawn(&lc->child, argv, envp, child_flags, err, errlen) < 0)
		return -1;
	lines_init(&lc->lines);
	lc->own_group = !(flags & LINE_CHILD_OUR_GROUP);
	lc->next_id = 1;
	lc->in_open = 1;
	return 0;
}

void line_child_close_input(struct line_child *lc)
{
	if (lc->in_open) {
		close(lc->child.in);
		lc->child.in = -1;
		lc->in_open = 0;
	}
}

int line_child_send_text(struct line_child *lc, const char *line, size_t len)
{
	if (!lc->in_open)
		return -1;
	if (write_line(lc->child.in, line, len) < 0) {
		line_child_close_input(lc);
		return -1;
	}
	return 0;
}

int line_child_send(struct line_child *lc, json_t *msg)
{
	char *text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
	int rc = text ? line_child_send_text(lc, text, strlen(text)) : -1;

	free(text);
	json_decref(msg);
	return rc;
}

int line_child_fd(const struct line_child *lc)
{
	return lc->child.out;
}

/* The whole lines read so far into on_line. */
static void hand_lines(struct line_child *lc, line_child_fn on_line, void *ctx)
{
	size_t len;
	char *line;

	while ((line = lines_next(&lc->lines, &len)))
		if (on_line)
			on_line(ctx, line, len);
}

int line_child_read(struct line_child *lc, line_child_fn on_line, void *ctx)
{
	int n = lines_fill(&lc->lines, lc->child.out), saved = errno;

	hand_lines(lc, on_line, ctx);
	errno = saved;
	return n > 0 ? 1 : n;
}

/* Wait until the output is readable (or ended) or deadline: 1, 0 when
 * time is up, -1. */
static int wait_readable(int fd, long long deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	for (;;) {
		long long left = deadline - hb_monotonic_ms();
		int n;

		if (left <= 0)
			return 0;
		n = poll(&pfd, 1, left > 1000 ? 1000 : (int)left);
		if (n > 0)
			return 1;
		if (n < 0 && errno != EINTR)
			return -1;
	}
}

json_t *line_child_wait_answer(struct line_child *lc, const json_t *id, long long deadline_ms,
			       line_child_fn on_other, void *ctx, enum line_child_miss *miss)
{
	for (;;) {
		size_t len;
		char *line;
		int n;

		while ((line = lines_next(&lc->lines, &len))) {
			json_t *msg = json_loadb(line, len, 0, NULL);

			if (json_is_object(msg) && json_equal(json_object_get(msg, "id"), (json_t *)id) &&
			    !json_object_get(msg, "method"))
				return msg;
			json_decref(msg);
			if (on_other)
				on_other(ctx, line, len);
		}
		if ((n = wait_readable(lc->child.out, deadline_ms)) <= 0) {
			*miss = n == 0 ? LINE_CHILD_TIMED_OUT : LINE_CHILD_UNREADABLE;
			return NULL;
		}
		if ((n = lines_fill(&lc->lines, lc->child.out)) <= 0) {
			*miss = n == 0 ? LINE_CHILD_ENDED : LINE_CHILD_UNREADABLE;
			return NULL;
		}
	}
}

json_t *line_child_call(struct line_child *lc, const char *method, json_t *params, long long deadline_ms,
			line_child_fn on_other, void *ctx, enum line_child_miss *miss)
{
	json_t *id = json_integer((json_int_t)lc->next_id++), *req = json_pack("{s:s}", "method", method), *ans;

	*miss = 0;
	if (!id || !req || json_object_set(req, "id", id) < 0 ||
	    (params && json_object_set(req, "params", params) < 0)) {
		json_decref(id);
		json_decref(req);
		return NULL;
	}
	/* A child that is gone fails the write, which shows as the end of
	 * its output, read next. */
	(void)line_child_send(lc, req);
	ans = line_child_wait_answer(lc, id, deadline_ms, on_other, ctx, miss);
	json_decref(id);
	return ans;
}

int line_child_end(struct line_child *lc, int grace_ms)
{
	long long deadline = hb_monotonic_ms() + grace_ms;

	line_child_close_input(lc);
	/* Let the child end by itself, then end its group. */
	while (wait_readable(lc->child.out, deadline) > 0 && lines_fill(&lc->lines, lc->child.out) > 0)
		hand_lines(lc, NULL, NULL);
	if (lc->own_group)
		kill(-lc->child.pid, SIGKILL);
	close(lc->child.out);
	lines_free(&lc->lines);
	return child_wait(&lc->child);
}
