/*
 * watch - hbctl watch [--text|--json] [TOPIC-PREFIX]: the broker's events
 * as they happen.  --json prints each event's JSON a line, for scripts;
 * --text a line a person reads: the time, the topic, and for the rows a
 * user follows (an explainer's progress) the few values that matter.
 * Without either, a terminal gets text and a pipe or file gets JSON, as
 * ls prints columns only to a terminal.  --timeline [--session ID]
 * [--thread THREAD] [--agent codex|claude] is the live view of the
 * shared timeline (watch_timeline.c), by the same rule: a line a row on
 * a terminal (or with --text), the events' JSON lines otherwise.  This
 * file reads the options; the loop over the events is watch_events.c.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../timeline/row.h"
#include "hbctl.h"
#include "watch_events.h"
#include "watch_timeline.h"

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

/* A line a person reads, or the JSON. */
static void on_event(void *ctx, const char *topic, const char *json)
{
	if (*(const int *)ctx)
		print_text(topic, json);
	else
		puts(json);
}

int cmd_watch(int argc, char **argv)
{
	int text = isatty(STDOUT_FILENO), timeline = 0;
	struct timeline_watch_opts o = { 0 };
	const char *prefix = "";
	struct watch_sink sink = { on_event, NULL, &text };

	/* the flag before or after the prefix, as a person types it */
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--text") == 0)
			text = 1;
		else if (strcmp(argv[i], "--json") == 0)
			text = 0;
		else if (strcmp(argv[i], "--timeline") == 0)
			timeline = 1;
		else if (strcmp(argv[i], "--session") == 0 && i + 1 < argc && !o.session)
			o.session = argv[++i];
		else if (strcmp(argv[i], "--thread") == 0 && i + 1 < argc && !o.thread && strlen(argv[i + 1]) < TL_ID_MAX)
			o.thread = argv[++i];
		else if (strcmp(argv[i], "--agent") == 0 && i + 1 < argc && !o.agent &&
			 (strcmp(argv[i + 1], "codex") == 0 || strcmp(argv[i + 1], "claude") == 0))
			o.agent = argv[++i];
		else if (argv[i][0] != '-' && !*prefix)
			prefix = argv[i];
		else
			return usage();
	}
	if ((timeline && *prefix) || ((o.session || o.thread || o.agent) && !timeline))
		return usage();
	if (timeline) {
		o.json = !text;
		return watch_timeline(&o);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	return watch_events(&prefix, 1, &sink);
}
