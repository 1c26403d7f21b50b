/*
 * test_agent_clients - the agents' requests as agents/ builds them
 * (rpc_frame.h, codex_client.h, claude_host_client.h, tool_forms.h): the
 * frames' shapes, initialize asking for experimentalApi (and a caller's
 * own initialize made to), thread/resume and a turn's sandbox at each
 * access level, the approvals declined and nothing else, the host's
 * requestId read from an event (a string or a number, nothing else) and
 * written into toolResult and permission, whatever id a broker answer
 * carried, and a tool in each agent's form.  The engine and the workers
 * that use them are tested with fake agents (test_explainer_worker_*,
 * test_claude_lastread) and the real ones (tests/e2e).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "claude_host_client.h"
#include "codex_client.h"
#include "rpc_frame.h"
#include "tool_forms.h"

/* v as compact JSON text equals want; takes v. */
static void assert_json(json_t *v, const char *want)
{
	char *text;

	assert_non_null(v);
	text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	assert_non_null(text);
	assert_string_equal(text, want);
	free(text);
	json_decref(v);
}

static void test_frames(void **state)
{
	json_t *answer;

	(void)state;
	assert_json(rpc_request_int(3, "m", json_object()), "{\"id\":3,\"method\":\"m\",\"params\":{}}");
	assert_json(rpc_request_str("hb-1", "m", json_pack("{s:i}", "a", 1)),
		    "{\"id\":\"hb-1\",\"method\":\"m\",\"params\":{\"a\":1}}");
	assert_null(rpc_request_int(1, "m", NULL)); /* a params builder that failed */
	assert_json(rpc_notification("initialized"), "{\"method\":\"initialized\"}");
	answer = json_pack("{s:i}", "id", 7);
	assert_json(rpc_error_answer(json_object_get(answer, "id"), -32601, "no"),
		    "{\"id\":7,\"error\":{\"code\":-32601,\"message\":\"no\"}}");
	assert_null(rpc_error_message(answer, "fallback"));
	json_object_set_new(answer, "error", json_object());
	assert_string_equal(rpc_error_message(answer, "fallback"), "fallback");
	json_object_set_new(answer, "error", json_pack("{s:s}", "message", "refused"));
	assert_string_equal(rpc_error_message(answer, NULL), "refused");
	json_decref(answer);
}

static void test_codex(void **state)
{
	json_t *params, *answer;

	(void)state;
	assert_json(codex_initialize(json_integer(1), "n", "t", "1"),
		    "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientInfo\":{\"name\":\"n\",\"title\":\"t\","
		    "\"version\":\"1\"},\"capabilities\":{\"experimentalApi\":true}}}");
	params = json_pack("{s:{s:s}}", "clientInfo", "name", "desktop");
	assert_int_equal(codex_initialize_ensure_experimental(params), 1);
	assert_int_equal(codex_initialize_ensure_experimental(params), 0);
	assert_json(params, "{\"clientInfo\":{\"name\":\"desktop\"},\"capabilities\":{\"experimentalApi\":true}}");
	assert_json(codex_initialized(), "{\"method\":\"initialized\"}");
	assert_json(codex_thread_resume(json_string("r"), "th", "read-only", NULL),
		    "{\"id\":\"r\",\"method\":\"thread/resume\",\"params\":{\"threadId\":\"th\",\"excludeTurns\":true,"
		    "\"approvalPolicy\":\"on-request\",\"sandbox\":\"read-only\"}}");
	assert_json(codex_thread_resume(json_string("r"), "th", "unrestricted", "gpt-6-codex"),
		    "{\"id\":\"r\",\"method\":\"thread/resume\",\"params\":{\"threadId\":\"th\",\"excludeTurns\":true,"
		    "\"approvalPolicy\":\"never\",\"sandbox\":\"danger-full-access\",\"model\":\"gpt-6-codex\"}}");
	assert_string_equal(codex_sandbox_mode("full-auto"), "workspace-write");
	assert_string_equal(codex_approval_policy("full-access"), "on-request");
	assert_json(codex_sandbox_policy("full-auto"),
		    "{\"type\":\"workspaceWrite\",\"writableRoots\":[],\"networkAccess\":false,"
		    "\"excludeTmpdirEnvVar\":false,\"excludeSlashTmp\":false}");
	assert_json(codex_sandbox_policy("read-only"), "{\"type\":\"readOnly\",\"networkAccess\":false}");
	assert_json(codex_turn_start(json_integer(3), "th", "hi"),
		    "{\"id\":3,\"method\":\"turn/start\",\"params\":{\"threadId\":\"th\",\"input\":[{\"type\":\"text\","
		    "\"text\":\"hi\",\"text_elements\":[]}]}}");
	assert_json(codex_turn_interrupt(json_integer(4), "th", "tu"),
		    "{\"id\":4,\"method\":\"turn/interrupt\",\"params\":{\"threadId\":\"th\",\"turnId\":\"tu\"}}");
	answer = json_pack("{s:i, s:{s:{s:s}}}", "id", 2, "result", "thread", "id", "th1");
	assert_string_equal(codex_answered_id(answer, "thread"), "th1");
	assert_null(codex_answered_id(answer, "turn"));
	assert_json(codex_decline_approval(json_object_get(answer, "id"), "item/fileChange/requestApproval"),
		    "{\"id\":2,\"result\":{\"decision\":\"decline\"}}");
	assert_json(codex_decline_approval(json_object_get(answer, "id"), "execCommandApproval"),
		    "{\"id\":2,\"result\":{\"decision\":\"denied\"}}");
	assert_null(codex_decline_approval(json_object_get(answer, "id"), "item/tool/requestUserInput"));
	assert_json(codex_answer_approval(json_object_get(answer, "id"), "item/commandExecution/requestApproval", 1),
		    "{\"id\":2,\"result\":{\"decision\":\"accept\"}}");
	assert_json(codex_answer_approval(json_object_get(answer, "id"), "applyPatchApproval", 1),
		    "{\"id\":2,\"result\":{\"decision\":\"approved\"}}");
	assert_int_equal(codex_is_approval("item/fileChange/requestApproval"), 2);
	assert_int_equal(codex_is_approval("execCommandApproval"), 1);
	assert_int_equal(codex_is_approval("item/tool/call"), 0);
	json_decref(answer);
}

static void test_claude_host(void **state)
{
	json_t *ev;
	char *rid;

	(void)state;
	assert_json(claude_host_send(json_string("op-1"), "hi", "u-1"),
		    "{\"id\":\"op-1\",\"method\":\"send\",\"params\":{\"text\":\"hi\",\"messageId\":\"u-1\"}}");
	assert_json(claude_host_send(json_integer(2), "hi", NULL),
		    "{\"id\":2,\"method\":\"send\",\"params\":{\"text\":\"hi\"}}");
	assert_json(claude_host_close(json_integer(4)), "{\"id\":4,\"method\":\"close\",\"params\":{}}");
	assert_json(claude_host_history(json_string("h"), "s", "/p", 50, "u9"),
		    "{\"id\":\"h\",\"method\":\"history\",\"params\":{\"sessionId\":\"s\",\"cwd\":\"/p\",\"limit\":50,"
		    "\"before\":\"u9\"}}");

	ev = json_pack("{s:s, s:s}", "event", "toolCall", "requestId", "tool-1");
	assert_non_null(rid = claude_host_request_id(ev));
	assert_string_equal(rid, "\"tool-1\"");
	assert_json(claude_host_tool_answer(rid, "{\"requestId\":\"other\",\"content\":[],\"isError\":false}"),
		    "{\"content\":[],\"isError\":false,\"requestId\":\"tool-1\"}");
	assert_null(claude_host_tool_answer(rid, "not json"));
	assert_json(claude_host_tool_result(rid, 0, "failed", NULL),
		    "{\"content\":[{\"type\":\"text\",\"text\":\"failed\"}],\"isError\":true,\"requestId\":\"tool-1\"}");
	assert_json(claude_host_permission(rid, 1, "ignored"), "{\"requestId\":\"tool-1\",\"decision\":\"allow\"}");
	assert_json(claude_host_permission(rid, 0, "no"),
		    "{\"requestId\":\"tool-1\",\"decision\":\"deny\",\"message\":\"no\"}");
	free(rid);
	json_object_set_new(ev, "requestId", json_integer(7));
	assert_non_null(rid = claude_host_request_id(ev));
	assert_string_equal(rid, "7");
	free(rid);
	json_object_set_new(ev, "requestId", json_true());
	assert_null(claude_host_request_id(ev));
	json_decref(ev);
	assert_null(claude_host_permission(NULL, 0, "no"));
}

static void test_tool_forms(void **state)
{
	struct agent_tool t = { .name = "look", .description = "Look.", .input_schema = "{\"type\":\"object\"}",
				.approval = "read-only", .read_only = 1 };

	(void)state;
	assert_json(tool_form_codex(&t),
		    "{\"name\":\"look\",\"description\":\"Look.\",\"inputSchema\":{\"type\":\"object\"},"
		    "\"type\":\"function\"}");
	assert_json(tool_form_claude(&t),
		    "{\"name\":\"look\",\"description\":\"Look.\",\"inputSchema\":{\"type\":\"object\"},"
		    "\"approval\":\"read-only\",\"annotations\":{\"readOnlyHint\":true}}");
	assert_json(tool_form_codex_namespace("ns", "Tools.", json_array()),
		    "[{\"type\":\"namespace\",\"name\":\"ns\",\"description\":\"Tools.\",\"tools\":[]}]");
	assert_json(tool_form_claude_allowed("look"), "\"mcp__hbcode__look\"");
	t.input_schema = "{broken";
	assert_null(tool_form_codex(&t));
	assert_null(tool_form_claude(&t));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_codex),
		cmocka_unit_test(test_claude_host),
		cmocka_unit_test(test_tool_forms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
