/*
 * claude_lastread - see claude_lastread.h.  Synchronous: the bridge's
 * loop has ended when it is needed, and nothing else waits on the bridge
 * but its own exit.  The pages are judged as the live reads' are
 * (claude_history.c).
 */
#include "claude_lastread.h"

#include <jansson.h>
#include <stdio.h>

#include "claude_history.h"
#include "clock.h"
#include "line_child.h"
#include "log.h"

#define READ_ID "hb-last-read"

static int ask(struct line_child *lc, const char *session, const char *cwd, const char *before)
{
	return line_child_send(lc, claude_history_request(READ_ID, session, cwd, before));
}

/* The host's answer to our read (other lines skipped), or NULL at its
 * end, an error or the deadline. */
static json_t *answer(struct line_child *lc, long long deadline)
{
	json_t *id = json_string(READ_ID), *m;
	enum line_child_miss miss;

	m = id ? line_child_wait_answer(lc, id, deadline, NULL, NULL, &miss) : NULL;
	json_decref(id);
	return m;
}

/* Page through the transcript; the verdict's number as claude_last_read. */
static int search(struct line_child *lc, const char *session, const char *cwd, const char *uuid, long long deadline,
		  char *why, size_t whylen)
{
	char before[64];
	int pages = 0, reloads = 0, found = -1;
	const char *because;
	json_t *m = NULL;

	snprintf(why, whylen, "the new agent host did not answer the read");
	if (ask(lc, session, cwd, NULL) < 0)
		return found;
	while ((m = answer(lc, deadline))) {
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
		if (ask(lc, session, cwd, v == CLAUDE_HISTORY_MORE ? before : NULL) < 0)
			break;
		json_decref(m);
	}
	json_decref(m);
	return found;
}

int claude_last_read(char *const host_argv[], const char *session, const char *cwd, const char *uuid, int limit_ms,
		     char *why, size_t whylen)
{
	struct line_child lc;
	char err[256];
	int found;

	if (line_child_start(&lc, host_argv, NULL, 0, err, sizeof err) < 0) {
		snprintf(why, whylen, "a new agent host for the final read did not start: %s", err);
		return -1;
	}
	log_info(NULL, "the agent host ended: a new one makes the final transcript read");
	found = search(&lc, session, cwd, uuid, hb_monotonic_ms() + limit_ms, why, whylen);
	line_child_end(&lc, 3000); /* its end of input ends it */
	return found;
}
