/*
 * itest_frontends_runs - the runs the agents' doors are bound to, with
 * the real broker, svc-sessions and svc-echo (frontends_rig.h): the
 * run.open refusals (unknown session, the other agent's session, a second
 * active Claude run, a run open already, no svc-sessions to vouch for the
 * session), several Codex runs on one session, a Claude run that gives
 * way when its bridge is gone, approval cards with hbctl (and a stop that
 * denies the open one), what a card says (a command with its folder, a
 * file edit with its path, the subagent that asks, the SDK's words) in
 * hbctl approvals, its --json, the events and the status, and
 * run.chatResolveApproval (the agent's request id first, then the card's;
 * an unknown or answered one refused with a sentence), and a Claude
 * bridge's claude.link (the session
 * from its run; one session per Claude conversation).  (The calls through
 * each door: itest_frontends.c.)
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
#include "frontends_rig.h"
#include "sock.h"

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
	assert_non_null(strstr(out, "a1  tool  mcp__hbcode__manage_sessions {\"action\":\"archive\"}  run run-claude-3"));
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

/* The card of tool in a JSON array of cards (borrowed); it must be there. */
static json_t *card_of_tool(json_t *cards, const char *tool)
{
	size_t i;
	json_t *c;

	json_array_foreach(cards, i, c) {
		if (strcmp(json_string_value(json_object_get(c, "tool")), tool) == 0)
			return c;
	}
	fail_msg("no card of %s", tool);
	return NULL;
}

/* run.chatResolveApproval's answer: ok, or the refusal's code and sentence. */
static int chat_resolve(struct hb_client *c, const char *run, const char *request, const char *decision,
			char code[32], char msg[512])
{
	struct hb_env reply;
	int ok;

	reply_to(c, send_op(c, "run.chatResolveApproval", "run", run, "requestId", request, "decision", decision,
			    (char *)NULL), &reply);
	ok = hb_env_bool(&reply, "ok", 0);
	snprintf(code, 32, "%s", hb_env_str_or(&reply, "err.code", ""));
	snprintf(msg, 512, "%s", hb_env_str_or(&reply, "err.msg", ""));
	hb_env_free(&reply);
	return ok;
}

static void test_card_fields_and_chat_resolve(void **state)
{
	const char *list[] = { "approvals", NULL }, *list_json[] = { "approvals", "--json", NULL };
	struct hb_client a, phone;
	int64_t bash, edit, tool;
	char *out, code[32], msg[512];
	json_t *cards, *c, *status, *d;

	(void)state;
	assert_int_equal(fx_client(&F, &a, 15000), 0);
	assert_int_equal(fx_client(&F, &phone, 15000), 0);
	open_claude_run(&a, "run-cards", "full-access", "auto");
	/* A subagent's Bash call, as the host sends it (agent-host/run.mjs). */
	bash = send_op(&a, "claude.permission", "json",
		       "{\"requestId\":\"perm-1\",\"tool\":\"Bash\",\"input\":{\"command\":\"rm -rf build\","
		       "\"description\":\"Clean\"},\"toolUseId\":\"tu-b\",\"agentId\":\"ag-7\",\"subagent\":"
		       "{\"type\":\"general-purpose\",\"description\":\"Clean the tree\"},\"cwd\":\"/work/proj\","
		       "\"displayName\":\"Run command\",\"decisionReason\":\"rm is not in the allow list\"}",
		       (char *)NULL);
	edit = send_op(&a, "claude.permission", "json",
		       "{\"requestId\":\"perm-2\",\"tool\":\"Edit\",\"input\":{\"file_path\":\"/work/proj/a.c\","
		       "\"old_string\":\"x\",\"new_string\":\"y\"},\"toolUseId\":\"tu-e\"}", (char *)NULL);
	tool = send_op(&a, "claude.permission", "json",
		       "{\"requestId\":\"perm-3\",\"tool\":\"WebFetch\",\"input\":{\"url\":\"https://e.org\"},"
		       "\"toolUseId\":\"tu-w\"}", (char *)NULL);
	fx_sleep_ms(200);

	assert_int_equal(fx_hbctl(&F, &out, list), 0);
	assert_non_null(strstr(out, "  command  rm -rf build  (in /work/proj)  run run-cards  session "));
	assert_non_null(strstr(out, "  subagent general-purpose \"Clean the tree\"  [Run command]  why: rm is not in "
				    "the allow list\n"));
	assert_non_null(strstr(out, "  file edit  Edit /work/proj/a.c  run run-cards"));
	assert_non_null(strstr(out, "  tool  WebFetch {\"url\":\"https://e.org\"}  run run-cards"));
	free(out);
	assert_int_equal(fx_hbctl(&F, &out, list_json), 0);
	assert_non_null(cards = json_loads(out, 0, NULL));
	free(out);
	assert_int_equal(json_array_size(cards), 3);
	{
		size_t i;
		json_array_foreach(cards, i, c) {
			const char *t = json_string_value(json_object_get(c, "tool"));
			const char *kind = json_string_value(json_object_get(c, "kind"));
			if (strcmp(t, "Bash") == 0) {
				assert_string_equal(kind, "command");
				assert_string_equal(json_string_value(json_object_get(c, "command")), "rm -rf build");
				assert_string_equal(json_string_value(json_object_get(c, "cwd")), "/work/proj");
				assert_string_equal(json_string_value(json_object_get(json_object_get(c, "subagent"), "id")),
						    "ag-7");
				assert_string_equal(json_string_value(json_object_get(c, "displayName")), "Run command");
				assert_string_equal(json_string_value(json_object_get(c, "decisionReason")),
						    "rm is not in the allow list");
			} else if (strcmp(t, "Edit") == 0) {
				assert_string_equal(kind, "file");
				assert_string_equal(json_string_value(json_object_get(c, "path")), "/work/proj/a.c");
				assert_null(json_object_get(c, "subagent"));
			} else {
				assert_string_equal(kind, "tool");
				assert_null(json_object_get(c, "path"));
			}
		}
	}
	/* The status shows the same cards. */
	assert_non_null(status = fx_status(&F));
	assert_int_equal(json_array_size(json_object_get(status, "approvals")), 3);
	c = card_of_tool(json_object_get(status, "approvals"), "Bash");
	assert_string_equal(json_string_value(json_object_get(c, "kind")), "command");
	assert_string_equal(json_string_value(json_object_get(c, "command")), "rm -rf build");
	json_decref(status);

	/* The Claude adapter's own id first: perm-1 is the Bash card. */
	assert_true(chat_resolve(&phone, "run-cards", "perm-1", "deny", code, msg));
	d = permission_answer(&a, bash);
	assert_string_equal(json_string_value(json_object_get(d, "requestId")), "perm-1");
	assert_string_equal(json_string_value(json_object_get(d, "decision")), "deny");
	json_decref(d);
	/* Answered already, unknown, another run's: a sentence, and nothing changes. */
	assert_false(chat_resolve(&phone, "run-cards", "perm-1", "allow", code, msg));
	assert_string_equal(code, "unknown-approval");
	assert_string_equal(msg, "Run run-cards has no open approval perm-1: it was answered already, or never "
				 "asked. Nothing was changed.");
	assert_false(chat_resolve(&phone, "run-cards", "perm-99", "allow", code, msg));
	assert_string_equal(code, "unknown-approval");
	assert_false(chat_resolve(&phone, "run-elsewhere", "perm-2", "allow", code, msg));
	assert_string_equal(code, "unknown-run");
	assert_string_equal(msg, "There is no open run run-elsewhere, so its approval perm-2 cannot be answered.");
	assert_false(chat_resolve(&phone, "run-cards", "perm-2", "maybe", code, msg));
	assert_string_equal(code, "bad-request");
	assert_int_equal(fx_hbctl(&F, &out, list_json), 0);
	json_decref(cards);
	assert_non_null(cards = json_loads(out, 0, NULL));
	free(out);
	assert_int_equal(json_array_size(cards), 2);
	/* The card's own id answers too. */
	assert_true(chat_resolve(&phone, "run-cards",
				 json_string_value(json_object_get(card_of_tool(cards, "Edit"), "id")), "allow", code, msg));
	d = permission_answer(&a, edit);
	assert_string_equal(json_string_value(json_object_get(d, "requestId")), "perm-2");
	assert_string_equal(json_string_value(json_object_get(d, "decision")), "allow");
	json_decref(d);
	json_decref(cards);

	end_run(&phone, "run.stop", "run-cards");
	d = permission_answer(&a, tool);
	assert_string_equal(json_string_value(json_object_get(d, "message")), "Run stopped.");
	json_decref(d);
	end_run(&a, "run.close", "run-cards");
	hb_client_close(&a);
	hb_client_close(&phone);
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
		cmocka_unit_test(test_run_open_refusals),
		cmocka_unit_test(test_abandoned_claude_run_gives_way),
		cmocka_unit_test(test_approvals),
		cmocka_unit_test(test_card_fields_and_chat_resolve),
		cmocka_unit_test(test_claude_link),
	};

	return ck_run_group_tests(tests, frontends_setup, frontends_teardown);
}
