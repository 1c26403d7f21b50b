/*
 * itest_crashloop - a service that fails to start, with the real
 * hb-broker, hbctl and the test service svc-echo: a crash loop reported
 * in status with a bounded, growing backoff, and calls told so; a restart
 * during the loop or during its backoff starts one copy and leaves the
 * loop going; a copy that never says ready is killed at the start timeout
 * and status names that.
 *
 * Timing settings are passed small through the broker's environment; the
 * assertions are on behaviour, never on speed (timeouts only bound waits).
 */
#include "../harness/checks.h"

#include <stdlib.h>
#include <string.h>

/* A broker with svc-echo started with env, not waiting for svc-echo to
 * come up: here it never does. */
static void spawn_broker(struct fixture *f, const char *const *env)
{
	ck_prepare(f, ck_echo_conf);
	f->broker = fx_spawn_broker(f, env, "broker.log");
	assert_true(f->broker > 0);
}

/* hbctl restart of an svc-echo that never became ready is refused with
 * the reason, and says no old copy "keeps serving": none ever did. */
static void restart_refused(struct fixture *f)
{
	static const char *const restart[] = { "restart", "svc-echo", NULL };
	char *out;

	assert_int_equal(fx_hbctl(f, &out, restart), 1);
	assert_non_null(strstr(out, "exited with status 7 before it was ready"));
	assert_null(strstr(out, "keeps serving"));
	free(out);
}

/* ---- Crash loop --------------------------------------------------------- */

static void test_crash_loop(void **state)
{
	static const char *const env[] = { "HB_ECHO_FAIL_START=1", "HB_BACKOFF_BASE_MS=50",
					   "HB_BACKOFF_CAP_MS=400", "HB_CRASHLOOP_AFTER=3",
					   "HB_CALL_WAIT_MS=300", NULL };
	static const long long want[] = { 50, 100, 200, 400 };
	struct fixture *f = *state;
	long long deadline, r1, r2, delays = 0;
	char *text, *log, *p, *q;
	int ok, seen = 0;

	spawn_broker(f, env);

	deadline = fx_now_ms() + CK_WAIT_MS;
	while (fx_now_ms() < deadline && !seen) {
		json_t *st = fx_status(f);
		if (st) {
			json_t *s = json_array_get(json_object_get(st, "services"), 0);
			seen = strcmp(json_string_value(json_object_get(s, "state")), "crash-loop") == 0;
		}
		json_decref(st);
		if (!seen)
			fx_sleep_ms(5);
	}
	assert_true(seen);
	assert_int_equal(ck_svc_bool(f, "svc-echo", "crashLoop"), 1);
	ck_svc_str_equal(f, "svc-echo", "lastExit", "exited with status 7");

	/* Bounded: with base 50 and cap 400 about 5 restarts in 2 s; a busy
	 * loop would make thousands.  Still trying, though. */
	r1 = fx_service_num(f, "svc-echo", "restarts");
	assert_true(r1 >= 2);
	fx_sleep_ms(2000);
	r2 = fx_service_num(f, "svc-echo", "restarts");
	assert_true(r2 > r1);
	assert_true(r2 - r1 < 20);

	text = ck_call(f, "echo", "{}", &ok);
	assert_false(ok);
	assert_non_null(strstr(text, "did not come back within 300 ms"));
	assert_string_equal(text, "svc-echo did not come back within 300 ms (exited with status 7); "
				  "try the call again");
	free(text);
	assert_int_equal(ck_svc_bool(f, "svc-echo", "crashLoop"), 1);

	/* The sequence in the log: the first restart at once (no delay line
	 * before #2 starts), then 50, 100, 200, 400 and the cap from there. */
	log = fx_read_text(f->log);
	p = strstr(log, "[svc-echo#1] pid ");
	assert_non_null(p);
	q = strstr(p, "[svc-echo#2] started");
	assert_non_null(q);
	assert_true(!strstr(p, "restart in") || strstr(p, "restart in") > q);
	for (p = strstr(log, "[svc-echo] restart in "); p; p = strstr(p + 1, "[svc-echo] restart in ")) {
		long long d = strtoll(p + strlen("[svc-echo] restart in "), NULL, 10);
		assert_int_equal(d, delays < 4 ? want[delays] : 400);
		delays++;
	}
	assert_true(delays >= 4);
	p = strstr(log, "crash loop: 3 deaths in a row");
	assert_non_null(p);
	assert_null(strstr(p + 1, "crash loop:")); /* reported once */
	free(log);
	ck_finish(f);
}

/* ---- A restart during a crash loop leaves the loop going ----------------- */

static void test_restart_in_crash_loop_keeps_trying(void **state)
{
	static const char *const env[] = { "HB_ECHO_FAIL_START=1", "HB_BACKOFF_BASE_MS=50",
					   "HB_BACKOFF_CAP_MS=200", "HB_CRASHLOOP_AFTER=3", NULL };
	struct fixture *f = *state;
	long long r1, deadline;

	spawn_broker(f, env);
	ck_wait_answering(f);
	ck_wait_state(f, "svc-echo", "crash-loop");
	restart_refused(f);
	r1 = fx_service_num(f, "svc-echo", "restarts");
	deadline = fx_now_ms() + CK_WAIT_MS;
	while (fx_service_num(f, "svc-echo", "restarts") <= r1 + 2 && fx_now_ms() < deadline)
		fx_sleep_ms(20);
	assert_true(fx_service_num(f, "svc-echo", "restarts") > r1 + 2);
	ck_finish(f);
}

/* ---- A restart during the backoff starts one copy, not two -------------- */

/* Every copy of svc-echo lives 3 s and then fails; the backoff after the
 * second death is 2 s.  A restart sent during that backoff used to leave
 * the backoff's own restart scheduled: a second copy started beside the
 * restart's, and the restart's answer said an old one "keeps serving"
 * when none had ever been ready. */
static void test_restart_during_backoff_starts_one(void **state)
{
	static const char *const env[] = { "HB_ECHO_FAIL_START=1", "HB_ECHO_START_DELAY_MS=3000",
					   "HB_BACKOFF_BASE_MS=2000", "HB_BACKOFF_CAP_MS=2000",
					   "HB_CRASHLOOP_AFTER=1", NULL };
	struct fixture *f = *state;
	long long gen;

	spawn_broker(f, env);
	ck_wait_answering(f);
	ck_wait_state(f, "svc-echo", "crash-loop");
	gen = fx_service_num(f, "svc-echo", "generation");
	restart_refused(f);
	/* Only the restart's copy started since; the next waits its backoff. */
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), gen + 1);
	ck_svc_str_equal(f, "svc-echo", "state", "crash-loop");
	ck_finish(f);
}

/* A copy that never says ready is killed at the start timeout, and status
 * says so: not "no heartbeat", which is what a ready one would miss. */
static void test_start_timeout_named(void **state)
{
	static const char *const env[] = { "HB_ECHO_START_DELAY_MS=60000", "HB_START_TIMEOUT_MS=300",
					   "HB_BACKOFF_BASE_MS=60000", NULL };
	struct fixture *f = *state;
	char *last = NULL;
	long long deadline;

	spawn_broker(f, env);
	ck_wait_answering(f);
	deadline = fx_now_ms() + CK_WAIT_MS;
	while (fx_now_ms() < deadline) {
		free(last);
		last = ck_svc_str(f, "svc-echo", "lastExit");
		if (*last)
			break;
		fx_sleep_ms(10);
	}
	assert_string_equal(last, "did not become ready within 300 ms of its start, so it was killed");
	free(last);
	ck_finish(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ck_unit_test(test_crash_loop),
		ck_unit_test(test_restart_in_crash_loop_keeps_trying),
		ck_unit_test(test_restart_during_backoff_starts_one),
		ck_unit_test(test_start_timeout_named),
	};

	return ck_run_group_tests(tests, NULL, NULL);
}
