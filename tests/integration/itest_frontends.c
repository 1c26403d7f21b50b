/*
 * itest_frontends - the calls through the agents' doors into the real
 * broker, with svc-sessions and svc-echo (frontends_rig.h): Codex
 * item/tool/call frames bound through the thread's durable link (and a
 * forked thread's parent), arguments that never choose the session,
 * duplicates that join, a plain call as the user's, Claude
 * toolCall/toolCancel on a connection bound to its run (a call without
 * toolUseId known by its bare requestId), and run stop and close.  (The
 * runs themselves, run.open's refusals, approvals and claude.link:
 * itest_frontends_runs.c.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/group.h"
#include "../harness/harness.h"
#include "frontends_rig.h"

#define NOT_LINKED "is not linked to a HB Code session yet. Try the call again."

static int codex_success(json_t *ans)
{
	return json_is_true(json_object_get(json_object_get(ans, "result"), "success"));
}

static void test_codex_unlinked_thread(void **state)
{
	struct hb_client c;
	json_t *ans;

	(void)state;
	assert_int_equal(fx_client(&F, &c, 15000), 0);
	ans = codex_call(&c, 7, "thread-nobody-knows", "call-1", "maintain_sessions", "{\"action\":\"guide\"}");
	assert_false(codex_success(ans));
	assert_string_equal(codex_text(ans), NOT_LINKED);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(
				    json_object_get(ans, "result"), "contentItems"), 0), "type")), "inputText");
	json_decref(ans);
	hb_client_close(&c);
}

static void test_codex_binding(void **state)
{
	struct hb_client c;
	struct hb_env reply;
	json_t *ans, *who;
	char args[512];

	(void)state;
	assert_int_equal(fx_client(&F, &c, 15000), 0);
	reply_to(&c, send_op(&c, "thread.link", "threadId", "thread-main", "sessionId", session_id, (char *)NULL), &reply);
	assert_true(hb_env_bool(&reply, "ok", 0));
	hb_env_free(&reply);
	reply_to(&c, send_op(&c, "thread.link", "threadId", "thread-fork", "parentThreadId", "thread-main",
			     (char *)NULL), &reply);
	assert_true(hb_env_bool(&reply, "ok", 0));
	hb_env_free(&reply);

	/* What older threads put in the arguments is dropped, not refused. */
	snprintf(args, sizeof args, "{\"action\":\"resolveSession\",\"targetSessionId\":\"%s\","
		 "\"sessionId\":\"s-evil\",\"runId\":\"r-evil\",\"projectDirectory\":\"/evil\"}", session_id);
	ans = codex_call(&c, 8, "thread-main", "call-2", "maintain_sessions", args);
	if (!codex_success(ans))
		fail_msg("resolveSession failed: %s", codex_text(ans));
	assert_non_null(strstr(codex_text(ans), session_id));
	json_decref(ans);

	/* With an open run of the session, calls are bound to it. */
	reply_to(&c, send_op(&c, "run.open", "run", "run-codex-1", "session", session_id, "project", "/tmp",
			     "agent", "codex", "access", "full-auto", (char *)NULL), &reply);
	assert_true(hb_env_bool(&reply, "ok", 0));
	hb_env_free(&reply);
	ans = codex_call(&c, 9, "thread-fork", "call-3", "whoami", "{\"sessionId\":\"s-evil\",\"x\":1}");
	if (!codex_success(ans))
		fail_msg("whoami through the forked thread failed: %s", codex_text(ans));
	who = json_loads(codex_text(ans), 0, NULL);
	assert_string_equal(json_string_value(json_object_get(who, "session")), session_id);
	assert_string_equal(json_string_value(json_object_get(who, "run")), "run-codex-1");
	assert_string_equal(json_string_value(json_object_get(who, "project")), "/tmp");
	assert_string_equal(json_string_value(json_object_get(who, "agent")), "codex");
	assert_string_equal(json_string_value(json_object_get(who, "access")), "full-auto");
	assert_string_equal(json_string_value(json_object_get(who, "callId")), "call-3");
	assert_null(json_object_get(json_object_get(who, "args"), "sessionId"));
	json_decref(who);
	json_decref(ans);
	reply_to(&c, send_op(&c, "run.close", "run", "run-codex-1", (char *)NULL), &reply);
	hb_env_free(&reply);

	/* A tool failure is success:false with text, never a JSON-RPC error. */
	ans = codex_call(&c, 10, "thread-main", "call-4", "maintain_sessions", "{\"action\":\"nope\"}");
	assert_false(codex_success(ans));
	assert_null(json_object_get(ans, "error"));
	assert_non_null(strstr(codex_text(ans), "action"));
	json_decref(ans);
	hb_client_close(&c);
}

/* A plain call that names no run is the user's (hbctl): a client's word
 * for an agent or an access binds nothing, so services see neither. */
static void test_plain_call_is_the_user(void **state)
{
	struct hb_client c;
	struct hb_env reply;
	json_t *who;

	(void)state;
	assert_int_equal(fx_client(&F, &c, 15000), 0);
	reply_to(&c, send_op(&c, "call", "tool", "whoami", "json", "{}", "session", session_id, "agent", "codex",
			     "access", "unrestricted", "call_id", "c-user", (char *)NULL), &reply);
	assert_true(hb_env_bool(&reply, "ok", 0));
	who = json_loads(hb_env_str_or(&reply, "text", ""), 0, NULL);
	assert_non_null(who);
	assert_string_equal(json_string_value(json_object_get(who, "session")), session_id);
	assert_string_equal(json_string_value(json_object_get(who, "run")), "");
	assert_string_equal(json_string_value(json_object_get(who, "agent")), "");
	assert_string_equal(json_string_value(json_object_get(who, "access")), "");
	assert_string_equal(json_string_value(json_object_get(who, "callId")), "c-user");
	json_decref(who);
	hb_env_free(&reply);
	hb_client_close(&c);
}

static void test_codex_duplicate_joins(void **state)
{
	struct hb_client c;
	struct hb_env r1, r2;
	long long served = fx_service_num(&F, "svc-echo", "callsServed");
	char *frame1 = codex_frame(21, "thread-main", "call-dup", "sleep", "{\"ms\":400}");
	char *frame2 = codex_frame(22, "thread-main", "call-dup", "sleep", "{\"ms\":400}");
	int64_t id1, id2, got;
	json_t *a1, *a2;

	(void)state;
	assert_int_equal(fx_client(&F, &c, 15000), 0);
	id1 = send_op(&c, "codex.call", "json", frame1, (char *)NULL);
	fx_sleep_ms(100);
	id2 = send_op(&c, "codex.call", "json", frame2, (char *)NULL);
	reply_to(&c, id1, &r1);
	assert_int_equal(hb_client_recv(&c, &r2, 15000, frame1, 64), 0);
	got = -1;
	hb_env_int(&r2, "id", &got);
	assert_int_equal(got, id2);
	a1 = native(&r1);
	a2 = native(&r2);
	assert_true(codex_success(a1) && codex_success(a2));
	assert_int_equal(json_integer_value(json_object_get(a1, "id")), 21);
	assert_int_equal(json_integer_value(json_object_get(a2, "id")), 22);
	/* One run of the tool for both. */
	assert_int_equal(fx_service_num(&F, "svc-echo", "callsServed"), served + 1);
	json_decref(a1);
	json_decref(a2);
	hb_env_free(&r1);
	hb_env_free(&r2);
	free(frame1);
	free(frame2);
	hb_client_close(&c);
}

static json_t *claude_call(struct hb_client *c, const char *event)
{
	struct hb_env reply;
	json_t *ans;

	reply_to(c, send_op(c, "claude.call", "json", event, (char *)NULL), &reply);
	ans = native(&reply);
	hb_env_free(&reply);
	return ans;
}

static const char *claude_text(json_t *ans)
{
	return json_string_value(json_object_get(json_array_get(json_object_get(ans, "content"), 0), "text"));
}

static void test_claude_binding(void **state)
{
	struct hb_client a, other;
	json_t *ans, *who;

	(void)state;
	assert_int_equal(fx_client(&F, &a, 15000), 0);
	assert_int_equal(fx_client(&F, &other, 15000), 0);
	open_claude_run(&a, "run-claude-1", "read-only", "plan");
	ans = claude_call(&a, "{\"requestId\":\"q1\",\"tool\":\"mcp__hbcode__whoami\",\"arguments\":{\"a\":1},"
			      "\"toolUseId\":\"tu-1\"}");
	assert_string_equal(json_string_value(json_object_get(ans, "requestId")), "q1");
	assert_false(json_is_true(json_object_get(ans, "isError")));
	who = json_loads(claude_text(ans), 0, NULL);
	assert_string_equal(json_string_value(json_object_get(who, "run")), "run-claude-1");
	assert_string_equal(json_string_value(json_object_get(who, "project")), "/tmp/claude");
	assert_string_equal(json_string_value(json_object_get(who, "agent")), "claude");
	assert_string_equal(json_string_value(json_object_get(who, "access")), "read-only");
	assert_string_equal(json_string_value(json_object_get(who, "callId")), "tu-1");
	json_decref(who);
	json_decref(ans);

	/* An event that names the session, the run or the project is refused. */
	ans = claude_call(&a, "{\"requestId\":\"q2\",\"tool\":\"whoami\",\"arguments\":{},\"runId\":\"x\"}");
	assert_true(json_is_true(json_object_get(ans, "isError")));
	assert_non_null(strstr(claude_text(ans), "runId"));
	json_decref(ans);
	ans = claude_call(&a, "{\"requestId\":\"q3\",\"tool\":\"whoami\",\"arguments\":{\"projectDirectory\":\"/x\"}}");
	assert_true(json_is_true(json_object_get(ans, "isError")));
	json_decref(ans);

	/* Another connection has no run: nothing binds its calls. */
	ans = claude_call(&other, "{\"requestId\":\"q4\",\"tool\":\"whoami\",\"arguments\":{}}");
	assert_true(json_is_true(json_object_get(ans, "isError")));
	assert_non_null(strstr(claude_text(ans), "no open run"));
	json_decref(ans);
	hb_client_close(&other);
	{
		struct hb_env reply;
		reply_to(&a, send_op(&a, "run.close", "run", "run-claude-1", (char *)NULL), &reply);
		hb_env_free(&reply);
	}
	/* The fourth row of page 003's table (the others are opened above,
	 * in test_claude_cancel_and_stop and in itest_frontends_runs'
	 * test_approvals). */
	open_claude_run(&a, "run-claude-unrestricted", "unrestricted", "bypassPermissions");
	{
		struct hb_env reply;
		reply_to(&a, send_op(&a, "run.close", "run", "run-claude-unrestricted", (char *)NULL), &reply);
		hb_env_free(&reply);
	}
	hb_client_close(&a);
}

static void test_claude_cancel_and_stop(void **state)
{
	struct hb_client a;
	struct hb_env reply;
	int64_t call, cancel;
	json_t *ans;
	long long t0;

	(void)state;
	assert_int_equal(fx_client(&F, &a, 15000), 0);
	open_claude_run(&a, "run-claude-2", "full-auto", "acceptEdits");
	t0 = fx_now_ms();
	call = send_op(&a, "claude.call", "json", "{\"requestId\":7,\"tool\":\"sleep\",\"arguments\":{\"ms\":10000},"
						  "\"toolUseId\":\"tu-sleep\"}", (char *)NULL);
	fx_sleep_ms(200);
	cancel = send_op(&a, "claude.cancel", "json", "{\"requestId\":7,\"toolUseId\":\"tu-sleep\"}", (char *)NULL);
	reply_to(&a, call, &reply);
	ans = native(&reply);
	assert_int_equal(json_integer_value(json_object_get(ans, "requestId")), 7);
	assert_true(json_is_true(json_object_get(ans, "isError")));
	assert_string_equal(claude_text(ans), "Run stopped.");
	json_decref(ans);
	hb_env_free(&reply);
	reply_to(&a, cancel, &reply);
	assert_true(hb_env_bool(&reply, "ok", 0));
	hb_env_free(&reply);
	/* The handler saw the cancel: its worker is free long before 10 s. */
	while (fx_service_num(&F, "svc-echo", "slotsBusy") != 0 && fx_now_ms() - t0 < 8000)
		fx_sleep_ms(20);
	assert_int_equal(fx_service_num(&F, "svc-echo", "slotsBusy"), 0);
	assert_true(fx_now_ms() - t0 < 8000);

	/* Stopping the run aborts what is still open on it. */
	call = send_op(&a, "claude.call", "json", "{\"requestId\":8,\"tool\":\"sleep\",\"arguments\":{\"ms\":10000},"
						  "\"toolUseId\":\"tu-sleep2\"}", (char *)NULL);
	fx_sleep_ms(200);
	{
		struct hb_client admin;
		assert_int_equal(fx_client(&F, &admin, 15000), 0);
		reply_to(&admin, send_op(&admin, "run.stop", "run", "run-claude-2", (char *)NULL), &reply);
		assert_true(hb_env_bool(&reply, "ok", 0));
		hb_env_free(&reply);
		hb_client_close(&admin);
	}
	reply_to(&a, call, &reply);
	ans = native(&reply);
	assert_string_equal(claude_text(ans), "Run stopped.");
	json_decref(ans);
	hb_env_free(&reply);
	reply_to(&a, send_op(&a, "run.close", "run", "run-claude-2", (char *)NULL), &reply);
	hb_env_free(&reply);
	hb_client_close(&a);
}

/* A Claude call without toolUseId is known by its requestId's bare text:
 * that is the call id services see (and store), a duplicate joins, a
 * toolCancel naming only the requestId finds it. */
static void test_claude_call_without_tool_use_id(void **state)
{
	long long served = fx_service_num(&F, "svc-echo", "callsServed");
	struct hb_client a;
	struct hb_env r1, r2;
	int64_t id1, id2, call, cancel;
	json_t *ans, *who, *a1, *a2;
	char frame[700];

	(void)state;
	assert_int_equal(fx_client(&F, &a, 15000), 0);
	open_claude_run(&a, "run-claude-bare", "full-auto", "acceptEdits");
	ans = claude_call(&a, "{\"requestId\":\"q-bare\",\"tool\":\"whoami\",\"arguments\":{}}");
	assert_string_equal(json_string_value(json_object_get(ans, "requestId")), "q-bare");
	who = json_loads(claude_text(ans), 0, NULL);
	assert_string_equal(json_string_value(json_object_get(who, "callId")), "q-bare");
	json_decref(who);
	json_decref(ans);
	ans = claude_call(&a, "{\"requestId\":41,\"tool\":\"whoami\",\"arguments\":{}}");
	assert_int_equal(json_integer_value(json_object_get(ans, "requestId")), 41);
	who = json_loads(claude_text(ans), 0, NULL);
	assert_string_equal(json_string_value(json_object_get(who, "callId")), "41");
	json_decref(who);
	json_decref(ans);
	served += 2;

	/* The same requestId again while the first runs: one run of the tool. */
	id1 = send_op(&a, "claude.call", "json", "{\"requestId\":\"dup\",\"tool\":\"sleep\",\"arguments\":{\"ms\":400}}",
		      (char *)NULL);
	fx_sleep_ms(100);
	id2 = send_op(&a, "claude.call", "json", "{\"requestId\":\"dup\",\"tool\":\"sleep\",\"arguments\":{\"ms\":400}}",
		      (char *)NULL);
	reply_to(&a, id1, &r1);
	reply_to(&a, id2, &r2);
	a1 = native(&r1);
	a2 = native(&r2);
	assert_false(json_is_true(json_object_get(a1, "isError")));
	assert_false(json_is_true(json_object_get(a2, "isError")));
	assert_string_equal(json_string_value(json_object_get(a2, "requestId")), "dup");
	assert_int_equal(fx_service_num(&F, "svc-echo", "callsServed"), served + 1);
	json_decref(a1);
	json_decref(a2);
	hb_env_free(&r1);
	hb_env_free(&r2);

	/* A toolCancel that names only the requestId reaches the call. */
	call = send_op(&a, "claude.call", "json", "{\"requestId\":9,\"tool\":\"sleep\",\"arguments\":{\"ms\":10000}}",
		       (char *)NULL);
	fx_sleep_ms(200);
	cancel = send_op(&a, "claude.cancel", "json", "{\"requestId\":9}", (char *)NULL);
	assert_int_equal(fx_expect_stopped(&a, call, cancel), 0);

	/* An identity too long to keep whole is refused, not cut short. */
	snprintf(frame, sizeof frame, "{\"requestId\":10,\"tool\":\"whoami\",\"arguments\":{},\"toolUseId\":\"%0500d\"}",
		 0);
	ans = claude_call(&a, frame);
	assert_true(json_is_true(json_object_get(ans, "isError")));
	assert_non_null(strstr(claude_text(ans), "too long"));
	json_decref(ans);
	reply_to(&a, send_op(&a, "run.close", "run", "run-claude-bare", (char *)NULL), &r1);
	hb_env_free(&r1);
	hb_client_close(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codex_unlinked_thread),
		cmocka_unit_test(test_codex_binding),
		cmocka_unit_test(test_plain_call_is_the_user),
		cmocka_unit_test(test_codex_duplicate_joins),
		cmocka_unit_test(test_claude_binding),
		cmocka_unit_test(test_claude_cancel_and_stop),
		cmocka_unit_test(test_claude_call_without_tool_use_id),
	};

	return ck_run_group_tests(tests, frontends_setup, frontends_teardown);
}
