/*
 * test_dialect - the frames the real programs sent, replayed through the
 * Codex and Claude dialect code (agents/dialect.c): every recorded
 * item/tool/call parses to its thread, call, tool and arguments, and our
 * answer to it has exactly the shape of a recorded answer that Codex
 * accepted; every recorded Claude tool call, as the agent host turns it
 * into a toolCall line, parses back, and our toolResult carries the same
 * content the recorded handler returned.  An answer with images has each
 * agent's exact items (the shapes are Codex 0.171.0's
 * DynamicToolCallOutputContentItem and the MCP image content block the
 * agent host takes), and images that are not what common/images.h
 * writes give no answer at all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialect.h"

/* The fixture's records, from the repo root or beside the build folder. */
static json_t *load_fixture(const char *name)
{
	char path[1024];
	const char *build = getenv("HB_BUILD");
	json_t *all = json_array();
	char line[65536];
	FILE *in;

	snprintf(path, sizeof path, "tests/fixtures/%s", name);
	if (!(in = fopen(path, "r")) && build) {
		snprintf(path, sizeof path, "%s/../tests/fixtures/%s", build, name);
		in = fopen(path, "r");
	}
	assert_non_null(in);
	while (fgets(line, sizeof line, in)) {
		json_t *r = json_loads(line, 0, NULL);
		assert_non_null(r);
		json_array_append_new(all, r);
	}
	fclose(in);
	assert_true(json_array_size(all) > 0);
	return all;
}

static char *dump(const json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

	assert_non_null(s);
	return s;
}

static void test_codex_recorded_calls(void **state)
{
	json_t *all = load_fixture("codex-tool-calls.jsonl"), *r;
	size_t i, replayed = 0;

	(void)state;
	json_array_foreach(all, i, r) {
		json_t *call = json_object_get(r, "call"), *params = json_object_get(call, "params");
		json_t *answer = json_object_get(r, "answer"), *result = json_object_get(answer, "result");
		char *line = dump(call), err[256], *ours;
		struct codex_tool_call tc;
		json_t *mine, *args;

		assert_int_equal(dialect_codex_parse(line, strlen(line), &tc, err, sizeof err), 0);
		assert_string_equal(tc.thread, json_string_value(json_object_get(params, "threadId")));
		assert_string_equal(tc.turn, json_string_value(json_object_get(params, "turnId")));
		assert_string_equal(tc.call_id, json_string_value(json_object_get(params, "callId")));
		assert_string_equal(tc.tool, json_string_value(json_object_get(params, "tool")));
		args = json_loads(tc.args, 0, NULL);
		assert_true(json_equal(args, json_object_get(params, "arguments")));
		json_decref(args);

		if (json_is_array(json_object_get(result, "contentItems"))) {
			/* An answer Codex accepted: ours is the same, byte for byte
			 * once parsed. */
			const char *text = json_string_value(json_object_get(
				json_array_get(json_object_get(result, "contentItems"), 0), "text"));
			ours = dialect_codex_answer(tc.rpcid, json_is_true(json_object_get(result, "success")), text,
						    NULL);
			mine = json_loads(ours, 0, NULL);
			assert_true(json_equal(mine, answer));
			json_decref(mine);
			free(ours);
			replayed++;
		} else {
			/* The probe's JSON-RPC error or wrong shape: our failure is
			 * still a result the model reads. */
			ours = dialect_codex_answer(tc.rpcid, 0, "the tool failed", NULL);
			mine = json_loads(ours, 0, NULL);
			assert_null(json_object_get(mine, "error"));
			assert_false(json_is_true(json_object_get(json_object_get(mine, "result"), "success")));
			assert_true(json_equal(json_object_get(mine, "id"), json_object_get(answer, "id")));
			json_decref(mine);
			free(ours);
		}
		dialect_codex_free(&tc);
		free(line);
	}
	assert_true(replayed >= 5);
	json_decref(all);
}

static void test_codex_old_thread_arguments_dropped(void **state)
{
	const char *line = "{\"method\":\"item/tool/call\",\"id\":\"r-9\",\"params\":{\"threadId\":\"t\",\"turnId\":\"u\","
			   "\"callId\":\"c\",\"namespace\":\"hbcode\",\"tool\":\"maintain_sessions\",\"arguments\":"
			   "{\"action\":\"guide\",\"sessionId\":\"s\",\"runId\":\"r\",\"projectDirectory\":\"/p\"}}}";
	struct codex_tool_call tc;
	char err[256];

	(void)state;
	assert_int_equal(dialect_codex_parse(line, strlen(line), &tc, err, sizeof err), 0);
	assert_string_equal(tc.args, "{\"action\":\"guide\"}");
	assert_string_equal(tc.rpcid, "\"r-9\"");
	dialect_codex_free(&tc);
}

static void test_codex_refusals(void **state)
{
	static const struct {
		const char *line;
		int rc;
	} cases[] = {
		{ "not json", -1 },
		{ "{\"method\":\"turn/start\",\"id\":1}", -1 },
		{ "{\"method\":\"item/tool/call\",\"params\":{}}", -1 },                 /* no id */
		{ "{\"method\":\"item/tool/call\",\"id\":1,\"params\":{}}", -2 },       /* answerable */
		{ "{\"method\":\"item/tool/call\",\"id\":1,\"params\":{\"threadId\":\"t\",\"callId\":\"c\","
		  "\"tool\":\"x\",\"namespace\":\"other\"}}", -2 },
		{ "{\"method\":\"item/tool/call\",\"id\":1,\"params\":{\"threadId\":\"t\",\"callId\":\"c\","
		  "\"tool\":\"x\",\"arguments\":[1]}}", -2 },
	};
	struct codex_tool_call tc;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = dialect_codex_parse(cases[i].line, strlen(cases[i].line), &tc, err, sizeof err);
		if (rc != cases[i].rc)
			fail_msg("case %zu: %d, wanted %d (%s)", i, rc, cases[i].rc, err);
		if (rc == -2)
			assert_non_null(tc.rpcid);
		assert_true(err[0] != '\0');
		dialect_codex_free(&tc);
	}
}

/* Each reader takes only its own namespace: the catalog's "hbcode" and
 * the explainer worker's are refused by the other, with the namespace
 * named; a call without a namespace counts as the reader's. */
static void test_codex_namespace(void **state)
{
	static const char *const calls[] = {
		"{\"method\":\"item/tool/call\",\"id\":4,\"params\":{\"threadId\":\"t\",\"callId\":\"c\","
		"\"namespace\":\"hbcode_explainer\",\"tool\":\"write_scene\",\"arguments\":{\"name\":\"a\"}}}",
		"{\"method\":\"item/tool/call\",\"id\":4,\"params\":{\"threadId\":\"t\",\"callId\":\"c\","
		"\"namespace\":\"hbcode\",\"tool\":\"write_scene\",\"arguments\":{\"name\":\"a\"}}}",
		"{\"method\":\"item/tool/call\",\"id\":4,\"params\":{\"threadId\":\"t\",\"callId\":\"c\","
		"\"tool\":\"write_scene\",\"arguments\":{\"name\":\"a\"}}}",
	};
	struct codex_tool_call tc;
	char err[256];

	(void)state;
	assert_int_equal(dialect_codex_parse_ns(calls[0], strlen(calls[0]), "hbcode_explainer", &tc, err, sizeof err), 0);
	assert_string_equal(tc.tool, "write_scene");
	assert_string_equal(tc.args, "{\"name\":\"a\"}");
	dialect_codex_free(&tc);
	assert_int_equal(dialect_codex_parse(calls[0], strlen(calls[0]), &tc, err, sizeof err), -2);
	assert_string_equal(tc.rpcid, "4");
	assert_string_equal(err, "only tools of the hbcode namespace are served here");
	dialect_codex_free(&tc);
	assert_int_equal(dialect_codex_parse_ns(calls[1], strlen(calls[1]), "hbcode_explainer", &tc, err, sizeof err),
			 -2);
	assert_string_equal(err, "only tools of the hbcode_explainer namespace are served here");
	dialect_codex_free(&tc);
	assert_int_equal(dialect_codex_parse(calls[1], strlen(calls[1]), &tc, err, sizeof err), 0);
	dialect_codex_free(&tc);
	assert_int_equal(dialect_codex_parse_ns(calls[2], strlen(calls[2]), "hbcode_explainer", &tc, err, sizeof err), 0);
	dialect_codex_free(&tc);
}

static void test_claude_recorded_calls(void **state)
{
	json_t *all = load_fixture("claude-handler-calls.jsonl"), *r;
	size_t i;

	(void)state;
	json_array_foreach(all, i, r) {
		/* The toolCall line host.mjs writes for this SDK handler call. */
		json_t *ev = json_pack("{s:s, s:s, s:s, s:O, s:O}", "event", "toolCall", "requestId", "tool-1", "tool",
				       "mcp__hbcode__maintain_sessions", "arguments", json_object_get(r, "args"),
				       "toolUseId", json_object_get(r, "toolUseId"));
		char *line = dump(ev), err[256], *ours;
		struct claude_tool_call tc;
		json_t *args, *result, *content = json_object_get(json_object_get(r, "result"), "content");
		const char *text = json_string_value(json_object_get(json_array_get(content, 0), "text"));

		assert_int_equal(dialect_claude_parse(line, strlen(line), &tc, err, sizeof err), 0);
		assert_string_equal(tc.tool, "maintain_sessions");
		assert_string_equal(tc.tool_use_id, json_string_value(json_object_get(r, "toolUseId")));
		assert_string_equal(tc.request_id, "\"tool-1\"");
		assert_string_equal(tc.call_id, tc.tool_use_id);
		assert_null(tc.binding);
		args = json_loads(tc.args, 0, NULL);
		assert_true(json_equal(args, json_object_get(r, "args")));
		json_decref(args);
		/* Our toolResult carries the content the handler returned. */
		ours = dialect_claude_result(tc.request_id, 1, text ? text : "", NULL);
		result = json_loads(ours, 0, NULL);
		if (text)
			assert_true(json_equal(json_object_get(result, "content"), content));
		assert_string_equal(json_string_value(json_object_get(result, "requestId")), "tool-1");
		json_decref(result);
		free(ours);
		dialect_claude_free(&tc);
		free(line);
		json_decref(ev);
	}
	json_decref(all);
}

static void test_claude_binding_named(void **state)
{
	const char *top = "{\"event\":\"toolCall\",\"requestId\":3,\"tool\":\"whoami\",\"arguments\":{},\"runId\":\"r\"}";
	const char *inner = "{\"event\":\"toolCall\",\"requestId\":3,\"tool\":\"whoami\",\"arguments\":{\"projectDirectory\":\"/\"}}";
	struct claude_tool_call tc;
	char err[256];

	(void)state;
	assert_int_equal(dialect_claude_parse(top, strlen(top), &tc, err, sizeof err), 0);
	assert_string_equal(tc.binding, "runId");
	assert_string_equal(tc.tool_use_id, "");
	dialect_claude_free(&tc);
	assert_int_equal(dialect_claude_parse(inner, strlen(inner), &tc, err, sizeof err), 0);
	assert_string_equal(tc.binding, "projectDirectory");
	dialect_claude_free(&tc);
	assert_int_equal(dialect_claude_parse("{\"tool\":\"x\"}", 12, &tc, err, sizeof err), -1);
}

/* Without toolUseId the identity is the requestId's bare text, the same
 * for the toolCall and its toolCancel, a string's or an integer's. */
static void test_claude_call_id(void **state)
{
	static const struct {
		const char *line, *want;
	} cases[] = {
		{ "{\"event\":\"toolCall\",\"requestId\":\"tool-1\",\"tool\":\"t\",\"arguments\":{}}", "tool-1" },
		{ "{\"event\":\"toolCall\",\"requestId\":7,\"tool\":\"t\",\"arguments\":{}}", "7" },
		{ "{\"event\":\"toolCall\",\"requestId\":\"tool-1\",\"tool\":\"t\",\"toolUseId\":\"\"}", "tool-1" },
		{ "{\"event\":\"toolCall\",\"requestId\":\"a\\\"b\",\"tool\":\"t\"}", "a\"b" },
		{ "{\"event\":\"toolCall\",\"requestId\":\"tool-1\",\"tool\":\"t\",\"toolUseId\":\"toolu_1\"}", "toolu_1" },
	};
	struct claude_tool_call tc;
	char err[256], *id;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_equal(dialect_claude_parse(cases[i].line, strlen(cases[i].line), &tc, err, sizeof err), 0);
		assert_string_equal(tc.call_id, cases[i].want);
		dialect_claude_free(&tc);
		assert_non_null(id = dialect_claude_call_id(cases[i].line, strlen(cases[i].line)));
		assert_string_equal(id, cases[i].want);
		free(id);
	}
	/* The toolCancel of a call without toolUseId names it alike. */
	{
		static const char cancel[] = "{\"event\":\"toolCancel\",\"requestId\":7}", none[] = "{\"event\":\"toolCancel\"}";
		assert_non_null(id = dialect_claude_call_id(cancel, strlen(cancel)));
		assert_string_equal(id, "7");
		free(id);
		assert_null(dialect_claude_call_id(none, strlen(none)));
		assert_null(dialect_claude_call_id("not json", 8));
	}
}

/* The wire form of a PNG (its signature and two more bytes, "iVBORw0KGgoAAQ==")
 * and a JPEG ("/9j/4A==": ff d8 ff e0), as a service sends them. */
static const char two_images[] = "[{\"mimeType\":\"image/png\",\"data\":\"iVBORw0KGgoAAQ==\"},"
				 "{\"mimeType\":\"image/jpeg\",\"data\":\"/9j/4A==\"}]";

static void test_codex_answer_with_images(void **state)
{
	char *ours;

	(void)state;
	ours = dialect_codex_answer("7", 1, "two pictures", two_images);
	assert_non_null(ours);
	assert_string_equal(ours, "{\"result\":{\"contentItems\":["
			    "{\"type\":\"inputText\",\"text\":\"two pictures\"},"
			    "{\"type\":\"inputImage\",\"imageUrl\":\"data:image/png;base64,iVBORw0KGgoAAQ==\"},"
			    "{\"type\":\"inputImage\",\"imageUrl\":\"data:image/jpeg;base64,/9j/4A==\"}],"
			    "\"success\":true},\"id\":7}");
	free(ours);
	/* Without images, the answer every recorded call got. */
	ours = dialect_codex_answer("\"r-1\"", 0, "no", NULL);
	assert_string_equal(ours, "{\"result\":{\"contentItems\":[{\"type\":\"inputText\",\"text\":\"no\"}],"
			    "\"success\":false},\"id\":\"r-1\"}");
	free(ours);
}

static void test_claude_result_with_images(void **state)
{
	char *ours;

	(void)state;
	ours = dialect_claude_result("\"tool-1\"", 1, "two pictures", two_images);
	assert_non_null(ours);
	assert_string_equal(ours, "{\"content\":["
			    "{\"type\":\"text\",\"text\":\"two pictures\"},"
			    "{\"type\":\"image\",\"data\":\"iVBORw0KGgoAAQ==\",\"mimeType\":\"image/png\"},"
			    "{\"type\":\"image\",\"data\":\"/9j/4A==\",\"mimeType\":\"image/jpeg\"}],"
			    "\"isError\":false,\"requestId\":\"tool-1\"}");
	free(ours);
	ours = dialect_claude_result("3", 0, "no", "[]");
	assert_string_equal(ours, "{\"content\":[{\"type\":\"text\",\"text\":\"no\"}],\"isError\":true,"
			    "\"requestId\":3}");
	free(ours);
}

/* Images a service got wrong never reach an agent as if they were right. */
static void test_answers_refuse_bad_images(void **state)
{
	static const char *const bad[] = {
		"not json",
		"{\"mimeType\":\"image/png\",\"data\":\"iVBORw0KGgoAAQ==\"}",             /* not an array */
		"[{\"mimeType\":\"image/gif\",\"data\":\"R0lGODlh\"}]",                        /* a GIF */
		"[{\"mimeType\":\"image/png\",\"data\":\"/9j/4A==\"}]",                         /* JPEG bytes */
		"[{\"mimeType\":\"image/png\",\"data\":\"iVBORw0KGgo*AQ==\"}]",                 /* not base64 */
		"[{\"mimeType\":\"image/png\",\"data\":\"\"}]",                                 /* empty */
		"[{\"mimeType\":\"image/png\",\"data\":\"iVBORw0KGgoAAQ==\",\"x\":1}]",          /* a third member */
		"[{\"data\":\"iVBORw0KGgoAAQ==\"}]",                                              /* no type */
	};

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *codex = dialect_codex_answer("1", 1, "t", bad[i]);
		char *claude = dialect_claude_result("1", 1, "t", bad[i]);
		if (codex || claude)
			fail_msg("case %zu was written: %s", i, codex ? codex : claude);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codex_recorded_calls),
		cmocka_unit_test(test_codex_old_thread_arguments_dropped),
		cmocka_unit_test(test_codex_refusals),
		cmocka_unit_test(test_codex_namespace),
		cmocka_unit_test(test_claude_recorded_calls),
		cmocka_unit_test(test_claude_binding_named),
		cmocka_unit_test(test_claude_call_id),
		cmocka_unit_test(test_codex_answer_with_images),
		cmocka_unit_test(test_claude_result_with_images),
		cmocka_unit_test(test_answers_refuse_bad_images),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
