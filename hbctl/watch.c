/*
 * watch - hbctl watch [--text|--json] [TOPIC-PREFIX]: the broker's events
 * as they happen.  --json prints each event's JSON a line, for scripts;
 * --text a line a person reads: the time, the topic, and for the rows a
 * user follows (an explainer's progress) the few values that matter.
 * Without either, a terminal gets text and a pipe or file gets JSON, as
 * ls prints columns only to a terminal.  --timeline watches the shared
 * timeline's rows (`timeline.row`, docs/timeline.md) and renders each
 * as a person reads it: in colour on a terminal, plain when piped, the
 * event's JSON with --json; a row that replaces one already printed (its
 * id seen before) is printed again marked "(update)".  --session ID keeps
 * one session's rows; --thread THREAD one subagent's own view, live: the
 * rows whose "thread" is THREAD (the spawn row's link.thread: Claude's
 * spawning call, Codex's child thread), and those of the subagents they
 * spawn in turn, followed by their spawn rows' links.
 */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "../timeline/row_text.h"
#include "../timeline/stream.h"
#include "hbctl.h"
#include "opfields.h"
#include "paths.h"
#include "protocol.h"
#include "sock.h"

#define FOLLOW_MAX 64	/* subagent views one --thread follows, nested ones included */

static volatile sig_atomic_t watch_stop;

/* Which timeline rows to print: all, one session's, one subagent's view. */
struct row_filter {
	const char *session;
	char follow[FOLLOW_MAX][TL_ID_MAX];
	int nfollow;
};

static int following(const struct row_filter *f, const char *thread)
{
	for (int i = 0; thread && i < f->nfollow; i++)
		if (strcmp(f->follow[i], thread) == 0)
			return 1;
	return 0;
}

/* Whether event e {session, row} passes; a followed view's spawn row adds
 * the view it links to. */
static int row_wanted(struct row_filter *f, const json_t *e)
{
	const json_t *row = json_object_get(e, "row");
	const char *session = json_string_value(json_object_get(e, "session"));
	const char *link = json_string_value(json_object_get(json_object_get(row, "link"), "thread"));

	if (f->session && (!session || strcmp(session, f->session) != 0))
		return 0;
	if (!f->nfollow)
		return 1;
	if (!following(f, json_string_value(json_object_get(row, "thread"))))
		return 0;
	if (link && !following(f, link) && f->nfollow < FOLLOW_MAX && strlen(link) < TL_ID_MAX)
		memcpy(f->follow[f->nfollow++], link, strlen(link) + 1);
	return 1;
}

static void on_watch_signal(int sig)
{
	(void)sig;
	watch_stop = 1;
}

/* An explainer's timeline row: phase, revision, scenes, length, frames. */
static void print_explainer(const json_t *e)
{
	const char *phase = json_string_value(json_object_get(e, "phase"));
	const char *key = json_string_value(json_object_get(e, "callKey"));
	const json_t *v;

	printf("explainer %s: %s, revision %lld", key ? key : "?", phase ? phase : "?", (long long)json_integer_value(json_object_get(e, "revision")));
	if ((v = json_object_get(e, "scenes")))
		printf(", %lld scenes, %.1f s", (long long)json_integer_value(v),
		       json_number_value(json_object_get(e, "durationSeconds")));
	if ((v = json_object_get(e, "framesTotal")))
		printf(", frames %lld of %lld", (long long)json_integer_value(json_object_get(e, "framesRendered")),
		       (long long)json_integer_value(v));
	if ((v = json_object_get(e, "videoPath")))
		printf(" -> %s", json_string_value(v));
	if ((v = json_object_get(e, "error")))
		printf(": %s", json_string_value(v));
	putchar('\n');
}

/* A timeline.row event {session, row} the filter passes: rendered (seen
 * non-NULL; no topic, a row whose id was printed before marked as its
 * update), or its JSON. */
static void print_row(const char *json, int colour, struct tl_stream *seen, struct row_filter *filter)
{
	json_t *e = json_loads(json, 0, NULL);
	const json_t *row = json_object_get(e, "row");
	size_t pos;
	char *text = NULL;

	if (!json_is_object(row)) {	/* shown only when nothing is filtered out */
		if (!filter->session && !filter->nfollow)
			seen ? printf("(a timeline.row event without a row: %s)\n", json) : puts(json);
		json_decref(e);
		return;
	}
	if (!row_wanted(filter, e)) {
		json_decref(e);
		return;
	}
	if (!seen)
		puts(json);
	else if ((text = tl_render_as(row, colour, tl_stream_place(seen, row, &pos) == TL_PLACE_REPLACES)))
		fputs(text, stdout);
	free(text);
	json_decref(e);
}

static void print_text(const char *topic, const char *json)
{
	json_t *e = json_loads(json, 0, NULL);
	char when[16];
	time_t now = time(NULL);
	struct tm tm;

	strftime(when, sizeof when, "%H:%M:%S", localtime_r(&now, &tm));
	printf("%s %-20s ", when, topic);
	if (strcmp(topic, "timeline.explainer") == 0 && json_is_object(e))
		print_explainer(e);
	else if (strcmp(topic, "service.report") == 0 && json_is_string(json_object_get(json_object_get(e, "report"), "summary")))
		printf("%s: %s\n", json_string_value(json_object_get(e, "service")),
		       json_string_value(json_object_get(json_object_get(e, "report"), "summary")));
	else
		puts(json);
	json_decref(e);
}

int cmd_watch(int argc, char **argv)
{
	char ep[HB_PATH_MAX + 8], err[HB_PATH_MAX + 256];
	int text = isatty(STDOUT_FILENO), colour = text, timeline = 0, json_flag = 0;
	const char *prefix = "";
	struct tl_stream seen = { 0 };
	struct row_filter *filter = NULL;
	const char *session = NULL, *thread = NULL;
	void *ctx, *sub;

	/* the flag before or after the prefix, as a person types it */
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--text") == 0)
			text = 1;
		else if (strcmp(argv[i], "--json") == 0)
			text = 0, json_flag = 1;
		else if (strcmp(argv[i], "--timeline") == 0)
			timeline = 1;
		else if (strcmp(argv[i], "--session") == 0 && i + 1 < argc && !session)
			session = argv[++i];
		else if (strcmp(argv[i], "--thread") == 0 && i + 1 < argc && !thread && strlen(argv[i + 1]) < TL_ID_MAX)
			thread = argv[++i];
		else if (argv[i][0] != '-' && !*prefix)
			prefix = argv[i];
		else
			return usage();
	}
	if ((timeline && *prefix) || ((session || thread) && !timeline))
		return usage();
	/* the timeline is for a person unless --json says otherwise: plain
	 * text when piped, colour only on a terminal */
	if (timeline) {
		prefix = "timeline.row";
		text = !json_flag;
	}
	if (hb_runtime_endpoint("events.sock", ep, sizeof ep, err, sizeof err) < 0) {
		fprintf(stderr, "hbctl: %s\n", err);
		return EXIT_NO_BROKER;
	}
	if (timeline && ((text && tl_stream_init(&seen) < 0) || !(filter = calloc(1, sizeof *filter)))) {
		fprintf(stderr, "hbctl: out of memory\n");
		tl_stream_free(&seen);
		return EXIT_FAIL;
	}
	if (filter) {
		filter->session = session;
		if (thread)
			memcpy(filter->follow[filter->nfollow++], thread, strlen(thread) + 1);
	}
	signal(SIGINT, on_watch_signal);
	signal(SIGTERM, on_watch_signal);
	ctx = zmq_ctx_new();
	sub = ctx ? hb_sock_sub(ctx, prefix) : NULL;
	if (!sub || zmq_connect(sub, ep) < 0) {
		fprintf(stderr, "hbctl: cannot watch %s: %s\n", ep, zmq_strerror(errno));
		tl_stream_free(&seen);
		free(filter);
		return EXIT_NO_BROKER;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (!watch_stop) {
		zmq_pollitem_t item = { sub, 0, ZMQ_POLLIN, 0 };
		char topic[128];
		struct hb_env e;
		int n;

		if (zmq_poll(&item, 1, 500) <= 0)
			continue;
		if ((n = zmq_recv(sub, topic, sizeof topic - 1, 0)) < 0)
			continue;
		topic[n < (int)sizeof topic - 1 ? n : (int)sizeof topic - 1] = '\0';
		if (hb_recv_env(sub, &e, err, sizeof err) == 1) {
			/* An event's json is required by its row (broker_ops.c). */
			const char *fault = strcmp(hb_env_str(&e, "op"), HB_OP_EVENT) != 0       ? "not an event"
					    : hb_client_op_check(&e, err, sizeof err) < 0 ? err
											   : NULL;

			if (fault)
				fprintf(stderr, "hbctl: an event that does not match its row was dropped: %s\n", fault);
			else if (timeline)
				print_row(hb_req_str(&e, "json"), colour, text ? &seen : NULL, filter);
			else if (text)
				print_text(topic, hb_req_str(&e, "json"));
			else
				puts(hb_req_str(&e, "json"));
			hb_env_free(&e);
		}
	}
	zmq_close(sub);
	zmq_ctx_term(ctx);
	tl_stream_free(&seen);
	free(filter);
	return 0;
}
