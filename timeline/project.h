/*
 * project - the two projectors: one Claude SDK message, or one Codex
 * app-server notification, into timeline rows (row.h).
 *
 * Pure: no I/O, no clock.  Each keeps a small bounded state per stream
 * (a live run, or one history read): the open tool rows waiting for their
 * result, and the depth of subagents by their spawning call.  Use one
 * state per stream: a live run's state and a history read's state must
 * not be mixed, since a live API message arrives in pieces and a saved one
 * whole, and the state counts the pieces to give both the same row ids.
 */
#ifndef HB_TIMELINE_PROJECT_H
#define HB_TIMELINE_PROJECT_H

#include <jansson.h>
#include <stddef.h>

#include "row.h"

#define TL_OPEN_MAX   64	/* tool rows waiting for a result */
#define TL_SPAWN_MAX  64	/* subagents whose depth is known */
#define TL_FRAME_MAX  (8u << 20) /* a frame's bytes, for tl_parse_frame */
#define TL_RETRIES_MAX 1000	/* retry rows of one Codex turn */

struct tl_open {
	char id[TL_ID_MAX];
	json_t *row;	/* the call row, completed in place by its result */
};

struct tl_spawn {
	char id[TL_ID_MAX];
	int depth;	/* of the subagent's own rows */
};

#define TL_MSGS_MAX   16	/* API messages whose pieces may still come */

/* An API message's next block index: pieces of several messages
 * interleave when subagents run side by side. */
struct tl_msg_blocks {
	char id[TL_ID_MAX];
	int next;
};

struct tl_claude {
	struct tl_msg_blocks msgs[TL_MSGS_MAX];
	size_t nmsgs, msgs_next;
	struct tl_open open[TL_OPEN_MAX];
	size_t nopen, open_next;
	struct tl_spawn spawn[TL_SPAWN_MAX];
	size_t nspawn, spawn_next;
	json_t *slash;		/* the last slash command row, for its output */
	char turn[TL_ID_MAX];	/* the running turn: its prompt's uuid ("" when none) */
};

struct tl_codex {
	int depth;	/* this thread's depth: 0, or a child thread's (set by the caller) */
	char thread[TL_ID_MAX];	/* a child thread's id, its rows' "thread" ("" for the conversation's) */
	struct tl_open open[TL_OPEN_MAX];	/* items with deltas in flight */
	size_t nopen, open_next;
	char turn[TL_ID_MAX];	/* the running turn's id ("" when none) */
	long long tokens_in, cached_in, tokens_out;	/* its usage so far, -1 before any */
	char retry_turn[TL_ID_MAX];	/* the turn of the last retry row ("" when none) */
	int retries;	/* that turn's retries so far: its retry rows' numbers */
};

void tl_claude_init(struct tl_claude *st);
void tl_claude_free(struct tl_claude *st);
/* The rows of one SDK message (the `message` of the agent host's message
 * event, or a saved message of a history page), appended to the array
 * rows.  0, or -1 with err set for a message that is not an object.
 * A person's prompt or another session's message (a top-level user
 * message with text) starts a turn: a turn_started row, then its own row;
 * the live stream never echoes it, so the bridge projects the message it
 * wrote (with the uuid it gave it).  A result ends the turn. */
int tl_claude_project(struct tl_claude *st, const json_t *msg, json_t *rows, char *err, size_t errlen);
/* The rows of a `send` the agent host accepted (text, messageId uuid):
 * the user message the host writes for it (agent-host/run.mjs) projected
 * as above, so they carry the ids its saved message will give. */
void tl_claude_sent(struct tl_claude *st, const char *uuid, const char *text, json_t *rows);

void tl_codex_init(struct tl_codex *st, int depth);
void tl_codex_free(struct tl_codex *st);
/* The rows of one notification {method, params}. 0, or -1 with err set. */
int tl_codex_project(struct tl_codex *st, const json_t *note, json_t *rows, char *err, size_t errlen);

/* Parse one frame's text as a JSON object, refusing past TL_FRAME_MAX
 * bytes with a sentence; NULL with err set. */
json_t *tl_parse_frame(const char *text, size_t len, char *err, size_t errlen);

/* The open-row table both projectors share (open.c): remember a row
 * (a copy), find it by id, forget it.  The oldest is dropped when full. */
void tl_open_put(struct tl_open *open, size_t *n, size_t *next, const char *id, const json_t *row);
json_t *tl_open_get(struct tl_open *open, size_t n, const char *id);
void tl_open_del(struct tl_open *open, size_t *n, const char *id);
void tl_open_clear(struct tl_open *open, size_t *n);

#endif
