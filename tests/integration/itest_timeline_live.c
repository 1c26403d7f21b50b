/*
 * itest_timeline_live - `hbctl watch --timeline` on a terminal, the view
 * a person keeps open beside the agents, against the real hb-broker and
 * svc-sessions: rows a Claude run publishes (timeline.publish on its run's
 * connection, as hb-claude-bridge does), a session message it sent
 * (timeline.message) and an approval card it asks for (claude.permission),
 * read off the screen of a pseudo-terminal (tests/harness/pty_screen.c).
 * Each line has the time, the session's title and the agent; the tool row
 * shows its arguments, counts its seconds while it runs and then shows its
 * outcome on the same line (no second line, no "(update)"); a declined
 * call and a failed command say so; a message from another session and a
 * message sent to one show; the card shows the command that answers it,
 * and once declined with that command its line says so; a turn's start,
 * a retry and a rate limit it waited on, and its end with duration,
 * tokens and cost, a line each.  With
 * HB_SHOW_SCREEN set it prints the last screen (docs/timeline.md shows one).
 * Also `hbctl sessions`: the session whose run linked its Claude
 * conversation, as a table and as JSON, the others with --all.
 */
#include "../harness/checks.h"
#include "../harness/pty_screen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char live_conf[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 2\n"
	"tools = echo echo_event\n";

static struct fixture F;
static char codex_session[64], claude_session[64];

static int setup(void **state)
{
	(void)state;
	return fx_start_agent_sessions(&F, live_conf, "Live", codex_session, claude_session, sizeof codex_session);
}

static int teardown(void **state)
{
	(void)state;
	return fx_stop_clean(&F);
}

#define ROW(fields) "{\"agent\":\"claude\",\"depth\":0," fields "}"
#define SEND_MESSAGE(status, extra)                                                                             \
	ROW("\"id\":\"claude:toolu_send\",\"kind\":\"tool\",\"tool\":\"mcp__hbcode__send_message\","             \
	    "\"label\":\"hbcode: send_message\",\"title\":\"hbcode: send_message\",\"status\":\"" status "\","  \
	    "\"input\":{\"session\":\"Live Codex\",\"text\":\"Please rebuild the docs after your change.\"}" extra)

/* timeline.publish of the rows (a JSON array) on the run's connection. */
static void publish_rows(struct hb_client *c, const char *rows)
{
	int64_t id = fx_send_op(c, "timeline.publish", "json", rows, (char *)NULL), got = -1;
	struct hb_env reply;

	assert_true(id >= 0);
	ck_recv(c, &reply, 15000, &got);
	assert_int_equal(got, id);
	if (!hb_env_bool(&reply, "ok", 0))
		fail_msg("timeline.publish refused: %s", hb_env_str_or(&reply, "err.msg", "?"));
	hb_env_free(&reply);
}

/* run.close of run on c, answered. */
static void close_run(struct hb_client *c, const char *run)
{
	int64_t id = fx_send_op(c, "run.close", "run", run, (char *)NULL), got = -1;
	struct hb_env reply;

	ck_recv(c, &reply, 15000, &got);
	assert_int_equal(got, id);
	assert_true(hb_env_bool(&reply, "ok", 0));
	hb_env_free(&reply);
	hb_client_close(c);
}

/* How many lines of screen hold want. */
static int lines_with(const char *screen, const char *want)
{
	int n = 0;

	for (const char *line = screen; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *copy = strndup(line, len);

		n += copy && strstr(copy, want) ? 1 : 0;
		free(copy);
		line += len + (nl ? 1 : 0);
	}
	return n;
}

/* The screen once it shows want (a line with all of want's parts, split
 * by '|'), read for up to CK_WAIT_MS; fails with the screen otherwise. */
static char *screen_until(struct pty_prog *p, const char *want)
{
	char *screen = NULL;

	for (long long deadline = fx_now_ms() + CK_WAIT_MS; fx_now_ms() < deadline;) {
		assert_true(pty_read(p, 200) >= 0);
		free(screen);
		screen = pty_screen(p);
		assert_non_null(screen);
		if (strstr(screen, want))
			return screen;
	}
	fail_msg("the screen never showed \"%s\":\n%s", want, screen);
	return NULL;
}

/* The line of screen that holds want, into line. */
static void line_with(const char *screen, const char *want, char *line, size_t len)
{
	const char *at = strstr(screen, want), *start, *end;

	assert_non_null(at);
	for (start = at; start > screen && start[-1] != '\n'; start--)
		;
	end = strchr(at, '\n');
	snprintf(line, len, "%.*s", (int)((end ? end : at + strlen(at)) - start), start);
}

static void test_live_view_on_a_terminal(void **state)
{
	const char *const watch[] = { "watch", "--timeline", NULL };
	char line[1024], card[16], *screen = NULL, *out = NULL;
	struct hb_client c;
	struct pty_prog p;
	int64_t ask, got = -1;
	struct hb_env reply;
	const char *at;

	(void)state;
	assert_int_equal(fx_client(&F, &c, 15000), 0);
	assert_int_equal(fx_open_run(&c, "run-live", claude_session, "/tmp", "claude", "full-auto"), 0);
	assert_int_equal(pty_start(&p, &F, "hbctl", watch, 40, 160), 0);
	/* the subscription is on its way: a row again and again until it shows */
	for (long long deadline = fx_now_ms() + CK_WAIT_MS; fx_now_ms() < deadline && !strstr(p.raw ? p.raw : "", "watching");) {
		publish_rows(&c, "[" ROW("\"id\":\"claude:msg_0#0\",\"kind\":\"assistant\",\"text\":\"watching\"") "]");
		assert_true(pty_read(&p, 300) >= 0);
	}
	free(screen_until(&p, "Claude: watching"));

	publish_rows(&c, "[" ROW("\"id\":\"claude:u-1#started\",\"kind\":\"turn_started\",\"turn\":\"u-1\"") ","
		     ROW("\"id\":\"claude:u-1#0\",\"kind\":\"user\",\"text\":\"Ask Live Codex to rebuild.\"") ","
		     SEND_MESSAGE("call", "") "]");
	screen = screen_until(&p, "running 1s");	/* it counts its seconds */
	free(screen);
	publish_rows(&c, "[" SEND_MESSAGE("output", ",\"output\":\"Sent.\"") "]");
	screen = screen_until(&p, "your chan…\"}  ok");
	/* the same line, redrawn: not a second one, no reprint */
	assert_int_equal(lines_with(screen, "hbcode.send_message"), 1);
	assert_null(strstr(screen, "running"));
	assert_null(strstr(screen, "(update)"));
	line_with(screen, "hbcode.send_message", line, sizeof line);
	if (!strstr(line, "  Live Claude         claude  hbcode.send_message {session: \"Live Codex\", text: "
			  "\"Please rebuild the docs after your chan…\"}  ok") || line[2] != ':' || line[5] != ':')
		fail_msg("the tool's line is not \"TIME  TITLE  AGENT  TOOL {ARGS}  OUTCOME\": %s", line);
	free(screen);

	publish_rows(&c, "[" ROW("\"id\":\"claude:toolu_arch\",\"kind\":\"tool\",\"tool\":\"mcp__hbcode__manage_sessions\","
				 "\"label\":\"hbcode: manage_sessions\",\"status\":\"declined\","
				 "\"output\":\"User denied manage_sessions from the desktop\","
				 "\"input\":{\"action\":\"archive\"}") ","
		     ROW("\"id\":\"claude:toolu_make\",\"kind\":\"command\",\"tool\":\"Bash\",\"command\":\"make docs\","
			 "\"status\":\"error\",\"output\":\"make: *** No rule to make target 'docs'.  Stop.\"") ","
		     ROW("\"id\":\"claude:u-2#0\",\"kind\":\"agent_message\",\"fromSession\":\"s-x\","
			 "\"fromTitle\":\"Live Codex\",\"fromAgent\":\"codex\",\"text\":\"Docs rebuilt.\"") "]");
	free(screen_until(&p, "Message from Live Codex: Docs rebuilt."));

	/* the message the run sent, as svc-messages publishes it */
	snprintf(line, sizeof line,
		 "{\"topic\":\"timeline.message\",\"json\":\"{\\\"session\\\":\\\"%s\\\",\\\"row\\\":\\\"toolu_send\\\","
		 "\\\"messageId\\\":\\\"op-1\\\",\\\"title\\\":\\\"Message to Live Codex\\\",\\\"signal\\\":\\\"Sent\\\","
		 "\\\"recipient\\\":{\\\"session\\\":\\\"%s\\\",\\\"title\\\":\\\"Live Codex\\\"}}\"}",
		 claude_session, codex_session);
	ck_call_ok(&F, "echo_event", line, "event published");
	free(screen_until(&p, "Message to Live Codex  Sent"));

	/* an approval card, and the command that answers it */
	ask = fx_send_op(&c, "claude.permission", "json",
			 "{\"requestId\":\"p1\",\"tool\":\"Bash\",\"input\":{\"command\":\"rm -rf build\"},"
			 "\"toolUseId\":\"tu-p1\"}", (char *)NULL);
	assert_true(ask >= 0);
	screen = screen_until(&p, "| hbctl decline ");
	at = strstr(screen, "| hbctl decline ") + strlen("| hbctl decline ");
	snprintf(card, sizeof card, "%.*s", (int)strcspn(at, " \n"), at);
	line_with(screen, "rm -rf build", line, sizeof line);
	{
		char want[96];

		snprintf(want, sizeof want, "Approve? $ rm -rf build  hbctl approve %s | hbctl decline %s", card, card);
		if (!strstr(line, want) || !strstr(line, "Live Claude"))
			fail_msg("the card's line is not \"... %s\": %s", want, line);
	}
	free(screen);
	{
		const char *const decline[] = { "decline", card, NULL };

		assert_int_equal(fx_hbctl(&F, &out, decline), 0);
		free(out);
	}
	ck_recv(&c, &reply, 15000, &got);	/* the bridge's answer: deny */
	assert_int_equal(got, ask);
	hb_env_free(&reply);
	screen = screen_until(&p, "rm -rf build  declined");
	assert_int_equal(lines_with(screen, "rm -rf build"), 1);

	free(screen);

	/* what the turn waited on, and its end (tokens, cost, duration) */
	publish_rows(&c, "[" ROW("\"id\":\"claude:r-1#retry\",\"kind\":\"retry\",\"attempt\":2,\"maxAttempts\":10,"
				 "\"delayMs\":4000,\"httpStatus\":529,\"reason\":\"overloaded\"") ","
		     ROW("\"id\":\"claude:r-2#ratelimit\",\"kind\":\"rate_limit\",\"status\":\"rejected\","
			 "\"resetsAt\":1796047500,\"limitType\":\"five_hour\"") ","
		     ROW("\"id\":\"claude:u-1#completed\",\"kind\":\"turn_completed\",\"turn\":\"u-1\","
			 "\"status\":\"completed\",\"durationMs\":12345,\"tokensIn\":4210,\"cachedTokensIn\":3100,"
			 "\"tokensOut\":320,\"costUsd\":0.0132") "]");
	screen = screen_until(&p, "/ 320 out tokens · $0.0132");
	{
		char until[64];
		time_t resets = 1796047500;
		struct tm tm;

		assert_non_null(localtime_r(&resets, &tm));	/* the view's local time */
		assert_true(strftime(until, sizeof until, "— rate limited until %H:%M (five-hour limit)", &tm) > 0);
		assert_int_equal(lines_with(screen, until), 1);
	}
	assert_int_equal(lines_with(screen, "Live Claude         claude  — turn started"), 1);
	assert_int_equal(lines_with(screen, "Live Claude         claude  — retrying in 4 s (attempt 2 of 10): overloaded"), 1);
	assert_int_equal(lines_with(screen, "Live Claude         claude  — turn completed · 12.3 s · 4,210 in (3,100 cached) "
					    "/ 320 out tokens · $0.0132"), 1);

	/* every row kind on the screen, each with its session and agent */
	assert_int_equal(lines_with(screen, "Live Claude         claude  You: Ask Live Codex to rebuild."), 1);
	assert_int_equal(lines_with(screen, "hbcode.manage_sessions {action: \"archive\"}  declined: User denied"), 1);
	assert_int_equal(lines_with(screen, "$ make docs  error: make: *** No rule to make target 'docs'."), 1);
	assert_int_equal(lines_with(screen, "Live Claude         claude  Message from Live Codex: Docs rebuilt."), 1);
	assert_null(strstr(screen, "(update)"));
	if (getenv("HB_SHOW_SCREEN"))
		fputs(screen, stdout);
	free(screen);
	assert_int_equal(pty_stop(&p), 0);
	close_run(&c, "run-live");
}

static void test_sessions_table(void **state)
{
	const char *const table[] = { "sessions", NULL };
	const char *const all[] = { "sessions", "--all", NULL };
	const char *const json[] = { "sessions", "--json", NULL };
	const char *const codex[] = { "sessions", "--agent", "codex", NULL };
	const char *const bad[] = { "sessions", "--since", "soon", NULL };
	static const char conversation[] = "5d0c2f9e-1111-4222-8333-444455556666";
	struct hb_client c;
	struct hb_env reply;
	int64_t id, got = -1;
	json_t *list;
	char *out;

	(void)state;
	assert_int_equal(fx_client(&F, &c, 15000), 0);
	assert_int_equal(fx_open_run(&c, "run-sessions", claude_session, "/tmp", "claude", "full-auto"), 0);
	id = fx_send_op(&c, "claude.link", "claudeSessionId", conversation, (char *)NULL);
	ck_recv(&c, &reply, 15000, &got);
	assert_int_equal(got, id);
	assert_true(hb_env_bool(&reply, "ok", 0));
	hb_env_free(&reply);

	assert_int_equal(fx_hbctl(&F, &out, table), 0);
	if (!strstr(out, "TITLE                         AGENT   FOLDER") || !strstr(out, "Live Claude") ||
	    !strstr(out, claude_session) || !strstr(out, conversation) || !strstr(out, " s ago") ||
	    strstr(out, "Live Codex"))
		fail_msg("hbctl sessions: not the linked Claude session alone:\n%s", out);
	free(out);
	assert_int_equal(fx_hbctl(&F, &out, all), 0);
	assert_non_null(strstr(out, "Live Codex"));
	assert_non_null(strstr(out, "Live Claude"));
	free(out);
	assert_int_equal(fx_hbctl(&F, &out, json), 0);
	list = json_loads(out, JSON_DISABLE_EOF_CHECK, NULL);
	assert_int_equal(json_array_size(list), 1);
	assert_string_equal(fx_jstr(json_array_get(list, 0), "claudeSessionId"), conversation);
	assert_string_equal(fx_jstr(json_array_get(list, 0), "id"), claude_session);
	json_decref(list);
	free(out);
	assert_int_equal(fx_hbctl(&F, &out, codex), 0);
	assert_non_null(strstr(out, "no sessions to resume"));
	free(out);
	assert_int_equal(fx_hbctl(&F, &out, bad), 100);
	free(out);
	close_run(&c, "run-sessions");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_view_on_a_terminal),
		cmocka_unit_test(test_sessions_table),
	};

	return ck_run_group_tests(tests, setup, teardown);
}
