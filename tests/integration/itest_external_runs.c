/*
 * itest_external_runs - the runs of MCP clients (hb-mcp, docs/mcp.md) in
 * the real broker with svc-sessions and svc-echo (frontends_rig.h): an
 * external run opens on a session of another agent and its calls carry
 * agent external and the run's access; its agent-class calls
 * (manage_sessions) wait for an approval card the broker raises, and run
 * once approved; a declined one answers the bridges' sentence (or the
 * decline's message); a held call cancelled by its key, or ended with
 * its run, withdraws its card; a read-only tool, and any tool of an
 * unrestricted run, asks nothing; the call.* events carry the call id.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness/checks.h"
#include "../harness/group.h"
#include "../harness/harness.h"
#include "frontends_rig.h"

static void open_external(struct hb_client *c, const char *run, const char *session, const char *access)
{
	struct hb_env reply;

	reply_to(c, send_op(c, "run.open", "run", run, "session", session, "project", "/tmp/mcp", "agent", "external",
			    "access", access, (char *)NULL),
		 &reply);
	if (!hb_env_bool(&reply, "ok", 0))
		fail_msg("run.open %s refused: %s", run, hb_env_str_or(&reply, "err.msg", "?"));
	hb_env_free(&reply);
}

static void close_run(struct hb_client *c, const char *run)
{
	struct hb_env reply;

	reply_to(c, send_op(c, "run.close", "run", run, (char *)NULL), &reply);
	assert_true(hb_env_bool(&reply, "ok", 0));
	hb_env_free(&reply);
}

/* The open cards, as approval.list gives them. */
static json_t *cards(struct hb_client *desk)
{
	struct hb_env reply;
	json_t *list;

	reply_to(desk, send_op(desk, "approval.list", (char *)NULL), &reply);
	list = json_loads(hb_env_str_or(&reply, "json", ""), 0, NULL);
	hb_env_free(&reply);
	assert_true(json_is_array(list));
	return list;
}

/* Wait for the one card of call_id; its id into card_id, its key into key. */
static void wait_card(struct hb_client *desk, const char *call_id, char *card_id, char *key)
{
	for (int i = 0; i < 100; i++) {
		json_t *list = cards(desk), *card = json_array_get(list, 0);
		if (json_array_size(list) == 1) {
			assert_string_equal(json_string_value(json_object_get(card, "toolUseId")), call_id);
			assert_string_equal(json_string_value(json_object_get(card, "tool")), "manage_sessions");
			assert_string_equal(json_string_value(json_object_get(card, "kind")), "tool");
			assert_string_equal(json_string_value(json_object_get(json_object_get(card, "input"), "action")),
					    "rename");
			snprintf(card_id, 32, "%s", json_string_value(json_object_get(card, "id")));
			snprintf(key, 32, "%s", json_string_value(json_object_get(card, "callKey")));
			json_decref(list);
			return;
		}
		json_decref(list);
		usleep(20000);
	}
	fail_msg("no card for %s", call_id);
}

static int64_t send_rename(struct hb_client *c, const char *run, const char *call_id, const char *title)
{
	char args[256];

	snprintf(args, sizeof args, "{\"action\":\"rename\",\"targetSessionId\":\"%s\",\"title\":\"%s\"}",
		 claude_session, title);
	return send_op(c, "call", "tool", "manage_sessions", "json", args, "run", run, "call_id", call_id,
		       (char *)NULL);
}

/* The answer of request id on c: ok and its text into text. */
static int answer(struct hb_client *c, int64_t id, char *text, size_t len)
{
	struct hb_env reply;
	int ok;

	reply_to(c, id, &reply);
	ok = hb_env_bool(&reply, "ok", 0);
	snprintf(text, len, "%s", hb_env_str_or(&reply, "text", hb_env_str_or(&reply, "err.msg", "")));
	hb_env_free(&reply);
	return ok;
}

static void resolve(struct hb_client *desk, const char *card, const char *decision, const char *message)
{
	struct hb_env reply;

	reply_to(desk, send_op(desk, "approval.resolve", "approval", card, "decision", decision, "message", message,
			       (char *)NULL),
		 &reply);
	assert_true(hb_env_bool(&reply, "ok", 0));
	hb_env_free(&reply);
}

static void test_context_and_events(void **state)
{
	struct hb_client mcp;
	struct ck_sub s;
	char text[4096];
	json_t *who, *ev;

	(void)state;
	ck_sub_open(&s, &F, "call.");
	ck_sub_warm(&s, &F);
	assert_int_equal(fx_client(&F, &mcp, 15000), 0);
	/* On the Codex session: an external run opens on any agent's. */
	open_external(&mcp, "ext-1", session_id, "full-auto");
	assert_true(answer(&mcp, send_op(&mcp, "call", "tool", "whoami", "json", "{}", "run", "ext-1", "call_id", "mcp-1",
					 (char *)NULL),
			   text, sizeof text));
	who = json_loads(text, 0, NULL);
	assert_string_equal(json_string_value(json_object_get(who, "agent")), "external");
	assert_string_equal(json_string_value(json_object_get(who, "access")), "full-auto");
	assert_string_equal(json_string_value(json_object_get(who, "session")), session_id);
	assert_string_equal(json_string_value(json_object_get(who, "callId")), "mcp-1");
	json_decref(who);
	ev = ck_sub_wait(&s, "call.start", "callId", "mcp-1", 5000);
	assert_string_equal(fx_jstr(ev, "run"), "ext-1");
	json_decref(ev);
	close_run(&mcp, "ext-1");
	hb_client_close(&mcp);
	ck_sub_close(&s);
}

static void test_card_approve_decline(void **state)
{
	struct hb_client mcp, desk;
	char card[32], key[32], text[4096];
	int64_t id;
	json_t *list;

	(void)state;
	assert_int_equal(fx_client(&F, &mcp, 15000), 0);
	assert_int_equal(fx_client(&F, &desk, 15000), 0);
	open_external(&mcp, "ext-2", claude_session, "full-auto");
	/* Approved: the call runs then. */
	id = send_rename(&mcp, "ext-2", "mcp-2", "Renamed by MCP");
	wait_card(&desk, "mcp-2", card, key);
	assert_true(key[0] == 'c');
	resolve(&desk, card, "allow", "");
	assert_true(answer(&mcp, id, text, sizeof text));
	assert_non_null(strstr(text, "Renamed by MCP"));
	/* Declined: the bridges' sentence, or the decline's message. */
	id = send_rename(&mcp, "ext-2", "mcp-3", "Never");
	wait_card(&desk, "mcp-3", card, key);
	resolve(&desk, card, "deny", "");
	assert_false(answer(&mcp, id, text, sizeof text));
	assert_string_equal(text, "The user declined this tool call.");
	id = send_rename(&mcp, "ext-2", "mcp-4", "Never");
	wait_card(&desk, "mcp-4", card, key);
	resolve(&desk, card, "deny", "not this one");
	assert_false(answer(&mcp, id, text, sizeof text));
	assert_string_equal(text, "not this one");
	/* A read-only tool asks nothing. */
	assert_true(answer(&mcp, send_op(&mcp, "call", "tool", "maintain_sessions", "json", "{\"action\":\"guide\"}",
					 "run", "ext-2", (char *)NULL),
			   text, sizeof text));
	list = cards(&desk);
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
	close_run(&mcp, "ext-2");
	hb_client_close(&mcp);
	hb_client_close(&desk);
}

static void test_held_call_ends(void **state)
{
	struct hb_client mcp, desk;
	char card[32], key[32], text[4096];
	struct hb_env reply;
	int64_t id;
	json_t *list;

	(void)state;
	assert_int_equal(fx_client(&F, &mcp, 15000), 0);
	assert_int_equal(fx_client(&F, &desk, 15000), 0);
	open_external(&mcp, "ext-3", claude_session, "full-auto");
	/* Cancelled by its key: answered, its card withdrawn. */
	id = send_rename(&mcp, "ext-3", "mcp-5", "Cancelled");
	wait_card(&desk, "mcp-5", card, key);
	reply_to(&desk, send_op(&desk, "cancel", "key", key, (char *)NULL), &reply);
	assert_true(hb_env_bool(&reply, "ok", 0));
	hb_env_free(&reply);
	assert_false(answer(&mcp, id, text, sizeof text));
	assert_string_equal(text, "Run stopped.");
	list = cards(&desk);
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
	/* Ended with its run. */
	id = send_rename(&mcp, "ext-3", "mcp-6", "Closed");
	wait_card(&desk, "mcp-6", card, key);
	reply_to(&desk, send_op(&desk, "run.close", "run", "ext-3", (char *)NULL), &reply);
	hb_env_free(&reply);
	assert_false(answer(&mcp, id, text, sizeof text));
	assert_string_equal(text, "Run stopped.");
	list = cards(&desk);
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
	/* Unrestricted asks nothing, as Claude's bypassPermissions. */
	open_external(&mcp, "ext-4", claude_session, "unrestricted");
	assert_true(answer(&mcp, send_rename(&mcp, "ext-4", "mcp-7", "Unrestricted"), text, sizeof text));
	assert_non_null(strstr(text, "Unrestricted"));
	close_run(&mcp, "ext-4");
	hb_client_close(&mcp);
	hb_client_close(&desk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_context_and_events),
		cmocka_unit_test(test_card_approve_decline),
		cmocka_unit_test(test_held_call_ends),
	};

	return ck_run_group_tests(tests, frontends_setup, frontends_teardown);
}
