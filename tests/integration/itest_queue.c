/*
 * itest_queue - calls that wait for a worker, with the real hb-broker and
 * the test service svc-echo run with one or two workers: a call waits as
 * long as the busy workers take (the wait for a restarting service is no
 * limit on it), a slow call holds up none of the calls queued behind it
 * while another worker is free, and a service told to stop answers the
 * calls in its queue at once instead of holding them to its deadline.
 *
 * Timing settings are passed small through the broker's environment; the
 * assertions are on behaviour, never on speed (timeouts only bound waits).
 */
#include "../harness/checks.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The broker with svc-echo run with `workers` workers, and a client. */
static void start_echo(struct fixture *f, int workers, const char *const *env, struct hb_client *c)
{
	char conf[160];

	snprintf(conf, sizeof conf,
		 "[service svc-echo]\n"
		 "exec = @BUILD@/tests/svc-echo\n"
		 "concurrency = %d\n"
		 "tools = echo sleep\n",
		 workers);
	ck_start(f, conf, env);
	ck_client(f, c);
}

/* ---- Busy workers: a call waits as long as it takes --------------------- */

static void test_busy_service_call_waits(void **state)
{
	static const char *const env[] = { "HB_CALL_WAIT_MS=100", NULL };
	struct fixture *f = *state;
	struct hb_client c;
	int64_t ids[10], id;
	char *text;
	int ok;

	start_echo(f, 1, env, &c);
	ids[0] = ck_send_call(&c, "sleep", "{\"ms\":600}");
	for (int i = 1; i < 10; i++)
		ids[i] = ck_send_call(&c, "echo", "{\"queued\":true}");
	/* One worker busy, eight calls in its service's queue (the overflow
	 * window of 8 per worker), one held by the broker. */
	ck_wait_num(f, "svc-echo", "slotsBusy", 1);
	ck_wait_num(f, "svc-echo", "queuedInService", 8);
	ck_wait_num(f, "svc-echo", "callsWaiting", 1);
	/* The restart wait (100 ms) is no limit on waiting for a worker. */
	for (int i = 0; i < 10; i++) {
		text = ck_recv_text(&c, &id, &ok);
		assert_int_equal(id, ids[i]); /* one worker: in order */
		if (!ok)
			fail_msg("call %d failed: %s", i, text);
		free(text);
	}
	hb_client_close(&c);
	ck_wait_num(f, "svc-echo", "queuedInService", 0);
	ck_wait_num(f, "svc-echo", "slotsBusy", 0);
	ck_finish(f);
}

/* ---- A slow call holds up no queued call ---------------------------------- */

static void test_slow_call_holds_up_no_queued_call(void **state)
{
	struct fixture *f = *state;
	struct hb_client c;
	int64_t slow, id;
	char *text;
	int ok;

	start_echo(f, 2, NULL, &c);
	slow = ck_send_call(&c, "sleep", "{\"ms\":3000}");
	ck_wait_num(f, "svc-echo", "slotsBusy", 1);
	for (int i = 0; i < 12; i++)
		ck_send_call(&c, "sleep", "{\"ms\":20}");
	/* Both workers busy means calls queue in the service; the free
	 * worker takes them all while the slow one sleeps. */
	for (int i = 0; i < 12; i++) {
		text = ck_recv_text(&c, &id, &ok);
		assert_int_not_equal(id, slow);
		assert_true(ok);
		free(text);
	}
	text = ck_recv_text(&c, &id, &ok);
	assert_int_equal(id, slow);
	assert_true(ok);
	free(text);
	hb_client_close(&c);
	ck_finish(f);
}

/* ---- A stopping service answers its queue at once ----------------------- */

static void test_stop_answers_queued_calls(void **state)
{
	struct fixture *f = *state;
	struct hb_client c;
	int64_t slow, id;
	char *text;
	int ok, queued = 0;
	pid_t pid;

	start_echo(f, 1, NULL, &c);
	slow = ck_send_call(&c, "sleep", "{\"ms\":60000}");
	ck_wait_num(f, "svc-echo", "slotsBusy", 1);
	for (int i = 0; i < 3; i++)
		ck_send_call(&c, "echo", "{\"queued\":true}");
	ck_wait_num(f, "svc-echo", "queuedInService", 3);
	pid = fx_service_pid(f, "svc-echo");
	assert_true(pid > 0);
	assert_int_equal(kill(pid, SIGTERM), 0);
	/* The sleeping call is cancelled; the queued ones never started, and
	 * say so (not the broker's "stopped while handling this call", which
	 * they got when the service held them until its stop deadline). */
	for (int i = 0; i < 4; i++) {
		text = ck_recv_text(&c, &id, &ok);
		assert_false(ok);
		if (id != slow) {
			if (!strstr(text, "svc-echo stopped before this call started; try the call again"))
				fail_msg("a queued call was answered \"%s\"", text);
			queued++;
		}
		free(text);
	}
	assert_int_equal(queued, 3);
	hb_client_close(&c);
	ck_finish(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ck_unit_test(test_busy_service_call_waits),
		ck_unit_test(test_slow_call_holds_up_no_queued_call),
		ck_unit_test(test_stop_answers_queued_calls),
	};

	return ck_run_group_tests(tests, NULL, NULL);
}
