/*
 * row - the shared timeline's one row model, for Claude and Codex alike.
 *
 * A row is a JSON object (docs/timeline.md): the projectors
 * (project_claude.c, project_codex.c) build rows, the bridges publish them
 * as `timeline.row` events, and hbctl renders them (render.c).  A row is
 * JSON rather than a C struct because every consumer wants JSON and the
 * kinds carry different fields; this file owns the kinds, the identity
 * and the caps, so no row can grow past its bounds whatever a frame holds.
 */
#ifndef HB_TIMELINE_ROW_H
#define HB_TIMELINE_ROW_H

#include <jansson.h>
#include <stddef.h>

enum tl_kind {
	TL_USER,	   /* the person's message */
	TL_ASSISTANT,	   /* the agent's reply text */
	TL_COMMAND,	   /* Bash / commandExecution, output named by outputRef */
	TL_FILE_CHANGE,	   /* Edit, MultiEdit, Write, NotebookEdit / fileChange */
	TL_TOOL,	   /* any other tool, completed in place */
	TL_PLAN,	   /* TodoWrite steps, or a plan as Markdown */
	TL_IMAGE,	   /* an image of a tool result, after its tool row */
	TL_REASONING,	   /* thinking; none for empty thinking */
	TL_TURN_ABORTED,   /* an interrupt note */
	TL_COMPACTED,	   /* "Conversation compacted" */
	TL_SLASH_COMMAND,  /* a local slash command and its output */
	TL_AGENT_MESSAGE,  /* a <session_message> from another session */
	TL_SYSTEM,	   /* a reply the agent wrote itself (usage limit, API error) */
	TL_HIDDEN,	   /* synthetic and meta messages: kept for identity, never shown */
	TL_SPAWN,	   /* a subagent spawn call, with status and link */
	TL_TURN_STARTED,   /* a turn began: the person's or another session's message went in */
	TL_TURN_COMPLETED, /* a turn ended: its status, duration, tokens and cost */
	TL_RETRY,	   /* live only: a model call failed and is retried (attempt, delay, reason) */
	TL_RATE_LIMIT,	   /* live only: the account is rate limited, or near it (resetsAt) */
	TL_KIND_COUNT
};

/* The caps.  A text longer than its cap keeps its first part (whole
 * UTF-8 characters) and ends in TL_CUT_MARK. */
#define TL_TEXT_MAX   16384	/* any one text field */
#define TL_OUTPUT_MAX 4096	/* a tool output's preview: the rest is read on demand */
#define TL_DIFF_MAX   65536	/* one file change's diff */
#define TL_ID_MAX     200	/* a row id, bytes with NUL */
#define TL_ROWS_MAX   64	/* rows out of one frame */
#define TL_STEPS_MAX  100	/* plan steps, changes of one file change row */
#define TL_ARGS_MAX   2048	/* a tool call's arguments, as compact JSON text */
#define TL_CUT_MARK   "\n(cut)"
/* What a bridge may publish at once (timeline.publish, docs/protocol.md):
 * the bytes of the JSON array of rows, and the rows.  One row stays
 * below the bytes unless it is a file change of many huge diffs, which
 * the bridge drops with a warning. */
#define TL_PUBLISH_MAX  (4u << 20)
#define TL_PUBLISH_ROWS 256
#define TL_DEPTH_MAX    1000	/* a row's depth, as a publisher may give it */

const char *tl_kind_name(enum tl_kind kind);
/* A new row {id, agent, kind, depth: 0}; NULL when out of memory or when
 * the id does not fit TL_ID_MAX. */
json_t *tl_row_new(const char *agent, enum tl_kind kind, const char *id);
/* Set row[key] to s (len bytes) cut to max bytes with TL_CUT_MARK; text
 * that is not UTF-8 is repaired first.  0, or -1 when out of memory. */
int tl_row_text(json_t *row, const char *key, const char *s, size_t len, size_t max);
/* The same for a NUL-terminated string; NULL s sets nothing. */
int tl_row_str(json_t *row, const char *key, const char *s, size_t max);
/* Set row[key] to a tool call's arguments: the JSON value itself when its
 * compact text is at most TL_ARGS_MAX bytes, else that text as a string
 * cut to TL_ARGS_MAX with TL_CUT_MARK.  NULL or null args set nothing.
 * 0, or -1 when out of memory. */
int tl_row_args(json_t *row, const char *key, const json_t *args);
/* A malloc'd copy of s[0..len) cut to max bytes (mark included). */
char *tl_cut(const char *s, size_t len, size_t max);
/* 0 when row is a row a publisher of agent ("claude" or "codex") may
 * publish: an object with an id of that agent ("claude:…") of at most
 * TL_ID_MAX - 1 bytes, its agent, a known kind and a depth from 0 to
 * TL_DEPTH_MAX; else -1 with a sentence in err. */
int tl_row_check(const json_t *row, const char *agent, char *err, size_t errlen);
/* Append row to rows unless TL_ROWS_MAX are there (the row is then
 * dropped and rows' last row says so).  Steals row. */
void tl_rows_add(json_t *rows, json_t *row);
/* A plan row's "steps" from an agent's list of items: each item's text
 * under text_key (Codex "step", Claude's todos "content") and its status
 * ("pending" when it has none), at most TL_STEPS_MAX.  NULL when out of
 * memory. */
json_t *tl_plan_steps(const json_t *items, const char *text_key);

#endif
