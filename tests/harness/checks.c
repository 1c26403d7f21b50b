/*
 * checks - running a program's tests, its brokers and its calls, each
 * step failing the running cmocka test with a sentence when it goes wrong
 * (see checks.h).
 */
#include "checks.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

const char ck_echo_conf[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 8\n"
	"tools = echo sleep subcall progress exit\n";

/* Four workers: test_pipelined_calls fills exactly all of them. */
static const char front_echo_conf[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 4\n"
	"tools = echo sleep subcall progress exit\n";

int ck_setup_front_broker(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	char *config = fx_deployed_config(front_echo_conf, "svc-sessions", (char *)NULL);
	int rc = f && config ? fx_start(f, config, NULL) : -1;

	free(config);
	if (rc < 0 && f) {
		fx_discard(f); /* cmocka runs no group teardown after a failed setup */
		free(f);
		f = NULL;
	}
	*state = f;
	return rc;
}

int ck_teardown_front_broker(void **state)
{
	struct fixture *f = *state;
	int rc = f ? fx_stop_clean(f) : -1;

	free(f);
	*state = NULL;
	return rc;
}

int ck_setup_fixture(void **state)
{
	*state = calloc(1, sizeof(struct fixture));
	return *state ? 0 : -1;
}

int ck_teardown_fixture(void **state)
{
	fx_discard(*state);
	free(*state);
	*state = NULL;
	return 0;
}

void ck_start(struct fixture *f, const char *config, const char *const *env)
{
	assert_int_equal(fx_start(f, config, env), 0);
}

void ck_prepare(struct fixture *f, const char *config)
{
	assert_int_equal(fx_prepare(f, config), 0);
}

int64_t ck_echo_call_in_flight(struct fixture *f, const char *const *env, struct hb_client *c,
			       const char *sleep_json, pid_t *pid)
{
	int64_t id;

	ck_start(f, ck_echo_conf, env);
	*pid = fx_service_pid(f, "svc-echo");
	assert_true(*pid > 0);
	ck_client(f, c);
	id = ck_send_call(c, "sleep", sleep_json);
	ck_wait_num(f, "svc-echo", "callsInFlight", 1);
	return id;
}

void ck_finish(struct fixture *f)
{
	int status = 0, rc = fx_stop(f, &status);

	memset(f, 0, sizeof *f);
	assert_int_equal(rc, 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

void ck_client(struct fixture *f, struct hb_client *c)
{
	assert_int_equal(fx_client(f, c, 20000), 0);
}

int64_t ck_send_call(struct hb_client *c, const char *tool, const char *json)
{
	int64_t id = fx_send_op(c, "call", "tool", tool, "json", json, (char *)NULL);

	if (id < 0)
		fail_msg("call %s could not be sent (the reason is above)", tool);
	return id;
}

void ck_recv(struct hb_client *c, struct hb_env *reply, int timeout_ms, int64_t *id)
{
	char err[256];

	if (hb_client_recv(c, reply, timeout_ms, err, sizeof err) < 0)
		fail_msg("no reply: %s", err);
	if (hb_env_int(reply, "id", id) < 0)
		fail_msg("a reply without an id: err %s", hb_env_str_or(reply, "err.msg", "-"));
}

char *ck_recv_text(struct hb_client *c, int64_t *id, int *ok)
{
	struct hb_env reply;
	char err[256], *text;

	if (hb_client_recv(c, &reply, CK_WAIT_MS, err, sizeof err) < 0)
		fail_msg("no reply: %s", err);
	*id = -1;
	hb_env_int(&reply, "id", id);
	*ok = hb_env_bool(&reply, "ok", 0);
	text = strdup(hb_env_str_or(&reply, "text", hb_env_str_or(&reply, "err.msg", "")));
	hb_env_free(&reply);
	assert_non_null(text);
	return text;
}

void ck_expect_reply(struct hb_client *c, int64_t want_id, int want_ok, const char *want)
{
	int64_t id;
	int ok;
	char *text = ck_recv_text(c, &id, &ok);

	assert_int_equal(id, want_id);
	assert_int_equal(ok, want_ok);
	assert_string_equal(text, want);
	free(text);
}

char *ck_call(struct fixture *f, const char *tool, const char *json, int *ok)
{
	char *text = NULL;

	if (fx_call(f, tool, json, ok, &text) < 0)
		fail_msg("call %s: no answer: %s", tool, text ? text : "?");
	return text;
}

void ck_call_ok(struct fixture *f, const char *tool, const char *json, const char *want)
{
	int ok;
	char *text = ck_call(f, tool, json, &ok);

	if (!ok)
		fail_msg("call %s failed: %s", tool, text);
	if (want)
		assert_string_equal(text, want);
	free(text);
}

void ck_call_says(struct fixture *f, const char *tool, const char *json, int want_ok, const char *want_text)
{
	char *text = NULL;
	int ok = -1;

	if (fx_call(f, tool, json, &ok, &text) < 0)
		fail_msg("%s %s: no answer: %s", tool, json, text ? text : "?");
	if (ok != want_ok || !strstr(text, want_text))
		fail_msg("%s %s: got ok=%d \"%s\"; want ok=%d with \"%s\"", tool, json, ok, text, want_ok, want_text);
	free(text);
}
