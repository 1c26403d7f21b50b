/*
 * itest_replace - hbctl replace with the real hb-broker and the test
 * service svc-echo: calls in flight on the old binary and queued in it
 * are all answered, none lost, none twice; replaced again while the old
 * generation drains; draining generations that die or finish in any
 * order are each answered and leave the list.
 *
 * Timing settings are passed small through the broker's environment; the
 * assertions are on behaviour, never on speed (timeouts only bound waits).
 */
#include "../harness/checks.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "sock.h"

/* ---- Replace with calls in flight --------------------------------------- */

/* The next reply must answer one of the forty 300 ms sleeps (request ids
 * 1 to 40) that has not been answered yet: marked in done, its id. */
static int64_t take_sleep_reply(struct hb_client *c, int done[41])
{
	int64_t id;
	int ok;
	char *text = ck_recv_text(c, &id, &ok);

	if (!ok)
		fail_msg("call %lld failed: %s", (long long)id, text);
	assert_string_equal(text, "slept 300 ms");
	free(text);
	assert_true(id >= 1 && id <= 40);
	assert_false(done[id]);
	done[id] = 1;
	return id;
}

static void test_replace_loses_no_call(void **state)
{
	static const char *const env[] = { "HB_HANG_MS=10000", NULL };
	struct fixture *f = *state;
	struct hb_client c;
	int64_t first[20], later[20], id;
	int done[41] = { 0 }, ndone = 0, nlater = 0;
	char exe[1200], *out;
	json_t *reply;
	pid_t old, new_pid;

	ck_start(f, ck_echo_conf, env);
	old = fx_service_pid(f, "svc-echo");
	assert_true(old > 0);
	ck_client(f, &c);
	for (int i = 0; i < 20; i++)
		first[i] = ck_send_call(&c, "sleep", "{\"ms\":300}");
	/* Concurrency 8: eight run, twelve wait in the service's own queue. */
	ck_wait_num(f, "svc-echo", "callsInFlight", 20);
	ck_wait_num(f, "svc-echo", "slotsBusy", 8);
	ck_wait_num(f, "svc-echo", "queuedInService", 12);

	snprintf(exe, sizeof exe, "%s/tests/svc-echo", f->build);
	{
		const char *const args[] = { "replace", "svc-echo", exe, NULL };
		assert_int_equal(fx_hbctl(f, &out, args), 0);
	}
	reply = json_loads(out, 0, NULL);
	if (!reply)
		fail_msg("hbctl replace printed: %s", out);
	free(out);
	assert_int_equal(json_integer_value(json_object_get(reply, "generation")), 2);
	new_pid = (pid_t)json_integer_value(json_object_get(reply, "pid"));
	json_decref(reply);
	assert_true(new_pid > 0);
	assert_int_not_equal(new_pid, old);
	assert_int_equal(fx_service_pid(f, "svc-echo"), new_pid);
	/* The old one is still draining its sleeps; the waiting calls move
	 * to the new one. */
	assert_int_equal(kill(old, 0), 0);

	/* Freeze the old one: the later calls can only be answered by the new. */
	assert_int_equal(kill(old, SIGSTOP), 0);
	for (int i = 0; i < 20; i++)
		later[i] = ck_send_call(&c, "sleep", "{\"ms\":300}");
	while (nlater < 20) {
		id = take_sleep_reply(&c, done);
		ndone++;
		nlater += id >= later[0];
	}
	assert_int_equal(kill(old, SIGCONT), 0);
	while (ndone < 40) {
		take_sleep_reply(&c, done);
		ndone++;
	}
	for (int i = 0; i < 20; i++)
		assert_true(done[first[i]] && done[later[i]]);
	hb_client_close(&c);

	ck_wait_gone(old);
	ck_wait_num(f, "svc-echo", "callsInFlight", 0);
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 2);
	assert_int_equal(fx_service_pid(f, "svc-echo"), new_pid);
	assert_int_equal(fx_service_num(f, "svc-echo", "restarts"), 0);
	assert_int_equal(fx_service_num(f, "svc-echo", "callsServed"), 40);
	ck_svc_str_equal(f, "svc-echo", "lastExit", ""); /* a replace is no crash */
	ck_svc_str_equal(f, "svc-echo", "state", "up");
	ck_finish(f);
}

/* ---- Replace again while the old generation drains ---------------------- */

static void test_double_replace_while_draining(void **state)
{
	struct fixture *f = *state;
	const char *replace[] = { "replace", "svc-echo", NULL, NULL };
	char exe[1100], *out;
	struct hb_client c;
	pid_t first;
	int64_t id;

	id = ck_echo_call_in_flight(f, NULL, &c, "{\"ms\":1000}", &first);
	snprintf(exe, sizeof exe, "%s/tests/svc-echo", f->build);
	replace[2] = exe;
	/* Two replacements while generation 1 still has its call. */
	assert_int_equal(fx_hbctl(f, &out, replace), 0);
	free(out);
	assert_int_equal(fx_hbctl(f, &out, replace), 0);
	assert_non_null(strstr(out, "\"generation\":3"));
	free(out);
	ck_expect_reply(&c, id, 1, "slept 1000 ms");
	hb_client_close(&c);
	ck_wait_num(f, "svc-echo", "callsInFlight", 0);
	ck_wait_gone(first);
	ck_call_ok(f, "echo", "{\"gen\":3}", "{\"gen\":3}");
	ck_finish(f);
}

/* ---- Draining generations end in any order ------------------------------ */

/* Two replaces while a call runs on each older generation: the draining
 * list holds generation 2 (newest) and then 1.  Returns the two calls'
 * request ids and the two pids, oldest first. */
static void two_draining(struct fixture *f, struct hb_client *c, const char *old_args, const char *newer_args,
			 int64_t ids[2], pid_t pids[2])
{
	char exe[1200], *out;
	json_t *st, *drain;
	const char *const args[] = { "replace", "svc-echo", exe, NULL };

	snprintf(exe, sizeof exe, "%s/tests/svc-echo", f->build);
	ids[0] = ck_send_call(c, "sleep", old_args);
	ck_wait_num(f, "svc-echo", "callsInFlight", 1);
	assert_int_equal(fx_hbctl(f, &out, args), 0);
	free(out);
	ids[1] = ck_send_call(c, "sleep", newer_args);
	ck_wait_num(f, "svc-echo", "callsInFlight", 2);
	assert_int_equal(fx_hbctl(f, &out, args), 0);
	free(out);
	st = fx_status(f);
	assert_non_null(st);
	drain = json_object_get(json_array_get(json_object_get(st, "services"), 0), "draining");
	assert_int_equal(json_array_size(drain), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(drain, 0), "generation")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(drain, 1), "generation")), 1);
	pids[0] = (pid_t)json_integer_value(json_object_get(json_array_get(drain, 1), "pid"));
	pids[1] = (pid_t)json_integer_value(json_object_get(json_array_get(drain, 0), "pid"));
	json_decref(st);
	assert_true(pids[0] > 0 && pids[1] > 0);
}

static void wait_draining(struct fixture *f, size_t want)
{
	long long deadline = fx_now_ms() + CK_WAIT_MS;
	size_t got = 0;

	while (fx_now_ms() < deadline) {
		json_t *st = fx_status(f);
		assert_non_null(st);
		got = json_array_size(json_object_get(json_array_get(json_object_get(st, "services"), 0),
						      "draining"));
		json_decref(st);
		if (got == want)
			return;
		fx_sleep_ms(10);
	}
	fail_msg("svc-echo has %zu draining generations, wanted %zu", got, want);
}

static const char killed_text[] = "svc-echo stopped while handling this call (killed by signal 9); "
				  "try the call again";

/* Two draining generations with a call each are killed, first (0: the
 * oldest, 1: the newer) and then the other: each one's call is answered,
 * and neither stays listed (nor gets signalled once gone). */
static void kill_draining_in_order(struct fixture *f, int first)
{
	struct hb_client c;
	int64_t ids[2];
	pid_t pids[2];

	ck_start(f, ck_echo_conf, NULL);
	ck_client(f, &c);
	two_draining(f, &c, "{\"ms\":600000}", "{\"ms\":600000}", ids, pids);
	for (int k = 0; k < 2; k++) {
		int g = k == 0 ? first : 1 - first;
		assert_int_equal(kill(pids[g], SIGKILL), 0);
		ck_expect_reply(&c, ids[g], 0, killed_text);
		wait_draining(f, (size_t)(1 - k));
	}
	hb_client_close(&c);
	ck_call_ok(f, "echo", "{\"gen\":3}", "{\"gen\":3}");
	assert_int_equal(fx_service_num(f, "svc-echo", "restarts"), 0);
	ck_finish(f);
}

static void test_draining_oldest_dies_first(void **state)
{
	kill_draining_in_order(*state, 0);
}

static void test_draining_newest_dies_first(void **state)
{
	kill_draining_in_order(*state, 1);
}

/* The oldest finishes its call first and is stopped as drained (TERM):
 * it must leave the list, or SIGTERM of the broker never ends. */
static void test_draining_oldest_drains_first(void **state)
{
	struct fixture *f = *state;
	struct hb_client c;
	int64_t ids[2];
	pid_t pids[2];

	ck_start(f, ck_echo_conf, NULL);
	ck_client(f, &c);
	two_draining(f, &c, "{\"ms\":1500}", "{\"ms\":600000}", ids, pids);
	ck_expect_reply(&c, ids[0], 1, "slept 1500 ms");
	ck_wait_gone(pids[0]);
	wait_draining(f, 1);
	assert_int_equal(kill(pids[1], SIGKILL), 0);
	ck_expect_reply(&c, ids[1], 0, killed_text);
	wait_draining(f, 0);
	hb_client_close(&c);
	ck_finish(f);
}

/* ---- Programs and routing ids a service could plant ------------------- */

/* A program in the data folder (where svc-sessions and svc-messages write)
 * is never run as a service, even when asked through the front door. */
static void test_replace_refuses_data_folder(void **state)
{
	struct fixture *f = *state;
	char exe[1200], planted[600], cmd[3000], *out = NULL;
	pid_t before;

	ck_start(f, ck_echo_conf, NULL);
	before = fx_service_pid(f, "svc-echo");
	snprintf(exe, sizeof exe, "%s/tests/svc-echo", f->build);
	snprintf(planted, sizeof planted, "%s/data/planted-echo", f->dir);
	snprintf(cmd, sizeof cmd, "mkdir -p '%s/data' && cp '%s' '%s'", f->dir, exe, planted);
	assert_int_equal(system(cmd), 0);
	{
		const char *const args[] = { "replace", "svc-echo", planted, NULL };
		assert_int_not_equal(fx_hbctl(f, &out, args), 0);
	}
	if (!out || !strstr(out, "is in hbcode's data folder, where services write"))
		fail_msg("replace with a program in the data folder printed: %s", out ? out : "(nothing)");
	free(out);
	assert_int_equal(fx_service_pid(f, "svc-echo"), before);
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 1);
	ck_finish(f);
}

/* A process that connects to back.sock first with the routing ids a next
 * generation would have had ("svc-echo#2", its workers and task) does not
 * keep that generation out: the ids carry a random part. */
static void test_squatted_routing_ids(void **state)
{
	struct fixture *f = *state;
	void *ctx = zmq_ctx_new(), *squat[4];
	char ep[700], *out = NULL;
	static const char *const ids[] = { "svc-echo#2", "svc-echo#2.w0", "svc-echo#2.task", "svc-echo#3" };

	ck_start(f, ck_echo_conf, NULL);
	snprintf(ep, sizeof ep, "ipc://%s/run/back.sock", f->dir);
	for (int i = 0; i < 4; i++) {
		assert_non_null(squat[i] = hb_sock_dealer(ctx, ids[i], 0, -1));
		assert_int_equal(zmq_connect(squat[i], ep), 0);
	}
	fx_sleep_ms(200); /* connected before the restart (a squatter would wait) */
	{
		const char *const args[] = { "restart", "svc-echo", NULL };
		if (fx_hbctl(f, &out, args) != 0)
			fail_msg("restart with squatted routing ids failed: %s", out ? out : "(nothing)");
	}
	free(out);
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 2);
	free(fx_call_expect(f, "echo", "{\"text\":\"still\"}", 1, NULL));
	for (int i = 0; i < 4; i++)
		zmq_close(squat[i]);
	zmq_ctx_term(ctx);
	ck_finish(f);
}

/* ---- A call given back for the next generation (renew) ----------------- */

/* svc-echo's first generation gives the call back (hb_call_renew): the
 * broker starts a second and hands it the call, whose caller sees one
 * answer, the second's.  A call given back again by that one is
 * answered with the service's sentence: a call is renewed once. */
static void test_renewed_call_served_by_next(void **state)
{
	static const char conf[] = "[service svc-echo]\n"
				   "exec = @BUILD@/tests/svc-echo\n"
				   "concurrency = 2\n"
				   "tools = echo renew\n";
	struct fixture *f = *state;

	ck_start(f, conf, NULL);
	free(fx_call_expect(f, "renew", "{}", 1, "served by generation 2"));
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 2);
	assert_int_equal(fx_service_num(f, "svc-echo", "restarts"), 0);
	ck_svc_str_equal(f, "svc-echo", "lastExit", ""); /* a renewal is no crash */
	free(fx_call_expect(f, "renew", "{\"always\":true}", 0, "not renewed"));
	assert_int_equal(fx_wait_up(f, "svc-echo", 3, 10000), 0); /* it asked, and was started anew */
	ck_finish(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ck_unit_test(test_replace_loses_no_call),
		ck_unit_test(test_double_replace_while_draining),
		ck_unit_test(test_draining_oldest_dies_first),
		ck_unit_test(test_draining_newest_dies_first),
		ck_unit_test(test_draining_oldest_drains_first),
		ck_unit_test(test_replace_refuses_data_folder),
		ck_unit_test(test_squatted_routing_ids),
		ck_unit_test(test_renewed_call_served_by_next),
	};

	return ck_run_group_tests(tests, NULL, NULL);
}
