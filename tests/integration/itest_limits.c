/*
 * itest_limits - the 8 MiB frame limit of the real hb-broker, at each
 * side of a call: a frame over the limit costs its sender the connection
 * and nobody else anything, one of exactly the limit is refused by the
 * decoder, our own client refuses to send one; arguments that fit the
 * client's frame but not the one the broker forwards get a clear error
 * without costing the service its life; an answer too large for a frame
 * comes back as an error instead of leaving the call in flight for ever,
 * and so does one that fits as text but not once written for the agent.
 */
#include "../harness/checks.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* ---- an oversized frame ------------------------------------------------- */

static void test_oversized_frame(void **state)
{
	struct fixture *fx = *state;
	size_t len = (size_t)HB_MAX_FRAME + 1;
	unsigned char *big = calloc(1, len);
	struct hb_env reply;
	struct ck_raw r, r2;
	json_t *st;

	assert_non_null(big);
	ck_raw_open(&r, fx);
	ck_raw_hello(&r, 1, "before the oversized frame");
	ck_raw_send(&r, big, len, 0);

	/* A new connection is served, with the broker still the same process. */
	ck_raw_open(&r2, fx);
	ck_raw_hello(&r2, 2, "a new connection after the oversized frame");
	ck_raw_close(&r2);
	ck_call_says(fx, "echo", "{\"after\":\"oversized\"}", 1, "{\"after\":\"oversized\"}");
	assert_int_equal(kill(fx->broker, 0), 0);
	assert_int_equal(waitpid(fx->broker, NULL, WNOHANG), 0);
	st = fx_status(fx);
	assert_non_null(st);
	json_decref(st);

	/* A frame of exactly the limit reaches the decoder and is refused there. */
	big[0] = 0x81; /* a map that the noise after it cannot complete */
	ck_raw_open(&r2, fx);
	ck_raw_send(&r2, big, HB_MAX_FRAME, 0);
	ck_raw_recv(&r2, &reply, 10000, "a frame of exactly HB_MAX_FRAME bytes");
	assert_string_equal(hb_env_str_or(&reply, "err.code", ""), "bad-frame");
	hb_env_free(&reply);
	ck_raw_hello(&r2, 3, "after a frame of exactly HB_MAX_FRAME bytes");
	ck_raw_close(&r2);
	ck_raw_close(&r);

	/* Our own client refuses such a frame itself, with a sentence. */
	{
		struct hb_client c;
		struct hb_env req;
		char err[256];
		int64_t id;

		memset(big, 'a', len - 1);
		big[len - 1] = '\0';
		assert_int_equal(fx_client(fx, &c, 5000), 0);
		hb_env_init(&req);
		hb_env_set_str(&req, "op", "call");
		hb_env_set_str(&req, "tool", "echo");
		hb_env_set_str(&req, "json", (const char *)big);
		assert_int_equal(hb_client_send(&c, &req, &id, err, sizeof err), -1);
		assert_non_null(strstr(err, "larger than the 8 MiB a frame may have; nothing was sent"));
		hb_client_close(&c);
	}
	free(big);
}

/* ---- calls whose frames only fit on one side ---------------------------- */

/* Arguments that fit in the client's frame but not in the larger frame the
 * broker forwards (it adds key, session, run, project, agent, access and
 * call_id) must get a clear error, and must not cost the service its life. */
static void test_arguments_too_large_for_service(void **state)
{
	struct fixture *fx = *state;
	size_t n = (size_t)HB_MAX_FRAME - 64;
	long long gen = fx_service_num(fx, "svc-echo", "generation");
	long long restarts = fx_service_num(fx, "svc-echo", "restarts");
	char *json = malloc(n + 1), *text = NULL;
	int ok = -1;

	assert_non_null(json);
	/* A big call that fits both ways works, byte for byte. */
	memset(json, 'x', (size_t)1 << 20);
	memcpy(json, "{\"a\":\"", 6);
	memcpy(json + ((size_t)1 << 20) - 2, "\"}", 3);
	assert_int_equal(fx_call(fx, "echo", json, &ok, &text), 0);
	assert_true(ok);
	assert_int_equal(strlen(text), (size_t)1 << 20);
	assert_string_equal(text, json);
	free(text);

	memset(json, 'x', n);
	memcpy(json, "{\"a\":\"", 6);
	memcpy(json + n - 2, "\"}", 3);
	{
		int answered = fx_call(fx, "echo", json, &ok, &text) == 0;
		int same = ok && text && strcmp(text, json) == 0;
		int restarted = fx_service_num(fx, "svc-echo", "generation") != gen ||
				fx_service_num(fx, "svc-echo", "restarts") != restarts;
		char got[256];

		snprintf(got, sizeof got, "%.200s", text ? text : "");
		free(text);
		free(json);
		if (!answered)
			fail_msg("no answer to a call of %zu argument bytes: %s", n, got);
		if (ok && !same)
			fail_msg("ok, but the echo differs");
		if (restarted)
			fail_msg("svc-echo was restarted by a call of %zu argument bytes; the caller got: %s", n, got);
	}
	assert_int_equal(fx_wait_up(fx, "svc-echo", 0, 10000), 0);
	ck_call_says(fx, "echo", "{\"after\":\"large arguments\"}", 1, "{\"after\":\"large arguments\"}");
}

/* An answer larger than a frame (echo re-encodes 0.1 as 0.10000000000000001,
 * so small arguments give a big answer) must come back as a clear error,
 * not vanish and leave the call in flight for ever. */
static void test_answer_too_large_for_frame(void **state)
{
	struct fixture *fx = *state;
	size_t count = 500000;
	char *json = malloc(count * 4 + 16), *p = json, *dumped;
	struct hb_client c;
	struct hb_env reply;
	json_t *parsed;
	long long deadline;
	int64_t id, got;

	assert_non_null(json);
	p += sprintf(p, "{\"a\":[");
	for (size_t i = 0; i < count; i++)
		p += sprintf(p, i ? ",0.1" : "0.1");
	sprintf(p, "]}");
	/* The premise, checked with the same jansson: the answer is too big. */
	parsed = json_loads(json, 0, NULL);
	assert_non_null(parsed);
	dumped = json_dumps(parsed, JSON_COMPACT);
	assert_non_null(dumped);
	assert_true(strlen(json) < HB_MAX_FRAME / 2);
	assert_true(strlen(dumped) > HB_MAX_FRAME);
	free(dumped);
	json_decref(parsed);

	assert_int_equal(fx_client(fx, &c, 15000), 0);
	id = ck_send_call(&c, "echo", json);
	free(json);
	ck_recv(&c, &reply, 15000, &got);
	assert_int_equal(got, id);
	assert_false(hb_env_bool(&reply, "ok", 1));
	assert_true(strlen(hb_env_str_or(&reply, "text", hb_env_str_or(&reply, "err.msg", ""))) > 0);
	hb_env_free(&reply);
	hb_client_close(&c);
	deadline = fx_now_ms() + 5000;
	for (;;) {
		json_t *st = fx_status(fx);
		long long all = st ? json_integer_value(json_object_get(json_object_get(st, "broker"),
									"callsInFlight")) : -1;
		json_decref(st);
		if (all == 0)
			break;
		if (fx_now_ms() > deadline)
			fail_msg("the broker still counts %lld calls in flight", all);
		fx_sleep_ms(20);
	}
}

/* An answer that fits a frame as text but not once written twice for the
 * agent (as text, and escaped again inside its own answer) must still
 * reach the agent, as a failure that says why: 1.8 million quotes echoed
 * are 3.6 MB of text and 7.2 MB more in the agent's answer. */
static void test_answer_too_large_once_written_for_the_agent(void **state)
{
	struct fixture *fx = *state;
	size_t quotes = 1800000;
	char *args = malloc(quotes * 2 + 16), *p = args, session[64];
	struct hb_client c;
	struct hb_env reply;
	json_t *ans, *content;
	int64_t id, got = -1;

	assert_non_null(args);
	p += sprintf(p, "{\"s\":\"");
	for (size_t i = 0; i < quotes; i++, p += 2)
		memcpy(p, "\\\"", 2);
	strcpy(p, "\"}");
	assert_int_equal(fx_create_session(fx, "Limits Claude", "claude", "/tmp", "full-auto", session, sizeof session),
			 0);
	assert_int_equal(fx_client(fx, &c, 15000), 0);
	assert_int_equal(fx_open_run(&c, "run-limits", session, "/tmp", "claude", "full-auto"), 0);
	id = fx_claude_call(&c, 1, "echo", args);
	free(args);
	ck_recv(&c, &reply, 30000, &got);
	assert_int_equal(got, id);
	assert_false(hb_env_bool(&reply, "ok", 1));
	assert_non_null(strstr(hb_env_str_or(&reply, "text", ""), "too large to pass on to the agent"));
	ans = json_loads(hb_env_str_or(&reply, "json", ""), 0, NULL);
	assert_non_null(ans);
	assert_true(json_is_true(json_object_get(ans, "isError")));
	content = json_array_get(json_object_get(ans, "content"), 0);
	assert_non_null(strstr(json_string_value(json_object_get(content, "text")), "too large to pass on"));
	json_decref(ans);
	hb_env_free(&reply);
	hb_client_close(&c);
	ck_call_says(fx, "echo", "{\"after\":\"a large answer\"}", 1, "{\"after\":\"a large answer\"}");
}

/* Call tool through the Claude door of c's run; want: the text of the
 * tool error it must answer with, or NULL for a call that must succeed. */
static void claude_call_answers(struct hb_client *c, int n, const char *tool, const char *args, const char *want)
{
	struct hb_env reply;
	int64_t id = fx_claude_call(c, n, tool, args), got = -1;
	json_t *ans;

	ck_recv(c, &reply, 30000, &got);
	assert_int_equal(got, id);
	ans = json_loads(hb_env_str_or(&reply, "json", ""), 0, NULL);
	assert_non_null(ans);
	if (want) {
		json_t *content = json_array_get(json_object_get(ans, "content"), 0);

		assert_false(hb_env_bool(&reply, "ok", 1));
		assert_true(json_is_true(json_object_get(ans, "isError")));
		assert_string_equal(json_string_value(json_object_get(content, "text")), want);
	} else {
		assert_true(hb_env_bool(&reply, "ok", 0));
		assert_false(json_is_true(json_object_get(ans, "isError")));
	}
	json_decref(ans);
	hb_env_free(&reply);
}

/* The Claude door refuses a call for a tool no service serves, and one
 * whose arguments are over the limit, with a tool error that says which,
 * and goes on serving the run. */
static void test_claude_door_refusals(void **state)
{
	struct fixture *fx = *state;
	size_t n = (size_t)HB_MAX_PAYLOAD + 16;
	char *args = malloc(n + 1), session[64], want[160];
	struct hb_client c;

	assert_non_null(args);
	memset(args, 'x', n);
	memcpy(args, "{\"a\":\"", 6);
	memcpy(args + n - 2, "\"}", 3);
	snprintf(want, sizeof want, "the arguments are %zu bytes; at most %u are accepted", n, HB_MAX_PAYLOAD);
	assert_int_equal(fx_create_session(fx, "Refusals Claude", "claude", "/tmp", "full-auto", session, sizeof session),
			 0);
	assert_int_equal(fx_client(fx, &c, 15000), 0);
	assert_int_equal(fx_open_run(&c, "run-refusals", session, "/tmp", "claude", "full-auto"), 0);
	claude_call_answers(&c, 1, "no_such_tool", "{}",
			    "unknown tool \"no_such_tool\": no service of this broker serves it");
	claude_call_answers(&c, 2, "echo", args, want);
	claude_call_answers(&c, 3, "echo", "{\"after\":\"refusals\"}", NULL);
	free(args);
	hb_client_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oversized_frame),
		cmocka_unit_test(test_arguments_too_large_for_service),
		cmocka_unit_test(test_answer_too_large_for_frame),
		cmocka_unit_test(test_answer_too_large_once_written_for_the_agent),
		cmocka_unit_test(test_claude_door_refusals),
	};

	return ck_run_group_tests(tests, ck_setup_front_broker, ck_teardown_front_broker);
}
