/*
 * test_timeline_turns - the rows of what goes into a turn, for both
 * agents alike (docs/timeline.md): the turn's start, the person's prompt
 * or another session's message (an agent communication row), and the
 * turn's end with its duration, tokens and cost.  Claude's live stream
 * never echoes a prompt, so the bridge projects the message the host
 * writes (tl_claude_sent); here its saved message, read back as the
 * agent host's history gives it, replaces those live rows in place, so a
 * viewer never holds the live and the saved row of one message at once.
 * The result and token-usage frames are trimmed copies of ones recorded
 * from the Claude Agent SDK 0.3.332 and codex app-server 0.171.0
 * (tests/fixtures/timeline/).
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

#include "../../timeline/project.h"
#include "../../timeline/stream.h"

#define PROMPT_UUID "0b7e2f6c-3c1d-4d55-9a43-52b0c1f0e6aa"
#define ENVELOPE                                                                                                \
	"<session_message from_session_id=\"s-42\" from_title=\"Docs &amp; site\" from_agent=\"codex\">\n"      \
	"Please rebuild the docs.\n</session_message>"

/* The "allowed" scenario's result (SDK 0.3.332), trimmed. */
#define RESULT_OK                                                                                               \
	"{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"duration_ms\":156,\"num_turns\":2,"      \
	"\"total_cost_usd\":0.00148,\"terminal_reason\":\"completed\",\"uuid\":\"401d5ea1-2457-4a36-a745-1e09b4d21aff\"," \
	"\"usage\":{\"input_tokens\":220,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,"          \
	"\"output_tokens\":30},\"model_usage_since_last_result\":{\"claude-opus-5-5\":{\"inputTokens\":200,"        \
	"\"outputTokens\":30,\"cacheReadInputTokens\":15,\"cacheCreationInputTokens\":5,\"costUSD\":0.00148}}}"
/* The "interrupt" scenario's result, trimmed, without the per-turn usage
 * (as an older Claude Code gives it). */
#define RESULT_INTERRUPTED                                                                                      \
	"{\"type\":\"result\",\"subtype\":\"error_during_execution\",\"is_error\":true,\"duration_ms\":583,"        \
	"\"terminal_reason\":\"aborted_tools\",\"uuid\":\"135cd121-b9f2-4001-8ae7-4190e3da3a89\",\"usage\":"        \
	"{\"input_tokens\":100,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,\"output_tokens\":20}}"

/* A saved user message as the agent host's history page gives it. */
static json_t *saved_user(const char *uuid, const char *text)
{
	json_t *m = json_pack("{s:s, s:[s], s:s, s:s, s:{s:s, s:[{s:s, s:s}]}, s:n, s:n, s:s}", "uuid", uuid,
			      "uuids", uuid, "type", "user", "session_id", "f1646ff9-e531-41c5-8422-c2c961c95389",
			      "message", "role", "user", "content", "type", "text", "text", text, "parent_tool_use_id",
			      "parent_agent_id", "timestamp", "2026-12-01T21:32:58.941Z");

	assert_non_null(m);
	return m;
}

static json_t *claude_rows(struct tl_claude *st, const char *frame)
{
	char err[256];
	json_t *m = tl_parse_frame(frame, strlen(frame), err, sizeof err), *rows = json_array();

	assert_non_null(m);
	assert_int_equal(tl_claude_project(st, m, rows, err, sizeof err), 0);
	json_decref(m);
	return rows;
}

static const char *field(const json_t *row, const char *key)
{
	return json_string_value(json_object_get(row, key));
}

static json_int_t number(const json_t *row, const char *key)
{
	assert_true(json_is_integer(json_object_get(row, key)));
	return json_integer_value(json_object_get(row, key));
}

/* Place every row of rows in s: the positions it took, "N" new or "R"
 * replaced, appended to log. */
static void place_all(struct tl_stream *s, const json_t *rows, char *log, size_t loglen)
{
	const json_t *row;
	size_t i, pos;

	json_array_foreach(rows, i, row) {
		enum tl_place p = tl_stream_place(s, row, &pos);

		assert_int_not_equal(p, TL_PLACE_INVALID);
		snprintf(log + strlen(log), loglen - strlen(log), "%s%zu ", p == TL_PLACE_NEW ? "N" : "R", pos);
	}
}

/* The person's prompt: live, the turn's start and the user row under the
 * ids of the saved message; the result ends the turn with what the SDK
 * reported for it; the saved message's rows then take the live rows'
 * places, so the timeline never holds both. */
static void test_claude_prompt_live_then_saved(void **state)
{
	struct tl_claude live, saved;
	struct tl_stream s;
	char log[128] = "", err[256];
	json_t *rows = json_array(), *end, *m;

	(void)state;
	tl_claude_init(&live);
	tl_claude_init(&saved);
	assert_int_equal(tl_stream_init(&s), 0);

	tl_claude_sent(&live, PROMPT_UUID, "List my sessions.", rows);
	assert_int_equal(json_array_size(rows), 2);
	assert_string_equal(field(json_array_get(rows, 0), "kind"), "turn_started");
	assert_string_equal(field(json_array_get(rows, 0), "id"), "claude:" PROMPT_UUID "#started");
	assert_string_equal(field(json_array_get(rows, 0), "turn"), PROMPT_UUID);
	assert_string_equal(field(json_array_get(rows, 1), "kind"), "user");
	assert_string_equal(field(json_array_get(rows, 1), "id"), "claude:" PROMPT_UUID "#0");
	assert_string_equal(field(json_array_get(rows, 1), "text"), "List my sessions.");
	place_all(&s, rows, log, sizeof log);
	json_decref(rows);

	rows = claude_rows(&live, RESULT_OK);
	assert_int_equal(json_array_size(rows), 1);
	end = json_array_get(rows, 0);
	assert_string_equal(field(end, "kind"), "turn_completed");
	assert_string_equal(field(end, "id"), "claude:" PROMPT_UUID "#completed");
	assert_string_equal(field(end, "turn"), PROMPT_UUID);
	assert_string_equal(field(end, "status"), "completed");
	assert_int_equal(number(end, "durationMs"), 156);
	assert_int_equal(number(end, "tokensIn"), 220);	/* 200 + 15 read from the cache + 5 written to it */
	assert_int_equal(number(end, "cachedTokensIn"), 15);
	assert_int_equal(number(end, "tokensOut"), 30);
	assert_true(json_number_value(json_object_get(end, "costUsd")) > 0.00147 &&
		    json_number_value(json_object_get(end, "costUsd")) < 0.00149);
	place_all(&s, rows, log, sizeof log);
	json_decref(rows);

	/* the transcript read found it: its saved rows, in place */
	m = saved_user(PROMPT_UUID, "List my sessions.");
	rows = json_array();
	assert_int_equal(tl_claude_project(&saved, m, rows, err, sizeof err), 0);
	place_all(&s, rows, log, sizeof log);
	assert_string_equal(log, "N0 N1 N2 R0 R1 ");
	assert_int_equal(s.count, 3);
	assert_string_equal(field(json_array_get(rows, 1), "text"), "List my sessions.");
	json_decref(rows);
	json_decref(m);

	tl_claude_free(&live);
	tl_claude_free(&saved);
	tl_stream_free(&s);
}

/* A message from another session: an agent communication row live, the
 * same row saved, one place. */
static void test_claude_session_message_live_then_saved(void **state)
{
	struct tl_claude live, saved;
	struct tl_stream s;
	char log[64] = "", err[64];
	json_t *rows = json_array(), *m, *row, *live_row;

	(void)state;
	tl_claude_init(&live);
	tl_claude_init(&saved);
	assert_int_equal(tl_stream_init(&s), 0);
	tl_claude_sent(&live, PROMPT_UUID, ENVELOPE, rows);
	assert_int_equal(json_array_size(rows), 2);
	row = json_array_get(rows, 1);
	assert_string_equal(field(row, "kind"), "agent_message");
	assert_string_equal(field(row, "fromSession"), "s-42");
	assert_string_equal(field(row, "fromTitle"), "Docs & site");
	assert_string_equal(field(row, "fromAgent"), "codex");
	assert_string_equal(field(row, "text"), "Please rebuild the docs.");
	live_row = json_deep_copy(row);
	place_all(&s, rows, log, sizeof log);

	m = saved_user(PROMPT_UUID, ENVELOPE);
	json_decref(rows);
	rows = json_array();
	assert_int_equal(tl_claude_project(&saved, m, rows, err, sizeof err), 0);
	assert_true(json_equal(json_array_get(rows, 1), live_row));	/* the same row: nothing flickers */
	json_decref(live_row);
	place_all(&s, rows, log, sizeof log);
	assert_string_equal(log, "N0 N1 R0 R1 ");
	assert_string_equal(field(json_array_get(rows, 1), "kind"), "agent_message");
	json_decref(rows);
	json_decref(m);
	tl_claude_free(&live);
	tl_claude_free(&saved);
	tl_stream_free(&s);
}

/* Only words to the model start a turn: not a tool result, an interrupt
 * note or a local slash command; and a result without a known start (the
 * stream began inside the turn) ends a turn named by the result. */
static void test_claude_turn_edges(void **state)
{
	struct tl_claude st;
	json_t *rows = json_array(), *end;

	(void)state;
	tl_claude_init(&st);
	tl_claude_sent(&st, PROMPT_UUID, "[Request interrupted by user]", rows);
	tl_claude_sent(&st, PROMPT_UUID, "<command-name>/model</command-name>", rows);
	for (size_t i = 0; i < json_array_size(rows); i++)
		assert_string_not_equal(field(json_array_get(rows, i), "kind"), "turn_started");
	json_decref(rows);
	rows = claude_rows(&st, "{\"type\":\"user\",\"uuid\":\"u-1\",\"parent_tool_use_id\":null,\"message\":{\"role\":"
				"\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\",\"content\":\"ok\"}]}}");
	assert_string_not_equal(field(json_array_get(rows, 0), "kind"), "turn_started");
	json_decref(rows);

	rows = claude_rows(&st, RESULT_INTERRUPTED);
	end = json_array_get(rows, 0);
	assert_string_equal(field(end, "id"), "claude:135cd121-b9f2-4001-8ae7-4190e3da3a89#completed");
	assert_string_equal(field(end, "status"), "interrupted");
	assert_int_equal(number(end, "tokensIn"), 100);
	assert_int_equal(number(end, "tokensOut"), 20);
	assert_null(json_object_get(end, "costUsd"));	/* a running total only: not this turn's */
	json_decref(rows);
	tl_claude_free(&st);
}

/* Codex's turn: started, the prompt, and completed with its duration and
 * the tokens of its model calls; a sub-agent's thread makes no turn rows
 * (its spawn row is its turn, as a Claude subagent's). */
static void test_codex_turn_rows(void **state)
{
	const char *notes[] = {
		"{\"method\":\"turn/started\",\"params\":{\"threadId\":\"t\",\"turn\":{\"id\":\"turn-1\",\"rootTurnId\":"
		"\"turn-1\",\"status\":\"inProgress\"}}}",
		"{\"method\":\"item/completed\",\"params\":{\"threadId\":\"t\",\"turnId\":\"turn-1\",\"item\":{\"type\":"
		"\"userMessage\",\"id\":\"item-1\",\"content\":[{\"type\":\"text\",\"text\":\"List my sessions.\"}]}}}",
		"{\"method\":\"thread/tokenUsage/updated\",\"params\":{\"threadId\":\"t\",\"turnId\":\"turn-1\",\"tokenUsage\":"
		"{\"total\":{\"inputTokens\":10,\"cachedInputTokens\":0,\"outputTokens\":5},\"last\":{\"inputTokens\":10,"
		"\"cachedInputTokens\":0,\"outputTokens\":5}}}}",
		"{\"method\":\"thread/tokenUsage/updated\",\"params\":{\"threadId\":\"t\",\"turnId\":\"turn-1\",\"tokenUsage\":"
		"{\"total\":{\"inputTokens\":22,\"cachedInputTokens\":8,\"outputTokens\":12},\"last\":{\"inputTokens\":12,"
		"\"cachedInputTokens\":8,\"outputTokens\":7}}}}",
		"{\"method\":\"turn/completed\",\"params\":{\"threadId\":\"t\",\"turn\":{\"id\":\"turn-1\",\"status\":"
		"\"completed\",\"durationMs\":130}}}",
	};
	char kinds[128] = "", err[256];
	struct tl_codex st, child;
	json_t *end = NULL;

	(void)state;
	tl_codex_init(&st, 0);
	tl_codex_init(&child, 1);
	for (size_t f = 0; f < sizeof notes / sizeof notes[0]; f++) {
		json_t *m = json_loads(notes[f], 0, NULL), *rows = json_array(), *crows = json_array(), *row;
		size_t i;

		assert_non_null(m);
		assert_int_equal(tl_codex_project(&st, m, rows, err, sizeof err), 0);
		assert_int_equal(tl_codex_project(&child, m, crows, err, sizeof err), 0);
		json_array_foreach(rows, i, row) {
			snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), "%s ", field(row, "kind"));
			if (strcmp(field(row, "kind"), "turn_completed") == 0)
				end = json_incref(row);
		}
		json_array_foreach(crows, i, row)
			assert_null(strstr(field(row, "kind"), "turn_"));
		json_decref(rows), json_decref(crows), json_decref(m);
	}
	assert_string_equal(kinds, "turn_started user turn_completed ");
	assert_non_null(end);
	assert_string_equal(field(end, "id"), "codex:turn-1#completed");
	assert_string_equal(field(end, "turn"), "turn-1");
	assert_string_equal(field(end, "status"), "completed");
	assert_int_equal(number(end, "durationMs"), 130);
	assert_int_equal(number(end, "tokensIn"), 22);
	assert_int_equal(number(end, "cachedTokensIn"), 8);
	assert_int_equal(number(end, "tokensOut"), 12);
	json_decref(end);
	tl_codex_free(&st);
	tl_codex_free(&child);
}

/* Both agents give a prompt's turn the same kinds in the same order, and
 * their ends the same fields. */
static void test_both_agents_alike(void **state)
{
	const char *codex[] = {
		"{\"method\":\"turn/started\",\"params\":{\"threadId\":\"t\",\"turn\":{\"id\":\"turn-2\"}}}",
		"{\"method\":\"item/started\",\"params\":{\"threadId\":\"t\",\"turnId\":\"turn-2\",\"item\":{\"type\":"
		"\"userMessage\",\"id\":\"item-2\",\"content\":[{\"type\":\"text\",\"text\":\"" "<session_message "
		"from_session_id=\\\"s-42\\\" from_title=\\\"Docs\\\" from_agent=\\\"claude\\\">hi</session_message>\"}]}}}",
		"{\"method\":\"thread/tokenUsage/updated\",\"params\":{\"threadId\":\"t\",\"turnId\":\"turn-2\",\"tokenUsage\":"
		"{\"last\":{\"inputTokens\":3,\"cachedInputTokens\":0,\"outputTokens\":1}}}}",
		"{\"method\":\"turn/completed\",\"params\":{\"threadId\":\"t\",\"turn\":{\"id\":\"turn-2\",\"status\":"
		"\"completed\",\"durationMs\":9}}}",
	};
	const char *keys[] = { "turn", "status", "durationMs", "tokensIn", "cachedTokensIn", "tokensOut" };
	char ckinds[128] = "", xkinds[128] = "", err[256];
	struct tl_claude cst;
	struct tl_codex xst;
	json_t *crows = json_array(), *xrows = json_array(), *row, *r;
	size_t i;

	(void)state;
	tl_claude_init(&cst);
	tl_codex_init(&xst, 0);
	tl_claude_sent(&cst, PROMPT_UUID, "<session_message from_session_id=\"s-42\" from_title=\"Docs\" "
					  "from_agent=\"claude\">hi</session_message>", crows);
	r = claude_rows(&cst, RESULT_OK);
	json_array_extend(crows, r);
	json_decref(r);
	for (i = 0; i < sizeof codex / sizeof codex[0]; i++) {
		json_t *m = json_loads(codex[i], 0, NULL);

		assert_int_equal(tl_codex_project(&xst, m, xrows, err, sizeof err), 0);
		json_decref(m);
	}
	json_array_foreach(crows, i, row)
		snprintf(ckinds + strlen(ckinds), sizeof ckinds - strlen(ckinds), "%s ", field(row, "kind"));
	json_array_foreach(xrows, i, row)
		snprintf(xkinds + strlen(xkinds), sizeof xkinds - strlen(xkinds), "%s ", field(row, "kind"));
	assert_string_equal(ckinds, "turn_started agent_message turn_completed ");
	assert_string_equal(xkinds, ckinds);
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		assert_non_null(json_object_get(json_array_get(crows, 2), keys[i]));
		assert_non_null(json_object_get(json_array_get(xrows, 2), keys[i]));
	}
	json_decref(crows);
	json_decref(xrows);
	tl_claude_free(&cst);
	tl_codex_free(&xst);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_claude_prompt_live_then_saved),
		cmocka_unit_test(test_claude_session_message_live_then_saved),
		cmocka_unit_test(test_claude_turn_edges),
		cmocka_unit_test(test_codex_turn_rows),
		cmocka_unit_test(test_both_agents_alike),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
