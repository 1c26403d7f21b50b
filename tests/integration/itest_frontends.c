/*
 * itest_frontends - the agents' doors into the real broker: Codex
 * item/tool/call frames bound through the thread's durable link (and a
 * forked thread's parent), arguments that never choose the session,
 * duplicates that join, Claude toolCall/toolCancel on a connection bound
 * to its run (a call without toolUseId known by its bare requestId), run
 * stop and close, the run.open refusals (unknown session, the other
 * agent's session, a second active Claude run, unless its bridge is
 * gone), approval cards with hbctl, and a Claude bridge's claude.link
 * (the session from its run; one session per Claude conversation).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zmq.h>

#include "../harness/group.h"
#include "../harness/harness.h"
#include "sock.h"

/* The test service, started beside svc-sessions as deploy/services.conf has it. */
static const char echo_conf[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 4\n"
	"tools = echo sleep whoami\n";

#define NOT_LINKED "is not linked to a HB Code session yet. Try the call again."

static struct fixture F;
static char session_id[64];             /* a Codex session */
static char claude_session[64];         /* a Claude session */

/* Send an envelope of op with string fields (NULL-terminated pairs). */
#define send_op(c, ...) checked_id(fx_send_op((c), __VA_ARGS__))

static int64_t checked_id(int64_t id)
{
	if (id < 0)
		fail_msg("a request could not be sent");
	return id;
}

/* The reply to request id (others are not expected here). */
static void reply_to(struct hb_client *c, int64_t id, struct hb_env *reply)
{
	char err[256];
	int64_t got = -1;

	if (hb_client_recv(c, reply, 15000, err, sizeof err) < 0)
		fail_msg("no reply: %s", err);
	hb_env_int(reply, "id", &got);
	assert_int_equal(got, id);
}

/* The native answer of a reply, parsed. */
static json_t *native(struct hb_env *reply)
{
	json_t *j = json_loads(hb_env_str_or(reply, "json", ""), 0, NULL);

	if (!j)
		fail_msg("no native answer: %s", hb_env_str_or(reply, "err.msg", hb_env_str_or(reply, "text", "?")));
	return j;
}

static const char *codex_text(json_t *ans)
{
	return json_string_value(json_object_get(
		json_array_get(json_object_get(json_object_get(ans, "result"), "contentItems"), 0), "text"));
}

static int codex_success(json_t *ans)
{
	return json_is_true(json_object_get(json_object_get(ans, "result"), "success"));
}

static char *codex_frame(int rpcid, const char *thread, const char *callid, const char *tool, const char *args)
{
	char *out = malloc(4096);

	assert_non_null(out);
	snprintf(out, 4096, "{\"method\":\"item/tool/call\",\"id\":%d,\"params\":{\"threadId\":\"%s\","
		 "\"turnId\":\"turn-1\",\"callId\":\"%s\",\"namespace\":\"hbcode\",\"tool\":\"%s\","
		 "\"arguments\":%s}}", rpcid, thread, callid, tool, args);
	return out;
}

static json_t *codex_call(struct hb_client *c, int rpcid, const char *thread, const char *callid,
			  const char *tool, const char *args)
{
	char *frame = codex_frame(rpcid, thread, callid, tool, args);
	struct hb_env reply;
	json_t *ans;
	int64_t id = send_op(c, "codex.call", "json", frame, (char *)NULL);

	free(frame);
	reply_to(c, id, &reply);
	ans = native(&reply);
	assert_int_equal(json_integer_value(json_object_get(ans, "id")), rpcid);
	hb_env_free(&reply);
	return ans;
}

static int setup(void **state)
{
	char *conf = fx_deployed_config(echo_conf, "svc-sessions", (char *)NULL), *text = NULL;
	json_t *row;
	int ok, rc;

	(void)state;
	rc = conf ? fx_start(&F, conf, NULL) : -1;
	free(conf);
	if (rc < 0)
		return -1;
	if (fx_call(&F, "manage_sessions", "{\"action\":\"create\",\"title\":\"Front\",\"agent\":\"codex\","
		    "\"projectPath\":\"/tmp\",\"accessLevel\":\"full-auto\"}", &ok, &text) < 0 || !ok)
		return -1;
	row = json_loads(text, 0, NULL);
	snprintf(session_id, sizeof session_id, "%s", json_string_value(json_object_get(row, "id")));
	json_decref(row);
	free(text);
	return fx_create_session(&F, "Front Claude", "claude", "/tmp/claude", "full-auto", claude_session,
				 sizeof claude_session);
}

static int teardown(void **state)
{
	int st = 0;

	(void)state;
	return fx_stop(&F, &st) == 0 ? 0 : -1;
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

static void open_claude_run(struct hb_client *c, const char *run, const char *access, const char *mode)
{
	struct hb_env reply;
	json_t *j;

	reply_to(c, send_op(c, "run.open", "run", run, "session", claude_session, "project", "/tmp/claude",
			    "agent", "claude", "access", access, (char *)NULL), &reply);
	if (!hb_env_bool(&reply, "ok", 0))
		fail_msg("run.open %s refused: %s", run, hb_env_str_or(&reply, "err.msg", "?"));
	j = json_loads(hb_env_str_or(&reply, "json", ""), 0, NULL);
	assert_string_equal(json_string_value(json_object_get(j, "permissionMode")), mode);
	json_decref(j);
	hb_env_free(&reply);
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
	/* The fourth row of page 003's table (the others are opened above
	 * and in the tests below). */
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

/* run.open's answer on c: ok, or the refusal's code and message. */
static int run_open(struct hb_client *c, const char *run, const char *session, const char *agent, char *code,
		    char *msg)
{
	struct hb_env reply;
	int ok;

	reply_to(c, send_op(c, "run.open", "run", run, "session", session, "project", "/tmp", "agent", agent,
			    "access", "full-auto", (char *)NULL), &reply);
	ok = hb_env_bool(&reply, "ok", 0);
	snprintf(code, 32, "%s", hb_env_str_or(&reply, "err.code", ""));
	snprintf(msg, 512, "%s", hb_env_str_or(&reply, "err.msg", ""));
	hb_env_free(&reply);
	return ok;
}

static void expect_open_refused(struct hb_client *c, const char *run, const char *session, const char *agent,
				const char *want_code, const char *want_msg)
{
	char code[32], msg[512];

	if (run_open(c, run, session, agent, code, msg))
		fail_msg("run.open %s (%s on %s) was accepted", run, agent, session);
	assert_string_equal(code, want_code);
	assert_string_equal(msg, want_msg);
}

static void end_run(struct hb_client *c, const char *op, const char *run)
{
	struct hb_env reply;

	reply_to(c, send_op(c, op, "run", run, (char *)NULL), &reply);
	assert_true(hb_env_bool(&reply, "ok", 0));
	hb_env_free(&reply);
}

/* A run opens only on a session that exists and runs the run's agent; a
 * session has one active Claude run; Codex runs may be several. */
static void test_run_open_refusals(void **state)
{
	const char *stop_cmd[] = { "stop", "svc-sessions", NULL }, *start_cmd[] = { "start", "svc-sessions", NULL };
	struct hb_client desk, bridge;
	char code[32], msg[512], want[512], *out;
	json_t *ans, *who;

	(void)state;
	assert_int_equal(fx_client(&F, &desk, 15000), 0);
	assert_int_equal(fx_client(&F, &bridge, 15000), 0);
	expect_open_refused(&desk, "run-x", "s-nobody", "claude", "unknown-session",
			    "session s-nobody does not exist; a run opens only on a session of HB Code");
	expect_open_refused(&desk, "run-x", "s-nobody", "codex", "unknown-session",
			    "session s-nobody does not exist; a run opens only on a session of HB Code");
	snprintf(want, sizeof want, "session %s is a Codex session; a claude run cannot open on it", session_id);
	expect_open_refused(&desk, "run-x", session_id, "claude", "agent-mismatch", want);
	snprintf(want, sizeof want, "session %s is a Claude session; a codex run cannot open on it", claude_session);
	expect_open_refused(&desk, "run-x", claude_session, "codex", "agent-mismatch", want);

	/* One active Claude run per session (page 003). */
	assert_true(run_open(&bridge, "run-c1", claude_session, "claude", code, msg));
	snprintf(want, sizeof want, "session %s already has an active Claude run run-c1; stop or close it first",
		 claude_session);
	expect_open_refused(&desk, "run-c2", claude_session, "claude", "run-conflict", want);
	expect_open_refused(&desk, "run-c1", session_id, "codex", "bad-request", "run run-c1 is open already");
	/* A stopped run is no longer active: the next one may open. */
	end_run(&desk, "run.stop", "run-c1");
	if (!run_open(&desk, "run-c2", claude_session, "claude", code, msg))
		fail_msg("run-c2 after the stop of run-c1: %s", msg);
	end_run(&desk, "run.close", "run-c1");
	end_run(&desk, "run.close", "run-c2");

	/* Codex: several runs at once; calls use the newest. */
	{
		struct hb_env reply;
		reply_to(&desk, send_op(&desk, "thread.link", "threadId", "thread-runs", "sessionId", session_id,
					(char *)NULL), &reply);
		assert_true(hb_env_bool(&reply, "ok", 0));
		hb_env_free(&reply);
	}
	assert_true(run_open(&desk, "run-k1", session_id, "codex", code, msg));
	fx_sleep_ms(5);
	assert_true(run_open(&desk, "run-k2", session_id, "codex", code, msg));
	ans = codex_call(&desk, 30, "thread-runs", "call-runs", "whoami", "{}");
	who = json_loads(codex_text(ans), 0, NULL);
	assert_string_equal(json_string_value(json_object_get(who, "run")), "run-k2");
	json_decref(who);
	json_decref(ans);
	end_run(&desk, "run.close", "run-k1");
	end_run(&desk, "run.close", "run-k2");

	/* Without svc-sessions nothing can vouch for the session. */
	assert_int_equal(fx_hbctl(&F, &out, stop_cmd), 0);
	free(out);
	assert_false(run_open(&desk, "run-x", claude_session, "claude", code, msg));
	assert_string_equal(code, "no-session-service");
	snprintf(want, sizeof want, "run.open cannot check session %s: ", claude_session);
	assert_memory_equal(msg, want, strlen(want));
	assert_int_equal(fx_hbctl(&F, &out, start_cmd), 0);
	free(out);
	assert_int_equal(fx_wait_up(&F, "svc-sessions", 0, 15000), 0);
	hb_client_close(&bridge);
	hb_client_close(&desk);
}

static void attach_op(struct hb_client *c, const char *op, const char *session)
{
	struct hb_env reply;

	reply_to(c, send_op(c, op, "session", session, "agent", "claude", (char *)NULL), &reply);
	assert_true(hb_env_bool(&reply, "ok", 0));
	hb_env_free(&reply);
}

/* A Claude run whose bridge is gone (silent past the attach expiry, or
 * detached) gives way to the next run of its session, and its calls are
 * answered "Run stopped."; a run whose opener never attached (not a
 * bridge: it must close its run itself) and a live bridge's keep theirs. */
static void test_abandoned_claude_run_gives_way(void **state)
{
	struct hb_client killed, desk;
	char code[32], msg[512], want[512];
	long long deadline;
	struct hb_env reply;
	int64_t call;
	int opened = 0;

	(void)state;
	assert_int_equal(fx_client(&F, &killed, 15000), 0);
	assert_int_equal(fx_client(&F, &desk, 15000), 0);
	assert_true(run_open(&killed, "run-a1", claude_session, "claude", code, msg));
	attach_op(&killed, "session.attach", claude_session);
	call = send_op(&killed, "claude.call", "json",
		       "{\"requestId\":1,\"tool\":\"sleep\",\"arguments\":{\"ms\":600000},\"toolUseId\":\"tu-a1\"}",
		       (char *)NULL);
	/* Its bridge attached just now: alive, so the run keeps the session. */
	snprintf(want, sizeof want, "session %s already has an active Claude run run-a1; stop or close it first",
		 claude_session);
	expect_open_refused(&desk, "run-a2", claude_session, "claude", "run-conflict", want);
	/* Then it falls silent, as a killed bridge does. */
	deadline = fx_now_ms() + 20000;
	while (!opened && fx_now_ms() < deadline) {
		opened = run_open(&desk, "run-a2", claude_session, "claude", code, msg);
		if (!opened) {
			assert_string_equal(code, "run-conflict");
			fx_sleep_ms(200);
		}
	}
	if (!opened)
		fail_msg("run-a2 never opened after run-a1's bridge fell silent: %s", msg);
	reply_to(&killed, call, &reply);
	assert_non_null(strstr(hb_env_str_or(&reply, "json", ""), "Run stopped."));
	hb_env_free(&reply);
	hb_client_close(&killed);

	/* desk never attached: it is no bridge, and its run stays. */
	snprintf(want, sizeof want, "session %s already has an active Claude run run-a2; stop or close it first",
		 claude_session);
	expect_open_refused(&desk, "run-a3", claude_session, "claude", "run-conflict", want);
	/* Attached, then detached (a bridge that ended): it gives way at once. */
	attach_op(&desk, "session.attach", claude_session);
	expect_open_refused(&desk, "run-a3", claude_session, "claude", "run-conflict", want);
	attach_op(&desk, "session.detach", claude_session);
	if (!run_open(&desk, "run-a3", claude_session, "claude", code, msg))
		fail_msg("run-a3 after run-a2's bridge detached: %s", msg);
	end_run(&desk, "run.close", "run-a3");
	hb_client_close(&desk);
}

static json_t *permission_answer(struct hb_client *c, int64_t id)
{
	struct hb_env reply;
	json_t *j;

	reply_to(c, id, &reply);
	assert_true(hb_env_bool(&reply, "ok", 0));
	j = json_loads(hb_env_str_or(&reply, "json", ""), 0, NULL);
	assert_non_null(j);
	hb_env_free(&reply);
	return j;
}

static void test_approvals(void **state)
{
	const char *list[] = { "approvals", NULL };
	const char *approve[] = { "approve", "a1", NULL };
	const char *decline[] = { "decline", "a2", "--message", "not now", NULL };
	struct hb_client a;
	int64_t p1, p2, p3, slow;
	char ep[400];
	void *zctx, *sub;
	json_t *d;
	char *out;

	(void)state;
	assert_int_equal(fx_client(&F, &a, 15000), 0);
	/* Watch the events: a slow tool holds up no approval and no event. */
	snprintf(ep, sizeof ep, "ipc://%s/run/events.sock", F.dir);
	assert_non_null(zctx = zmq_ctx_new());
	assert_non_null(sub = hb_sock_sub(zctx, "approval."));
	assert_int_equal(zmq_connect(sub, ep), 0);
	fx_sleep_ms(300); /* the subscription reaches the broker */
	open_claude_run(&a, "run-claude-3", "full-access", "auto");
	slow = send_op(&a, "claude.call", "json", "{\"requestId\":\"s\",\"tool\":\"sleep\",\"arguments\":{\"ms\":5000},"
						  "\"toolUseId\":\"tu-slow\"}", (char *)NULL);
	p1 = send_op(&a, "claude.permission", "json", "{\"requestId\":\"p1\",\"tool\":\"mcp__hbcode__manage_sessions\","
						      "\"input\":{\"action\":\"archive\"},\"toolUseId\":\"tu-p1\"}", (char *)NULL);
	{
		zmq_pollitem_t item = { sub, 0, ZMQ_POLLIN, 0 };
		char topic[64];
		struct hb_env ev;
		/* The card's event, while the slow call is still running. */
		assert_int_equal(zmq_poll(&item, 1, 4500), 1);
		assert_true(zmq_recv(sub, topic, sizeof topic, 0) > 0);
		assert_int_equal(hb_recv_env(sub, &ev, topic, sizeof topic), 1);
		assert_non_null(strstr(hb_env_str_or(&ev, "json", ""), "\"event\":\"approval.requested\""));
		hb_env_free(&ev);
		assert_int_equal(fx_service_num(&F, "svc-echo", "slotsBusy"), 1); /* still sleeping */
	}
	assert_int_equal(fx_hbctl(&F, &out, list), 0);
	assert_non_null(strstr(out, "a1  mcp__hbcode__manage_sessions  run run-claude-3"));
	free(out);
	assert_int_equal(fx_hbctl(&F, &out, approve), 0);
	free(out);
	d = permission_answer(&a, p1); /* before the slow call's answer */
	assert_string_equal(json_string_value(json_object_get(d, "requestId")), "p1");
	assert_string_equal(json_string_value(json_object_get(d, "decision")), "allow");
	json_decref(d);

	p2 = send_op(&a, "claude.permission", "json", "{\"requestId\":\"p2\",\"tool\":\"mcp__hbcode__manage_sessions\","
						      "\"input\":{},\"toolUseId\":\"tu-p2\"}", (char *)NULL);
	fx_sleep_ms(100);
	assert_int_equal(fx_hbctl(&F, &out, decline), 0);
	free(out);
	d = permission_answer(&a, p2);
	assert_string_equal(json_string_value(json_object_get(d, "decision")), "deny");
	assert_string_equal(json_string_value(json_object_get(d, "message")), "not now");
	json_decref(d);
	{
		struct hb_env reply;
		reply_to(&a, slow, &reply);
		hb_env_free(&reply);
	}

	/* A stop denies the open card with "Run stopped.". */
	p3 = send_op(&a, "claude.permission", "json", "{\"requestId\":\"p3\",\"tool\":\"x\",\"input\":{},"
						      "\"toolUseId\":\"tu-p3\"}", (char *)NULL);
	fx_sleep_ms(100);
	{
		struct hb_client admin;
		struct hb_env reply;
		assert_int_equal(fx_client(&F, &admin, 15000), 0);
		reply_to(&admin, send_op(&admin, "run.stop", "run", "run-claude-3", (char *)NULL), &reply);
		hb_env_free(&reply);
		hb_client_close(&admin);
	}
	d = permission_answer(&a, p3);
	assert_string_equal(json_string_value(json_object_get(d, "decision")), "deny");
	assert_string_equal(json_string_value(json_object_get(d, "message")), "Run stopped.");
	json_decref(d);
	assert_int_equal(fx_hbctl(&F, &out, list), 0);
	assert_non_null(strstr(out, "no approvals waiting"));
	free(out);
	{
		struct hb_env reply;
		reply_to(&a, send_op(&a, "run.close", "run", "run-claude-3", (char *)NULL), &reply);
		hb_env_free(&reply);
	}
	hb_client_close(&a);
	zmq_close(sub);
	zmq_ctx_term(zctx);
}

/* A new Claude session of svc-sessions; its id into id. */
static void new_claude_session(const char *title, char id[64])
{
	char args[200], *text = NULL;
	json_t *row;
	int ok = 0;

	snprintf(args, sizeof args, "{\"action\":\"create\",\"title\":\"%s\",\"agent\":\"claude\","
		 "\"projectPath\":\"/tmp\"}", title);
	assert_int_equal(fx_call(&F, "manage_sessions", args, &ok, &text), 0);
	assert_true(ok);
	row = json_loads(text, 0, NULL);
	snprintf(id, 64, "%s", json_string_value(json_object_get(row, "id")));
	json_decref(row);
	free(text);
}

/* maintain_sessions' claudeSessionId for session (resolveSession, or the
 * session's row of listSessions), "null" when it has none. */
static void claude_id_of(const char *session, int from_list, char out[64])
{
	char args[200], *text = NULL;
	json_t *res, *row = NULL, *v;
	size_t i;
	int ok = 0;

	if (from_list)
		snprintf(args, sizeof args, "{\"action\":\"listSessions\",\"limit\":200}");
	else
		snprintf(args, sizeof args, "{\"action\":\"resolveSession\",\"targetSessionId\":\"%s\"}", session);
	assert_int_equal(fx_call(&F, "maintain_sessions", args, &ok, &text), 0);
	assert_true(ok);
	res = json_loads(text, 0, NULL);
	if (!from_list)
		row = res;
	json_array_foreach(json_object_get(res, "sessions"), i, v)
		if (strcmp(json_string_value(json_object_get(v, "id")), session) == 0)
			row = v;
	assert_non_null(row);
	v = json_object_get(row, "claudeSessionId");
	snprintf(out, 64, "%s", json_is_string(v) ? json_string_value(v) : "null");
	json_decref(res);
	free(text);
}

static void expect_claude_id(const char *session, const char *want)
{
	char got[64];

	claude_id_of(session, 0, got);
	assert_string_equal(got, want);
	claude_id_of(session, 1, got);
	assert_string_equal(got, want);
}

static void test_claude_link(void **state)
{
	struct hb_client a, b, none;
	struct hb_env reply;
	char one[64], two[64], want[160];

	(void)state;
	new_claude_session("Claude one", one);
	new_claude_session("Claude two", two);
	assert_int_equal(fx_client(&F, &a, 15000), 0);
	assert_int_equal(fx_client(&F, &b, 15000), 0);
	assert_int_equal(fx_client(&F, &none, 15000), 0);

	/* No run on this connection: nothing says whose conversation it is. */
	reply_to(&none, send_op(&none, "claude.link", "claudeSessionId", "conv-1", (char *)NULL), &reply);
	assert_false(hb_env_bool(&reply, "ok", 1));
	assert_string_equal(hb_env_str_or(&reply, "err.code", ""), "bad-request");
	hb_env_free(&reply);
	hb_client_close(&none);

	assert_int_equal(fx_open_run(&a, "run-link-1", one, "/tmp", "claude", "full-auto"), 0);
	assert_int_equal(fx_open_run(&b, "run-link-2", two, "/tmp", "claude", "full-auto"), 0);
	/* The run's session, whatever else the request names. */
	reply_to(&a, send_op(&a, "claude.link", "claudeSessionId", "conv-1", "sessionId", two, (char *)NULL), &reply);
	assert_true(hb_env_bool(&reply, "ok", 0));
	hb_env_free(&reply);
	expect_claude_id(one, "conv-1");
	expect_claude_id(two, "null");

	/* The same conversation for the other session: refused, nothing changes. */
	reply_to(&b, send_op(&b, "claude.link", "claudeSessionId", "conv-1", (char *)NULL), &reply);
	assert_false(hb_env_bool(&reply, "ok", 1));
	assert_string_equal(hb_env_str_or(&reply, "err.code", ""), "conflict");
	snprintf(want, sizeof want, "Claude session conv-1 already belongs to HB Code session %s", one);
	assert_non_null(strstr(hb_env_str_or(&reply, "err.msg", ""), want));
	hb_env_free(&reply);
	expect_claude_id(one, "conv-1");
	expect_claude_id(two, "null");

	reply_to(&b, send_op(&b, "claude.link", "claudeSessionId", "conv-2", (char *)NULL), &reply);
	assert_true(hb_env_bool(&reply, "ok", 0));
	hb_env_free(&reply);
	expect_claude_id(two, "conv-2");

	reply_to(&a, send_op(&a, "run.close", "run", "run-link-1", (char *)NULL), &reply);
	hb_env_free(&reply);
	reply_to(&b, send_op(&b, "run.close", "run", "run-link-2", (char *)NULL), &reply);
	hb_env_free(&reply);
	hb_client_close(&a);
	hb_client_close(&b);
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
		cmocka_unit_test(test_run_open_refusals),
		cmocka_unit_test(test_abandoned_claude_run_gives_way),
		cmocka_unit_test(test_approvals),
		cmocka_unit_test(test_claude_link),
	};

	return ck_run_group_tests(tests, setup, teardown);
}
