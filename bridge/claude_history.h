/*
 * claude_history - one page of the agent host's `history` read (the
 * saved Claude transcript, docs/agent-host-pipe.md) and what it says
 * about one message uuid: found, look further back, start again from
 * the newest (the page's anchor left the transcript), or not there.
 * Kept apart from the delivery logic so the search is tested alone.
 */
#ifndef HB_CLAUDE_HISTORY_H
#define HB_CLAUDE_HISTORY_H

#include <jansson.h>

/* Pages of 100 messages read for one search at most: a message the
 * bridge just sent is among the newest, and a handed one among the
 * newest few hundred; the bound keeps a huge transcript from costing a
 * read without end. */
#define CLAUDE_HISTORY_PAGE 100
#define CLAUDE_HISTORY_MAX_PAGES 20

enum claude_history_verdict {
	CLAUDE_HISTORY_FOUND,   /* the message is in the transcript */
	CLAUDE_HISTORY_MORE,    /* not in this page; the next one ends before `before` */
	CLAUDE_HISTORY_RELOAD,  /* the anchor is gone: read again from the newest */
	CLAUDE_HISTORY_ABSENT,  /* not in the transcript (as far as the pages go) */
	CLAUDE_HISTORY_ERROR,   /* the host could not read it: *why says why */
};

/* The request {"id","method":"history","params":{sessionId,cwd,limit,before?}};
 * before may be NULL (the newest page). */
json_t *claude_history_request(const char *id, const char *session, const char *cwd, const char *before);

/* Judge the host's answer to one request: the uuid of the oldest message
 * of the page goes to before (for MORE); *why (for ERROR) points into
 * answer. */
enum claude_history_verdict claude_history_judge(const json_t *answer, const char *uuid, char *before,
						 size_t before_len, const char **why);

/* The message of the answer's page that is message uuid (its uuid, or one
 * of the envelopes it joins), or NULL; it belongs to answer. */
const json_t *claude_history_message(const json_t *answer, const char *uuid);

#endif
