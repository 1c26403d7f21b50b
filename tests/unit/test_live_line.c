/*
 * test_live_line - the lines of hbctl's live view (hbctl/live_line.c,
 * live_text.c, live_screen.c) and --since (since.c): the time, title and
 * agent columns; a tool row with its arguments cut and its outcome kept
 * on a narrow terminal; running, ok, error, declined, exit codes; an
 * approval card with the commands that answer it; a sent session message;
 * a turn's start and end (tokens, cost, duration), its retries and rate
 * limits;
 * cuts at whole UTF-8 characters with wide characters counted twice; a
 * changed row redrawn in place on a terminal and printed again without
 * one or after the terminal's width changed; a line never wider than
 * the terminal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../hbctl/live_line.h"
#include "../../hbctl/live_screen.h"
#include "../../hbctl/live_text.h"
#include "../../hbctl/since.h"
#include "utf8.h"

#define MCP_ROW(status, extra)                                                                                     \
	"{\"session\":\"s-1\",\"row\":{\"id\":\"claude:toolu_1\",\"agent\":\"claude\",\"kind\":\"tool\",\"depth\":0," \
	"\"tool\":\"mcp__hbcode__send_message\",\"label\":\"hbcode: send_message\",\"status\":\"" status "\","     \
	"\"input\":{\"session\":\"s-2\",\"text\":\"hi there\"}" extra "}}"

static int setup(void **state)
{
	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	return 0;
}

/* The line of event json on topic, session "Live Claude" (a Claude one),
 * at 00:00:03 UTC. */
static char *line_of(const char *topic, const char *json, int width, long long elapsed_ms, int colour, int *running)
{
	json_t *e = json_loads(json, 0, NULL);
	struct live_head h = { 3, "s-1", "Live Claude", "claude", elapsed_ms, colour };
	char *line;

	assert_non_null(e);
	line = live_line(topic, e, &h, width, running);
	json_decref(e);
	assert_non_null(line);
	return line;
}

static void expect_line(const char *topic, const char *json, int width, const char *want)
{
	int running;
	char *got = line_of(topic, json, width, 0, 0, &running);

	if (strcmp(got, want) != 0)
		fail_msg("want: [%s]\n got: [%s]", want, got);
	free(got);
}

static void fit_cuts_whole_characters(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(live_fit(out, sizeof out, "make -j2", 0), 8);
	assert_string_equal(out, "make -j2");
	assert_int_equal(live_fit(out, sizeof out, "abcdefgh", 5), 5);
	assert_string_equal(out, "abcd…");
	live_fit(out, sizeof out, "héllo wörld", 4);
	assert_string_equal(out, "hél…");
	/* wide characters take two columns: 日本 and the mark are 5 */
	assert_int_equal(live_cols("a\xc3\xa9\xe6\x97\xa5\xf0\x9f\x94\x94"), 6);
	assert_int_equal(live_fit(out, sizeof out, "日本語テキスト", 6), 5);
	assert_string_equal(out, "日本…");
	/* a line stays one line */
	live_fit(out, sizeof out, "one\ntwo\tthree", 0);
	assert_string_equal(out, "one two three");
	/* a small buffer cuts by bytes, at a whole character, still marked */
	live_fit(out, 9, "ééééé", 0);
	assert_string_equal(out, "éé…");
	assert_true(hb_utf8_valid(out, strlen(out)));
	/* a stray byte is shown as '?' */
	live_fit(out, sizeof out, "a\xff" "b", 0);
	assert_string_equal(out, "a?b");
}

static void args_are_shortened(void **state)
{
	json_t *input = json_pack("{s:s, s:s, s:i, s:{s:b}}", "session", "s-2", "text",
				  "a message much longer than forty columns, which is cut", "n", 3, "opts", "x", 1);
	char *args = live_args(input);

	(void)state;
	assert_string_equal(args, "{session: \"s-2\", text: \"a message much longer than forty column…\", n: 3, "
				  "opts: {…}}");
	free(args);
	json_decref(input);
	args = live_args(NULL);
	assert_string_equal(args, "");
	free(args);
}

static void tool_rows_show_args_and_outcome(void **state)
{
	char *line;
	int running;

	(void)state;
	line = line_of("timeline.row", MCP_ROW("call", ""), 0, 3400, 0, &running);
	assert_string_equal(line, "00:00:03  Live Claude         claude  hbcode.send_message {session: \"s-2\", "
				  "text: \"hi there\"}  running 3s");
	assert_int_equal(running, 1);
	free(line);
	line = line_of("timeline.row", MCP_ROW("output", ",\"output\":\"sent\""), 0, 0, 0, &running);
	assert_int_equal(running, 0);
	assert_non_null(strstr(line, "text: \"hi there\"}  ok"));
	free(line);
	expect_line("timeline.row", MCP_ROW("error", ",\"output\":\"No session s-2.\\nMore.\""), 0,
		    "00:00:03  Live Claude         claude  hbcode.send_message {session: \"s-2\", text: \"hi there\"}"
		    "  error: No session s-2.");
	expect_line("timeline.row", MCP_ROW("declined", ",\"output\":\"User denied send_message\""), 0,
		    "00:00:03  Live Claude         claude  hbcode.send_message {session: \"s-2\", text: \"hi there\"}"
		    "  declined: User denied send_message");
	expect_line("timeline.row",
		    "{\"row\":{\"id\":\"codex:c1\",\"agent\":\"codex\",\"kind\":\"command\",\"depth\":1,"
		    "\"command\":\"make\",\"status\":\"output\",\"exitCode\":2}}",
		    0, "00:00:03  Live Claude         codex     $ make  exit 2");
	/* narrow: the arguments shorten, the outcome stays, the line fits */
	line = line_of("timeline.row", MCP_ROW("output", ""), 60, 0, 0, &running);
	assert_int_equal(live_cols(line), 60);
	assert_non_null(strstr(line, "…  ok"));
	free(line);
	/* a terminal narrower than the head and the outcome: the whole
	 * line cut, still one screen line */
	line = line_of("timeline.row", MCP_ROW("error", ",\"output\":\"No session s-2 to send to.\""), 50, 0, 1, &running);
	assert_int_equal(live_cols(line), 50);
	assert_null(strchr(line, '\033'));
	free(line);
	/* colour marks the outcome only */
	line = line_of("timeline.row", MCP_ROW("declined", ""), 0, 0, 1, &running);
	assert_non_null(strstr(line, "}  \033[31mdeclined\033[0m"));
	free(line);
}

static void other_rows(void **state)
{
	(void)state;
	expect_line("timeline.row",
		    "{\"row\":{\"id\":\"claude:m#0\",\"agent\":\"claude\",\"kind\":\"agent_message\",\"depth\":0,"
		    "\"fromTitle\":\"Docs & site\",\"fromSession\":\"s-42\",\"text\":\"Please rebuild.\"}}",
		    0, "00:00:03  Live Claude         claude  Message from Docs & site: Please rebuild.");
	expect_line("timeline.row",
		    "{\"row\":{\"id\":\"claude:h#0\",\"agent\":\"claude\",\"kind\":\"hidden\",\"depth\":0}}", 0, "");
	expect_line("timeline.row",
		    "{\"row\":{\"id\":\"claude:u#0\",\"agent\":\"claude\",\"kind\":\"system\",\"depth\":0,"
		    "\"text\":\"Claude AI usage limit reached\",\"resetsAt\":7200}}",
		    0, "00:00:03  Live Claude         claude  System: Claude AI usage limit reached  waits until 02:00");
	/* a row cannot move the cursor or colour the terminal: every control
	 * character is a space, the status of a row too */
	expect_line("timeline.row",
		    "{\"row\":{\"id\":\"claude:t\",\"agent\":\"claude\",\"kind\":\"command\",\"depth\":0,"
		    "\"command\":\"echo \\u001b[2J\",\"status\":\"odd\\u001b[1A\"}}",
		    0, "00:00:03  Live Claude         claude  $ echo  [2J  odd [1A");
	/* a long title is cut to its column */
	{
		json_t *e = json_loads("{\"row\":{\"id\":\"claude:a#0\",\"agent\":\"claude\",\"kind\":\"assistant\","
				       "\"depth\":0,\"text\":\"Done.\"}}", 0, NULL);
		struct live_head h = { 3, "s-1", "A very long session title indeed", NULL, 0, 0 };
		int running;
		char *line = live_line("timeline.row", e, &h, 0, &running);

		assert_string_equal(line, "00:00:03  A very long sessi…  claude  Claude: Done.");
		free(line);
		json_decref(e);
	}
}

#define ROW(kind, fields) \
	"{\"row\":{\"id\":\"claude:u#" kind "\",\"agent\":\"claude\",\"kind\":\"" kind "\",\"depth\":0" fields "}}"
#define HEAD "00:00:03  Live Claude         claude  "

/* A turn's start, its end with what the agent reported, and what a turn
 * waits on (a retry, a rate limit), in words and colour. */
static void turn_rows(void **state)
{
	char *line;
	int running;

	(void)state;
	expect_line("timeline.row", ROW("turn_started", ",\"turn\":\"u\""), 0, HEAD "— turn started");
	expect_line("timeline.row",
		    ROW("turn_completed", ",\"status\":\"completed\",\"durationMs\":12345,\"tokensIn\":4210,"
					  "\"cachedTokensIn\":3100,\"tokensOut\":320,\"costUsd\":0.01321"),
		    0, HEAD "— turn completed · 12.3 s · 4,210 in (3,100 cached) / 320 out tokens · $0.0132");
	/* Codex reports no cost, an old Claude Code no tokens: left out */
	expect_line("timeline.row",
		    ROW("turn_completed", ",\"status\":\"completed\",\"durationMs\":900,\"tokensIn\":10,"
					  "\"cachedTokensIn\":0,\"tokensOut\":5"),
		    0, HEAD "— turn completed · 0.9 s · 10 in / 5 out tokens");
	expect_line("timeline.row", ROW("turn_completed", ",\"status\":\"interrupted\",\"durationMs\":3000"), 0,
		    HEAD "— turn interrupted · 3 s");
	/* a turn that went wrong is red, one that completed is not coloured */
	line = line_of("timeline.row", ROW("turn_completed", ",\"status\":\"failed\",\"durationMs\":3000"), 0, 0, 1,
		       &running);
	assert_string_equal(line, HEAD "\033[31m— turn failed · 3 s\033[0m");
	assert_int_equal(running, 0);
	free(line);
	line = line_of("timeline.row", ROW("turn_completed", ",\"status\":\"completed\""), 0, 0, 1, &running);
	assert_string_equal(line, HEAD "— turn completed");
	free(line);
	/* a retry, as Claude reports it (the wait) and as Codex does (none) */
	expect_line("timeline.row",
		    ROW("retry", ",\"attempt\":2,\"maxAttempts\":10,\"delayMs\":4000,\"httpStatus\":529,"
				 "\"reason\":\"overloaded\""),
		    0, HEAD "— retrying in 4 s (attempt 2 of 10): overloaded");
	expect_line("timeline.row", ROW("retry", ",\"attempt\":1,\"maxAttempts\":3,\"httpStatus\":502"), 0,
		    HEAD "— retrying (attempt 1 of 3): HTTP 502");
	line = line_of("timeline.row", ROW("retry", ",\"delayMs\":1500,\"reason\":\"rate limited\""), 0, 0, 1,
		       &running);
	assert_string_equal(line, HEAD "\033[33m— retrying in 1.5 s: rate limited\033[0m");
	free(line);
	/* a rate limit: until when, in local time (UTC here) */
	expect_line("timeline.row",
		    ROW("rate_limit", ",\"status\":\"rejected\",\"resetsAt\":50700,\"limitType\":\"five_hour\""), 0,
		    HEAD "— rate limited until 14:05 (five-hour limit)");
	expect_line("timeline.row", ROW("rate_limit", ",\"status\":\"allowed_warning\""), 0,
		    HEAD "— near the rate limit");
	/* on a narrow terminal the sentence is cut like any row's */
	expect_line("timeline.row",
		    ROW("turn_completed", ",\"status\":\"completed\",\"durationMs\":12345,\"tokensIn\":4210,"
					  "\"cachedTokensIn\":3100,\"tokensOut\":320,\"costUsd\":0.01321"),
		    60, HEAD "— turn completed · 12…");
}

static void cards_and_messages(void **state)
{
	static const char card[] = "{\"id\":\"a7\",\"run\":\"r\",\"session\":\"s-1\",\"tool\":\"Bash\","
				   "\"input\":{\"command\":\"rm -rf build\"},\"toolUseId\":\"tu\"";
	char want[256];

	(void)state;
	expect_line("approval.requested", "{\"id\":\"a7\",\"run\":\"r\",\"session\":\"s-1\",\"tool\":\"Bash\","
					  "\"input\":{\"command\":\"rm -rf build\"},\"toolUseId\":\"tu\","
					  "\"kind\":\"command\",\"command\":\"rm -rf build\",\"cwd\":\"/tmp/p\","
					  "\"subagent\":\"Explore\"}",
		    0,
		    "00:00:03  Live Claude         claude  Approve? subagent Explore: $ rm -rf build (in /tmp/p)"
		    "  hbctl approve a7 | hbctl decline a7");
	snprintf(want, sizeof want, "%s}", card);
	expect_line("approval.requested", want, 0,
		    "00:00:03  Live Claude         claude  Approve? $ rm -rf build  hbctl approve a7 | hbctl decline a7");
	snprintf(want, sizeof want, "%s,\"decision\":\"deny\"}", card);
	expect_line("approval.resolved", want, 0, "00:00:03  Live Claude         claude  Approve? $ rm -rf build  declined");
	expect_line("approval.requested",
		    "{\"id\":\"a8\",\"session\":\"s-1\",\"tool\":\"mcp__hbcode__manage_sessions\","
		    "\"input\":{\"action\":\"archive\"},\"decisionReason\":\"asks every time\"}",
		    0,
		    "00:00:03  Live Claude         claude  Approve? hbcode.manage_sessions {action: \"archive\"} — asks every"
		    " time  hbctl approve a8 | hbctl decline a8");
	expect_line("timeline.message",
		    "{\"session\":\"s-1\",\"row\":\"call-1\",\"messageId\":\"op-1\",\"title\":\"Message to Live Codex\","
		    "\"signal\":\"Not sent\",\"reason\":\"No such session\",\"recipient\":{\"session\":\"s-2\"}}",
		    0, "00:00:03  Live Claude         claude  Message to Live Codex  Not sent: No such session");
}

static void keys_name_what_changes(void **state)
{
	json_t *e = json_loads(MCP_ROW("call", ""), 0, NULL), *m = json_pack("{s:s}", "row", "call-1");
	char key[64];

	(void)state;
	live_key("timeline.row", e, key, sizeof key);
	assert_string_equal(key, "row:claude:toolu_1");
	live_key("timeline.message", m, key, sizeof key);
	assert_string_equal(key, "message:call-1");
	live_key("approval.resolved", e, key, sizeof key);
	assert_string_equal(key, "");
	json_decref(e);
	json_decref(m);
}

/* Three events on a screen of rows lines (resized to 100 columns after
 * the second when resize): the output. */
static char *screen_of(int rows, int resize)
{
	json_t *call = json_loads(MCP_ROW("call", ""), 0, NULL), *done = json_loads(MCP_ROW("output", ""), 0, NULL);
	json_t *other = json_loads("{\"row\":{\"id\":\"claude:b#0\",\"agent\":\"claude\",\"kind\":\"assistant\","
				   "\"depth\":0,\"text\":\"Sending.\"}}", 0, NULL);
	struct live_screen s;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	live_screen_init(&s, f, rows, 120, 0);
	assert_int_equal(live_screen_show(&s, "timeline.row", call, "T", NULL, 1000), 0);
	assert_int_equal(live_screen_show(&s, "timeline.row", other, "T", NULL, 1500), 0);
	if (resize)
		live_screen_resize(&s, rows, 100);
	live_screen_tick(&s, 4000);
	assert_int_equal(live_screen_show(&s, "timeline.row", done, "T", NULL, 5000), 0);
	assert_int_equal(s.printed, rows && !resize ? 2 : 3);
	live_screen_free(&s);
	fclose(f);
	json_decref(call);
	json_decref(done);
	json_decref(other);
	return text;
}

static void screen_redraws_in_place(void **state)
{
	char *out = screen_of(24, 0);

	(void)state;
	/* the tool's line, two up: its time, then its outcome */
	assert_non_null(strstr(out, "running 0s\n"));
	assert_non_null(strstr(out, "\033[2A\r\033[2K00:00:01  T"));
	assert_non_null(strstr(out, "running 3s\033[2B\r"));
	assert_non_null(strstr(out, "}  ok\033[2B\r"));
	free(out);
	/* without a terminal: printed again, no cursor moves */
	out = screen_of(0, 0);
	assert_null(strchr(out, '\033'));
	assert_non_null(strstr(out, "Sending.\n00:00:05  T"));
	assert_non_null(strstr(out, "}  ok\n"));
	free(out);
	/* after a change of width the earlier lines may wrap otherwise: the
	 * change is a new line, and nothing counts on the old one */
	out = screen_of(24, 1);
	assert_null(strchr(out, '\033'));
	assert_non_null(strstr(out, "Sending.\n00:00:05  T"));
	free(out);
}

static void since_reads_durations_and_times(void **state)
{
	time_t now = 1796137200; /* 2026-12-01 15:00:00 UTC */

	(void)state;
	assert_int_equal(since_parse("10m", now), now - 600);
	assert_int_equal(since_parse("2h", now), now - 7200);
	assert_int_equal(since_parse("3d", now), now - 3 * 86400);
	assert_int_equal(since_parse("14:05", now), now - 55 * 60);
	assert_int_equal(since_parse("2026-12-01", now), now - 15 * 3600);
	assert_int_equal(since_parse("2026-12-01T14:05", now), now - 55 * 60);
	assert_int_equal(since_parse("10x", now), -1);
	assert_int_equal(since_parse("m", now), -1);
	assert_int_equal(since_parse("25:00", now), -1);
	assert_int_equal(since_parse("yesterday", now), -1);
	assert_int_equal(since_iso_utc("2026-12-01T15:00:00.000Z"), now);
	assert_int_equal(since_iso_utc("soon"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fit_cuts_whole_characters),
		cmocka_unit_test(args_are_shortened),
		cmocka_unit_test(tool_rows_show_args_and_outcome),
		cmocka_unit_test(other_rows),
		cmocka_unit_test(turn_rows),
		cmocka_unit_test(cards_and_messages),
		cmocka_unit_test(keys_name_what_changes),
		cmocka_unit_test(screen_redraws_in_place),
		cmocka_unit_test(since_reads_durations_and_times),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
