/*
 * test_timeline_args - a tool row carries its call's arguments (issue 37:
 * the live view printed `hbcode.maintain_sessions  ok` with nothing after
 * it): Claude's tool_use input as "input", Codex's mcpToolCall and
 * dynamicToolCall arguments as "arguments", live and saved alike, while
 * command and file change rows keep only their command or path.  The
 * arguments are bounded as every other field is (TL_ARGS_MAX,
 * docs/timeline.md "caps"): past the cap they become their compact JSON
 * text cut with TL_CUT_MARK.
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

#define CLAUDE_CALL(name, input)                                                                          \
	"{\"type\":\"assistant\",\"uuid\":\"u1\",\"parent_tool_use_id\":null,\"message\":{\"id\":\"msg_1\","  \
	"\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"" name "\"," \
	"\"input\":" input "}]}}"
#define CODEX_ITEM(type, extra, status)                                                                    \
	"{\"method\":\"item/completed\",\"params\":{\"threadId\":\"t\",\"turnId\":\"u\",\"item\":{\"type\":\"" \
	type "\",\"id\":\"call_1\"," extra ",\"status\":\"" status "\"}}}"

/* The one row of one Claude message (json); the caller frees it. */
static json_t *claude_row(const char *json)
{
	struct tl_claude st;
	json_t *msg = json_loads(json, 0, NULL), *rows = json_array(), *row;
	char err[200];

	assert_non_null(msg);
	tl_claude_init(&st);
	assert_int_equal(tl_claude_project(&st, msg, rows, err, sizeof err), 0);
	assert_int_equal(json_array_size(rows), 1);
	row = json_incref(json_array_get(rows, 0));
	json_decref(rows);
	json_decref(msg);
	tl_claude_free(&st);
	return row;
}

static json_t *codex_row(const char *json)
{
	struct tl_codex st;
	json_t *note = json_loads(json, 0, NULL), *rows = json_array(), *row;
	char err[200];

	assert_non_null(note);
	tl_codex_init(&st, 0);
	assert_int_equal(tl_codex_project(&st, note, rows, err, sizeof err), 0);
	assert_int_equal(json_array_size(rows), 1);
	row = json_incref(json_array_get(rows, 0));
	json_decref(rows);
	json_decref(note);
	tl_codex_free(&st);
	return row;
}

static void assert_field_json(const json_t *row, const char *key, const char *want)
{
	json_t *w = json_loads(want, JSON_DECODE_ANY, NULL);

	assert_non_null(w);
	assert_true(json_equal(json_object_get(row, key), w));
	json_decref(w);
}

static int ends_cut(const char *s)
{
	size_t n = strlen(s), m = strlen(TL_CUT_MARK);

	return n >= m && strcmp(s + n - m, TL_CUT_MARK) == 0;
}

/* A string of n 'x' inside {"text": …}, as a JSON text to splice in. */
static char *big_object(size_t n)
{
	char *s = malloc(n + 16);

	assert_non_null(s);
	memcpy(s, "{\"text\":\"", 9);
	memset(s + 9, 'x', n);
	memcpy(s + 9 + n, "\"}", 3);
	return s;
}

static void test_claude_tool_row_has_input(void **state)
{
	json_t *row;

	(void)state;
	row = claude_row(CLAUDE_CALL("mcp__hbcode__maintain_sessions", "{\"action\":\"listSessions\",\"limit\":3}"));
	assert_string_equal(json_string_value(json_object_get(row, "kind")), "tool");
	assert_field_json(row, "input", "{\"action\":\"listSessions\",\"limit\":3}");
	json_decref(row);
	row = claude_row(CLAUDE_CALL("Grep", "{\"pattern\":\"main\"}"));
	assert_field_json(row, "input", "{\"pattern\":\"main\"}");
	json_decref(row);
}

static void test_claude_command_and_file_rows_have_no_input(void **state)
{
	json_t *row;

	(void)state;
	row = claude_row(CLAUDE_CALL("Bash", "{\"command\":\"ls\"}"));
	assert_string_equal(json_string_value(json_object_get(row, "kind")), "command");
	assert_null(json_object_get(row, "input"));
	json_decref(row);
	row = claude_row(CLAUDE_CALL("Edit", "{\"file_path\":\"/a.c\",\"old_string\":\"a\",\"new_string\":\"b\"}"));
	assert_string_equal(json_string_value(json_object_get(row, "kind")), "file_change");
	assert_null(json_object_get(row, "input"));
	json_decref(row);
}

static void test_codex_tool_rows_have_arguments(void **state)
{
	json_t *row;

	(void)state;
	row = codex_row(CODEX_ITEM("mcpToolCall",
				   "\"server\":\"hbcode\",\"tool\":\"maintain_sessions\",\"arguments\":{\"action\":"
				   "\"listSessions\"}",
				   "completed"));
	assert_string_equal(json_string_value(json_object_get(row, "kind")), "tool");
	assert_field_json(row, "arguments", "{\"action\":\"listSessions\"}");
	json_decref(row);
	row = codex_row(CODEX_ITEM("dynamicToolCall",
				   "\"namespace\":\"hbcode\",\"tool\":\"manage_sessions\",\"arguments\":{\"sessionId\":"
				   "\"s-2\"}",
				   "inProgress"));
	assert_field_json(row, "arguments", "{\"sessionId\":\"s-2\"}");
	json_decref(row);
	row = codex_row(CODEX_ITEM("commandExecution", "\"command\":\"ls\",\"cwd\":\"/\"", "completed"));
	assert_string_equal(json_string_value(json_object_get(row, "kind")), "command");
	assert_null(json_object_get(row, "arguments"));
	json_decref(row);
}

/* At the cap the arguments stay a JSON value; one byte past it they are
 * their compact text, cut, for either agent. */
static void test_arguments_capped(void **state)
{
	size_t fits = TL_ARGS_MAX - strlen("{\"text\":\"\"}");
	char *at = big_object(fits), *over = big_object(fits + 1), *frame;
	const json_t *v;
	json_t *row;

	(void)state;
	assert_non_null(frame = malloc(strlen(over) + 512));
	sprintf(frame, CLAUDE_CALL("mcp__hbcode__maintain_sessions", "%s"), at);
	row = claude_row(frame);
	assert_true(json_is_object(json_object_get(row, "input")));
	json_decref(row);
	sprintf(frame, CLAUDE_CALL("mcp__hbcode__maintain_sessions", "%s"), over);
	row = claude_row(frame);
	v = json_object_get(row, "input");
	assert_true(json_is_string(v));
	assert_true(json_string_length(v) <= TL_ARGS_MAX);
	assert_true(ends_cut(json_string_value(v)));
	assert_memory_equal(json_string_value(v), "{\"text\":\"xxx", 12);
	json_decref(row);
	sprintf(frame, CODEX_ITEM("mcpToolCall", "\"server\":\"s\",\"tool\":\"t\",\"arguments\":%s", "completed"), over);
	row = codex_row(frame);
	v = json_object_get(row, "arguments");
	assert_true(json_is_string(v));
	assert_true(json_string_length(v) <= TL_ARGS_MAX);
	assert_true(ends_cut(json_string_value(v)));
	json_decref(row);
	free(frame);
	free(at);
	free(over);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_claude_tool_row_has_input),
		cmocka_unit_test(test_claude_command_and_file_rows_have_no_input),
		cmocka_unit_test(test_codex_tool_rows_have_arguments),
		cmocka_unit_test(test_arguments_capped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
