/*
 * itest_sessions_store - svc-sessions through the real hb-broker with
 * appdata.db in a temporary HB_HOME (sessions_rig.h): concurrent creates,
 * that an answered change survives a SIGKILL of the service, and who may
 * raise a session's access: calls through Codex's and Claude's doors and
 * hbctl --run are bound to a run and may not go above its access; hbctl
 * without a run is the user and may.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness/group.h"
#include "../harness/harness.h"
#include "client.h"
#include "envelope.h"
#include "sha256.h"
#include "sessions_rig.h"

/* Twelve creates at once across the service's workers all land. */
static void test_concurrent_creates(void **state)
{
	struct hb_client c;
	json_t *res;
	long long before;
	char ids[12][32];

	(void)state;
	res = list(json_pack("{s:b, s:i}", "includeArchived", 1, "limit", 200));
	before = json_integer_value(json_object_get(res, "count"));
	json_decref(res);
	assert_int_equal(fx_client(&fx, &c, 20000), 0);
	for (int i = 0; i < 12; i++) {
		struct hb_env req;
		char err[256], json[PATH_MAX + 128];
		int64_t id;

		snprintf(json, sizeof json,
			 "{\"action\":\"create\",\"title\":\"Parallel %d\",\"agent\":\"codex\",\"projectPath\":\"%s\"}",
			 i, proj_b);
		hb_env_init(&req);
		hb_env_set_str(&req, "op", "call");
		hb_env_set_str(&req, "tool", "manage_sessions");
		hb_env_set_str(&req, "json", json);
		if (hb_client_send(&c, &req, &id, err, sizeof err) < 0)
			fail_msg("send: %s", err);
	}
	for (int i = 0; i < 12; i++) {
		struct hb_env reply;
		char err[256];
		json_t *row;

		if (hb_client_recv(&c, &reply, 20000, err, sizeof err) < 0)
			fail_msg("create %d: %s", i, err);
		if (!hb_env_bool(&reply, "ok", 0))
			fail_msg("a concurrent create failed: %s", hb_env_str_or(&reply, "text", "?"));
		row = json_loads(hb_env_str_or(&reply, "text", ""), 0, NULL);
		assert_non_null(row);
		snprintf(ids[i], sizeof ids[i], "%s", jstr(row, "id"));
		for (int j = 0; j < i; j++)
			assert_string_not_equal(ids[i], ids[j]);
		json_decref(row);
		hb_env_free(&reply);
	}
	hb_client_close(&c);
	res = list(json_pack("{s:b, s:i}", "includeArchived", 1, "limit", 200));
	assert_int_equal(json_integer_value(json_object_get(res, "count")), before + 12);
	for (int i = 0; i < 12; i++)
		assert_non_null(find_row(res, ids[i]));
	json_decref(res);
}

static void test_survives_sigkill(void **state)
{
	pid_t pid = fx_service_pid(&fx, "svc-sessions");
	long long gen = fx_service_num(&fx, "svc-sessions", "generation");
	char id[64];
	json_t *row, *res;

	(void)state;
	row = create("Survivor", "claude", proj_a);
	snprintf(id, sizeof id, "%s", jstr(row, "id"));
	json_decref(row);
	assert_true(pid > 0);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(fx_wait_up(&fx, "svc-sessions", gen + 1, 15000), 0);
	assert_true(fx_service_pid(&fx, "svc-sessions") != pid);
	res = list(json_pack("{s:s}", "projectDirectoryHash", hash_a));
	if (!find_row(res, id))
		fail_msg("session %s is gone after the SIGKILL", id);
	assert_string_equal(jstr(find_row(res, id), "title"), "Survivor");
	/* Newest first still holds after the restart. */
	assert_string_equal(jstr(json_array_get(json_object_get(res, "sessions"), 0), "id"), id);
	json_decref(res);
	row = change("activate", id);
	assert_true(json_is_true(json_object_get(row, "active")));
	json_decref(row);
}

/* ---- access from agents ------------------------------------------------------ */

/* The reply to request id on c. */
static void reply_to(struct hb_client *c, int64_t id, struct hb_env *reply)
{
	char err[256];
	int64_t got = -1;

	if (id < 0)
		fail_msg("a request could not be sent");
	if (hb_client_recv(c, reply, 15000, err, sizeof err) < 0)
		fail_msg("no reply: %s", err);
	hb_env_int(reply, "id", &got);
	assert_int_equal(got, id);
}

static void front_ok(struct hb_client *c, int64_t id)
{
	struct hb_env reply;

	reply_to(c, id, &reply);
	if (!hb_env_bool(&reply, "ok", 0))
		fail_msg("refused: %s", hb_env_str_or(&reply, "err.msg", "?"));
	hb_env_free(&reply);
}

static json_t *set_access_args(const char *id, const char *level)
{
	return json_pack("{s:s, s:s, s:s}", "action", "setAccessLevel", "targetSessionId", id, "accessLevel", level);
}

/* The agent's own answer to a frame sent as op on c, parsed. */
static json_t *native_answer(struct hb_client *c, const char *op, json_t *frame)
{
	char *text = json_dumps(frame, JSON_COMPACT);
	struct hb_env reply;
	json_t *ans;

	json_decref(frame);
	assert_non_null(text);
	reply_to(c, fx_send_op(c, op, "json", text, (char *)NULL), &reply);
	free(text);
	ans = json_loads(hb_env_str_or(&reply, "json", ""), 0, NULL);
	if (!ans)
		fail_msg("%s: no native answer: %s", op, hb_env_str_or(&reply, "err.msg", "?"));
	hb_env_free(&reply);
	return ans;
}

/* setAccessLevel as Codex calls it (item/tool/call on thread); returns
 * success, *text the answer (malloc'd). */
static int codex_set_access(struct hb_client *c, const char *thread, const char *call_id, const char *id,
			    const char *level, char **text)
{
	json_t *ans = native_answer(c, "codex.call", json_pack("{s:s, s:i, s:{s:s, s:s, s:s, s:s, s:s, s:o}}",
		"method", "item/tool/call", "id", 1, "params", "threadId", thread, "turnId", "turn-1",
		"callId", call_id, "namespace", "hbcode", "tool", "manage_sessions", "arguments",
		set_access_args(id, level)));
	json_t *result = json_object_get(ans, "result");
	int ok = json_is_true(json_object_get(result, "success"));

	*text = strdup(jstr(json_array_get(json_object_get(result, "contentItems"), 0), "text"));
	json_decref(ans);
	return ok;
}

/* setAccessLevel as Claude calls it (toolCall on its run's connection). */
static int claude_set_access(struct hb_client *c, const char *tool_use_id, const char *id, const char *level,
			     char **text)
{
	json_t *ans = native_answer(c, "claude.call", json_pack("{s:s, s:s, s:o, s:s}", "requestId", tool_use_id,
		"tool", "mcp__hbcode__manage_sessions", "arguments", set_access_args(id, level),
		"toolUseId", tool_use_id));
	int ok = !json_is_true(json_object_get(ans, "isError"));

	*text = strdup(jstr(json_array_get(json_object_get(ans, "content"), 0), "text"));
	json_decref(ans);
	return ok;
}

/* The access level stored for id, as the user reads it (static buffer). */
static const char *level_of(const char *id)
{
	static char level[32];
	json_t *res = list(json_pack("{s:b, s:i}", "includeArchived", 1, "limit", 200));
	const json_t *row = find_row(res, id);

	if (!row)
		fail_msg("session %s is not listed", id);
	snprintf(level, sizeof level, "%s", jstr(row, "accessLevel"));
	json_decref(res);
	return level;
}

/* The refusal an agent relays to its user. */
static void expect_refusal(int ok, char *text, const char *id, const char *own)
{
	char want[256];

	snprintf(want, sizeof want, "setAccessLevel cannot raise %s above your own access (%s); ask the user "
		 "to change it in HB Code.", id, own);
	if (ok)
		fail_msg("the raise of %s was accepted: %s", id, text);
	assert_string_equal(text, want);
	free(text);
}

static void expect_set(int ok, char *text, const char *id, const char *level)
{
	if (!ok)
		fail_msg("setting %s to %s failed: %s", id, level, text);
	free(text);
	assert_string_equal(level_of(id), level);
}

static void test_access_from_agents(void **state)
{
	char own[64], other[64], mine[64], args[256], *text = NULL, *out = NULL;
	const char *hbctl_run[] = { "call", "manage_sessions", args, "--run", "run-own", NULL };
	const char *hbctl_user[] = { "call", "manage_sessions", args, NULL };
	struct hb_client desk, bridge;
	json_t *row;
	int ok;

	(void)state;
	row = create("Codex's own", "codex", proj_a); /* full-auto */
	snprintf(own, sizeof own, "%s", jstr(row, "id"));
	json_decref(row);
	row = create("Another", "codex", proj_a);
	snprintf(other, sizeof other, "%s", jstr(row, "id"));
	json_decref(row);
	json_decref(call_ok("manage_sessions", set_access_args(other, "read-only")));
	row = create("Claude's own", "claude", proj_a);
	snprintf(mine, sizeof mine, "%s", jstr(row, "id"));
	json_decref(row);

	/* Codex: the thread's session and that session's full-auto run. */
	assert_int_equal(fx_client(&fx, &desk, 15000), 0);
	front_ok(&desk, fx_send_op(&desk, "thread.link", "threadId", "thread-own", "sessionId", own, (char *)NULL));
	assert_int_equal(fx_open_run(&desk, "run-own", own, proj_a, "codex", "full-auto"), 0);
	ok = codex_set_access(&desk, "thread-own", "call-1", own, "unrestricted", &text);
	expect_refusal(ok, text, own, "full-auto");
	assert_string_equal(level_of(own), "full-auto");
	ok = codex_set_access(&desk, "thread-own", "call-2", own, "full-access", &text);
	expect_refusal(ok, text, own, "full-auto");
	/* Lowering works, and so does setting it back up to its own access. */
	ok = codex_set_access(&desk, "thread-own", "call-3", own, "read-only", &text);
	expect_set(ok, text, own, "read-only");
	ok = codex_set_access(&desk, "thread-own", "call-4", own, "full-auto", &text);
	expect_set(ok, text, own, "full-auto");
	/* Another session: up to full-auto, not above. */
	ok = codex_set_access(&desk, "thread-own", "call-5", other, "full-auto", &text);
	expect_set(ok, text, other, "full-auto");
	ok = codex_set_access(&desk, "thread-own", "call-6", other, "full-access", &text);
	expect_refusal(ok, text, other, "full-auto");
	assert_string_equal(level_of(other), "full-auto");

	/* hbctl --run speaks as that run's agent: bound, refused alike. */
	snprintf(args, sizeof args, "{\"action\":\"setAccessLevel\",\"targetSessionId\":\"%s\","
		 "\"accessLevel\":\"unrestricted\"}", own);
	assert_int_equal(fx_hbctl(&fx, &out, hbctl_run), 1);
	assert_non_null(strstr(out, "setAccessLevel cannot raise"));
	free(out);
	assert_string_equal(level_of(own), "full-auto");
	/* Without a run, hbctl is the user: it may raise. */
	assert_int_equal(fx_hbctl(&fx, &out, hbctl_user), 0);
	free(out);
	assert_string_equal(level_of(own), "unrestricted");

	/* A Codex call while its session has no open run may only lower. */
	front_ok(&desk, fx_send_op(&desk, "run.close", "run", "run-own", (char *)NULL));
	ok = codex_set_access(&desk, "thread-own", "call-7", other, "full-access", &text);
	expect_refusal(ok, text, other, "none: this call has no open run");
	ok = codex_set_access(&desk, "thread-own", "call-8", own, "full-access", &text);
	expect_set(ok, text, own, "full-access");
	hb_client_close(&desk);

	/* Claude: the run its bridge opened on this connection. */
	assert_int_equal(fx_client(&fx, &bridge, 15000), 0);
	assert_int_equal(fx_open_run(&bridge, "run-mine", mine, proj_a, "claude", "full-auto"), 0);
	ok = claude_set_access(&bridge, "tu-1", mine, "unrestricted", &text);
	expect_refusal(ok, text, mine, "full-auto");
	assert_string_equal(level_of(mine), "full-auto");
	ok = claude_set_access(&bridge, "tu-2", mine, "read-only", &text);
	expect_set(ok, text, mine, "read-only");
	front_ok(&bridge, fx_send_op(&bridge, "run.close", "run", "run-mine", (char *)NULL));
	hb_client_close(&bridge);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_concurrent_creates),
		cmocka_unit_test(test_survives_sigkill),
		cmocka_unit_test(test_access_from_agents),
	};

	return ck_run_group_tests(tests, setup_broker, teardown_broker);
}
