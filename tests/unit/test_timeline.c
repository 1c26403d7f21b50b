/*
 * test_timeline - the timeline module's own rules (timeline/): the identity rule (a live row replaced in
 * place by its saved row, a call by its result), what a saved message must
 * still say (a declined call declined, a task notification hidden), the
 * live-only rows of a turn that waits (retries, rate limits), and
 * the bounds a hostile frame of any size meets.  The projection of real frames is
 * test_timeline_golden's.
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

#include "../../timeline/codex_threads.h"
#include "../../timeline/project.h"
#include "../../timeline/stream.h"

static int ends_cut(const char *s)
{
	size_t n = strlen(s), m = strlen(TL_CUT_MARK);

	return n >= m && strcmp(s + n - m, TL_CUT_MARK) == 0;
}

/* The recorded live envelopes of one API message (text, then tool_use,
 * each a message of its own) and the same message as the host returns it
 * saved (joined): the saved rows replace the live ones in place. */
static void test_saved_row_replaces_live_row(void **state)
{
	const char *live[] = {
		"{\"type\":\"assistant\",\"message\":{\"id\":\"msg_mock_5\",\"role\":\"assistant\",\"model\":\"claude-opus-5-5\","
		"\"content\":[{\"type\":\"text\",\"text\":\"I will call the maintenance tool.\"}]},\"parent_tool_use_id\":null,"
		"\"uuid\":\"0208595d-8094-491b-b24b-07115bb6b8c9\"}",
		"{\"type\":\"assistant\",\"message\":{\"id\":\"msg_mock_5\",\"role\":\"assistant\",\"model\":\"claude-opus-5-5\","
		"\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_mock_5\",\"name\":\"mcp__hbcode__maintain_sessions\",\"input\":"
		"{\"action\":\"prune\"}}]},\"parent_tool_use_id\":null,\"uuid\":\"24860a84-8a47-44bc-9603-39935f7d0daa\"}",
		"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"content\":\"ok\","
		"\"tool_use_id\":\"toolu_mock_5\"}]},\"parent_tool_use_id\":null,\"uuid\":\"73682c5e-8f8a-4f44-aa3e-0043a8d4333f\"}",
	};
	const char *saved[] = {
		"{\"type\":\"assistant\",\"message\":{\"id\":\"msg_mock_5\",\"role\":\"assistant\",\"model\":\"claude-opus-5-5\","
		"\"content\":[{\"type\":\"text\",\"text\":\"I will call the maintenance tool.\"},{\"type\":\"tool_use\",\"id\":"
		"\"toolu_mock_5\",\"name\":\"mcp__hbcode__maintain_sessions\",\"input\":{\"action\":\"prune\"}}]},"
		"\"parent_tool_use_id\":null,\"uuid\":\"0208595d-8094-491b-b24b-07115bb6b8c9\"}",
		"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"content\":\"ok\","
		"\"tool_use_id\":\"toolu_mock_5\"}]},\"parent_tool_use_id\":null,\"uuid\":\"73682c5e-8f8a-4f44-aa3e-0043a8d4333f\"}",
	};
	/* live: text NEW at 0, call NEW at 1, result REPLACES 1; saved: all in place */
	const enum tl_place want_place[] = { TL_PLACE_NEW, TL_PLACE_NEW, TL_PLACE_REPLACES, TL_PLACE_REPLACES,
					     TL_PLACE_REPLACES, TL_PLACE_REPLACES, TL_PLACE_REPLACES };
	const size_t want_pos[] = { 0, 1, 1, 0, 1, 1, 1 };
	struct tl_claude live_st, saved_st;
	struct tl_stream s;
	char err[256];
	size_t k = 0, pos;

	(void)state;
	assert_int_equal(tl_stream_init(&s), 0);
	tl_claude_init(&live_st);
	tl_claude_init(&saved_st);
	for (size_t f = 0; f < 5; f++) {
		const char *text = f < 3 ? live[f] : saved[f - 3];
		json_t *m = tl_parse_frame(text, strlen(text), err, sizeof err), *rows = json_array(), *row;
		size_t i;

		assert_non_null(m);
		assert_int_equal(tl_claude_project(f < 3 ? &live_st : &saved_st, m, rows, err, sizeof err), 0);
		json_array_foreach(rows, i, row) {
			assert_true(k < sizeof want_pos / sizeof want_pos[0]);
			assert_int_equal(tl_stream_place(&s, row, &pos), want_place[k]);
			assert_int_equal(pos, want_pos[k]);
			k++;
		}
		json_decref(rows);
		json_decref(m);
	}
	assert_int_equal(k, 6);	/* saved: text, call, result */
	assert_int_equal(s.count, 2);
	tl_claude_free(&live_st);
	tl_claude_free(&saved_st);
	tl_stream_free(&s);
}

static void test_codex_item_completed_in_place(void **state)
{
	const char *notes[] = {
		"{\"method\":\"item/started\",\"params\":{\"item\":{\"type\":\"dynamicToolCall\",\"id\":\"call_mock_1\",\"namespace\":"
		"\"hbcode\",\"tool\":\"maintain_sessions\",\"arguments\":{},\"status\":\"inProgress\"},\"threadId\":\"t\",\"turnId\":\"u\"}}",
		"{\"method\":\"item/completed\",\"params\":{\"item\":{\"type\":\"dynamicToolCall\",\"id\":\"call_mock_1\",\"namespace\":"
		"\"hbcode\",\"tool\":\"maintain_sessions\",\"arguments\":{},\"status\":\"completed\",\"contentItems\":[{\"type\":"
		"\"inputText\",\"text\":\"ok\"}],\"success\":true},\"threadId\":\"t\",\"turnId\":\"u\"}}",
	};
	struct tl_codex st;
	struct tl_stream s;
	char err[256];
	size_t pos;

	(void)state;
	tl_codex_init(&st, 0);
	assert_int_equal(tl_stream_init(&s), 0);
	for (int f = 0; f < 2; f++) {
		json_t *m = tl_parse_frame(notes[f], strlen(notes[f]), err, sizeof err), *rows = json_array();

		assert_int_equal(tl_codex_project(&st, m, rows, err, sizeof err), 0);
		assert_int_equal(json_array_size(rows), 1);
		assert_int_equal(tl_stream_place(&s, json_array_get(rows, 0), &pos), f ? TL_PLACE_REPLACES : TL_PLACE_NEW);
		assert_int_equal(pos, 0);
		assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 0), "status")), f ? "output" : "call");
		json_decref(rows);
		json_decref(m);
	}
	tl_codex_free(&st);
	tl_stream_free(&s);
}

/* json_t of a Claude assistant message with n blocks of the given text. */
static json_t *assistant_with(size_t n, const char *block_json)
{
	char *text;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	json_t *m;
	char err[256];

	assert_non_null(f);
	fputs("{\"type\":\"assistant\",\"uuid\":\"u1\",\"message\":{\"id\":\"msg_big\",\"content\":[", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "," : "", block_json);
	fputs("]}}", f);
	fclose(f);
	m = tl_parse_frame(text, len, err, sizeof err);
	free(text);
	assert_non_null(m);
	return m;
}

static void test_bounded_input(void **state)
{
	struct tl_claude st;
	char err[256], *huge;
	size_t n = 6u << 20;
	json_t *m, *rows;

	(void)state;
	/* a frame past TL_FRAME_MAX is refused with a sentence, unparsed */
	assert_null(tl_parse_frame("{}", TL_FRAME_MAX + 1, err, sizeof err));
	assert_non_null(strstr(err, "longer than"));
	assert_null(tl_parse_frame("[1]", 3, err, sizeof err));
	assert_string_equal(err, "frame is not a JSON object");
	tl_claude_init(&st);
	/* a text of 6 MB: the row keeps TL_TEXT_MAX and the mark */
	huge = malloc(n + 64);
	assert_non_null(huge);
	strcpy(huge, "{\"type\":\"text\",\"text\":\"");
	memset(huge + strlen(huge), 'x', n);
	strcpy(huge + 23 + n, "\"}");
	m = assistant_with(1, huge);
	rows = json_array();
	assert_int_equal(tl_claude_project(&st, m, rows, err, sizeof err), 0);
	assert_int_equal(strlen(json_string_value(json_object_get(json_array_get(rows, 0), "text"))), TL_TEXT_MAX);
	assert_true(ends_cut(json_string_value(json_object_get(json_array_get(rows, 0), "text"))));
	json_decref(rows), json_decref(m), free(huge);
	/* 5000 blocks: at most TL_ROWS_MAX rows, the last one says more were cut */
	m = assistant_with(5000, "{\"type\":\"text\",\"text\":\"hi\"}");
	rows = json_array();
	assert_int_equal(tl_claude_project(&st, m, rows, err, sizeof err), 0);
	assert_int_equal(json_array_size(rows), TL_ROWS_MAX);
	assert_true(json_is_true(json_object_get(json_array_get(rows, TL_ROWS_MAX - 1), "rowsCut")));
	json_decref(rows), json_decref(m);
	/* 5000 calls that never get a result: the open table stays bounded */
	for (int i = 0; i < 5000; i++) {
		char block[128];

		snprintf(block, sizeof block, "{\"type\":\"tool_use\",\"id\":\"toolu_%d\",\"name\":\"Grep\",\"input\":{}}", i);
		m = assistant_with(1, block);
		rows = json_array();
		assert_int_equal(tl_claude_project(&st, m, rows, err, sizeof err), 0);
		json_decref(rows), json_decref(m);
	}
	assert_int_equal(st.nopen, TL_OPEN_MAX);
	/* an id past TL_ID_MAX makes no row rather than a long one */
	huge = malloc(1024);
	assert_non_null(huge);
	snprintf(huge, 1024, "{\"type\":\"tool_use\",\"id\":\"%0300d\",\"name\":\"Grep\",\"input\":{}}", 7);
	m = assistant_with(1, huge);
	rows = json_array();
	assert_int_equal(tl_claude_project(&st, m, rows, err, sizeof err), 0);
	assert_int_equal(json_array_size(rows), 0);
	json_decref(rows), json_decref(m), free(huge);
	/* not a message: a clear error */
	m = json_integer(3);
	rows = json_array();
	assert_int_equal(tl_claude_project(&st, m, rows, err, sizeof err), -1);
	assert_string_equal(err, "Claude message is not an object with a type");
	json_decref(rows), json_decref(m);
	tl_claude_free(&st);
}

/* Codex output deltas without end: the row's output stops at its cap. */
static void test_codex_deltas_bounded(void **state)
{
	const char *start = "{\"method\":\"item/started\",\"params\":{\"item\":{\"type\":\"commandExecution\",\"id\":\"c1\","
			    "\"command\":\"yes\",\"status\":\"inProgress\"},\"threadId\":\"t\",\"turnId\":\"u\"}}";
	char delta[2048], err[256];
	struct tl_codex st;
	json_t *m, *rows = json_array();
	int emitted = 0;

	(void)state;
	tl_codex_init(&st, 0);
	m = tl_parse_frame(start, strlen(start), err, sizeof err);
	assert_int_equal(tl_codex_project(&st, m, rows, err, sizeof err), 0);
	json_decref(m);
	snprintf(delta, sizeof delta, "{\"method\":\"item/commandExecution/outputDelta\",\"params\":{\"itemId\":\"c1\","
				      "\"threadId\":\"t\",\"turnId\":\"u\",\"delta\":\"%01000d\\n\"}}", 0);
	for (int i = 0; i < 10000; i++) {
		json_t *r = json_array();

		m = tl_parse_frame(delta, strlen(delta), err, sizeof err);
		assert_int_equal(tl_codex_project(&st, m, r, err, sizeof err), 0);
		emitted += (int)json_array_size(r);
		json_decref(r), json_decref(m);
	}
	/* rows until the cap, then none: the rest is read on demand */
	assert_true(emitted < 10);
	assert_true(strlen(json_string_value(json_object_get(tl_open_get(st.open, st.nopen, "c1"), "output"))) <=
		    TL_OUTPUT_MAX);
	assert_true(ends_cut(json_string_value(json_object_get(tl_open_get(st.open, st.nopen, "c1"), "output"))));
	json_decref(rows);
	tl_codex_free(&st);
}

/* Terminal housekeeping is hidden, with its output; other commands show. */
static void test_housekeeping_hidden(void **state)
{
	static const char *const hidden[] = { "/exit", "/quit", "/clear", "/resume", "/status", "/cost" };
	char text[512], err[256];
	struct tl_claude st;

	(void)state;
	tl_claude_init(&st);
	for (size_t i = 0; i <= sizeof hidden / sizeof hidden[0]; i++) {
		const char *name = i < sizeof hidden / sizeof hidden[0] ? hidden[i] : "/model";
		json_t *m, *rows = json_array();

		snprintf(text, sizeof text, "{\"type\":\"user\",\"uuid\":\"u%zu\",\"message\":{\"role\":\"user\","
			 "\"content\":\"<command-name>%s</command-name>\"}}", i, name);
		m = tl_parse_frame(text, strlen(text), err, sizeof err);
		assert_int_equal(tl_claude_project(&st, m, rows, err, sizeof err), 0);
		assert_int_equal(json_array_size(rows), 1);
		assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 0), "kind")),
				    i < sizeof hidden / sizeof hidden[0] ? "hidden" : "slash_command");
		json_decref(rows), json_decref(m);
	}
	tl_claude_free(&st);
}

/* Project frames in order with one state; the last row of the last frame
 * (a new reference), or NULL when it made none. */
static json_t *last_row(const char *const *frames, size_t n)
{
	struct tl_claude st;
	json_t *last = NULL;
	char err[256];

	tl_claude_init(&st);
	for (size_t f = 0; f < n; f++) {
		json_t *m = tl_parse_frame(frames[f], strlen(frames[f]), err, sizeof err), *rows = json_array();

		assert_non_null(m);
		assert_int_equal(tl_claude_project(&st, m, rows, err, sizeof err), 0);
		if (f == n - 1 && json_array_size(rows))
			last = json_incref(json_array_get(rows, json_array_size(rows) - 1));
		json_decref(rows), json_decref(m);
	}
	tl_claude_free(&st);
	return last;
}

#define DECLINED_CALL                                                                                          \
	"{\"type\":\"assistant\",\"uuid\":\"7d48b114-fe73-4432-9660-58f370ca0319\",\"message\":{\"id\":\"msg_mock_1\"," \
	"\"role\":\"assistant\",\"model\":\"claude-opus-5-5\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_mock_1\"," \
	"\"name\":\"mcp__hbcode__manage_sessions\",\"input\":{\"action\":\"archive\",\"sessionId\":\"s-2\"}}]}," \
	"\"parent_tool_use_id\":null}"

/* A declined call is declined live (the SDK's permission decision) and
 * still declined once its saved row replaces the live one: the saved
 * message (recorded from getSessionMessages of the SDK 0.3.332 after a
 * deny) keeps only non_execution_kind.  A result whose turn ended first
 * ("interrupted", or "user-rejected" for a tool stopped while it ran) is no
 * refusal and stays an error. */
static void test_declined_stays_declined_when_saved(void **state)
{
	const char *live[] = {
		DECLINED_CALL,
		"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"content\":"
		"\"Declined in HB Code\",\"is_error\":true,\"tool_use_id\":\"toolu_mock_1\"}]},\"parent_tool_use_id\":null,"
		"\"uuid\":\"7a075904-afb0-450b-a3dc-bdf8c2e7a6ec\",\"tool_result_meta\":[{\"id\":\"toolu_mock_1\","
		"\"non_execution_kind\":\"permission-rule\",\"permission_decision\":{\"decision\":\"reject\","
		"\"source\":\"user_reject\"}}]}",
	};
	const char *saved[] = {
		DECLINED_CALL,
		"{\"type\":\"user\",\"uuid\":\"7a075904-afb0-450b-a3dc-bdf8c2e7a6ec\",\"session_id\":"
		"\"c95dcb86-d152-48a6-9242-616ac7fca8b7\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":"
		"\"tool_result\",\"content\":\"Declined in HB Code (C-55cc488c-5349-4a4b-b23d-ca31f7a98ef0)\",\"is_error\":true,"
		"\"tool_use_id\":\"toolu_mock_1\"}]},\"parent_tool_use_id\":null,\"parent_agent_id\":null,\"tool_result_meta\":"
		"[{\"id\":\"toolu_mock_1\",\"non_execution_kind\":\"permission-rule\"}],\"timestamp\":\"2026-12-05T05:55:52.638Z\"}",
	};
	const char *interrupted[] = {
		DECLINED_CALL,
		"{\"type\":\"user\",\"uuid\":\"00000000-0000-4000-8000-0000000000a1\",\"message\":{\"role\":\"user\","
		"\"content\":[{\"type\":\"tool_result\",\"content\":\"Interrupted by user\",\"is_error\":true,"
		"\"tool_use_id\":\"toolu_mock_1\"}]},\"parent_tool_use_id\":null,\"tool_result_meta\":[{\"id\":"
		"\"toolu_mock_1\",\"non_execution_kind\":\"interrupted\"}]}",
	};
	/* recorded live (frames-sdk-0.3.332, the "interrupt" scenario): a tool
	 * stopped while it ran is "user-rejected" with no decision */
	const char *stopped[] = {
		DECLINED_CALL,
		"{\"type\":\"user\",\"uuid\":\"4729e37f-f3ef-448c-be77-33e627fbe776\",\"message\":{\"role\":\"user\","
		"\"content\":[{\"type\":\"tool_result\",\"content\":\"The user doesn't want to proceed with this tool use.\","
		"\"is_error\":true,\"tool_use_id\":\"toolu_mock_1\"}]},\"parent_tool_use_id\":null,\"tool_use_result\":"
		"\"User rejected tool use\",\"tool_result_meta\":[{\"id\":\"toolu_mock_1\",\"non_execution_kind\":"
		"\"user-rejected\"}]}",
	};
	const char *const *cases[] = { live, saved, interrupted, stopped };
	const char *want[] = { "declined", "declined", "error", "error" };

	(void)state;
	for (size_t c = 0; c < 4; c++) {
		json_t *row = last_row(cases[c], 2);

		assert_non_null(row);
		assert_string_equal(json_string_value(json_object_get(row, "id")), "claude:toolu_mock_1");
		assert_string_equal(json_string_value(json_object_get(row, "status")), want[c]);
		json_decref(row);
	}
}

/* The notice Claude Code saves as a user turn when a background subagent
 * ends (recorded from getSessionMessages of the SDK 0.3.332: origin kind
 * task-notification, the text in its wrapper) is hidden, not "You: …";
 * so is the wrapper without origin, and a saved meta message (is_meta).
 * A person's message that only mentions the tag is theirs. */
static void test_task_notification_hidden(void **state)
{
	const char *notice =
		"{\"uuid\":\"90fc7422-da5a-4f98-ac07-de03fe0c3d20\",\"uuids\":[\"90fc7422-da5a-4f98-ac07-de03fe0c3d20\"],"
		"\"type\":\"user\",\"session_id\":\"60132618-a9ab-447a-9006-822acb4c9500\",\"message\":{\"role\":\"user\","
		"\"content\":\"<task-notification>\\n<task-id>adf2e1f37b4918431</task-id>\\n<tool-use-id>toolu_mock_1"
		"</tool-use-id>\\n<output-file>/tmp/claude-0/-tmp-p/60132618-a9ab-447a-9006-822acb4c9500/tasks/"
		"adf2e1f37b4918431.output</output-file>\\n<status>completed</status>\\n<summary>Agent \\\"List sessions\\\" "
		"finished</summary>\\n<result>Done.</result>\\n</task-notification>\"},\"parent_tool_use_id\":null,"
		"\"parent_agent_id\":null,\"timestamp\":\"2026-12-05T05:57:32.877Z\",\"origin\":{\"kind\":"
		"\"task-notification\",\"producer\":\"session-task\",\"runId\":\"0mxa03ibv-aa61718a\"}}";
	const char *wrapper_only =
		"{\"type\":\"user\",\"uuid\":\"00000000-0000-4000-8000-0000000000b1\",\"message\":{\"role\":\"user\","
		"\"content\":[{\"type\":\"text\",\"text\":\"<task-notification>\\n<task-id>a1</task-id>\\n"
		"</task-notification>\"}]}}";
	const char *saved_meta =
		"{\"type\":\"user\",\"uuid\":\"00000000-0000-4000-8000-0000000000b2\",\"is_meta\":true,\"message\":"
		"{\"role\":\"user\",\"content\":\"<system-reminder>\\nx\\n</system-reminder>\"}}";
	const char *person =
		"{\"type\":\"user\",\"uuid\":\"00000000-0000-4000-8000-0000000000b3\",\"message\":{\"role\":\"user\","
		"\"content\":\"What is a <task-notification>?\"}}";
	const char *frames[] = { notice, wrapper_only, saved_meta, person };
	const char *want_kind[] = { "hidden", "hidden", "hidden", "user" };
	const char *want_reason[] = { "task notification", "task notification", "meta", NULL };

	(void)state;
	for (size_t f = 0; f < 4; f++) {
		json_t *row = last_row(&frames[f], 1);

		assert_non_null(row);
		assert_string_equal(json_string_value(json_object_get(row, "kind")), want_kind[f]);
		if (want_reason[f])
			assert_string_equal(json_string_value(json_object_get(row, "reason")), want_reason[f]);
		else
			assert_null(json_object_get(row, "reason"));
		json_decref(row);
	}
}

/* Two subagents' pieces interleaved with the parent's: each API message
 * keeps counting its own blocks. */
static void test_interleaved_messages_keep_their_index(void **state)
{
	static const char *const frames[][2] = {
		{ "msg_A", NULL }, { "msg_B", "toolu_s" }, { "msg_A", NULL }, { "msg_B", "toolu_s" },
	};
	static const char *const want[] = { "claude:msg_A#0", "claude:msg_B#0", "claude:msg_A#1", "claude:msg_B#1" };
	char text[512], err[256];
	struct tl_claude st;

	(void)state;
	tl_claude_init(&st);
	for (size_t i = 0; i < 4; i++) {
		json_t *m, *rows = json_array();

		snprintf(text, sizeof text, "{\"type\":\"assistant\",\"uuid\":\"u%zu\",\"parent_tool_use_id\":%s%s%s,"
			 "\"message\":{\"id\":\"%s\",\"content\":[{\"type\":\"text\",\"text\":\"piece\"}]}}", i,
			 frames[i][1] ? "\"" : "", frames[i][1] ? frames[i][1] : "null", frames[i][1] ? "\"" : "",
			 frames[i][0]);
		m = tl_parse_frame(text, strlen(text), err, sizeof err);
		assert_non_null(m);
		assert_int_equal(tl_claude_project(&st, m, rows, err, sizeof err), 0);
		assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 0), "id")), want[i]);
		json_decref(rows), json_decref(m);
	}
	tl_claude_free(&st);
}

/* One Codex notification through the threads; the rows' depths (-1 for no row). */
static int threads_note(struct tl_codex_threads *ts, const char *json)
{
	json_t *note = json_loads(json, 0, NULL), *rows = json_array();
	char err[300];
	int depth = -1;

	assert_non_null(note);
	assert_int_equal(tl_codex_threads_project(ts, note, rows, err, sizeof err), 0);
	if (json_array_size(rows))
		depth = (int)json_integer_value(json_object_get(json_array_get(rows, 0), "depth"));
	json_decref(rows);
	json_decref(note);
	return depth;
}

#define USER_ITEM(thread) "{\"method\":\"item/completed\",\"params\":{\"threadId\":\"" thread "\"," \
	"\"item\":{\"type\":\"userMessage\",\"id\":\"u-" thread "\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}}"
#define SPAWN_DONE(sender, child) "{\"method\":\"item/completed\",\"params\":{\"threadId\":\"" sender "\"," \
	"\"item\":{\"type\":\"collabAgentToolCall\",\"id\":\"s-" child "\",\"tool\":\"spawnAgent\",\"status\":\"completed\"," \
	"\"senderThreadId\":\"" sender "\",\"receiverThreadIds\":[\"" child "\"],\"prompt\":\"go\"}}}"

/* Sub-agent threads get their depth from the spawn that names them, or
 * from a turn of another turn when that comes first; the conversation's
 * own threads stay 0. */
/* The rows of one Claude message or Codex notification (json), as an
 * array (the caller frees it). */
static json_t *claude_rows(struct tl_claude *st, const char *json)
{
	json_t *msg = json_loads(json, 0, NULL), *rows = json_array();
	char err[200];

	assert_non_null(msg);
	assert_int_equal(tl_claude_project(st, msg, rows, err, sizeof err), 0);
	json_decref(msg);
	return rows;
}

static json_t *codex_rows(struct tl_codex *st, const char *json)
{
	json_t *note = json_loads(json, 0, NULL), *rows = json_array();
	char err[200];

	assert_non_null(note);
	assert_int_equal(tl_codex_project(st, note, rows, err, sizeof err), 0);
	json_decref(note);
	return rows;
}

static const char *field(const json_t *rows, size_t i, const char *key)
{
	return json_string_value(json_object_get(json_array_get(rows, i), key));
}

static long long number(const json_t *rows, size_t i, const char *key)
{
	const json_t *v = json_object_get(json_array_get(rows, i), key);

	return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

#define CODEX_ERROR(turn, message, info, retry)                                                                   \
	"{\"method\":\"error\",\"params\":{\"threadId\":\"th\",\"turnId\":\"" turn "\",\"willRetry\":" retry ","   \
	"\"error\":{\"message\":\"" message "\",\"codexErrorInfo\":" info ",\"additionalDetails\":\"why\"}}}"

/* What a turn waits on, live only (the shapes of SDK 0.3.332's
 * SDKAPIRetryMessage and SDKRateLimitEvent, codex 0.171.0's error
 * notification recorded against a mock that answered 529 once): a retry
 * row per retry, under an id of its own; a rate limit only when limited
 * or near it; an error codex does not retry makes no row (turn/completed
 * says the turn failed).  No saved message gives these ids, so no saved
 * row replaces them. */
static void test_waits_are_live_rows(void **state)
{
	struct tl_claude cl;
	struct tl_codex cx, child;
	json_t *rows;

	(void)state;
	tl_claude_init(&cl);
	rows = claude_rows(&cl, "{\"type\":\"system\",\"subtype\":\"api_retry\",\"attempt\":2,\"max_retries\":10,"
				"\"retry_delay_ms\":4012,\"error_status\":529,\"error\":\"overloaded\",\"uuid\":\"u1\","
				"\"session_id\":\"s\"}");
	assert_int_equal(json_array_size(rows), 1);
	assert_string_equal(field(rows, 0, "id"), "claude:u1#retry");
	assert_string_equal(field(rows, 0, "kind"), "retry");
	assert_int_equal(number(rows, 0, "attempt"), 2);
	assert_int_equal(number(rows, 0, "maxAttempts"), 10);
	assert_int_equal(number(rows, 0, "delayMs"), 4012);
	assert_int_equal(number(rows, 0, "httpStatus"), 529);
	assert_string_equal(field(rows, 0, "reason"), "overloaded");
	json_decref(rows);
	/* a connection error has no HTTP status */
	rows = claude_rows(&cl, "{\"type\":\"system\",\"subtype\":\"api_retry\",\"attempt\":1,\"max_retries\":10,"
				"\"retry_delay_ms\":500,\"error_status\":null,\"error\":\"unknown\",\"uuid\":\"u2\"}");
	assert_int_equal(number(rows, 0, "httpStatus"), -1);
	assert_string_equal(field(rows, 0, "reason"), "connection error");
	json_decref(rows);
	rows = claude_rows(&cl, "{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"allowed\","
				"\"resetsAt\":1796058000},\"uuid\":\"u3\"}");
	assert_int_equal(json_array_size(rows), 0);
	json_decref(rows);
	rows = claude_rows(&cl, "{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"rejected\","
				"\"resetsAt\":1796058000,\"rateLimitType\":\"seven_day_opus\"},\"uuid\":\"u4\"}");
	assert_int_equal(json_array_size(rows), 1);
	assert_string_equal(field(rows, 0, "id"), "claude:u4#ratelimit");
	assert_string_equal(field(rows, 0, "kind"), "rate_limit");
	assert_string_equal(field(rows, 0, "status"), "rejected");
	assert_string_equal(field(rows, 0, "limitType"), "seven_day_opus");
	assert_int_equal(number(rows, 0, "resetsAt"), 1796058000);
	json_decref(rows);
	tl_claude_free(&cl);

	tl_codex_init(&cx, 0);
	rows = codex_rows(&cx, CODEX_ERROR("t1", "Reconnecting... 1/3", "{\"responseStreamDisconnected\":"
										"{\"httpStatusCode\":529}}", "true"));
	assert_int_equal(json_array_size(rows), 1);
	assert_string_equal(field(rows, 0, "id"), "codex:t1#retry1");
	assert_string_equal(field(rows, 0, "kind"), "retry");
	assert_int_equal(number(rows, 0, "attempt"), 1);
	assert_int_equal(number(rows, 0, "maxAttempts"), 3);
	assert_int_equal(number(rows, 0, "delayMs"), -1);	/* codex does not say */
	assert_int_equal(number(rows, 0, "httpStatus"), 529);
	assert_string_equal(field(rows, 0, "reason"), "overloaded");
	assert_string_equal(field(rows, 0, "detail"), "why");
	json_decref(rows);
	/* the next retry of the turn is a row of its own; another turn counts anew */
	rows = codex_rows(&cx, CODEX_ERROR("t1", "Reconnecting... 2/3", "\"serverOverloaded\"", "true"));
	assert_string_equal(field(rows, 0, "id"), "codex:t1#retry2");
	assert_string_equal(field(rows, 0, "reason"), "overloaded");
	json_decref(rows);
	rows = codex_rows(&cx, CODEX_ERROR("t2", "Reconnecting... 1/5", "{\"responseStreamDisconnected\":"
										"{\"httpStatusCode\":null}}", "true"));
	assert_string_equal(field(rows, 0, "id"), "codex:t2#retry1");
	assert_string_equal(field(rows, 0, "reason"), "stream disconnected");
	json_decref(rows);
	/* a sentence without "N/M" gives no attempt; a turn's retries are
	 * bounded: past TL_RETRIES_MAX the last row is updated in place */
	for (int i = 2; i <= TL_RETRIES_MAX + 1; i++) {
		rows = codex_rows(&cx, CODEX_ERROR("t2", "Reconnecting", "null", "true"));
		assert_int_equal(number(rows, 0, "attempt"), -1);
		if (i == TL_RETRIES_MAX + 1)
			assert_string_equal(field(rows, 0, "id"), "codex:t2#retry1000");
		json_decref(rows);
	}
	rows = codex_rows(&cx, CODEX_ERROR("t2", "exceeded retry limit, last status: 429 Too Many Requests",
					   "{\"responseTooManyFailedAttempts\":{\"httpStatusCode\":429}}", "false"));
	assert_int_equal(json_array_size(rows), 0);
	json_decref(rows);
	tl_codex_free(&cx);
	/* a sub-agent's retry is at its depth, in its thread */
	tl_codex_init(&child, 1);
	rows = codex_rows(&child, CODEX_ERROR("t3", "Reconnecting... 1/3", "null", "true"));
	assert_int_equal(number(rows, 0, "depth"), 1);
	assert_int_equal(number(rows, 0, "attempt"), 1);
	assert_null(field(rows, 0, "reason"));
	json_decref(rows);
	tl_codex_free(&child);
}

static void test_codex_thread_depths(void **state)
{
	struct tl_codex_threads ts;

	(void)state;
	tl_codex_threads_init(&ts);
	tl_codex_threads_link(&ts, "main", NULL);
	assert_int_equal(threads_note(&ts, USER_ITEM("main")), 0);
	/* spawn first, then the child's rows */
	assert_int_equal(threads_note(&ts, SPAWN_DONE("main", "kid")), 0);
	assert_int_equal(tl_codex_threads_depth(&ts, "kid"), 1);
	assert_int_equal(threads_note(&ts, USER_ITEM("kid")), 1);
	/* a grandchild is one deeper than its parent */
	assert_int_equal(threads_note(&ts, SPAWN_DONE("kid", "grandkid")), 1);
	assert_int_equal(threads_note(&ts, USER_ITEM("grandkid")), 2);
	/* the child's turn before the spawn completes: a sub-agent already */
	assert_int_equal(threads_note(&ts, "{\"method\":\"turn/started\",\"params\":{\"threadId\":\"early\","
					  "\"turn\":{\"id\":\"t2\",\"rootTurnId\":\"t1\"}}}"), -1);
	assert_int_equal(threads_note(&ts, USER_ITEM("early")), 1);
	assert_int_equal(threads_note(&ts, SPAWN_DONE("kid", "early")), 1);
	assert_int_equal(tl_codex_threads_depth(&ts, "early"), 2);
	/* a thread's own turn (its turn_started row at depth 0), and a thread
	 * reported again without a parent */
	assert_int_equal(threads_note(&ts, "{\"method\":\"turn/started\",\"params\":{\"threadId\":\"other\","
					  "\"turn\":{\"id\":\"t9\",\"rootTurnId\":\"t9\"}}}"), 0);
	assert_int_equal(tl_codex_threads_depth(&ts, "other"), 0);
	tl_codex_threads_link(&ts, "kid", NULL);
	assert_int_equal(tl_codex_threads_depth(&ts, "kid"), 1);
	assert_int_equal(tl_codex_threads_depth(&ts, "never"), -1);
	tl_codex_threads_free(&ts);
}

/* Past TL_CODEX_THREADS, a new thread's rows are refused: said once, then
 * silently; the known threads go on. */
static void test_codex_threads_bounded(void **state)
{
	struct tl_codex_threads ts;
	char json[512], err[300];
	json_t *note, *rows;

	(void)state;
	tl_codex_threads_init(&ts);
	for (int i = 0; i < TL_CODEX_THREADS; i++) {
		snprintf(json, sizeof json, USER_ITEM("t%d"), i, i);
		assert_int_equal(threads_note(&ts, json), 0);
	}
	for (int i = 0; i < 3; i++) {
		snprintf(json, sizeof json, USER_ITEM("extra%d"), i, i);
		note = json_loads(json, 0, NULL), rows = json_array();
		err[0] = '\0';
		assert_int_equal(tl_codex_threads_project(&ts, note, rows, err, sizeof err), i == 0 ? -1 : 0);
		if (i == 0)
			assert_non_null(strstr(err, "more than 64 threads"));
		assert_int_equal(json_array_size(rows), 0);
		json_decref(rows);
		json_decref(note);
	}
	assert_int_equal(ts.map.count, TL_CODEX_THREADS);
	assert_int_equal(threads_note(&ts, USER_ITEM("t5")), 0);
	tl_codex_threads_free(&ts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_saved_row_replaces_live_row),
		cmocka_unit_test(test_codex_item_completed_in_place),
		cmocka_unit_test(test_bounded_input),
		cmocka_unit_test(test_codex_deltas_bounded),
		cmocka_unit_test(test_housekeeping_hidden),
		cmocka_unit_test(test_declined_stays_declined_when_saved),
		cmocka_unit_test(test_task_notification_hidden),
		cmocka_unit_test(test_interleaved_messages_keep_their_index),
		cmocka_unit_test(test_waits_are_live_rows),
		cmocka_unit_test(test_codex_thread_depths),
		cmocka_unit_test(test_codex_threads_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
