/*
 * itest_timeline_watch - `hbctl watch --timeline` with the real hb-broker,
 * its output a file: a timeline.row event published through the broker
 * (by svc-echo's echo_event, as a bridge will publish rows) comes out as
 * the event's JSON (a file or pipe gets JSON lines, as with --json), and
 * only timeline.row events, not the other timeline topics; with --text as
 * the live view's line (no colour in a file), printed again when the same
 * row comes once more, since a file cannot be redrawn (the terminal's
 * in-place redraw: itest_timeline_live).  --thread keeps one subagent's
 * view (its rows, and a nested subagent's, followed by its spawn row's
 * link), --session one session's rows, --agent one agent's.
 */
#include "../harness/checks.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static const char watch_conf[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 2\n"
	"tools = echo echo_event\n";

static const char row_event[] =
	"{\"session\":\"s-1\",\"row\":{\"id\":\"claude:toolu_1\",\"agent\":\"claude\",\"kind\":\"command\",\"depth\":0,"
	"\"status\":\"output\",\"command\":\"make\",\"output\":\"built\",\"outputRef\":\"toolu_1\"}}";

/* Publish event on topic, through svc-echo and the broker. */
static void publish(struct fixture *f, const char *topic, const char *json)
{
	json_t *args = json_pack("{s:s, s:s}", "topic", topic, "json", json);
	char *text = args ? json_dumps(args, JSON_COMPACT) : NULL;

	assert_non_null(text);
	ck_call_ok(f, "echo_event", text, "event published");
	free(text);
	json_decref(args);
}

/* How many times want is in out. */
static int count_of(const char *out, const char *want)
{
	int n = 0;

	for (const char *p = out; (p = strstr(p, want)); p += strlen(want))
		n++;
	return n;
}

/* Start hbctl watch with args into outname; publish an event of another
 * topic and events (n of them, timeline.row, in order) again and again
 * until want shows (the subscription is on its way meanwhile); the
 * output, stopped.  With several events, until want shows twice: the
 * subscription may begin in the middle of a round, so only the round of
 * its second showing was seen whole. */
static char *watch_events_until(struct fixture *f, const char *const *args, const char *outname,
				const char *const *events, size_t n, const char *want)
{
	char path[400], *out = NULL;
	pid_t watcher = fx_spawn_prog(f, "hbctl", args, NULL, outname);
	int seen = 0, need = n > 1 ? 2 : 1;

	assert_true(watcher > 0);
	snprintf(path, sizeof path, "%s/%s", f->dir, outname);
	for (long long deadline = fx_now_ms() + CK_WAIT_MS; fx_now_ms() < deadline && !seen;) {
		/* another topic first: it must never show */
		publish(f, "timeline.explainer", "{\"callKey\":\"k\",\"phase\":\"rendering\",\"revision\":1}");
		for (size_t i = 0; i < n; i++)
			publish(f, "timeline.row", events[i]);
		fx_sleep_ms(50);
		free(out);
		out = fx_read_text(path);
		seen = count_of(out, want) >= need;
	}
	assert_int_equal(kill(watcher, SIGINT), 0);
	assert_int_equal(fx_wait_bounded(watcher, 10000), 0);
	if (!seen)
		fail_msg("hbctl watch printed no \"%s\":\n%s", want, out);
	return out;
}

/* The same with the one row_event. */
static char *watch_until(struct fixture *f, const char *const *args, const char *outname, const char *want)
{
	static const char *const one[] = { row_event };

	return watch_events_until(f, args, outname, one, 1, want);
}

static void test_watch_timeline_renders_rows(void **state)
{
	const char *const piped[] = { "watch", "--timeline", NULL };
	const char *const text[] = { "watch", "--timeline", "--text", NULL };
	const char *const json[] = { "watch", "--timeline", "--json", NULL };
	struct fixture *f = *state;
	char *out;

	ck_start(f, watch_conf, NULL);
	/* a file gets the events' JSON lines, with or without --json */
	out = watch_until(f, piped, "piped.out", "\"kind\":\"command\"");
	assert_non_null(strstr(out, "\"session\":\"s-1\""));
	assert_null(strstr(out, "callKey"));
	free(out);
	out = watch_until(f, json, "json.out", "\"kind\":\"command\"");
	assert_non_null(strstr(out, "\"session\":\"s-1\""));
	assert_null(strstr(out, "callKey"));
	free(out);
	/* --text: the line a person reads (the session's id where no
	 * svc-sessions gives its title), again when the row comes again */
	out = watch_events_until(f, text, "text.out", (const char *const[]){ row_event, row_event }, 2,
				 "  s-1                 claude  $ make  ok\n");
	assert_null(strchr(out, '\033'));	/* a file gets no colour */
	assert_null(strstr(out, "explainer"));
	assert_null(strstr(out, "(update)"));
	free(out);
	ck_finish(f);
}

#define ROW(session, fields) "{\"session\":\"" session "\",\"row\":{\"agent\":\"claude\"," fields "}}"

/* A conversation, its subagent A, A's own subagent B, another subagent Z,
 * and another session's row: --thread toolu_A shows A's and B's rows. */
static const char *const family[] = {
	ROW("s-1", "\"id\":\"claude:m0\",\"kind\":\"assistant\",\"depth\":0,\"text\":\"conversation says\""),
	ROW("s-1", "\"id\":\"claude:toolu_A\",\"kind\":\"spawn\",\"depth\":0,\"status\":\"running\","
		   "\"title\":\"outer\",\"childDepth\":1,\"link\":{\"thread\":\"toolu_A\"}"),
	ROW("s-1", "\"id\":\"claude:m1\",\"kind\":\"assistant\",\"depth\":1,\"thread\":\"toolu_A\",\"text\":\"A says\""),
	ROW("s-1", "\"id\":\"claude:toolu_B\",\"kind\":\"spawn\",\"depth\":1,\"thread\":\"toolu_A\",\"status\":\"running\","
		   "\"title\":\"inner\",\"childDepth\":2,\"link\":{\"thread\":\"toolu_B\"}"),
	ROW("s-1", "\"id\":\"claude:m2\",\"kind\":\"assistant\",\"depth\":2,\"thread\":\"toolu_B\",\"text\":\"B says\""),
	ROW("s-1", "\"id\":\"claude:m3\",\"kind\":\"assistant\",\"depth\":1,\"thread\":\"toolu_Z\",\"text\":\"Z says\""),
	ROW("s-2", "\"id\":\"claude:m4\",\"kind\":\"assistant\",\"depth\":0,\"text\":\"other session says\""),
};

#define CODEX_ROW \
	"{\"session\":\"s-3\",\"row\":{\"agent\":\"codex\",\"id\":\"codex:i1\",\"kind\":\"assistant\"," \
	"\"depth\":0,\"text\":\"codex says\"}}"

static void test_watch_timeline_filters(void **state)
{
	const char *const thread[] = { "watch", "--timeline", "--text", "--thread", "toolu_A", NULL };
	const char *const thread_json[] = { "watch", "--timeline", "--json", "--thread", "toolu_A", NULL };
	const char *const session[] = { "watch", "--timeline", "--text", "--session", "s-2", NULL };
	const char *const codex[] = { "watch", "--timeline", "--text", "--agent", "codex", NULL };
	const char *const claude_json[] = { "watch", "--timeline", "--agent", "claude", "--session", "s-2", NULL };
	const char *const bad[] = { "watch", "--session", "s-2", NULL };
	const char *const bad_agent[] = { "watch", "--timeline", "--agent", "gemini", NULL };
	const size_t n = sizeof family / sizeof family[0];
	struct fixture *f = *state;
	char *out;

	ck_start(f, watch_conf, NULL);
	out = watch_events_until(f, thread, "thread.out", family, n, "B says");
	assert_non_null(strstr(out, "A says"));
	assert_non_null(strstr(out, "inner"));		/* A's spawn row of B: in A's view */
	assert_null(strstr(out, "outer"));		/* the conversation's spawn row of A: not */
	assert_null(strstr(out, "conversation says"));
	assert_null(strstr(out, "Z says"));
	assert_null(strstr(out, "other session says"));
	free(out);
	out = watch_events_until(f, thread_json, "thread.json", family, n, "B says");
	assert_non_null(strstr(out, "\"thread\":\"toolu_A\""));
	assert_null(strstr(out, "Z says"));
	assert_null(strstr(out, "conversation says"));
	free(out);
	out = watch_events_until(f, session, "session.out", family, n, "other session says");
	assert_null(strstr(out, "conversation says"));
	assert_null(strstr(out, "A says"));
	free(out);
	/* --agent: one agent's rows (all of these are Claude's) */
	out = watch_events_until(f, claude_json, "agent.json", family, n, "other session says");
	assert_null(strstr(out, "conversation says"));
	free(out);
	out = watch_events_until(f, codex, "codex.out", (const char *const[]){ family[0], CODEX_ROW }, 2,
				 "codex says");
	assert_null(strstr(out, "conversation says"));
	free(out);
	assert_int_equal(fx_hbctl(f, &out, bad_agent), 100);
	free(out);
	/* the filters are the timeline's: without --timeline, the usage */
	assert_int_equal(fx_hbctl(f, &out, bad), 100);
	assert_non_null(strstr(out, "--timeline [--session ID] [--thread THREAD]\n"
				    "                   [--agent codex|claude]"));
	free(out);
	ck_finish(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ck_unit_test(test_watch_timeline_renders_rows),
		ck_unit_test(test_watch_timeline_filters),
	};

	return ck_run_group_tests(tests, NULL, NULL);
}
