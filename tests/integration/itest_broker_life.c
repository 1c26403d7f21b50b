/*
 * itest_broker_life - the broker process itself, real hb-broker with the
 * test service svc-echo: a second broker on the same folder refuses to
 * start and leaves the first untouched; SIGTERM with a call in flight
 * answers the call, stops the services and removes the sockets and the
 * lock; a foreign process cannot pose as a service on the back socket.
 *
 * Timing settings are passed small through the broker's environment; the
 * assertions are on behaviour, never on speed (timeouts only bound waits).
 */
#include "../harness/checks.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <zmq.h>

#include "sock.h"

/* ---- A second broker refuses ------------------------------------------- */

static void test_second_broker_refuses(void **state)
{
	struct fixture *f = *state;
	char log2[1200], want[128];
	pid_t second;
	json_t *st;
	int status;

	ck_start(f, ck_echo_conf, NULL);
	second = fx_spawn_broker(f, NULL, "broker2.log");
	assert_true(second > 0);
	status = ck_wait_exit(second);
	assert_true(WIFEXITED(status));
	assert_int_not_equal(WEXITSTATUS(status), 0);
	snprintf(log2, sizeof log2, "%s/broker2.log", f->dir);
	snprintf(want, sizeof want, "another hb-broker (pid %ld) is already running", (long)f->broker);
	if (!ck_file_has(log2, want)) {
		char *text = fx_read_text(log2);
		fail_msg("second broker log lacks \"%s\":\n%s", want, text);
	}
	/* The first one is untouched. */
	ck_call_ok(f, "echo", "{\"still\":1}", "{\"still\":1}");
	st = fx_status(f);
	assert_non_null(st);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(st, "broker"), "pid")), f->broker);
	json_decref(st);
	assert_true(ck_exists(f->dir, "run/front.sock"));
	ck_finish(f);
}

/* ---- SIGTERM with a call in flight ------------------------------------- */

static void test_sigterm_with_call_in_flight(void **state)
{
	static const char *const env[] = { "HB_SHUTDOWN_GRACE_MS=300", NULL };
	struct fixture *f = *state;
	struct hb_client c;
	int64_t id;
	pid_t svc;
	int status;

	id = ck_echo_call_in_flight(f, env, &c, "{\"ms\":5000}", &svc);
	assert_int_equal(kill(f->broker, SIGTERM), 0);

	ck_expect_reply(&c, id, 0, "hb-broker stopped before this call finished; try the call again");
	hb_client_close(&c);

	status = ck_wait_exit(f->broker);
	f->broker = 0; /* reaped here; fx_stop only cleans up */
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_false(ck_exists(f->dir, "run/front.sock"));
	assert_false(ck_exists(f->dir, "run/back.sock"));
	assert_false(ck_exists(f->dir, "run/events.sock"));
	assert_false(ck_exists(f->dir, "run/hb-broker.lock"));
	assert_int_equal(kill(svc, 0), -1);
	assert_int_equal(errno, ESRCH);
	ck_finish(f);
}

/* ---- A foreign process cannot pose as a service ------------------------- */

static void *impostor(void *ctx, struct fixture *f, const char *identity)
{
	char ep[400];
	void *s = hb_sock_dealer(ctx, identity, 0, 2000);

	assert_non_null(s);
	snprintf(ep, sizeof ep, "ipc://%s/run/back.sock", f->dir);
	assert_int_equal(zmq_connect(s, ep), 0);
	return s;
}

static void pose(void *s, pid_t claimed_pid, const char *key)
{
	struct hb_env e;

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "ready");
	hb_env_set_str(&e, "service", "svc-echo");
	hb_env_set_int(&e, "pid", claimed_pid);
	hb_env_set_str(&e, "version", "0.1.0");
	hb_env_set_str(&e, "tools", "echo,sleep,subcall,progress,exit");
	assert_int_equal(hb_send_env(s, NULL, &e), 0);
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "heartbeat");
	assert_int_equal(hb_send_env(s, NULL, &e), 0);
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "result");
	hb_env_set_str(&e, "key", key);
	hb_env_set_bool(&e, "ok", 1);
	hb_env_set_str(&e, "text", "forged");
	assert_int_equal(hb_send_env(s, NULL, &e), 0);
}

static void test_foreign_ready_refused(void **state)
{
	struct fixture *f = *state;
	struct hb_client c;
	void *ctx, *fake9, *fake1;
	int64_t id;
	pid_t pid;

	id = ck_echo_call_in_flight(f, NULL, &c, "{\"ms\":1000}", &pid); /* the broker's first call: key c1 */

	assert_non_null(ctx = zmq_ctx_new());
	fake9 = impostor(ctx, f, "svc-echo#9");
	fake1 = impostor(ctx, f, "svc-echo#1"); /* the real instance's identity */
	pose(fake9, pid, "c1");
	pose(fake1, pid, "c1");
	ck_wait_log(f, "refused ready from svc-echo#9");
	ck_wait_log(f, "result from svc-echo#9");

	/* The real answer, not the forged one. */
	ck_expect_reply(&c, id, 1, "slept 1000 ms");
	hb_client_close(&c);

	/* Calls still reach the real instance, never an impostor. */
	ck_call_ok(f, "echo", "{\"real\":1}", "{\"real\":1}");
	ck_call_ok(f, "echo", "{\"real\":2}", "{\"real\":2}");
	{
		zmq_pollitem_t items[2] = { { fake9, 0, ZMQ_POLLIN, 0 }, { fake1, 0, ZMQ_POLLIN, 0 } };
		assert_int_equal(zmq_poll(items, 2, 100), 0);
	}
	assert_int_equal(fx_service_pid(f, "svc-echo"), pid);
	assert_int_equal(fx_service_num(f, "svc-echo", "generation"), 1);
	assert_int_equal(fx_service_num(f, "svc-echo", "restarts"), 0);
	assert_int_equal(fx_service_num(f, "svc-echo", "callsServed"), 3);
	zmq_close(fake9);
	zmq_close(fake1);
	zmq_ctx_term(ctx);
	ck_finish(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ck_unit_test(test_second_broker_refuses),
		ck_unit_test(test_sigterm_with_call_in_flight),
		ck_unit_test(test_foreign_ready_refused),
	};

	return ck_run_group_tests(tests, NULL, NULL);
}
