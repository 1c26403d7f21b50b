/*
 * itest_events - the real hb-broker's events socket: call.start, call.end
 * and call.progress with the key of the call's reply, and service.down
 * (naming the signal) then service.up with a new pid and generation when
 * svc-echo is killed.
 */
#include "../harness/checks.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

static void test_events(void **state)
{
	struct fixture *fx = *state;
	struct hb_client c;
	struct hb_env reply;
	struct ck_sub s;
	int64_t id, got;
	char key[64];
	json_t *ev;
	pid_t old;
	long long gen;

	ck_sub_open(&s, fx, "");
	ck_sub_warm(&s, fx);

	/* call.start and call.end for an echo, with the reply's key. */
	assert_int_equal(fx_client(fx, &c, 10000), 0);
	id = ck_send_call(&c, "echo", "{\"event\":\"test\"}");
	ck_recv(&c, &reply, 10000, &got);
	assert_int_equal(got, id);
	assert_true(hb_env_bool(&reply, "ok", 0));
	snprintf(key, sizeof key, "%s", hb_env_str_or(&reply, "key", ""));
	hb_env_free(&reply);
	assert_true(key[0] != '\0');
	ev = ck_sub_wait(&s, "call.start", "key", key, 5000);
	assert_string_equal(fx_jstr(ev, "tool"), "echo");
	assert_string_equal(fx_jstr(ev, "service"), "svc-echo");
	json_decref(ev);
	ev = ck_sub_wait(&s, "call.end", "key", key, 5000);
	assert_string_equal(fx_jstr(ev, "tool"), "echo");
	assert_true(json_is_true(json_object_get(ev, "ok")));
	assert_true(json_is_integer(json_object_get(ev, "durationMs")));
	assert_true(json_integer_value(json_object_get(ev, "durationMs")) >= 0);
	assert_true(json_is_integer(json_object_get(ev, "time")));
	json_decref(ev);

	/* call.progress with the text. */
	id = ck_send_call(&c, "progress", "{\"text\":\"half way there\"}");
	ck_recv(&c, &reply, 10000, &got);
	assert_int_equal(got, id);
	assert_true(hb_env_bool(&reply, "ok", 0));
	snprintf(key, sizeof key, "%s", hb_env_str_or(&reply, "key", ""));
	hb_env_free(&reply);
	ev = ck_sub_wait(&s, "call.progress", "key", key, 5000);
	assert_string_equal(fx_jstr(ev, "text"), "half way there");
	assert_string_equal(fx_jstr(ev, "tool"), "progress");
	json_decref(ev);
	hb_client_close(&c);

	/* SIGKILL svc-echo: service.down, then service.up with a new pid. */
	old = fx_service_pid(fx, "svc-echo");
	gen = fx_service_num(fx, "svc-echo", "generation");
	assert_true(old > 0);
	assert_int_equal(kill(old, SIGKILL), 0);
	ev = ck_sub_wait(&s, "service.down", "service", "svc-echo", 10000);
	assert_int_equal(json_integer_value(json_object_get(ev, "pid")), old);
	if (!strstr(fx_jstr(ev, "detail"), "signal 9"))
		fail_msg("service.down detail \"%s\" does not name signal 9", fx_jstr(ev, "detail"));
	json_decref(ev);
	ev = ck_sub_wait(&s, "service.up", "service", "svc-echo", 10000);
	assert_true(json_integer_value(json_object_get(ev, "pid")) > 0);
	assert_true(json_integer_value(json_object_get(ev, "pid")) != old);
	assert_true(json_integer_value(json_object_get(ev, "generation")) > gen);
	json_decref(ev);
	assert_int_equal(fx_wait_up(fx, "svc-echo", gen + 1, 10000), 0);
	ck_call_says(fx, "echo", "{\"after\":\"kill\"}", 1, "{\"after\":\"kill\"}");
	ck_sub_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events),
	};

	return ck_run_group_tests(tests, ck_setup_front_broker, ck_teardown_front_broker);
}
