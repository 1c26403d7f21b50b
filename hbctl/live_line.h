/*
 * live_line - one line of the live view (hbctl watch --timeline for a
 * person): the local time, the session's title, the agent, and what the
 * row says, cut to the terminal's width; a tool row with its arguments
 * and its outcome, an approval card with the command that answers it, a
 * session message the agent sent ("Message to …").  Pure: the caller
 * gives the clock and the width (live_screen.c prints).
 */
#ifndef HBCTL_LIVE_LINE_H
#define HBCTL_LIVE_LINE_H

#include <jansson.h>
#include <time.h>

#define LIVE_TITLE_COLS 18	/* the session title's column */
#define LIVE_ARG_COLS   40	/* one argument value's columns at most */

/* What a line is about, beside the event: when it came, its session's
 * title (NULL: the id is shown), the agent (NULL: the row's), how long a
 * running tool has run, and whether to colour the outcome. */
struct live_head {
	time_t when;
	const char *session;
	const char *title;
	const char *agent;
	long long elapsed_ms;
	int colour;
};

/* A tool call's arguments as `{name: "value", n: 3}`, each value cut to
 * LIVE_ARG_COLS columns; "" for none.  Malloc'd, NULL when out of memory. */
char *live_args(const json_t *input);
/* The line of event (topic timeline.row, timeline.message,
 * approval.requested / resolved / cancelled), without a newline, at most
 * width columns (0: not cut), or "" when the event shows nothing (a
 * hidden row).  *running: 1 when the row is a tool still running (its
 * line changes with the elapsed time).  Malloc'd, NULL when out of memory. */
char *live_line(const char *topic, const json_t *event, const struct live_head *h, int width, int *running);
/* The key that names the thing a line shows, so a later event about it
 * replaces its line: "row:<id>", "message:<row>", "approval:<id>";
 * "" when none.  Into key (len bytes). */
void live_key(const char *topic, const json_t *event, char *key, size_t len);

#endif
