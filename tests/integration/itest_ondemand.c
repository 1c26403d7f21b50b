/*
 * itest_ondemand - services started at their first call and stopped
 * after their idle time (start = demand, idle = DURATION; issue 38), with
 * the real hb-broker, hbctl and the test service svc-echo: not running
 * after the broker's start and said so by status and hbctl status; a
 * first call starts it and is answered; a call that arrives while it
 * starts waits and is answered; after its idle time it is stopped and
 * status says so with its last exit; a copy that dies at a demand start
 * counts toward the crash loop, and nothing restarts it while no call
 * wants it; hbctl replace of a demand service; a boot service with an
 * idle line (up with the broker, restarted after a death without a call,
 * stopped when idle, then started by a call); a start, idle or wake value
 * the broker cannot take refused at its start.
 *
 * Timing settings are passed small through the broker's environment; the
 * assertions are on behaviour, never on speed (timeouts only bound waits).
 */
#include "../harness/checks.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char demand_conf[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 2\n"
	"start = demand\n"
	"idle = 1s\n"
	"tools = echo sleep\n";

/* A broker whose svc-echo starts on demand; it answers at once, with
 * nothing started. */
static void spawn_broker(struct fixture *f, const char *const *env)
{
	ck_prepare(f, demand_conf);
	f->broker = fx_spawn_broker(f, env, "broker.log");
	assert_true(f->broker > 0);
	ck_wait_answering(f);
}

static void test_started_by_first_call_stopped_when_idle(void **state)
{
	struct fixture *f = *state;
	pid_t pid;

	spawn_broker(f, NULL);
	ck_svc_str_equal(f, "svc-echo", "state", "idle");
	ck_svc_str_equal(f, "svc-echo", "start", "demand");
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 0);
	assert_int_equal(fx_service_num(f, "svc-echo", "idleMs"), 1000);
	ck_hbctl_status_says(f, "idle (not started)");

	ck_call_ok(f, "echo", "{\"n\":1}", "{\"n\":1}");
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 1);
	pid = fx_service_pid(f, "svc-echo");
	assert_true(pid > 0);

	/* A second without a call: stopped cleanly, and said so. */
	ck_wait_state(f, "svc-echo", "idle");
	ck_wait_gone(pid);
	ck_wait_num(f, "svc-echo", "idleStops", 1);
	assert_int_equal(ck_svc_bool(f, "svc-echo", "stoppedIdle"), 1);
	ck_svc_str_equal(f, "svc-echo", "lastExit", "exited with status 0");
	assert_int_equal(fx_service_num(f, "svc-echo", "restarts"), 0);
	ck_hbctl_status_says(f, "idle (stopped after 1 s)");
	ck_hbctl_status_says(f, "exited with status 0");

	/* The next call starts the next generation. */
	ck_call_ok(f, "echo", "{\"n\":2}", "{\"n\":2}");
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 2);
	ck_svc_str_equal(f, "svc-echo", "state", "up");
	ck_finish(f);
}

/* Each copy takes 400 ms before it says ready: a call sent while the
 * first call's copy starts waits for it, and one copy serves both. */
static void test_call_during_start_waits(void **state)
{
	static const char *const env[] = { "HB_ECHO_START_DELAY_MS=400", NULL };
	struct fixture *f = *state;
	struct hb_client c;
	int64_t first, second;

	spawn_broker(f, env);
	ck_client(f, &c);
	first = ck_send_call(&c, "echo", "{\"n\":1}");
	ck_wait_state(f, "svc-echo", "starting");
	second = ck_send_call(&c, "echo", "{\"n\":2}");
	ck_wait_num(f, "svc-echo", "callsWaiting", 2);
	/* Two workers: the answers may come in either order. */
	for (int i = 0; i < 2; i++) {
		int64_t id;
		int ok;
		char *text = ck_recv_text(&c, &id, &ok);

		assert_true(ok);
		assert_true(id == first || id == second);
		assert_string_equal(text, id == first ? "{\"n\":1}" : "{\"n\":2}");
		free(text);
	}
	hb_client_close(&c);
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 1);
	ck_finish(f);
}

/* Every copy dies before ready: the call that started it waits (each
 * death gives it the call wait afresh, as for a restart) until a backoff
 * is longer than that wait, the deaths make a crash loop, and once no
 * call waits nothing starts another copy. */
static void test_crash_at_demand_start_is_a_crash_loop(void **state)
{
	static const char *const env[] = { "HB_ECHO_FAIL_START=1", "HB_BACKOFF_BASE_MS=50",
					   "HB_BACKOFF_CAP_MS=400", "HB_CRASHLOOP_AFTER=3",
					   "HB_CALL_WAIT_MS=300", NULL };
	struct fixture *f = *state;
	long long gen;
	char *text;
	int ok;

	spawn_broker(f, env);
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 0);
	text = ck_call(f, "echo", "{}", &ok);
	assert_false(ok);
	assert_string_equal(text, "svc-echo did not come back within 300 ms (exited with status 7); "
				  "try the call again");
	free(text);
	ck_wait_state(f, "svc-echo", "crash-loop");
	assert_int_equal(ck_svc_bool(f, "svc-echo", "crashLoop"), 1);
	assert_true(fx_service_num(f, "svc-echo", "generation") >= 3);
	/* No call wants it: the loop does not go on by itself. */
	gen = fx_service_num(f, "svc-echo", "generation");
	fx_sleep_ms(600);
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), gen);
	ck_svc_str_equal(f, "svc-echo", "state", "crash-loop");
	ck_finish(f);
}

/* hbctl replace of a demand service that is not running starts the new
 * program, which serves and then stops when idle like any copy. */
static void test_replace_demand_service(void **state)
{
	struct fixture *f = *state;
	char exe[700], *out;
	json_t *reply;

	spawn_broker(f, NULL);
	snprintf(exe, sizeof exe, "%s/tests/svc-echo", f->build);
	{
		const char *const args[] = { "replace", "svc-echo", exe, NULL };
		assert_int_equal(fx_hbctl(f, &out, args), 0);
	}
	reply = json_loads(out, 0, NULL);
	if (!reply)
		fail_msg("hbctl replace printed: %s", out);
	free(out);
	assert_int_equal(json_integer_value(json_object_get(reply, "generation")), 1);
	json_decref(reply);
	ck_call_ok(f, "echo", "{\"n\":3}", "{\"n\":3}");
	ck_wait_state(f, "svc-echo", "idle");
	ck_wait_num(f, "svc-echo", "idleStops", 1);
	ck_call_ok(f, "echo", "{\"n\":4}", "{\"n\":4}");
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 2);
	ck_finish(f);
}

/* A boot service with an idle line: up with the broker; a copy that dies
 * while it runs is started again at once, with no call, as any boot
 * service's; stopped after its idle time, and then, like a demand one,
 * started only by a call. */
static void test_boot_service_with_idle(void **state)
{
	static const char conf[] = "[service svc-echo]\n"
				   "exec = @BUILD@/tests/svc-echo\n"
				   "idle = 1500ms\n"
				   "tools = echo\n";
	struct fixture *f = *state;
	long long gen;
	pid_t pid;

	ck_start(f, conf, NULL);
	ck_svc_str_equal(f, "svc-echo", "start", "boot");
	pid = fx_service_pid(f, "svc-echo");
	assert_true(pid > 0);
	kill(pid, SIGKILL);
	ck_wait_gone(pid);
	assert_int_equal(fx_wait_up(f, "svc-echo", 2, CK_WAIT_MS), 0);
	ck_wait_stopped_idle(f, "svc-echo");
	ck_hbctl_status_says(f, "idle (stopped after 1500 ms)");
	gen = fx_service_num(f, "svc-echo", "generation");
	fx_sleep_ms(600);
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), gen);
	ck_call_ok(f, "echo", "{\"n\":5}", "{\"n\":5}");
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), gen + 1);
	ck_finish(f);
}

/* A start or idle the broker cannot take stops it at its start, with the
 * line and the reason. */
static void refused(struct fixture *f, const char *line, const char *reason)
{
	char conf[512], *log;
	int status;

	snprintf(conf, sizeof conf, "[service svc-echo]\nexec = @BUILD@/tests/svc-echo\n%s\ntools = echo\n", line);
	ck_prepare(f, conf);
	f->broker = fx_spawn_broker(f, NULL, "broker.log");
	assert_true(f->broker > 0);
	status = ck_wait_exit(f->broker);
	f->broker = 0; /* reaped here; fx_stop only cleans up */
	assert_true(WIFEXITED(status));
	assert_int_not_equal(WEXITSTATUS(status), 0);
	log = fx_read_text(f->log);
	if (!strstr(log, reason))
		fail_msg("the broker's log does not say \"%s\":\n%s", reason, log);
	free(log);
	ck_finish(f);
}

static void test_bad_start_and_idle_refused(void **state)
{
	refused(*state, "start = sometimes", "services.conf:3: start must be boot or demand");
	refused(*state, "idle = 0s", "services.conf:3: idle must be a duration from 1ms to 24h");
	refused(*state, "idle = 5 minutes", "services.conf:3: idle must be a duration");
	refused(*state, "wake = home", "services.conf:3: wake must be a folder of hbcode's: config, data or cache");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ck_unit_test(test_started_by_first_call_stopped_when_idle),
		ck_unit_test(test_call_during_start_waits),
		ck_unit_test(test_crash_at_demand_start_is_a_crash_loop),
		ck_unit_test(test_replace_demand_service),
		ck_unit_test(test_boot_service_with_idle),
		ck_unit_test(test_bad_start_and_idle_refused),
	};

	return ck_run_group_tests(tests, NULL, NULL);
}
