/*
 * claude_lastread - see claude_lastread.h.  Synchronous: the bridge's
 * loop has ended when it is needed, and nothing else waits on the bridge
 * but its own exit.  The pages are judged as the live reads' are
 * (claude_history.c).
 */
#include "claude_lastread.h"

#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "claude_history.h"
#include "clock.h"
#include "lines.h"
#include "log.h"

#define READ_ID "hb-last-read"

static int ask(int fd, const char *session, const char *cwd, const char *before)
{
	json_t *req = claude_history_request(READ_ID, session, cwd, before);
	char *text = req ? json_dumps(req, JSON_COMPACT) : NULL;
	int rc = text && write_line(fd, text, strlen(text)) == 0 ? 0 : -1;

	free(text);
	json_decref(req);
	return rc;
}

/* The host's answer to our read (other lines skipped), or NULL at its
 * end, an error or the deadline. */
static json_t *answer(struct child *c, struct lines *l, long long deadline)
{
	for (;;) {
		struct pollfd p = { c->out, POLLIN, 0 };
		long long left = deadline - hb_monotonic_ms();
		size_t len;
		char *line;

		while ((line = lines_next(l, &len))) {
			json_t *m = json_loadb(line, len, 0, NULL);
			if (m && json_is_string(json_object_get(m, "id")) &&
			    strcmp(json_string_value(json_object_get(m, "id")), READ_ID) == 0)
				return m;
			json_decref(m);
		}
		if (left <= 0)
			return NULL;
		if (poll(&p, 1, (int)(left > 1000 ? 1000 : left)) < 0 && errno != EINTR)
			return NULL;
		if ((p.revents & (POLLIN | POLLHUP)) && lines_fill(l, c->out) <= 0)
			return NULL;
	}
}

/* Page through the transcript; the verdict's number as claude_last_read. */
static int search(struct child *c, const char *session, const char *cwd, const char *uuid, long long deadline,
		  char *why, size_t whylen)
{
	struct lines l;
	char before[64];
	int pages = 0, reloads = 0, found = -1;
	const char *because;
	json_t *m = NULL;

	lines_init(&l);
	snprintf(why, whylen, "the new agent host did not answer the read");
	if (ask(c->in, session, cwd, NULL) < 0)
		goto out;
	while ((m = answer(c, &l, deadline))) {
		enum claude_history_verdict v = claude_history_judge(m, uuid, before, sizeof before, &because);
		if (v == CLAUDE_HISTORY_FOUND || v == CLAUDE_HISTORY_ABSENT) {
			found = v == CLAUDE_HISTORY_FOUND;
			break;
		}
		if (v == CLAUDE_HISTORY_ERROR) {
			snprintf(why, whylen, "%s", because);
			break;
		}
		if (v == CLAUDE_HISTORY_MORE ? ++pages >= CLAUDE_HISTORY_MAX_PAGES : ++reloads > 3) {
			found = 0;
			break;
		}
		if (ask(c->in, session, cwd, v == CLAUDE_HISTORY_MORE ? before : NULL) < 0)
			break;
		json_decref(m);
	}
	json_decref(m);
out:
	lines_free(&l);
	return found;
}

int claude_last_read(char *const host_argv[], const char *session, const char *cwd, const char *uuid, int limit_ms,
		     char *why, size_t whylen)
{
	struct child c;
	char err[256];
	int found;

	if (child_spawn(&c, host_argv, NULL, CHILD_OWN_GROUP, err, sizeof err) < 0) {
		snprintf(why, whylen, "a new agent host for the final read did not start: %s", err);
		return -1;
	}
	log_info(NULL, "the agent host ended: a new one makes the final transcript read");
	found = search(&c, session, cwd, uuid, hb_monotonic_ms() + limit_ms, why, whylen);
	close(c.in); /* its end of input ends it */
	{
		struct lines l;
		long long deadline = hb_monotonic_ms() + 3000;
		json_t *m;

		lines_init(&l);
		while ((m = answer(&c, &l, deadline))) /* drain until it is gone */
			json_decref(m);
		lines_free(&l);
	}
	kill(-c.pid, SIGKILL);
	close(c.out);
	child_wait(&c);
	return found;
}
