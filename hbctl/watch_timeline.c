/*
 * watch_timeline - hbctl watch --timeline: the shared timeline live, as a
 * person keeps it open beside the agents, or as a script reads it.
 *
 * For a person (a terminal, or --text): one line a row (live_line.c) with
 * the time, the session's title (read through maintain_sessions,
 * session_list.c), the agent and what happened, and beside the rows the
 * approval cards (approval.requested, with the hbctl commands that answer
 * them; resolved and cancelled change that line) and the session
 * messages the agents send (timeline.message, "Message to …").  On a
 * terminal a row that changes is redrawn in place while on the screen,
 * and a running tool counts its seconds (live_screen.c).
 *
 * For a script (a pipe or a file, or --json): each timeline.row event's
 * JSON on a line, as before this view existed.
 *
 * The filters: --session ID keeps one session's rows and cards; --agent
 * one agent's; --thread THREAD one subagent's own view, live: the rows
 * whose "thread" is THREAD (the spawn row's link.thread: Claude's
 * spawning call, Codex's child thread), and those of the subagents they
 * spawn in turn, followed by their spawn rows' links (no cards there).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../timeline/row.h"
#include "hbctl.h"
#include "live_screen.h"
#include "session_list.h"
#include "watch_events.h"
#include "watch_timeline.h"

#define FOLLOW_MAX 64	/* subagent views one --thread follows, nested ones included */

struct timeline_watch {
	const struct timeline_watch_opts *o;
	char follow[FOLLOW_MAX][TL_ID_MAX];
	int nfollow;
	int tty;
	struct live_screen screen;
	struct session_names names;
};

static int following(const struct timeline_watch *w, const char *thread)
{
	for (int i = 0; thread && i < w->nfollow; i++)
		if (strcmp(w->follow[i], thread) == 0)
			return 1;
	return 0;
}

/* Whether a row event {session, row} passes; a followed view's spawn row
 * adds the view it links to. */
static int row_wanted(struct timeline_watch *w, const json_t *e)
{
	const json_t *row = json_object_get(e, "row");
	const char *session = json_string_value(json_object_get(e, "session"));
	const char *agent = json_string_value(json_object_get(row, "agent"));
	const char *link = json_string_value(json_object_get(json_object_get(row, "link"), "thread"));

	if (w->o->session && (!session || strcmp(session, w->o->session) != 0))
		return 0;
	if (w->o->agent && (!agent || strcmp(agent, w->o->agent) != 0))
		return 0;
	if (!w->nfollow)
		return 1;
	if (!following(w, json_string_value(json_object_get(row, "thread"))))
		return 0;
	if (link && !following(w, link) && w->nfollow < FOLLOW_MAX && strlen(link) < TL_ID_MAX)
		memcpy(w->follow[w->nfollow++], link, strlen(link) + 1);
	return 1;
}

/* Today's JSON lines: the timeline.row events the filters pass. */
static void json_line(struct timeline_watch *w, const char *json, const json_t *e)
{
	if (!json_is_object(json_object_get(e, "row"))) {	/* shown only when nothing is filtered out */
		if (!w->o->session && !w->o->agent && !w->nfollow)
			puts(json);
		return;
	}
	if (row_wanted(w, e))
		puts(json);
}

static void terminal_size(struct timeline_watch *w)
{
	struct winsize ws;

	if (w->tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		live_screen_resize(&w->screen, ws.ws_row, ws.ws_col);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A row, a card or a message for a person, when the filters pass it. */
static void person_line(struct timeline_watch *w, const char *topic, json_t *e)
{
	const char *session = json_string_value(json_object_get(e, "session"));
	const json_t *s;
	const char *agent;

	if (strcmp(topic, "timeline.row") == 0) {
		if (!json_is_object(json_object_get(e, "row"))) {
			fprintf(stderr, "hbctl: a timeline.row event without a row was left out\n");
			return;
		}
		if (!row_wanted(w, e))
			return;
	} else if (w->nfollow || (w->o->session && (!session || strcmp(session, w->o->session) != 0))) {
		return;
	}
	s = session_names_get(&w->names, session);
	agent = json_string_value(json_object_get(s, "agent"));
	if (!agent)
		agent = json_string_value(json_object_get(e, "agent"));
	if (strcmp(topic, "timeline.row") != 0 && w->o->agent && (!agent || strcmp(agent, w->o->agent) != 0))
		return;
	terminal_size(w);
	if (live_screen_show(&w->screen, topic, e, json_string_value(json_object_get(s, "title")), agent, now_ms()) < 0)
		fprintf(stderr, "hbctl: out of memory; a row was left out\n");
}

static void on_event(void *ctx, const char *topic, const char *json)
{
	struct timeline_watch *w = ctx;
	json_t *e = json_loads(json, 0, NULL);

	if (w->o->json)
		json_line(w, json, e);
	else if (json_is_object(e))
		person_line(w, topic, e);
	json_decref(e);
}

static void on_idle(void *ctx)
{
	struct timeline_watch *w = ctx;

	if (w->tty && !w->o->json) {
		terminal_size(w);
		live_screen_tick(&w->screen, now_ms());
	}
}

int watch_timeline(const struct timeline_watch_opts *o)
{
	/* a script gets exactly the rows it got before the view had cards */
	static const char *const rows_only[] = { "timeline.row" };
	static const char *const person[] = { "timeline.row", "timeline.message", "approval." };
	struct timeline_watch *w = calloc(1, sizeof *w);
	struct watch_sink sink = { on_event, on_idle, w };
	int rc;

	if (!w) {
		fprintf(stderr, "hbctl: out of memory\n");
		return EXIT_FAIL;
	}
	w->o = o;
	w->tty = isatty(STDOUT_FILENO);
	if (o->thread)
		memcpy(w->follow[w->nfollow++], o->thread, strlen(o->thread) + 1);
	live_screen_init(&w->screen, stdout, 0, 0, w->tty);
	setvbuf(stdout, NULL, _IOLBF, 0);
	rc = o->json ? watch_events(rows_only, 1, &sink) : watch_events(person, 3, &sink);
	live_screen_free(&w->screen);
	session_names_free(&w->names);
	free(w);
	return rc;
}
