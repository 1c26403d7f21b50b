/*
 * itest_alerts_approvals - approval cards answered from the phone: the
 * real hb-broker, svc-sessions and svc-alerts, and the tests' fake relay
 * playing the phone (alerts_rig.h).  The test plays a Claude run whose
 * host asks before a Bash call and an Edit (claude.permission), as
 * agent-host/run.mjs sends it, and a Codex run whose server asks before a
 * command (codex.approval), as hb-codex-bridge --once sends it.  What
 * each shows:
 *  - a card is shown to the phone (approval-requested: kind, command
 *    line, folder, the subagent that asks, the reason); the phone's
 *    approval-resolve reaches the run as the decision its host gets, and
 *    the relay hears approval-result ok;
 *  - an answer for a card nobody has is refused with the broker's
 *    sentence (approval-result ok false), and the open card it came
 *    before stays open until its own answer;
 *  - a Codex run's command approval is shown and answered the same way,
 *    and its bridge gets the decision for the server's request id;
 *  - a card opened while the phone does not answer waits (hbctl
 *    approvals), is shown again on the next link, and that phone's
 *    answer settles it;
 *  - svc-alerts started again while a card is open: the broker tells the
 *    new one of the card, which the phone then answers.
 * Waits are bounded patience (PATIENCE_MS), never a measure of speed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/checks.h"
#include "../harness/harness.h"
#include "alerts_rig.h"

#define BASH_CARD                                                                                              \
	"{\"requestId\":\"perm-1\",\"tool\":\"Bash\",\"input\":{\"command\":\"rm -rf build\"},\"toolUseId\":"  \
	"\"tu-1\",\"agentId\":\"ag-3\",\"subagent\":{\"type\":\"general-purpose\",\"description\":\"Clean the " \
	"tree\"},\"cwd\":\"/work/proj\",\"decisionReason\":\"rm is not allowed\"}"
#define EDIT_CARD                                                                                              \
	"{\"requestId\":\"perm-2\",\"tool\":\"Edit\",\"input\":{\"file_path\":\"/work/proj/a.c\",\"old_string\":" \
	"\"a\",\"new_string\":\"b\"},\"toolUseId\":\"tu-2\"}"

/* Close run on c, and c. */
static void reply_close(struct hb_client *c, const char *run)
{
	struct hb_env reply;
	char why[256];
	int64_t id = fx_send_op(c, "run.close", "run", run, (char *)NULL), got = -1;

	while (id >= 0 && got != id && hb_client_recv(c, &reply, PATIENCE_MS, why, sizeof why) == 0) {
		hb_env_int(&reply, "id", &got);
		hb_env_free(&reply);
	}
	hb_client_close(c);
}

/* The only record of kind from index from on with field key = value. */
static json_t *record_where(size_t from, const char *kind, const char *key, const char *value)
{
	json_t *all = records(), *r, *found = NULL;
	size_t i;

	json_array_foreach(all, i, r) {
		if (i >= from && strcmp(fx_jstr(r, "kind"), kind) == 0 && strcmp(fx_jstr(r, key), value) == 0) {
			if (found)
				fail_msg("two %s records with %s %s", kind, key, value);
			found = json_incref(r);
		}
	}
	json_decref(all);
	if (!found)
		fail_msg("no %s record with %s %s", kind, key, value);
	return found;
}

/* A command card as the phone saw it: the command line, in /work/proj,
 * with the agent's reason, of run in session sess. */
static void expect_command_card(const json_t *card, const char *command, const char *reason, const char *run,
				const char *sess)
{
	assert_string_equal(fx_jstr(card, "cardKind"), "command");
	assert_string_equal(fx_jstr(card, "text"), command);
	assert_string_equal(fx_jstr(card, "cwd"), "/work/proj");
	assert_string_equal(fx_jstr(card, "reason"), reason);
	assert_string_equal(fx_jstr(card, "runId"), run);
	assert_string_equal(fx_jstr(card, "sessionId"), sess);
}

static int open_cards(void)
{
	json_t *st = fx_status(&F);
	int n = (int)json_array_size(json_object_get(st, "approvals"));

	json_decref(st);
	return n;
}

static void test_phone_answers(void **state)
{
	json_t *d, *card, *res;
	int64_t p;
	size_t m;
	char id[80];

	(void)state;
	link_ready();
	relay_phone("deny", 1);
	m = mark();
	p = claude_permission(BASH_CARD);
	d = claude_answer(p);
	assert_string_equal(fx_jstr(d, "requestId"), "perm-1");
	assert_string_equal(fx_jstr(d, "decision"), "deny");
	assert_string_equal(fx_jstr(d, "message"), "The user declined this tool call from the phone.");
	json_decref(d);

	/* What the phone was shown. */
	card = record_where(m, "approval", "tool", "Bash");
	expect_command_card(card, "rm -rf build", "rm is not allowed", RUN, session);
	assert_string_equal(fx_jstr(card, "subagent"), "Clean the tree");
	/* The unknown card's answer was refused with the broker's sentence;
	 * the real one came after it and took. */
	wait_kind("result", m, 2);
	snprintf(id, sizeof id, "unknown-%s", fx_jstr(card, "approvalId"));
	res = record_where(m, "result", "id", id);
	assert_false(json_is_true(json_object_get(res, "ok")));
	{
		char want[300];
		snprintf(want, sizeof want, "Run %s has no open approval nosuch-%s: it was answered already, or never "
			 "asked. Nothing was changed.", RUN, fx_jstr(card, "approvalId"));
		assert_string_equal(fx_jstr(res, "message"), want);
	}
	json_decref(res);
	snprintf(id, sizeof id, "answer-%s", fx_jstr(card, "approvalId"));
	res = record_where(m, "result", "id", id);
	assert_true(json_is_true(json_object_get(res, "ok")));
	assert_string_equal(fx_jstr(res, "message"), "");
	json_decref(res);
	json_decref(card);
	assert_int_equal(open_cards(), 0);
}

static void test_codex_run(void **state)
{
	const char *list[] = { "approvals", NULL };
	char codex_session[64], *out;
	struct hb_client bridge;
	json_t *card, *res;
	struct hb_env reply;
	int64_t p;
	size_t m;
	char id[80];

	(void)state;
	link_ready();
	relay_phone(NULL, 0);
	assert_int_equal(fx_create_session(&F, "Codex side", "codex", "/tmp", "full-auto", codex_session,
					   sizeof codex_session), 0);
	assert_int_equal(fx_client(&F, &bridge, 20000), 0);
	assert_int_equal(fx_open_run(&bridge, "run-codex-1", codex_session, "/tmp", "codex", "full-auto"), 0);
	m = mark();
	p = fx_send_op(&bridge, "codex.approval", "json",
		       "{\"id\":7,\"method\":\"item/commandExecution/requestApproval\",\"params\":{\"threadId\":"
		       "\"th-1\",\"turnId\":\"tu-1\",\"itemId\":\"it-1\",\"startedAtMs\":1,\"command\":\"make "
		       "install\",\"cwd\":\"/work/proj\",\"reason\":\"writes outside the workspace\"}}",
		       (char *)NULL);
	assert_true(p >= 0);
	wait_kind("approval", m, 1);
	card = record_where(m, "approval", "tool", "commandExecution");
	expect_command_card(card, "make install", "writes outside the workspace", "run-codex-1", codex_session);
	assert_int_equal(fx_hbctl(&F, &out, list), 0);
	assert_non_null(strstr(out, "  command  make install  (in /work/proj)  run run-codex-1  session "));
	free(out);

	m = mark();
	relay_phone("allow", 0);
	for (;;) {
		char why[256];
		int64_t got = -1;
		if (hb_client_recv(&bridge, &reply, PATIENCE_MS, why, sizeof why) < 0)
			fail_msg("no answer to codex.approval: %s", why);
		hb_env_int(&reply, "id", &got);
		if (got == p)
			break;
		hb_env_free(&reply);
	}
	assert_true(hb_env_bool(&reply, "ok", 0));
	assert_string_equal(hb_env_str_or(&reply, "json", ""), "{\"requestId\":7,\"decision\":\"allow\"}");
	hb_env_free(&reply);
	snprintf(id, sizeof id, "answer-%s", fx_jstr(card, "approvalId"));
	wait_kind("result", m, 1);
	res = record_where(m, "result", "id", id);
	assert_true(json_is_true(json_object_get(res, "ok")));
	json_decref(res);
	json_decref(card);
	assert_int_equal(open_cards(), 0);
	reply_close(&bridge, "run-codex-1");
}

static void test_card_waits_for_the_next_phone(void **state)
{
	const char *list[] = { "approvals", NULL };
	json_t *d, *card;
	int64_t p;
	size_t m;
	char *out;

	(void)state;
	link_ready();
	relay_phone(NULL, 0); /* a phone that does not answer */
	m = mark();
	p = claude_permission(EDIT_CARD);
	wait_kind("approval", m, 1);
	card = record_where(m, "approval", "tool", "Edit");
	assert_string_equal(fx_jstr(card, "cardKind"), "file");
	assert_string_equal(fx_jstr(card, "text"), "/work/proj/a.c");
	assert_string_equal(fx_jstr(card, "subagent"), "");
	json_decref(card);
	pause_ms(300);
	assert_int_equal(count_kind("result", m), 0);
	assert_int_equal(open_cards(), 1);
	assert_int_equal(fx_hbctl(&F, &out, list), 0);
	assert_non_null(strstr(out, "file edit  Edit /work/proj/a.c  run " RUN));
	free(out);

	/* The next link shows the open card again; that phone allows it. */
	m = mark();
	relay_phone("allow", 0);
	d = claude_answer(p);
	assert_string_equal(fx_jstr(d, "requestId"), "perm-2");
	assert_string_equal(fx_jstr(d, "decision"), "allow");
	assert_null(json_object_get(d, "message"));
	json_decref(d);
	assert_int_equal(count_kind("approval", m), 1);
	wait_kind("result", m, 1);
	assert_int_equal(open_cards(), 0);
}

static void test_card_outlives_a_restart(void **state)
{
	const char *restart[] = { "restart", "svc-alerts", NULL };
	json_t *d;
	int64_t p;
	size_t m;
	char *out;

	(void)state;
	link_ready();
	relay_phone(NULL, 0);
	m = mark();
	p = claude_permission("{\"requestId\":\"perm-4\",\"tool\":\"Write\",\"input\":{\"file_path\":\"/work/proj/"
			      "new.c\",\"content\":\"x\"},\"toolUseId\":\"tu-4\"}");
	wait_kind("approval", m, 1);
	m = mark();
	assert_int_equal(fx_hbctl(&F, &out, restart), 0);
	free(out);
	/* The new svc-alerts shows the open card on its own link (it asks for
	 * the open cards on each new link), after the restart has answered:
	 * counted from here, that showing would be the next phone's too. */
	wait_kind("approval", m, 1);
	m = mark();
	relay_phone("deny", 0);
	d = claude_answer(p);
	assert_string_equal(fx_jstr(d, "requestId"), "perm-4");
	assert_string_equal(fx_jstr(d, "decision"), "deny");
	json_decref(d);
	assert_int_equal(count_kind("approval", m), 1);
	assert_int_equal(open_cards(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phone_answers),
		cmocka_unit_test(test_codex_run),
		cmocka_unit_test(test_card_waits_for_the_next_phone),
		cmocka_unit_test(test_card_outlives_a_restart),
	};

	return ck_run_group_tests(tests, alerts_setup, alerts_teardown);
}
