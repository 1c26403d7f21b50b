/*
 * itest_messages_delivery - send_session_message after the broker handed
 * a message to the bridge, through the real hb-broker, svc-sessions and
 * svc-messages (messages_rig.h): a SIGKILL of svc-messages then (asked
 * again, marked sent once), a handed message not held again, an
 * `unconfirmed` outcome (held for the user, never asked again without
 * them, carried in again after hbctl messages send), and the order of a
 * row's events when the outbox runs while the handler still answers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include "../harness/group.h"
#include "../harness/harness.h"
#include "client.h"
#include "envelope.h"
#include "paths.h"
#include "sock.h"
#include "messages_rig.h"

/* SIGKILL of svc-messages right after the broker handed the message to
 * the bridge: the new svc-messages asks again (same operation id), the
 * bridge answers the repeat, and the message is sent once. */
static void test_killed_after_accept_asks_again(void **state)
{
	struct hb_client br;
	struct hb_env d;
	char op[48], fp[400];
	long long gen = fx_service_num(&F, "svc-messages", "generation");
	int fd, sent = 0;
	json_t *ev;

	(void)state;
	expect_receipt("k1", G, "survive", "queued", op);
	snprintf(fp, sizeof fp, "%s/messages.after-accept", failpoints);
	assert_true((fd = open(fp, O_CREAT | O_WRONLY, 0600)) >= 0);
	close(fd);
	bridge_attach(&br, G, "codex");
	next_delivery(&br, &d);
	/* h3 (queued earlier for G) may come first; find ours */
	while (strcmp(hb_env_str_or(&d, "opId", ""), op) != 0) {
		bridge_done(&br, hb_env_str_or(&d, "opId", ""), "t");
		hb_env_free(&d);
		next_delivery(&br, &d);
	}
	hb_env_free(&d);
	assert_int_equal(fx_wait_up(&F, "svc-messages", gen + 1, 15000), 0);
	assert_int_equal(access(fp, F_OK), -1); /* the failpoint fired */
	/* asked again by the new incarnation */
	next_delivery(&br, &d);
	while (strcmp(hb_env_str_or(&d, "opId", ""), op) != 0) {
		hb_env_free(&d);
		next_delivery(&br, &d);
	}
	hb_env_free(&d);
	bridge_done(&br, op, "turn-k");
	bridge_done(&br, op, "turn-k"); /* a bridge's repeat answer changes nothing */
	while (!sent) {
		ev = event_for("timeline.message", "k1");
		sent = json_object_get(ev, "link") != NULL;
		json_decref(ev);
	}
	{
		json_t *q = queue_of(G);
		assert_null(status_in_queue(q, op));
		json_decref(q);
	}
	hb_client_close(&br);
}

/* A bridge took a message but its outcome was lost; meanwhile the
 * recipient's turn got more access.  Asked again, the message is not held:
 * it passed the rules when the bridge took it, and may be in the agent. */
static void test_handed_message_is_not_held_again(void **state)
{
	struct hb_client br;
	struct hb_env d, r;
	char op[48];
	json_t *ev;
	int sent = 0;

	(void)state;
	bridge_attach(&br, H, "codex");
	expect_receipt("t1", H, "taken once", "queued", op);
	next_delivery(&br, &d);
	assert_string_equal(hb_env_str_or(&d, "opId", ""), op);
	hb_env_free(&d);
	/* no outcome; H's turn is now unrestricted, above the sender's */
	open_run("run-h", H, "/tmp/pa", "unrestricted");
	next_delivery(&br, &d); /* asked again, not held */
	assert_string_equal(hb_env_str_or(&d, "opId", ""), op);
	hb_env_free(&d);
	bridge_done(&br, op, "turn-t");
	while (!sent) {
		ev = event_for("timeline.message", "t1");
		sent = json_object_get(ev, "link") != NULL;
		json_decref(ev);
	}
	op_ok(&desk, &r, checked(fx_send_op(&desk, "run.close", "run", "run-h", (char *)NULL)));
	hb_env_free(&r);
	hb_client_close(&br);
}

/* Page 003: a message that no transcript read finds is never sent again
 * automatically.  The bridge reports it unconfirmed: svc-messages holds
 * it with a reason for the user (not asked for again: the bridge gets
 * nothing more), and the user's send hands it once more, as handed (the
 * bridge looks in the transcript first). */
static void test_unconfirmed_waits_for_the_user(void **state)
{
	struct hb_client br;
	struct hb_env d, r;
	char op[48], err[256];
	const char *reason;
	json_t *q, *ev, *m;
	size_t i;

	(void)state;
	bridge_attach(&br, K, "claude");
	expect_receipt("u1", K, "maybe lost", "queued", op);
	next_delivery(&br, &d);
	assert_string_equal(hb_env_str_or(&d, "opId", ""), op);
	assert_false(hb_env_bool(&d, "handed", 1));
	hb_env_free(&d);
	bridge_unconfirmed(&br, op, "the agent host ended before a read of the transcript");
	ev = event_for("timeline.message", "u1"); /* the receipt's row */
	while (strcmp(json_string_value(json_object_get(ev, "signal")), "Needs approval") != 0) {
		json_decref(ev);
		ev = event_for("timeline.message", "u1");
	}
	assert_non_null(strstr(json_string_value(json_object_get(ev, "reason")), "it may not have reached Claude"));
	assert_null(json_object_get(ev, "link"));
	json_decref(ev);
	q = queue_of(K);
	assert_string_equal(status_in_queue(q, op), "waiting-for-approval");
	json_array_foreach(json_object_get(q, "messages"), i, m)
		if (strcmp(json_string_value(json_object_get(m, "id")), op) == 0) {
			reason = json_string_value(json_object_get(m, "holdReason"));
			assert_non_null(strstr(reason, "no transcript read found it afterwards (the agent host ended"));
			assert_non_null(strstr(reason, "Send it again with hbctl messages send session-message-"));
		}
	json_decref(q);
	/* never asked for again on its own (the recheck is 5 s) */
	assert_int_equal(hb_client_recv(&br, &d, 7000, err, sizeof err), -1);
	/* the user sends it: handed to the bridge once more, as handed */
	op_ok(&desk, &r, checked(fx_send_op(&desk, "messages.send", "message", op, (char *)NULL)));
	hb_env_free(&r);
	next_delivery(&br, &d);
	assert_string_equal(hb_env_str_or(&d, "opId", ""), op);
	assert_true(hb_env_bool(&d, "handed", 0));
	hb_env_free(&d);
	bridge_done(&br, op, "5d0c0000-0000-8000-8000-000000000000");
	ev = event_for("timeline.message", "u1");
	while (strcmp(json_string_value(json_object_get(ev, "signal")), "Sent") != 0 || !json_object_get(ev, "link")) {
		json_decref(ev);
		ev = event_for("timeline.message", "u1");
	}
	json_decref(ev);
	q = queue_of(K);
	assert_null(status_in_queue(q, op));
	json_decref(q);
	hb_client_close(&br);
}

/* A holdpoint of svc-messages (hb_holdpoint): set, reached, let go. */
struct hold {
	char hold[400], reached[400];
};

static void hold_set(struct hold *h, const char *name)
{
	int fd;

	snprintf(h->hold, sizeof h->hold, "%s/%s.hold", failpoints, name);
	snprintf(h->reached, sizeof h->reached, "%s/%s.reached", failpoints, name);
	assert_true((fd = open(h->hold, O_CREAT | O_WRONLY, 0600)) >= 0);
	close(fd);
}

static void hold_wait(const struct hold *h)
{
	long long end = fx_now_ms() + 15000;

	while (access(h->reached, F_OK) < 0 && fx_now_ms() < end)
		fx_sleep_ms(20);
}

static void hold_release(const struct hold *h)
{
	unlink(h->hold);
}

static void hold_clear(const struct hold *h)
{
	unlink(h->hold);
	unlink(h->reached);
}

/* Fails if a timeline.message of row comes within ms: for a row the
 * broker published before an answer the test already has. */
static void no_more_rows(const char *row, int ms)
{
	long long end = fx_now_ms() + ms;

	while (fx_now_ms() < end) {
		char t[64];
		json_t *body = next_event(t, 50);

		if (is_row(t, body, "timeline.message", row))
			fail_msg("a later row for %s: %s", row, json_string_value(json_object_get(body, "signal")));
		json_decref(body);
	}
}

/* The next timeline.message signal of row, and whether it links. */
static void next_row(const char *row, char signal[32], int *linked)
{
	json_t *ev = event_for("timeline.message", row);

	snprintf(signal, 32, "%s", json_string_value(json_object_get(ev, "signal")));
	*linked = json_object_get(ev, "link") != NULL;
	json_decref(ev);
}

/* The receipt's row goes out before the outbox may deliver the message:
 * a desktop keeps the last row it gets, so the row of a message held at
 * delivery must not be overtaken by the receipt's "Sent".  The handler is
 * held after it woke the outbox, where a loaded machine may preempt it. */
static void test_receipt_row_comes_before_delivery_row(void **state)
{
	json_t *args = json_pack("{s:s, s:s}", "recipientSessionId", M, "message", "in order");
	char *json = json_dumps(args, JSON_COMPACT), first[32], second[32];
	struct hold h;
	struct hb_env r;
	int64_t id;
	int linked;

	(void)state;
	json_decref(args);
	open_run("run-m", M, "/tmp/pa", "unrestricted");
	hold_set(&h, "messages.before-receipt");
	id = checked(fx_send_op(&desk, "call", "tool", "send_session_message", "json", json, "run", "run-a",
				"call_id", "m1", (char *)NULL));
	free(json);
	hold_wait(&h);
	/* While the handler waits, the outbox holds the message at delivery
	 * (the recipient's turn is unrestricted). */
	next_row("m1", first, &linked);
	next_row("m1", second, &linked);
	hold_release(&h);
	reply_to(&desk, id, &r);
	hold_clear(&h);
	assert_true(hb_env_bool(&r, "ok", 0));
	assert_non_null(strstr(hb_env_str_or(&r, "text", ""), "queued:"));
	hb_env_free(&r);
	assert_string_equal(first, "Sent");            /* the receipt's row */
	assert_string_equal(second, "Needs approval"); /* then the outbox's */
	op_ok(&desk, &r, checked(fx_send_op(&desk, "run.close", "run", "run-m", (char *)NULL)));
	hb_env_free(&r);
}

/* The same for the user's send of a held message: its "Sent" goes out
 * before the outbox may deliver it and publish "Sent" with the link to
 * the user row, which must be the last row the desktop gets. */
static void test_user_send_row_comes_before_delivered_row(void **state)
{
	char signal[32], op[48];
	struct hb_client br;
	struct hold h;
	struct hb_env d, r;
	int64_t id;
	int linked;

	(void)state;
	open_run("run-n", N, "/tmp/pa", "unrestricted");
	expect_receipt("n1", N, "sent by the user", "queued", op);
	next_row("n1", signal, &linked);
	assert_string_equal(signal, "Sent"); /* the receipt's */
	next_row("n1", signal, &linked);
	assert_string_equal(signal, "Needs approval");
	bridge_attach(&br, N, "codex");
	hold_set(&h, "messages.before-send-answer");
	id = checked(fx_send_op(&desk, "messages.send", "message", op, (char *)NULL));
	hold_wait(&h);
	/* While the handler waits, the outbox delivers it. */
	next_delivery(&br, &d);
	assert_string_equal(hb_env_str_or(&d, "opId", ""), op);
	hb_env_free(&d);
	bridge_done(&br, op, "turn-n");
	do
		next_row("n1", signal, &linked);
	while (!linked);
	hold_release(&h);
	op_ok(&desk, &r, id);
	hb_env_free(&r);
	hold_clear(&h);
	assert_string_equal(signal, "Sent");
	/* Nothing comes after it: the handler's own row went out before. */
	no_more_rows("n1", 1000);
	op_ok(&desk, &r, checked(fx_send_op(&desk, "run.close", "run", "run-n", (char *)NULL)));
	hb_env_free(&r);
	hb_client_close(&br);
}

/* session.detach with outcomesWithinMs: the bridge closes but still owes
 * an outcome. */
static void bridge_closing(struct hb_client *br, const char *session, int64_t within_ms)
{
	struct hb_env req, r;
	char err[256];
	int64_t id;

	hb_env_init(&req);
	hb_env_set_str(&req, "op", "session.detach");
	hb_env_set_str(&req, "session", session);
	hb_env_set_int(&req, "outcomesWithinMs", within_ms);
	if (hb_client_send(br, &req, &id, err, sizeof err) < 0)
		fail_msg("session.detach: %s", err);
	op_ok(br, &r, id);
	hb_env_free(&r);
}

/* The lastError of op in the queue of session, copied into out ("" when
 * it has none). */
static void last_error_of(const char *session, const char *op, char *out, size_t len)
{
	json_t *q = queue_of(session), *m;
	size_t i;

	*out = '\0';
	json_array_foreach(json_object_get(q, "messages"), i, m)
		if (strcmp(json_string_value(json_object_get(m, "id")), op) == 0 &&
		    json_is_string(json_object_get(m, "lastError")))
			snprintf(out, len, "%s", json_string_value(json_object_get(m, "lastError")));
	json_decref(q);
}

/* A Claude bridge that closes while a message waits for its last
 * transcript read (it blocks up to its limits, attaching no more): the
 * broker starts no other bridge for the session meanwhile, which would
 * carry the same message into the same conversation, and says why the
 * message waits; the closing bridge's outcome still counts after it
 * stopped attaching, and the message is held for the user. */
static void test_closing_bridge_keeps_its_session(void **state)
{
	struct hb_client br;
	struct hb_env d;
	char op[48], why[512] = "";
	long long end;
	json_t *ev, *q;

	(void)state;
	bridge_attach(&br, B, "claude");
	expect_receipt("c1", B, "while its bridge closes", "queued", op);
	next_delivery(&br, &d);
	assert_string_equal(hb_env_str_or(&d, "opId", ""), op);
	hb_env_free(&d);
	bridge_closing(&br, B, 60000);
	/* svc-messages asks for the outcome again 5 s after the bridge took
	 * it; B has no other bridge and no conversation, so without the
	 * closing one the broker would start an agent for it */
	end = fx_now_ms() + 15000;
	while (!strstr(why, "closing") && fx_now_ms() < end) {
		fx_sleep_ms(200);
		last_error_of(B, op, why, sizeof why);
	}
	assert_string_equal(why, "its Claude bridge is closing; the message goes once it has ended");
	bridge_unconfirmed(&br, op, "the final read, by a new agent host, did not find it");
	/* the outcome is written before the timeline row goes out */
	ev = event_for("timeline.message", "c1");
	while (strcmp(json_string_value(json_object_get(ev, "signal")), "Needs approval") != 0) {
		json_decref(ev);
		ev = event_for("timeline.message", "c1");
	}
	json_decref(ev);
	q = queue_of(B);
	assert_string_equal(status_in_queue(q, op), "waiting-for-approval");
	json_decref(q);
	hb_client_close(&br);
}

/* A closing bridge is taken at its word: once the time it named has
 * passed, its outcome is refused (it may be hung), and the message goes
 * to the session's next bridge as one an earlier bridge took. */
static void test_closing_ends_when_its_time_is_up(void **state)
{
	struct hb_client br, next;
	struct hb_env d, r;
	char op[48];

	(void)state;
	bridge_attach(&br, M, "codex");
	expect_receipt("c2", M, "closing too long", "queued", op);
	next_delivery(&br, &d);
	assert_string_equal(hb_env_str_or(&d, "opId", ""), op);
	hb_env_free(&d);
	bridge_closing(&br, M, 300);
	fx_sleep_ms(1000);
	reply_to(&br, bridge_report_send(&br, op, 1, NULL, "turn-late", NULL), &r);
	assert_false(hb_env_bool(&r, "ok", 1));
	assert_string_equal(hb_env_str_or(&r, "err.code", ""), "bad-request");
	assert_non_null(strstr(hb_env_str_or(&r, "err.msg", ""), "from an attached bridge"));
	hb_env_free(&r);
	bridge_attach(&next, M, "codex");
	next_delivery(&next, &d);
	assert_string_equal(hb_env_str_or(&d, "opId", ""), op);
	assert_true(hb_env_bool(&d, "handed", 0));
	hb_env_free(&d);
	bridge_done(&next, op, "turn-c2");
	hb_client_close(&next);
	hb_client_close(&br);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_killed_after_accept_asks_again),
		cmocka_unit_test(test_handed_message_is_not_held_again),
		cmocka_unit_test(test_unconfirmed_waits_for_the_user),
		cmocka_unit_test(test_receipt_row_comes_before_delivery_row),
		cmocka_unit_test(test_user_send_row_comes_before_delivered_row),
		cmocka_unit_test(test_closing_bridge_keeps_its_session),
		cmocka_unit_test(test_closing_ends_when_its_time_is_up),
	};
	return ck_run_group_tests(tests, messages_setup, messages_teardown);
}
