/*
 * itest_model - the model of the run in a call's context, as svc-echo's
 * whoami sees it through the real broker: a Claude run's model (run.open,
 * as hb-claude-bridge opens it with --model), "" for a run opened without
 * one, a Codex call's model from its bridge's word for the thread or else
 * the run's, a plain call with --run (hbctl run open --model), a subcall
 * inheriting its caller's, the user's own call with none; and never what
 * the tool call's arguments say.  A run opened without a model on a
 * session that has one (manage_sessions setModel) runs the session's,
 * and run.open's answer gives the opener the session's model and effort.
 */
#include "../harness/checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char echo_conf[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 2\n"
	"tools = whoami subcall\n";

static struct fixture F;
static char codex_session[64], claude_session[64];

static int setup(void **state)
{
	(void)state;
	return fx_start_agent_sessions(&F, echo_conf, "Model", codex_session, claude_session, sizeof codex_session);
}

static int teardown(void **state)
{
	(void)state;
	return fx_stop_clean(&F);
}

static void reply_to(struct hb_client *c, int64_t id, struct hb_env *reply)
{
	int64_t got = -1;

	ck_recv(c, reply, 15000, &got);
	assert_int_equal(got, id);
	if (!hb_env_bool(reply, "ok", 0))
		fail_msg("request %lld refused: %s", (long long)id, hb_env_str_or(reply, "err.msg", "?"));
}

/* The context whoami reports in text, where it must have answered. */
static json_t *context_of(const char *text)
{
	json_t *who = json_loads(text ? text : "", 0, NULL);

	if (!json_is_object(who))
		fail_msg("whoami did not answer its context: %s", text ? text : "(nothing)");
	return who;
}

/* The model of a whoami answer must be want. */
static void expect_model(const char *text, const char *want)
{
	json_t *who = context_of(text);

	if (strcmp(fx_jstr(who, "model"), want) != 0)
		fail_msg("the service saw model \"%s\", not \"%s\": %s", fx_jstr(who, "model"), want, text);
	json_decref(who);
}

/* Open run on c with the optional model (NULL: none). */
static void open_run(struct hb_client *c, const char *run, const char *session, const char *agent,
		     const char *model)
{
	struct hb_env reply;
	int64_t id = model ? fx_send_op(c, "run.open", "run", run, "session", session, "project", "/tmp", "agent",
					agent, "access", "full-auto", "model", model, (char *)NULL)
			   : fx_send_op(c, "run.open", "run", run, "session", session, "project", "/tmp", "agent",
					agent, "access", "full-auto", (char *)NULL);

	reply_to(c, id, &reply);
	hb_env_free(&reply);
}

static void close_run(struct hb_client *c, const char *run)
{
	struct hb_env reply;

	reply_to(c, fx_send_op(c, "run.close", "run", run, (char *)NULL), &reply);
	hb_env_free(&reply);
}

static char *dup_text(const char *s)
{
	char *t = strdup(s ? s : "");

	assert_non_null(t);
	return t;
}

/* The text of a Claude call's toolResult. */
static char *claude_whoami(struct hb_client *c, int n, const char *tool, const char *args)
{
	struct hb_env reply;
	json_t *ans;
	char *text;

	reply_to(c, fx_claude_call(c, n, tool, args), &reply);
	ans = json_loads(hb_env_str_or(&reply, "json", ""), 0, NULL);
	text = dup_text(json_string_value(json_object_get(json_array_get(json_object_get(ans, "content"), 0), "text")));
	json_decref(ans);
	hb_env_free(&reply);
	return text;
}

static void test_claude_run_model(void **state)
{
	struct hb_client c;
	char *text;

	(void)state;
	ck_client(&F, &c);
	open_run(&c, "run-model-claude", claude_session, "claude", "claude-test-model");
	text = claude_whoami(&c, 1, "whoami", "{}");
	expect_model(text, "claude-test-model");
	free(text);
	/* The arguments name a model: the context keeps the run's. */
	text = claude_whoami(&c, 2, "whoami", "{\"model\":\"chosen-by-the-call\"}");
	expect_model(text, "claude-test-model");
	free(text);
	/* A subcall runs with its caller's context, model too. */
	text = claude_whoami(&c, 3, "subcall", "{\"tool\":\"whoami\",\"json\":\"{\\\"model\\\":\\\"x\\\"}\"}");
	if (strncmp(text, "subcall answered: ", 18) != 0)
		fail_msg("the subcall failed: %s", text);
	expect_model(text + 18, "claude-test-model");
	free(text);
	close_run(&c, "run-model-claude");

	/* Opened without one (Claude Code's default): "". */
	open_run(&c, "run-model-none", claude_session, "claude", NULL);
	text = claude_whoami(&c, 4, "whoami", "{\"model\":\"chosen-by-the-call\"}");
	expect_model(text, "");
	free(text);
	close_run(&c, "run-model-none");
	hb_client_close(&c);
}

/* whoami through codex.call on thread-model, with the bridge's word for
 * the thread's model (NULL: none). */
static char *codex_whoami(struct hb_client *c, const char *callid, const char *model, const char *args)
{
	char frame[1024], *text;
	struct hb_env reply;
	json_t *ans;
	int64_t id;

	snprintf(frame, sizeof frame, "{\"method\":\"item/tool/call\",\"id\":1,\"params\":{\"threadId\":"
		 "\"thread-model\",\"turnId\":\"turn-1\",\"callId\":\"%s\",\"namespace\":\"hbcode\",\"tool\":"
		 "\"whoami\",\"arguments\":%s}}", callid, args);
	id = model ? fx_send_op(c, "codex.call", "json", frame, "model", model, (char *)NULL)
		   : fx_send_op(c, "codex.call", "json", frame, (char *)NULL);
	reply_to(c, id, &reply);
	ans = json_loads(hb_env_str_or(&reply, "json", ""), 0, NULL);
	text = dup_text(json_string_value(json_object_get(
		json_array_get(json_object_get(json_object_get(ans, "result"), "contentItems"), 0), "text")));
	json_decref(ans);
	hb_env_free(&reply);
	return text;
}

static void test_codex_model(void **state)
{
	struct hb_client c;
	struct hb_env reply;
	char *text;

	(void)state;
	ck_client(&F, &c);
	reply_to(&c, fx_send_op(&c, "thread.link", "threadId", "thread-model", "sessionId", codex_session,
				(char *)NULL), &reply);
	hb_env_free(&reply);
	open_run(&c, "run-model-codex", codex_session, "codex", "gpt-of-the-run");
	/* No word from the bridge: the run's. */
	text = codex_whoami(&c, "call-1", NULL, "{\"model\":\"chosen-by-the-call\"}");
	expect_model(text, "gpt-of-the-run");
	free(text);
	/* The bridge saw the thread get another (a turn that names another, a
	 * sub-agent's own): that one. */
	text = codex_whoami(&c, "call-2", "gpt-of-the-thread", "{\"model\":\"chosen-by-the-call\"}");
	expect_model(text, "gpt-of-the-thread");
	free(text);
	close_run(&c, "run-model-codex");
	/* No run and no word: unknown. */
	text = codex_whoami(&c, "call-3", NULL, "{}");
	expect_model(text, "");
	free(text);
	hb_client_close(&c);
}

/* hbctl run open --model, then calls as that run and as the user. */
static void test_plain_calls(void **state)
{
	const char *open[] = { "run", "open", "run-model-hbctl", "--session", codex_session, "--project", "/tmp",
			       "--agent", "codex", "--access", "full-auto", "--model", "gpt-from-hbctl", NULL };
	const char *as_run[] = { "call", "whoami", "{\"model\":\"chosen-by-the-call\"}", "--run", "run-model-hbctl",
				 NULL };
	const char *close[] = { "run", "close", "run-model-hbctl", NULL };
	struct hb_client c;
	struct hb_env reply;
	char *out = NULL;

	(void)state;
	if (fx_hbctl(&F, &out, open) != 0)
		fail_msg("hbctl run open --model failed: %s", out);
	free(out);
	assert_int_equal(fx_hbctl(&F, &out, as_run), 0);
	expect_model(out, "gpt-from-hbctl");
	free(out);
	assert_int_equal(fx_hbctl(&F, &out, close), 0);
	free(out);
	/* The user's own call: a client's word for a model binds nothing. */
	ck_client(&F, &c);
	reply_to(&c, fx_send_op(&c, "call", "tool", "whoami", "json", "{}", "session", codex_session, "model",
				"gpt-said-by-the-client", (char *)NULL), &reply);
	expect_model(hb_env_str(&reply, "text"), "");
	hb_env_free(&reply);
	hb_client_close(&c);
}

/* The session's model and effort: run.open's answer carries them (the
 * bridge opens its agent with them), and a run opened without a model
 * has the session's; one opened with a model keeps its own. */
static void test_session_model(void **state)
{
	char args[256];
	const char *set[] = { "call", "manage_sessions", args, NULL };
	struct hb_client c;
	struct hb_env reply;
	json_t *answer;
	char *out = NULL, *text;

	(void)state;
	snprintf(args, sizeof args, "{\"action\":\"setModel\",\"targetSessionId\":\"%s\",\"model\":\"opus\","
		 "\"effort\":\"xhigh\"}", claude_session);
	if (fx_hbctl(&F, &out, set) != 0)
		fail_msg("setModel failed: %s", out);
	free(out);
	ck_client(&F, &c);
	reply_to(&c, fx_send_op(&c, "run.open", "run", "run-model-session", "session", claude_session, "project", "/tmp",
				"agent", "claude", "access", "full-access", (char *)NULL), &reply);
	answer = json_loads(hb_env_str_or(&reply, "json", ""), 0, NULL);
	assert_string_equal(fx_jstr(answer, "model"), "opus");
	assert_string_equal(fx_jstr(answer, "effort"), "xhigh");
	assert_string_equal(fx_jstr(answer, "permissionMode"), "auto");
	json_decref(answer);
	hb_env_free(&reply);
	text = claude_whoami(&c, 5, "whoami", "{}");
	expect_model(text, "opus");
	free(text);
	close_run(&c, "run-model-session");
	open_run(&c, "run-model-own", claude_session, "claude", "claude-own-model");
	text = claude_whoami(&c, 6, "whoami", "{}");
	expect_model(text, "claude-own-model");
	free(text);
	close_run(&c, "run-model-own");
	hb_client_close(&c);
	/* Back to the defaults for the other tests: nothing in the answer. */
	snprintf(args, sizeof args, "{\"action\":\"setModel\",\"targetSessionId\":\"%s\"}", claude_session);
	if (fx_hbctl(&F, &out, set) != 0)
		fail_msg("setModel failed: %s", out);
	free(out);
	ck_client(&F, &c);
	reply_to(&c, fx_send_op(&c, "run.open", "run", "run-model-default", "session", claude_session, "project",
				"/tmp", "agent", "claude", "access", "full-auto", (char *)NULL), &reply);
	answer = json_loads(hb_env_str_or(&reply, "json", ""), 0, NULL);
	assert_null(json_object_get(answer, "model"));
	assert_null(json_object_get(answer, "effort"));
	json_decref(answer);
	hb_env_free(&reply);
	close_run(&c, "run-model-default");
	hb_client_close(&c);
}

/* A model id longer than a run keeps is refused with a sentence. */
static void test_model_too_long(void **state)
{
	struct hb_client c;
	struct hb_env reply;
	char model[200];
	int64_t id, got = -1;

	(void)state;
	memset(model, 'm', sizeof model - 1);
	model[sizeof model - 1] = '\0';
	ck_client(&F, &c);
	id = fx_send_op(&c, "run.open", "run", "run-model-long", "session", claude_session, "project", "/tmp", "agent",
			"claude", "access", "full-auto", "model", model, (char *)NULL);
	ck_recv(&c, &reply, 15000, &got);
	assert_int_equal(got, id);
	assert_false(hb_env_bool(&reply, "ok", 1));
	assert_string_equal(hb_env_str_or(&reply, "err.code", ""), "bad-request");
	assert_string_equal(hb_env_str_or(&reply, "err.msg", ""), "run.open's \"model\" is at most 127 bytes");
	hb_env_free(&reply);
	hb_client_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_claude_run_model),
		cmocka_unit_test(test_codex_model),
		cmocka_unit_test(test_plain_calls),
		cmocka_unit_test(test_model_too_long),
		cmocka_unit_test(test_session_model),
	};

	return ck_run_group_tests(tests, setup, teardown);
}
