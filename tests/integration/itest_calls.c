/*
 * itest_calls - calls through the real hb-broker's front socket: a slow
 * call never holds up the next on the same connection, pipelined calls
 * fill the service's workers, subcalls from one service to another (and
 * never to an internal tool), cancel by the key read from the events
 * socket (answered at once, and no second answer after it), and
 * arguments that are not a JSON object refused by name.
 *
 * The broker runs svc-echo (four workers) and svc-sessions as deployed.
 * Assertions are about order and content, never about speed; the only
 * time bounds are generous "it never came" limits.
 */
#include "../harness/checks.h"

#include <stdio.h>
#include <string.h>

/* ---- a slow call never blocks the next ---------------------------------- */

static void test_slow_call_does_not_block(void **state)
{
	struct fixture *fx = *state;
	struct hb_client c;
	struct hb_env reply;
	int64_t sleep_id, echo_id, got;

	assert_int_equal(fx_client(fx, &c, 10000), 0);
	sleep_id = ck_send_call(&c, "sleep", "{\"ms\":2000}");
	echo_id = ck_send_call(&c, "echo", "{\"quick\":1}");

	ck_recv(&c, &reply, 10000, &got);
	if (got != echo_id)
		fail_msg("the first reply is for id %lld (sleep is %lld): the echo waited for the sleep",
			 (long long)got, (long long)sleep_id);
	assert_true(hb_env_bool(&reply, "ok", 0));
	assert_string_equal(hb_env_str_or(&reply, "text", ""), "{\"quick\":1}");
	hb_env_free(&reply);

	ck_recv(&c, &reply, 10000, &got);
	assert_int_equal(got, sleep_id);
	assert_true(hb_env_bool(&reply, "ok", 0));
	assert_string_equal(hb_env_str_or(&reply, "text", ""), "slept 2000 ms");
	hb_env_free(&reply);
	hb_client_close(&c);
}

/* ---- several calls at once on one service ------------------------------- */

static void test_pipelined_calls(void **state)
{
	struct fixture *fx = *state;
	long long before = fx_service_num(fx, "svc-echo", "callsServed"), after;
	struct hb_client c;
	int64_t ids[4];
	int seen[4] = { 0 };

	assert_int_equal(fx_client(fx, &c, 10000), 0);
	for (int i = 0; i < 4; i++)
		ids[i] = ck_send_call(&c, "sleep", "{\"ms\":300}");
	for (int i = 0; i < 4; i++) {
		struct hb_env reply;
		int64_t got;
		int j;

		ck_recv(&c, &reply, 10000, &got);
		for (j = 0; j < 4 && ids[j] != got; j++)
			;
		if (j == 4 || seen[j])
			fail_msg("a reply for unexpected id %lld", (long long)got);
		seen[j] = 1;
		if (!hb_env_bool(&reply, "ok", 0))
			fail_msg("sleep %d failed: %s", j, hb_env_str_or(&reply, "text", "?"));
		assert_string_equal(hb_env_str_or(&reply, "text", ""), "slept 300 ms");
		assert_true(hb_env_str_or(&reply, "key", "")[0] == 'c');
		hb_env_free(&reply);
	}
	hb_client_close(&c);
	after = fx_service_num(fx, "svc-echo", "callsServed");
	assert_int_equal(after, before + 4);
}

/* ---- subcalls ------------------------------------------------------------- */

static void test_subcall(void **state)
{
	struct fixture *fx = *state;

	ck_call_says(fx, "subcall", "{\"tool\":\"echo\",\"json\":\"{\\\"x\\\":1}\"}", 1,
			 "subcall answered: {\"x\":1}");
	ck_call_says(fx, "subcall", "{\"tool\":\"no_such_tool\",\"json\":\"{}\"}", 0, "subcall failed: ");
	ck_call_says(fx, "subcall", "{\"tool\":\"no_such_tool\",\"json\":\"{}\"}", 0, "no service");
	/* Internal tools are not reachable from a service either. */
	ck_call_says(fx, "subcall", "{\"tool\":\"_resolve_thread\",\"json\":\"{\\\"threadId\\\":\\\"t\\\"}\"}", 0,
			 "no service");
	/* A subcall to another family: svc-sessions answers through the broker. */
	ck_call_says(fx, "subcall", "{\"tool\":\"maintain_sessions\",\"json\":\"{\\\"action\\\":\\\"bogus\\\"}\"}", 0,
			 "subcall failed: ");
	ck_call_says(fx, "subcall", "{\"tool\":\"echo\"}", 0, "json");
}

/* ---- cancel ----------------------------------------------------------------- */

static void test_cancel(void **state)
{
	struct fixture *fx = *state;
	struct hb_client c;
	struct hb_env req, reply;
	struct ck_sub s;
	int64_t call_id, cancel_id, got;
	char key[64], err[256];
	int have_call = 0, have_cancel = 0;
	long long deadline;
	json_t *ev;

	ck_sub_open(&s, fx, "call.");
	ck_sub_warm(&s, fx);
	assert_int_equal(fx_client(fx, &c, 10000), 0);
	call_id = ck_send_call(&c, "sleep", "{\"ms\":10000}");
	ev = ck_sub_wait(&s, "call.start", "tool", "sleep", 5000);
	snprintf(key, sizeof key, "%s", fx_jstr(ev, "key"));
	assert_true(key[0] != '\0');
	json_decref(ev);

	hb_env_init(&req);
	hb_env_set_str(&req, "op", "cancel");
	hb_env_set_str(&req, "key", key);
	assert_int_equal(hb_client_send(&c, &req, &cancel_id, err, sizeof err), 0);
	/* Both answers well before the 10 s sleep could have ended. */
	for (int i = 0; i < 2; i++) {
		ck_recv(&c, &reply, 5000, &got);
		if (got == call_id) {
			have_call = 1;
			assert_false(hb_env_bool(&reply, "ok", 1));
			assert_string_equal(hb_env_str_or(&reply, "text", ""), "Run stopped.");
			assert_string_equal(hb_env_str_or(&reply, "key", ""), key);
		} else if (got == cancel_id) {
			have_cancel = 1;
			if (!hb_env_bool(&reply, "ok", 0))
				fail_msg("cancel refused: %s", hb_env_str_or(&reply, "err.msg", "?"));
		} else {
			fail_msg("a reply for unexpected id %lld", (long long)got);
		}
		hb_env_free(&reply);
	}
	assert_true(have_call && have_cancel);
	ev = ck_sub_wait(&s, "call.end", "key", key, 5000);
	assert_true(json_is_false(json_object_get(ev, "ok")));
	json_decref(ev);

	/* The service's handler stops, and its late result is not a second answer. */
	deadline = fx_now_ms() + 5000;
	for (;;) {
		json_t *st = fx_status(fx), *svc = st ? fx_find_service(st, "svc-echo") : NULL;
		long long svc_inflight = svc ? json_integer_value(json_object_get(svc, "callsInFlight")) : -1;
		long long all = st ? json_integer_value(json_object_get(json_object_get(st, "broker"),
									"callsInFlight")) : -1;
		json_decref(st);
		if (svc_inflight == 0 && all == 0)
			break;
		if (fx_now_ms() > deadline)
			fail_msg("callsInFlight stays at %lld (broker %lld) after the cancel", svc_inflight, all);
		fx_sleep_ms(20);
	}
	if (hb_client_recv(&c, &reply, 300, err, sizeof err) == 0)
		fail_msg("a second answer after the cancel: id %lld text %s",
			 (long long)(hb_env_int(&reply, "id", &got) == 0 ? got : -1), hb_env_str_or(&reply, "text", ""));

	/* A key that is not in flight (this one, now) is refused by name. */
	hb_env_init(&req);
	hb_env_set_str(&req, "op", "cancel");
	hb_env_set_str(&req, "key", key);
	assert_int_equal(hb_client_request(&c, &req, &reply, err, sizeof err), 0);
	assert_false(hb_env_bool(&reply, "ok", 1));
	assert_string_equal(hb_env_str_or(&reply, "err.code", ""), "unknown-call");
	hb_env_free(&reply);
	hb_client_close(&c);
	ck_sub_close(&s);
	/* The service still works. */
	ck_call_says(fx, "echo", "{\"after\":\"cancel\"}", 1, "{\"after\":\"cancel\"}");
}

/* A cancelled call's subcalls are cancelled too (svc-explainer's
 * narrations must stop with its call): the sleeping subcall ends long
 * before its 10 s, and every call of the service is over. */
static void test_cancel_reaches_subcalls(void **state)
{
	struct fixture *fx = *state;
	struct hb_client c;
	struct hb_env req, reply;
	struct ck_sub s;
	char parent[64], child[64], err[256];
	long long deadline;
	int64_t call_id, cancel_id, got;
	json_t *ev;

	ck_sub_open(&s, fx, "call.");
	ck_sub_warm(&s, fx);
	assert_int_equal(fx_client(fx, &c, 10000), 0);
	call_id = ck_send_call(&c, "subcall", "{\"tool\":\"sleep\",\"json\":\"{\\\"ms\\\":10000}\"}");
	ev = ck_sub_wait(&s, "call.start", "tool", "subcall", 5000);
	snprintf(parent, sizeof parent, "%s", fx_jstr(ev, "key"));
	json_decref(ev);
	ev = ck_sub_wait(&s, "call.start", "tool", "sleep", 5000);
	snprintf(child, sizeof child, "%s", fx_jstr(ev, "key"));
	json_decref(ev);
	assert_true(parent[0] && child[0]);

	hb_env_init(&req);
	hb_env_set_str(&req, "op", "cancel");
	hb_env_set_str(&req, "key", parent);
	assert_int_equal(hb_client_send(&c, &req, &cancel_id, err, sizeof err), 0);
	for (int i = 0; i < 2; i++) {
		ck_recv(&c, &reply, 5000, &got);
		if (got == call_id)
			assert_string_equal(hb_env_str_or(&reply, "text", ""), "Run stopped.");
		else if (got != cancel_id)
			fail_msg("a reply for unexpected id %lld", (long long)got);
		hb_env_free(&reply);
	}
	ev = ck_sub_wait(&s, "call.end", "key", child, 5000);
	assert_true(json_is_false(json_object_get(ev, "ok")));
	json_decref(ev);
	deadline = fx_now_ms() + 5000;
	for (;;) {
		json_t *st = fx_status(fx), *svc = st ? fx_find_service(st, "svc-echo") : NULL;
		long long inflight = svc ? json_integer_value(json_object_get(svc, "callsInFlight")) : -1;
		json_decref(st);
		if (inflight == 0)
			break;
		if (fx_now_ms() > deadline)
			fail_msg("svc-echo still runs %lld calls: the subcall was not cancelled", inflight);
		fx_sleep_ms(20);
	}
	hb_client_close(&c);
	ck_sub_close(&s);
}

/* ---- arguments that are not a JSON object --------------------------------- */

static void test_non_object_arguments(void **state)
{
	struct fixture *fx = *state;

	ck_call_says(fx, "echo", "[1]", 0, "arguments must be a JSON object");
	ck_call_says(fx, "echo", "nope", 0, "not valid JSON");
	/* jansson refuses a bare JSON string as "not valid JSON"; either way refused. */
	ck_call_says(fx, "echo", "\"text\"", 0, "arguments ");
	ck_call_says(fx, "echo", "", 0, "not valid JSON");
	ck_call_says(fx, "echo", "{\"a\":1,\"a\":2}", 0, "not valid JSON");
	ck_call_says(fx, "maintain_sessions", "[1]", 0, "arguments must be a JSON object");
	/* Arguments never choose the tool: an object is answered normally. */
	ck_call_says(fx, "echo", "{}", 1, "{}");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slow_call_does_not_block),
		cmocka_unit_test(test_pipelined_calls),
		cmocka_unit_test(test_subcall),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_cancel_reaches_subcalls),
		cmocka_unit_test(test_non_object_arguments),
	};

	return ck_run_group_tests(tests, ck_setup_front_broker, ck_teardown_front_broker);
}
