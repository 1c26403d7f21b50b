/*
 * itest_messages - send_session_message through the real hb-broker,
 * svc-sessions and svc-messages, with appdata.db in a temporary HB_HOME
 * (messages_rig.h; the real bridges with the real agents are
 * tests/e2e/messages-*.sh).  Covers the refusals, the receipts, one row
 * per call, the hold rules at arrival and again at delivery (with the
 * access of the recipient's running turn), the envelope byte for byte,
 * the user's send and discard, the timeline events of both ends.
 * (What happens after the broker handed a message on:
 * itest_messages_delivery.c.)
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

/* ---- tests ----------------------------------------------------------------- */

static void test_refused_before_anything_is_queued(void **state)
{
	char *text = NULL;
	int ok = 1;
	json_t *before, *after;

	(void)state;
	before = queue_of("");
	expect_refused("r1", B, "", "The message is empty");
	expect_refused("r2", B, " \n\t", "The message is empty");
	expect_refused("r3", A, "hi", "cannot send a message to itself");
	expect_refused("r4", "s-0000000000000000", "hi", "There is no session \"s-0000000000000000\"");
	/* not through its run: no active run */
	assert_int_equal(fx_call(&F, "send_session_message", "{\"recipientSessionId\":\"s-x\",\"message\":\"hi\"}", &ok,
				 &text),
			 0);
	assert_false(ok);
	assert_non_null(strstr(text, "has no active run"));
	free(text);
	/* unknown fields are refused, sessionId too */
	{
		struct hb_env r;
		reply_to(&desk,
			 checked(fx_send_op(&desk, "call", "tool", "send_session_message", "json",
					    "{\"recipientSessionId\":\"x\",\"message\":\"m\",\"sessionId\":\"y\"}", "run", "run-a",
					    "call_id", "r5", (char *)NULL)),
			 &r);
		assert_false(hb_env_bool(&r, "ok", 1));
		assert_non_null(strstr(hb_env_str_or(&r, "text", ""), "unknown field \"sessionId\""));
		hb_env_free(&r);
		/* a run that is not open binds nothing */
		reply_to(&desk,
			 checked(fx_send_op(&desk, "call", "tool", "send_session_message", "json",
					    "{\"recipientSessionId\":\"x\",\"message\":\"m\"}", "run", "run-none", "call_id", "r6",
					    (char *)NULL)),
			 &r);
		assert_false(hb_env_bool(&r, "ok", 1));
		assert_non_null(strstr(hb_env_str_or(&r, "err.msg", ""), "\"run-none\" is not an open run"));
		hb_env_free(&r);
	}
	/* a client request id may not be a session message's operation id */
	{
		char ep[HB_PATH_MAX + 8], err[256];
		struct hb_paths p;
		struct hb_env req, r;
		void *raw = hb_sock_dealer(zctx, NULL, 0, 5000);
		assert_int_equal(hb_paths_resolve(&p, err, sizeof err), 0);
		assert_int_equal(hb_ipc_endpoint(ep, sizeof ep, &p, "front.sock"), 0);
		assert_int_equal(zmq_connect(raw, ep), 0);
		hb_env_init(&req);
		hb_env_set_str(&req, "op", "hello");
		hb_env_set_str(&req, "id", "session-message-9");
		zmq_pollitem_t it = { raw, 0, ZMQ_POLLIN, 0 };
		int got;
		assert_int_equal(hb_send_env(raw, NULL, &req), 0);
		got = zmq_poll(&it, 1, 15000) == 1 && hb_recv_env(raw, &r, err, sizeof err) == 1;
		zmq_close(raw);
		assert_true(got);
		assert_false(hb_env_bool(&r, "ok", 1));
		assert_non_null(strstr(hb_env_str_or(&r, "err.msg", ""), "are reserved"));
		hb_env_free(&r);
	}
	after = queue_of("");
	assert_int_equal(json_array_size(json_object_get(after, "messages")),
			 json_array_size(json_object_get(before, "messages")));
	json_decref(before);
	json_decref(after);
}

static void test_receipts_and_one_row_per_call(void **state)
{
	char op[48], op2[48], op3[48];
	json_t *q, *ev;

	(void)state;
	expect_receipt("q1", B, "read this", "queued", op);
	ev = event_for("timeline.message", "q1");
	assert_string_equal(json_string_value(json_object_get(ev, "session")), A);
	assert_string_equal(json_string_value(json_object_get(ev, "title")), "Message to Be \"ta\" & <co>");
	assert_string_equal(json_string_value(json_object_get(ev, "signal")), "Sent");
	assert_null(json_object_get(ev, "link")); /* not delivered yet */
	json_decref(ev);
	/* the same call again: already-sent, and still one message */
	expect_receipt("q1", B, "read this", "already-sent", op2);
	assert_string_equal(op, op2);
	/* the same call id naming a second recipient */
	expect_refused("q1", E, "read this", "one call cannot name a second recipient");
	q = queue_of(B);
	assert_string_equal(status_in_queue(q, op), "queued");
	assert_int_equal(json_array_size(json_object_get(q, "messages")), 1);
	json_decref(q);
	/* hold: more access (D unrestricted > full auto), another project (C) */
	expect_receipt("h1", D, "more access", "waiting-for-approval", op2);
	expect_receipt("h2", C, "other project", "waiting-for-approval", op3);
	ev = event_for("timeline.message", "h2");
	assert_string_equal(json_string_value(json_object_get(ev, "signal")), "Needs approval");
	assert_non_null(strstr(json_string_value(json_object_get(ev, "reason")), "another project (/tmp/pb)"));
	json_decref(ev);
	/* a read-only recipient in another project may be written to */
	expect_receipt("h3", G, "read-only there", "queued", NULL);
	q = queue_of("");
	assert_string_equal(status_in_queue(q, op2), "waiting-for-approval");
	assert_string_equal(status_in_queue(q, op3), "waiting-for-approval");
	json_decref(q);
}

static void test_delivery_envelope_and_links(void **state)
{
	struct hb_client br;
	struct hb_env d;
	char op[48], expect[1024];
	json_t *q, *ev;

	(void)state;
	expect_receipt("d1", B, "Please check <this> & \"that\".", "queued", op);
	bridge_attach(&br, B, "claude");
	/* the earlier queued message to B comes first: the outbox is in order */
	for (;;) {
		next_delivery(&br, &d);
		if (strcmp(hb_env_str_or(&d, "opId", ""), op) == 0)
			break;
		bridge_done(&br, hb_env_str_or(&d, "opId", ""), "earlier");
		hb_env_free(&d);
	}
	snprintf(expect, sizeof expect,
		 FIRST_LINE "\n<session_message from_session_id=\"%s\" from_title=\"Alpha\" from_agent=\"codex\">\n"
			    "Please check <this> & \"that\".\n</session_message>",
		 A);
	assert_string_equal(hb_env_str_or(&d, "text", ""), expect);
	assert_string_equal(hb_env_str_or(&d, "session", ""), B);
	assert_string_equal(hb_env_str_or(&d, "access", ""), "read-only");
	hb_env_free(&d);
	bridge_done(&br, op, "turn-9");
	ev = event_for("timeline.user", op);
	assert_string_equal(json_string_value(json_object_get(ev, "session")), B);
	assert_string_equal(json_string_value(json_object_get(ev, "text")), expect);
	assert_string_equal(json_string_value(json_object_get(json_object_get(ev, "link"), "session")), A);
	assert_string_equal(json_string_value(json_object_get(json_object_get(ev, "link"), "row")), "d1");
	json_decref(ev);
	ev = event_for("timeline.message", "d1");
	assert_string_equal(json_string_value(json_object_get(ev, "signal")), "Sent");
	assert_string_equal(json_string_value(json_object_get(json_object_get(ev, "link"), "session")), B);
	assert_string_equal(json_string_value(json_object_get(json_object_get(ev, "link"), "row")), op);
	json_decref(ev);
	q = queue_of(B);
	assert_null(status_in_queue(q, op));
	json_decref(q);
	/* a repeat of that call now: already-sent, status sent */
	{
		char *text = NULL;
		assert_true(send_msg("d1", B, "again", &text));
		assert_non_null(strstr(text, "already-sent"));
		assert_non_null(strstr(text, "(now sent)"));
		free(text);
	}
	/* deliver.done from a connection that attached nothing is refused */
	{
		struct hb_env req, r;
		char err[256];
		int64_t id;
		hb_env_init(&req);
		hb_env_set_str(&req, "op", "deliver.done");
		hb_env_set_str(&req, "opId", op);
		hb_env_set_bool(&req, "ok", 1);
		if (hb_client_send(&desk, &req, &id, err, sizeof err) < 0)
			fail_msg("deliver.done: %s", err);
		reply_to(&desk, id, &r);
		assert_false(hb_env_bool(&r, "ok", 1));
		assert_string_equal(hb_env_str_or(&r, "err.code", ""), "bad-request");
		hb_env_free(&r);
	}
	hb_client_close(&br);
}

/* The rules again at delivery: E was full auto when the message arrived;
 * its running turn is unrestricted when the bridge is there. */
static void test_hold_again_at_delivery_then_user_sends(void **state)
{
	struct hb_client br;
	struct hb_env d, r;
	char op[48];
	json_t *q, *ev;

	(void)state;
	open_run("run-e", E, "/tmp/pa", "unrestricted");
	expect_receipt("e1", E, "for epsilon", "queued", op);
	bridge_attach(&br, E, "codex");
	ev = event_for("timeline.message", "e1"); /* the receipt's row */
	json_decref(ev);
	ev = event_for("timeline.message", "e1"); /* held at delivery */
	assert_string_equal(json_string_value(json_object_get(ev, "signal")), "Needs approval");
	assert_non_null(strstr(json_string_value(json_object_get(ev, "reason")), "unrestricted access, more than"));
	json_decref(ev);
	q = queue_of(E);
	assert_string_equal(status_in_queue(q, op), "waiting-for-approval");
	json_decref(q);
	/* the user sends it: delivered with the turn's access, despite the rule */
	op_ok(&desk, &r, checked(fx_send_op(&desk, "messages.send", "message", op, (char *)NULL)));
	hb_env_free(&r);
	next_delivery(&br, &d);
	assert_string_equal(hb_env_str_or(&d, "opId", ""), op);
	assert_string_equal(hb_env_str_or(&d, "access", ""), "unrestricted");
	hb_env_free(&d);
	bridge_done(&br, op, "turn-e");
	ev = event_for("timeline.message", "e1");
	while (strcmp(json_string_value(json_object_get(ev, "signal")), "Sent") != 0 || !json_object_get(ev, "link")) {
		json_decref(ev);
		ev = event_for("timeline.message", "e1");
	}
	json_decref(ev);
	/* sent twice by hand: refused */
	reply_to(&desk, checked(fx_send_op(&desk, "messages.send", "message", op, (char *)NULL)), &r);
	assert_false(hb_env_bool(&r, "ok", 1));
	assert_non_null(strstr(hb_env_str_or(&r, "err.msg", ""), "was sent already"));
	hb_env_free(&r);
	op_ok(&desk, &r, checked(fx_send_op(&desk, "run.close", "run", "run-e", (char *)NULL)));
	hb_env_free(&r);
	hb_client_close(&br);
}

static void test_discarded_is_never_sent(void **state)
{
	struct hb_client br;
	struct hb_env r, d;
	char op[48], err[256];
	json_t *ev;

	(void)state;
	expect_receipt("x1", D, "never", "waiting-for-approval", op);
	op_ok(&desk, &r, checked(fx_send_op(&desk, "messages.discard", "message", op, (char *)NULL)));
	assert_non_null(strstr(hb_env_str_or(&r, "json", ""), "\"status\":\"discarded\""));
	hb_env_free(&r);
	ev = event_for("timeline.message", "x1");
	while (strcmp(json_string_value(json_object_get(ev, "signal")), "Not sent") != 0) {
		json_decref(ev);
		ev = event_for("timeline.message", "x1");
	}
	json_decref(ev);
	/* D's bridge gets D's other held message only after the user sends it;
	 * the discarded one never: the first delivery is h1's. */
	bridge_attach(&br, D, "codex");
	{
		json_t *q = queue_of(D);
		json_t *m = json_array_get(json_object_get(q, "messages"), 0);
		assert_int_equal(json_array_size(json_object_get(q, "messages")), 1);
		op_ok(&desk, &r, checked(fx_send_op(&desk, "messages.send", "message",
						    json_string_value(json_object_get(m, "id")), (char *)NULL)));
		hb_env_free(&r);
		next_delivery(&br, &d);
		assert_string_equal(hb_env_str_or(&d, "opId", ""), json_string_value(json_object_get(m, "id")));
		hb_env_free(&d);
		json_decref(q);
	}
	/* and nothing else comes */
	assert_int_equal(hb_client_recv(&br, &d, 1500, err, sizeof err), -1);
	hb_client_close(&br);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused_before_anything_is_queued),
		cmocka_unit_test(test_receipts_and_one_row_per_call),
		cmocka_unit_test(test_delivery_envelope_and_links),
		cmocka_unit_test(test_hold_again_at_delivery_then_user_sends),
		cmocka_unit_test(test_discarded_is_never_sent),
	};
	return ck_run_group_tests(tests, messages_setup, messages_teardown);
}
