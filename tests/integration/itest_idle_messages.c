/*
 * itest_idle_messages - svc-messages runs only while it has work (issue
 * 38): the real hb-broker, svc-sessions and svc-messages (messages_rig.h)
 * with svc-messages started at boot and stopped after MESSAGES_IDLE_MS
 * without a call, but only when its task, asked by the broker (idle.ask),
 * says the outbox holds no message still to go.  What each test shows:
 *  - an empty outbox: stopped after its idle time, `hbctl status` says
 *    so, and the next call (hbctl messages) starts it again;
 *  - a message whose recipient has no bridge keeps it up over many idle
 *    times (status: holdsWork); once a bridge takes it and reports it
 *    delivered, it stops;
 *  - messages sent at every point around the stop (just before the idle
 *    time ends, while the broker's ask is out, while the old copy ends)
 *    each wait for a copy that serves them, and every one is delivered.
 * Waits are bounded (CK_WAIT_MS), never a measure of speed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/checks.h"
#include "../harness/group.h"
#include "../harness/harness.h"
#include "client.h"
#include "envelope.h"
#include "messages_rig.h"

/* The bridge takes op and reports it delivered; other deliveries it gets
 * first are reported too (a message of an earlier test). */
static void deliver_op(struct hb_client *br, const char *op, const char *turn)
{
	struct hb_env d;

	for (;;) {
		next_delivery(br, &d);
		if (strcmp(hb_env_str_or(&d, "opId", ""), op) == 0)
			break;
		bridge_done(br, hb_env_str_or(&d, "opId", ""), "t-other");
		hb_env_free(&d);
	}
	hb_env_free(&d);
	bridge_done(br, op, turn);
}

/* Wait for the sender's row of call_id to say it went (its link). */
static void wait_sent(const char *call_id)
{
	int sent = 0;

	while (!sent) {
		json_t *ev = event_for("timeline.message", call_id);
		sent = json_object_get(ev, "link") != NULL;
		json_decref(ev);
	}
}

static void bridge_leave(struct hb_client *br, const char *session)
{
	struct hb_env r;

	op_ok(br, &r, checked(fx_send_op(br, "session.detach", "session", session, (char *)NULL)));
	hb_env_free(&r);
	hb_client_close(br);
}

static void test_empty_outbox_stops(void **state)
{
	long long gen;
	json_t *q;

	(void)state;
	ck_svc_str_equal(&F, "svc-messages", "start", "boot");
	assert_int_equal(fx_service_num(&F, "svc-messages", "idleMs"), MESSAGES_IDLE_MS);
	ck_wait_stopped_idle(&F, "svc-messages");
	ck_hbctl_status_says(&F, "idle (stopped after 500 ms)");
	assert_int_equal(fx_service_num(&F, "svc-messages", "restarts"), 0);
	ck_svc_str_equal(&F, "svc-messages", "lastExit", "exited with status 0");
	gen = fx_service_num(&F, "svc-messages", "generation");
	/* The user's queue is a call: it starts the service again. */
	q = queue_of("");
	assert_int_equal(json_array_size(json_object_get(q, "messages")), 0);
	json_decref(q);
	assert_int_equal(fx_service_num(&F, "svc-messages", "generation"), gen + 1);
	ck_wait_stopped_idle(&F, "svc-messages");
	assert_int_equal(fx_service_num(&F, "svc-messages", "restarts"), 0);
}

static void test_row_still_to_go_keeps_it_up(void **state)
{
	struct hb_client br;
	long long gen, stops;
	char op[48], *why;

	(void)state;
	expect_receipt("idle-1", G, "wait for a bridge", "queued", op);
	gen = fx_service_num(&F, "svc-messages", "generation");
	stops = fx_service_num(&F, "svc-messages", "idleStops");
	/* No bridge carries G, and the broker starts none in its first
	 * HB_ATTACH_TTL_MS: the message waits, and so does the service,
	 * over six idle times. */
	ck_stays_up_holding_work(&F, "svc-messages", 6 * MESSAGES_IDLE_MS);
	why = ck_svc_str(&F, "svc-messages", "holdsWhy");
	assert_string_equal(why, "its outbox holds messages still to go");
	free(why);
	ck_hbctl_status_says(&F, "svc-messages: stays up while its outbox holds messages still to go");
	/* A bridge takes it and reports it: nothing is left, so it stops. */
	bridge_attach(&br, G, "codex");
	deliver_op(&br, op, "turn-idle-1");
	wait_sent("idle-1");
	ck_wait_stopped_idle(&F, "svc-messages");
	assert_int_equal(fx_service_num(&F, "svc-messages", "idleStops"), stops + 1);
	assert_int_equal(fx_service_num(&F, "svc-messages", "generation"), gen);
	bridge_leave(&br, G);
}

static void test_messages_around_the_stop_all_go(void **state)
{
	struct hb_client br;
	long long stops = fx_service_num(&F, "svc-messages", "idleStops");
	char op[48], call_id[32];
	json_t *q;

	(void)state;
	bridge_attach(&br, G, "codex");
	/* Each message after the last went out: from well before the idle
	 * time's end to after the stop, 40 ms apart. */
	for (int i = 0; i < 12; i++) {
		fx_sleep_ms(MESSAGES_IDLE_MS - 200 + 40 * i);
		snprintf(call_id, sizeof call_id, "around-%d", i);
		expect_receipt(call_id, G, "around the stop", "queued", op);
		deliver_op(&br, op, call_id);
		wait_sent(call_id);
	}
	q = queue_of(G);
	assert_int_equal(json_array_size(json_object_get(q, "messages")), 0);
	json_decref(q);
	/* The later ones came after a stop: the loop did reach the stops. */
	assert_true(fx_service_num(&F, "svc-messages", "idleStops") > stops);
	assert_int_equal(fx_service_num(&F, "svc-messages", "restarts"), 0);
	bridge_leave(&br, G);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_outbox_stops),
		cmocka_unit_test(test_row_still_to_go_keeps_it_up),
		cmocka_unit_test(test_messages_around_the_stop_all_go),
	};

	return ck_run_group_tests(tests, messages_setup_idling, messages_teardown);
}
