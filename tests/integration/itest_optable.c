/*
 * itest_optable - the tables of ops and their fields, as the real broker
 * applies them: on the front socket a request with a field missing or of
 * the wrong type is answered bad-frame naming the field, with the
 * request's id; on the back socket a service's frame like that is logged
 * with the service's name and dropped.  After every one the broker keeps
 * serving.  Fields no table names are allowed.
 *
 * The service that sends bad frames is this program itself: the broker
 * starts it with the argument "raw-service" (see raw_service), so it can
 * speak the back protocol by hand, which svc-echo, built on the service
 * library, never gets wrong.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "client.h"
#include "envelope.h"
#include "../harness/group.h"
#include "../harness/harness.h"
#include "sock.h"

static const char config[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 2\n"
	"tools = echo\n"
	"\n"
	"[service svc-raw]\n"
	"exec = @BUILD@/tests/itest_optable\n"
	"args = raw-service\n"
	"concurrency = 1\n"
	"tools = raw_result\n";

static struct fixture fx;

/* ---- the raw service: this program, started by the broker ------------ */

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int send_or_say(void *s, const struct hb_env *e, const char *what)
{
	if (hb_send_env(s, NULL, e) == 0)
		return 0;
	fprintf(stderr, "raw-service: cannot send %s: %s\n", what, zmq_strerror(errno));
	return -1;
}

/* A session message to carry, without the recipientAgent that says which
 * agent the broker would start for it: the broker must drop it on its
 * row, before any handler reads it. */
static void deliver_without_agent(void *s)
{
	struct hb_env e;

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "deliver");
	hb_env_set_str(&e, "opId", "optable-deliver");
	hb_env_set_str(&e, "session", "optable-session");
	hb_env_set_str(&e, "text", "a message whose agent is not named");
	hb_env_set_str(&e, "recipientLink", "");
	send_or_say(s, &e, "the deliver without its recipientAgent");
}

/* Every call is answered three times: without its key, with its ok as a
 * string, and right.  The broker must drop the first two (the second,
 * taken, would end the call with its text) and pass on the third.  A
 * deliver without its recipientAgent goes before them. */
static void answer_call(void *s, const char *key)
{
	struct hb_env e;

	deliver_without_agent(s);

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "result");
	hb_env_set_bool(&e, "ok", 1);
	hb_env_set_str(&e, "text", "an answer without its key");
	send_or_say(s, &e, "the keyless result");

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "result");
	hb_env_set_str(&e, "key", key);
	hb_env_set_str(&e, "ok", "yes");
	hb_env_set_str(&e, "text", "an answer whose ok is a string");
	send_or_say(s, &e, "the mistyped result");

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "result");
	hb_env_set_str(&e, "key", key);
	hb_env_set_bool(&e, "ok", 1);
	hb_env_set_str(&e, "text", "the real answer");
	send_or_say(s, &e, "the result");
}

static void announce(void *s)
{
	struct hb_env e;

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "ready");
	hb_env_set_str(&e, "service", "svc-raw");
	hb_env_set_int(&e, "pid", getpid());
	hb_env_set_str(&e, "version", "test");
	hb_env_set_str(&e, "tools", "raw_result");
	hb_env_set_int(&e, "concurrency", 1);
	send_or_say(s, &e, "ready");
	/* Its one socket is also its one worker: calls come to it. */
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "worker");
	hb_env_set_int(&e, "slots", 1);
	send_or_say(s, &e, "worker");
}

/* Read what the broker sent: calls are answered, anything else ignored. */
static void take_calls(void *s)
{
	for (;;) {
		struct hb_env in;
		char err[256];
		int rc = hb_recv_env(s, &in, err, sizeof err);

		if (rc < 0)
			return;
		if (rc == 0) {
			fprintf(stderr, "raw-service: bad frame from the broker: %s\n", err);
			continue;
		}
		if (strcmp(hb_env_str(&in, "op"), "call") == 0 && hb_env_str(&in, "key"))
			answer_call(s, hb_env_str(&in, "key"));
		hb_env_free(&in);
	}
}

/* Beats as the broker asks, and ends with the broker (or at its TERM). */
static int raw_service(void)
{
	const char *id = getenv("HB_SERVICE_ID"), *ep = getenv("HB_BACK_ENDPOINT");
	const char *beat = getenv("HB_HEARTBEAT_MS"), *broker = getenv("HB_BROKER_PID");
	long beat_ms = beat ? strtol(beat, NULL, 10) : 1000;
	pid_t parent = broker ? (pid_t)strtol(broker, NULL, 10) : getppid();
	void *ctx = zmq_ctx_new(), *s;
	long long next_beat;

	if (!id || !ep || !ctx) {
		fprintf(stderr, "raw-service: HB_SERVICE_ID and HB_BACK_ENDPOINT are set by hb-broker\n");
		return 2;
	}
	if (beat_ms < 10)
		beat_ms = 1000;
	if (!(s = hb_sock_dealer(ctx, id, 0, -1)) || zmq_connect(s, ep) < 0) {
		fprintf(stderr, "raw-service: cannot connect to %s: %s\n", ep, zmq_strerror(errno));
		return 1;
	}
	announce(s);
	next_beat = now_ms() + beat_ms;
	while (getppid() == parent) {
		zmq_pollitem_t item = { s, 0, ZMQ_POLLIN, 0 };
		long long left = next_beat - now_ms();

		if (zmq_poll(&item, 1, left > 0 ? (long)left : 0) < 0 && errno != EINTR)
			break;
		if (now_ms() >= next_beat) {
			struct hb_env e;
			hb_env_init(&e);
			hb_env_set_str(&e, "op", "heartbeat");
			send_or_say(s, &e, "heartbeat");
			next_beat = now_ms() + beat_ms;
		}
		take_calls(s);
	}
	zmq_close(s);
	zmq_ctx_term(ctx);
	return 0;
}

/* ---- the front socket --------------------------------------------------- */

static void client(struct hb_client *c)
{
	assert_int_equal(fx_client(&fx, c, 10000), 0);
}

/* A hello on c must be answered ok: the broker still serves. */
static void expect_hello(struct hb_client *c, const char *after)
{
	struct hb_env req, reply;
	char err[256];

	hb_env_init(&req);
	hb_env_set_str(&req, "op", "hello");
	if (hb_client_request(c, &req, &reply, err, sizeof err) < 0)
		fail_msg("hello after %s: %s", after, err);
	if (!hb_env_bool(&reply, "ok", 0))
		fail_msg("hello after %s refused: %s", after, hb_env_str_or(&reply, "err.msg", "?"));
	hb_env_free(&reply);
}

/* req on c must be answered bad-frame with exactly want, and with the
 * request's own id (so a client knows which request was wrong). */
static void expect_bad_frame(struct hb_client *c, struct hb_env *req, const char *want)
{
	struct hb_env reply;
	char err[256];
	int64_t id, got = -1;

	if (hb_client_send(c, req, &id, err, sizeof err) < 0)
		fail_msg("send: %s", err);
	if (hb_client_recv(c, &reply, 10000, err, sizeof err) < 0)
		fail_msg("no answer to a request that should get \"%s\": %s", want, err);
	assert_false(hb_env_bool(&reply, "ok", 1));
	assert_string_equal(hb_env_str_or(&reply, "err.code", ""), "bad-frame");
	assert_string_equal(hb_env_str_or(&reply, "err.msg", ""), want);
	assert_int_equal(hb_env_int(&reply, "id", &got), 0);
	assert_int_equal(got, id);
	hb_env_free(&reply);
	expect_hello(c, want);
}

static void test_front_fields_checked(void **state)
{
	struct hb_client c;
	struct hb_env e;
	char *text;

	(void)state;
	client(&c);

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "call");
	hb_env_set_str(&e, "json", "{}");
	expect_bad_frame(&c, &e, "call: field \"tool\" is missing");

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "call");
	hb_env_set_int(&e, "tool", 42);
	hb_env_set_str(&e, "json", "{}");
	expect_bad_frame(&c, &e, "call: field \"tool\" must be a string, not an integer");

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "run.open");
	hb_env_set_str(&e, "run", "run-optable");
	hb_env_set_str(&e, "project", "/tmp");
	hb_env_set_str(&e, "agent", "codex");
	hb_env_set_str(&e, "access", "full-auto");
	expect_bad_frame(&c, &e, "run.open: field \"session\" is missing");

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "approval.resolve");
	hb_env_set_str(&e, "approval", "a1");
	hb_env_set_bool(&e, "decision", 1);
	expect_bad_frame(&c, &e, "approval.resolve: field \"decision\" must be a string, not a boolean");

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "service.restart");
	expect_bad_frame(&c, &e, "service.restart: field \"service\" is missing");

	/* The bridges' ops: the agent of an attach is required, and the
	 * status of a deliver.done, optional, is a string when it is there. */
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "session.attach");
	hb_env_set_str(&e, "session", "optable-session");
	expect_bad_frame(&c, &e, "session.attach: field \"agent\" is missing");

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "deliver.done");
	hb_env_set_str(&e, "opId", "optable-deliver");
	hb_env_set_bool(&e, "ok", 0);
	hb_env_set_int(&e, "status", 3);
	expect_bad_frame(&c, &e, "deliver.done: field \"status\" must be a string, not an integer");

	/* An optional field is checked too when it is there. */
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "call");
	hb_env_set_str(&e, "tool", "echo");
	hb_env_set_bool(&e, "json", 0);
	expect_bad_frame(&c, &e, "call: field \"json\" must be a string, not a boolean");
	hb_client_close(&c);

	/* Each was logged, and calls still go through. */
	text = fx_read_text(fx.log);
	if (!strstr(text, "bad frame from client ") || !strstr(text, ": service.restart: field \"service\" is missing"))
		fail_msg("the refused requests are not in the broker's log:\n%s", text);
	free(text);
	text = fx_call_expect(&fx, "echo", "{\"after\":\"bad fields\"}", 1, "{\"after\":\"bad fields\"}");
	assert_non_null(text);
	free(text);
}

/* The request id must be a string or an integer; one of another type
 * cannot be echoed, so that answer has none. */
static void test_front_request_id_type(void **state)
{
	struct hb_client c;
	struct hb_env e, reply;
	char err[256];

	(void)state;
	client(&c);
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "hello");
	hb_env_set_bool(&e, "id", 1);
	/* Straight on the client's socket: hb_client_send would set the id. */
	assert_int_equal(hb_send_env(c.sock, NULL, &e), 0);
	if (hb_client_recv(&c, &reply, 10000, err, sizeof err) < 0)
		fail_msg("no answer to a hello with a boolean id: %s", err);
	assert_false(hb_env_bool(&reply, "ok", 1));
	assert_string_equal(hb_env_str_or(&reply, "err.code", ""), "bad-frame");
	assert_string_equal(hb_env_str_or(&reply, "err.msg", ""),
			    "hello: field \"id\" must be a string or an integer, not a boolean");
	assert_null(hb_env_get(&reply, "id"));
	hb_env_free(&reply);
	expect_hello(&c, "a boolean id");
	hb_client_close(&c);
}

/* Fields that no table names pass: a newer client may send more. */
static void test_front_extra_fields_allowed(void **state)
{
	struct hb_client c;
	struct hb_env e, reply;
	char err[256];

	(void)state;
	client(&c);
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "call");
	hb_env_set_str(&e, "tool", "echo");
	hb_env_set_str(&e, "json", "{\"n\":1}");
	hb_env_set_str(&e, "futureField", "from a newer client");
	hb_env_set_int(&e, "futureCount", 3);
	hb_env_set_str(&e, "future.member", "a nested map");
	assert_int_equal(hb_client_request(&c, &e, &reply, err, sizeof err), 0);
	if (!hb_env_bool(&reply, "ok", 0))
		fail_msg("a call with extra fields was refused: %s", hb_env_str_or(&reply, "err.msg", "?"));
	assert_string_equal(hb_env_str_or(&reply, "text", ""), "{\"n\":1}");
	hb_env_free(&reply);
	hb_client_close(&c);
}

/* ---- the back socket ---------------------------------------------------- */

static void test_back_bad_result_dropped(void **state)
{
	char *text, *log;

	(void)state;
	/* Twice: the first answer frees the service's one worker slot only
	 * if the broker took the right result, not a dropped one. */
	for (int round = 0; round < 2; round++) {
		text = fx_call_expect(&fx, "raw_result", "{}", 1, "the real answer");
		assert_non_null(text);
		assert_string_equal(text, "the real answer");
		free(text);
	}
	log = fx_read_text(fx.log);
	/* Logged before the right result was read: the same socket, in order. */
	if (!strstr(log, "back: bad frame from svc-raw#1: result: field \"key\" is missing") ||
	    !strstr(log, "back: bad frame from svc-raw#1: result: field \"ok\" must be a boolean, not a string") ||
	    !strstr(log, "back: bad frame from svc-raw#1: deliver: field \"recipientAgent\" is missing"))
		fail_msg("the dropped results are not in the broker's log:\n%s", log);
	free(log);
	text = fx_call_expect(&fx, "echo", "{\"after\":\"bad results\"}", 1, "{\"after\":\"bad results\"}");
	assert_non_null(text);
	free(text);
}

static int setup(void **state)
{
	(void)state;
	return fx_start(&fx, config, NULL);
}

static int teardown(void **state)
{
	(void)state;
	return fx_stop_clean(&fx);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_front_fields_checked),
		cmocka_unit_test(test_front_request_id_type),
		cmocka_unit_test(test_front_extra_fields_allowed),
		cmocka_unit_test(test_back_bad_result_dropped),
	};

	if (argc == 2 && strcmp(argv[1], "raw-service") == 0)
		return raw_service();
	return ck_run_group_tests(tests, setup, teardown);
}
