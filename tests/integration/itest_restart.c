/*
 * itest_restart - a service that dies comes back, with the real hb-broker,
 * hbctl, svc-sessions as deployed and the test service svc-echo: killed
 * (SIGKILL) or hung (SIGSTOP, missed heartbeats) while a call is in
 * flight, the call is answered with an error naming the service and the
 * cause, and the service comes back as a new generation; so too when
 * every worker is stuck in a handler (svc-echo's stuck: the blocking open
 * of a FIFO) past the family's call-limit while the loop beats on; a call for a
 * restarting service waits for it; one service's crash does not disturb
 * another; hbctl restart, stop and start.
 *
 * Timing settings are passed small through the broker's environment; the
 * assertions are on behaviour, never on speed (timeouts only bound waits).
 */
#include "../harness/checks.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char listsessions_json[] = "{\"action\":\"listSessions\"}";

/* name is up again after its one restart: generation 2, a new pid. */
static void came_back(struct fixture *f, const char *name, pid_t old)
{
	pid_t pid;

	assert_int_equal(fx_wait_up(f, name, 2, CK_WAIT_MS), 0);
	pid = fx_service_pid(f, name);
	assert_true(pid > 0);
	assert_int_not_equal(pid, old);
	assert_int_equal(fx_service_num(f, name, "generation"), 2);
	assert_int_equal(fx_service_num(f, name, "restarts"), 1);
}

/* ---- SIGKILL during a call --------------------------------------------- */

static void test_sigkill_sessions_during_call(void **state)
{
	struct fixture *f = *state;
	struct hb_client c;
	char *conf = fx_deployed_service("svc-sessions"), *text;
	pid_t pid;
	int64_t id;
	int ok;

	assert_non_null(conf);
	ck_start(f, conf, NULL);
	free(conf);
	pid = fx_service_pid(f, "svc-sessions");
	assert_true(pid > 0);

	/* Stopped, the service cannot answer: the call stays in flight. */
	assert_int_equal(kill(pid, SIGSTOP), 0);
	ck_client(f, &c);
	id = ck_send_call(&c, "maintain_sessions", listsessions_json);
	ck_wait_num(f, "svc-sessions", "callsInFlight", 1);
	assert_int_equal(kill(pid, SIGKILL), 0);

	ck_expect_reply(&c, id, 0, "svc-sessions stopped while handling this call (killed by signal 9); "
				   "try the call again");
	hb_client_close(&c);

	came_back(f, "svc-sessions", pid);
	ck_svc_str_equal(f, "svc-sessions", "lastExit", "killed by signal 9");
	text = ck_call(f, "maintain_sessions", listsessions_json, &ok);
	if (!ok)
		fail_msg("maintain_sessions after the restart failed: %s", text);
	assert_non_null(strstr(text, "\"sessions\":[]"));
	free(text);
	ck_finish(f);
}

/* ---- A hung service ---------------------------------------------------- */

static void test_hung_service_replaced(void **state)
{
	static const char *const env[] = { "HB_HEARTBEAT_MS=50", "HB_HANG_MS=300", NULL };
	struct fixture *f = *state;
	struct hb_client c;
	pid_t pid;
	int64_t id;

	id = ck_echo_call_in_flight(f, env, &c, "{\"ms\":5000}", &pid);
	assert_int_equal(kill(pid, SIGSTOP), 0); /* alive, but silent */

	ck_expect_reply(&c, id, 0, "svc-echo stopped while handling this call (stopped responding: "
				   "no heartbeat for 300 ms, so it was killed); try the call again");
	hb_client_close(&c);

	came_back(f, "svc-echo", pid);
	ck_wait_gone(pid);
	ck_wait_log(f, "heartbeats stopped; killing pid");
	ck_call_ok(f, "echo", "{\"n\":2}", "{\"n\":2}");
	ck_finish(f);
}

/* ---- A worker held past its call-limit ---------------------------------- */

/* Two workers, each call may hold one for 1 s; heartbeats every 50 ms. */
static const char held_conf[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 2\n"
	"call-limit = 1\n"
	"tools = echo sleep stuck\n";

/* A reply that says the service was killed for a held worker: the key it
 * names is the one of the two calls that began first, so only its shape
 * is known. */
static void says_held(const char *text)
{
	static const char head[] = "svc-echo stopped while handling this call (stopped responding: a worker was "
				   "held by call c";
	static const char tail[] = " (stuck) for more than the 1 s a call of svc-echo may take (call-limit), so it "
				   "was killed); try the call again";

	if (strncmp(text, head, sizeof head - 1) != 0 || strlen(text) < sizeof head + sizeof tail - 2 ||
	    strcmp(text + strlen(text) - (sizeof tail - 1), tail) != 0)
		fail_msg("not the held-worker sentence: %s", text);
}

/* The other call in flight when the held one got its service killed: it
 * held nothing itself, so its sentence names no call and says why it
 * was stopped all the same. */
static const char sibling_text[] = "svc-echo was restarted because another call held one of its workers for more "
				   "than the 1 s a call of svc-echo may take (call-limit); this call was stopped "
				   "with it; try the call again";

/* Every worker stuck in a handler that ignores its cancel, while the
 * loop thread beats on: the broker kills the service once a call has held
 * its worker past call-limit (plus the hang grace), both calls are
 * answered (the held one with its key, the other with the sibling
 * sentence), and the next generation serves.  A call inside the limit is
 * untouched. */
static void test_held_worker_killed(void **state)
{
	static const char *const env[] = { "HB_HEARTBEAT_MS=50", "HB_HANG_MS=300", NULL };
	struct fixture *f = *state;
	char fifo[400], json[500], *text;
	struct hb_client c;
	pid_t pid;
	int ok, siblings = 0;

	ck_start(f, held_conf, env);
	pid = fx_service_pid(f, "svc-echo");
	ck_call_ok(f, "sleep", "{\"ms\":100}", "slept 100 ms");
	snprintf(fifo, sizeof fifo, "%s/stuck.fifo", f->dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	snprintf(json, sizeof json, "{\"fifo\":\"%s\"}", fifo);
	ck_client(f, &c);
	for (int i = 0; i < 2; i++)
		ck_send_call(&c, "stuck", json);
	for (int i = 0; i < 2; i++) {
		int64_t id;

		text = ck_recv_text(&c, &id, &ok);
		assert_false(ok);
		if (strcmp(text, sibling_text) == 0)
			siblings++;
		else
			says_held(text);
		free(text);
	}
	assert_int_equal(siblings, 1);
	hb_client_close(&c);
	came_back(f, "svc-echo", pid);
	ck_wait_gone(pid);
	ck_wait_log(f, "past the 1000 ms call-limit; killing pid");
	text = ck_svc_str(f, "svc-echo", "lastExit");
	assert_non_null(strstr(text, "a worker was held by call c"));
	free(text);
	ck_call_ok(f, "echo", "{\"n\":3}", "{\"n\":3}");
	ck_finish(f);
}

/* ---- hbctl restart, stop, start ----------------------------------------- */

static void test_restart_stop_start(void **state)
{
	static const char *const restart[] = { "restart", "svc-echo", NULL };
	static const char *const stop[] = { "stop", "svc-echo", NULL };
	static const char *const startargs[] = { "start", "svc-echo", NULL };
	struct fixture *f = *state;
	pid_t pid1, pid2, pid3;
	char *out, *text;
	int ok;

	ck_start(f, ck_echo_conf, NULL);
	pid1 = fx_service_pid(f, "svc-echo");
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 1);

	assert_int_equal(fx_hbctl(f, &out, restart), 0);
	assert_non_null(strstr(out, "\"generation\":2"));
	free(out);
	pid2 = fx_service_pid(f, "svc-echo");
	assert_true(pid2 > 0);
	assert_int_not_equal(pid2, pid1);
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 2);
	ck_call_ok(f, "echo", "{\"after\":\"restart\"}", "{\"after\":\"restart\"}");
	ck_wait_gone(pid1);

	assert_int_equal(fx_hbctl(f, &out, stop), 0);
	free(out);
	text = ck_call(f, "echo", "{}", &ok);
	assert_false(ok);
	assert_string_equal(text, "svc-echo is stopped; start it with: hbctl start svc-echo");
	free(text);
	ck_wait_gone(pid2);
	ck_wait_state(f, "svc-echo", "stopped");

	assert_int_equal(fx_hbctl(f, &out, startargs), 0);
	free(out);
	assert_int_equal(fx_wait_up(f, "svc-echo", 3, CK_WAIT_MS), 0);
	pid3 = fx_service_pid(f, "svc-echo");
	assert_true(pid3 > 0);
	assert_int_not_equal(pid3, pid2);
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 3);
	ck_call_ok(f, "echo", "{\"after\":\"start\"}", "{\"after\":\"start\"}");
	ck_finish(f);
}

/* ---- A call for a restarting service waits ------------------------------- */

static void test_call_waits_for_restart(void **state)
{
	struct fixture *f = *state;
	pid_t pid;
	char *text;
	int ok;

	ck_start(f, ck_echo_conf, NULL);
	pid = fx_service_pid(f, "svc-echo");
	text = ck_call(f, "exit", "{}", &ok);
	assert_false(ok);
	assert_string_equal(text, "svc-echo stopped while handling this call (exited with status 3); "
				  "try the call again");
	free(text);
	/* At once: the new instance may not be ready yet; the call waits. */
	ck_call_ok(f, "echo", "{\"again\":true}", "{\"again\":true}");
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 2);
	assert_int_equal(fx_service_num(f, "svc-echo", "restarts"), 1);
	assert_int_not_equal(fx_service_pid(f, "svc-echo"), pid);
	ck_svc_str_equal(f, "svc-echo", "lastExit", "exited with status 3");
	ck_finish(f);
}

/* ---- One crash does not disturb another ---------------------------------- */

static void test_crash_isolated(void **state)
{
	struct fixture *f = *state;
	char *conf = fx_deployed_config(ck_echo_conf, "svc-sessions", (char *)NULL);
	pid_t sessions, echo;
	int calls = 0;

	assert_non_null(conf);
	ck_start(f, conf, NULL);
	free(conf);
	sessions = fx_service_pid(f, "svc-sessions");
	echo = fx_service_pid(f, "svc-echo");
	assert_true(sessions > 0 && echo > 0);
	ck_call_ok(f, "maintain_sessions", listsessions_json, NULL);

	assert_int_equal(kill(echo, SIGKILL), 0);
	/* svc-sessions serves throughout echo's death and restart. */
	do {
		ck_call_ok(f, "maintain_sessions", listsessions_json, NULL);
		calls++;
	} while (fx_service_num(f, "svc-echo", "generation") < 2 && calls < 10000);
	assert_int_equal(fx_wait_up(f, "svc-echo", 2, CK_WAIT_MS), 0);
	ck_call_ok(f, "maintain_sessions", listsessions_json, NULL);
	ck_call_ok(f, "echo", "{\"back\":1}", "{\"back\":1}");

	assert_int_equal(fx_service_pid(f, "svc-sessions"), sessions);
	assert_int_equal(fx_service_num(f, "svc-sessions", "generation"), 1);
	assert_int_equal(fx_service_num(f, "svc-sessions", "restarts"), 0);
	ck_svc_str_equal(f, "svc-sessions", "state", "up");
	ck_svc_str_equal(f, "svc-sessions", "lastExit", "");
	assert_int_equal(fx_service_num(f, "svc-echo", "restarts"), 1);
	ck_svc_str_equal(f, "svc-echo", "lastExit", "killed by signal 9");
	ck_finish(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ck_unit_test(test_sigkill_sessions_during_call),
		ck_unit_test(test_hung_service_replaced),
		ck_unit_test(test_held_worker_killed),
		ck_unit_test(test_restart_stop_start),
		ck_unit_test(test_call_waits_for_restart),
		ck_unit_test(test_crash_isolated),
	};

	return ck_run_group_tests(tests, NULL, NULL);
}
