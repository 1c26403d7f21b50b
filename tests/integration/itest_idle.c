/*
 * itest_idle - nothing awake when idle (issue 38), with the real hb-broker
 * and the test service svc-echo: a service beats only while it has calls
 * in flight, so an idle one sends no heartbeat, and the broker does not
 * take its silence for a hang.
 *
 * The broker counts the heartbeat frames it receives (status: heartbeats);
 * beats come every 20 ms here, so a second without a call would bring
 * fifty of them if the idle service still beat.  The assertions are on
 * counts, never on speed (timeouts only bound waits).
 */
#include "../harness/checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char echo_conf[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 2\n"
	"tools = echo sleep stuck\n";

static const char *const fast_beats[] = { "HB_HEARTBEAT_MS=20", "HB_HANG_MS=2000", NULL };

/* Beats while a call runs, none once it is answered, and no hang kill of
 * the silent service: the same pid answers afterwards. */
static void test_idle_service_sends_no_beats(void **state)
{
	struct fixture *f = *state;
	long long deadline, idle_from, idle_to;
	pid_t pid;

	ck_start(f, echo_conf, fast_beats);
	pid = fx_service_pid(f, "svc-echo");
	assert_int_equal(fx_service_num(f, "svc-echo", "heartbeats"), 0);
	/* A call of 400 ms: the loop beats while it is in flight. */
	ck_call_ok(f, "sleep", "{\"ms\":400}", "slept 400 ms");
	assert_true(fx_service_num(f, "svc-echo", "heartbeats") >= 1);
	/* The beat that follows the last call says nothing is held; after
	 * it, silence. */
	deadline = fx_now_ms() + CK_WAIT_MS;
	idle_from = fx_service_num(f, "svc-echo", "heartbeats");
	fx_sleep_ms(200);
	while (fx_service_num(f, "svc-echo", "heartbeats") != idle_from && fx_now_ms() < deadline) {
		idle_from = fx_service_num(f, "svc-echo", "heartbeats");
		fx_sleep_ms(200);
	}
	fx_sleep_ms(1000); /* fifty beat periods */
	idle_to = fx_service_num(f, "svc-echo", "heartbeats");
	if (idle_to != idle_from)
		fail_msg("an idle svc-echo sent %lld heartbeats in a second", idle_to - idle_from);
	/* Past the hang time without a beat, yet not killed. */
	fx_sleep_ms(1500);
	assert_int_equal(fx_service_pid(f, "svc-echo"), pid);
	ck_svc_str_equal(f, "svc-echo", "state", "up");
	ck_call_ok(f, "echo", "{\"n\":1}", "{\"n\":1}");
	assert_int_equal(fx_service_pid(f, "svc-echo"), pid);
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 1);
	ck_finish(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ck_unit_test(test_idle_service_sends_no_beats),
	};

	return ck_run_group_tests(tests, NULL, NULL);
}
