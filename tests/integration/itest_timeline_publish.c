/*
 * itest_timeline_publish - the front op timeline.publish against the real
 * hb-broker and svc-sessions: a Claude bridge's rows (a run opened on its
 * connection) and a Codex bridge's rows (its session.attach) come out as
 * timeline.row events {session, row} of the caller's own session, never
 * the session the request names (a stopped run still binds, a closed one
 * not); a caller with no run is refused, a batch
 * with one bad row is refused whole (nothing published), an oversized
 * batch is refused, and the broker keeps answering after each.
 */
#include "../harness/checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../timeline/row.h"

static const char echo_conf[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 2\n"
	"tools = echo\n";

static struct fixture F;
static char codex_session[64], claude_session[64];

static int setup(void **state)
{
	(void)state;
	return fx_start_agent_sessions(&F, echo_conf, "Timeline", codex_session, claude_session, sizeof codex_session);
}

static int teardown(void **state)
{
	(void)state;
	return fx_stop_clean(&F);
}

/* timeline.publish of json on c (extra: one more field and its value, or
 * NULL); the answer into reply. */
static void publish(struct hb_client *c, const char *json, const char *extra, const char *value,
		    struct hb_env *reply)
{
	int64_t id = extra ? fx_send_op(c, "timeline.publish", "json", json, extra, value, (char *)NULL)
			   : fx_send_op(c, "timeline.publish", "json", json, (char *)NULL), got = -1;

	assert_true(id >= 0);
	ck_recv(c, reply, 15000, &got);
	assert_int_equal(got, id);
}

static void expect_refused(struct hb_client *c, const char *json, const char *code, const char *msg_part)
{
	struct hb_env reply;

	publish(c, json, NULL, NULL, &reply);
	if (hb_env_bool(&reply, "ok", 0))
		fail_msg("timeline.publish of %.80s was accepted", json);
	assert_string_equal(hb_env_str_or(&reply, "err.code", ""), code);
	if (!strstr(hb_env_str_or(&reply, "err.msg", ""), msg_part))
		fail_msg("the refusal \"%s\" does not say \"%s\"", hb_env_str_or(&reply, "err.msg", ""), msg_part);
	hb_env_free(&reply);
}

static void expect_published(struct hb_client *c, const char *json, long long n)
{
	struct hb_env reply;
	json_t *ans;

	publish(c, json, "session", "s-named-by-the-caller", &reply);
	if (!hb_env_bool(&reply, "ok", 0))
		fail_msg("timeline.publish refused: %s", hb_env_str_or(&reply, "err.msg", "?"));
	ans = json_loads(hb_env_str_or(&reply, "json", ""), 0, NULL);
	assert_int_equal(json_integer_value(json_object_get(ans, "published")), n);
	json_decref(ans);
	hb_env_free(&reply);
}

/* The next timeline.row event: its session and row id must be these. */
static void expect_row(struct ck_sub *s, const char *session, const char *id)
{
	for (long long deadline = fx_now_ms() + CK_WAIT_MS; fx_now_ms() < deadline;) {
		char topic[128];
		json_t *body = ck_sub_next(s, 500, topic, sizeof topic);

		if (!body || strcmp(topic, "timeline.row") != 0) {
			json_decref(body);
			continue;
		}
		if (strcmp(fx_jstr(body, "session"), session) != 0 ||
		    strcmp(fx_jstr(json_object_get(body, "row"), "id"), id) != 0) {
			char *text = json_dumps(body, JSON_COMPACT);
			fail_msg("expected row %s of session %s, got %s", id, session, text);
		}
		json_decref(body);
		return;
	}
	fail_msg("no timeline.row event %s came", id);
}

static void expect_alive(struct hb_client *c)
{
	struct hb_env reply;
	int64_t id = fx_send_op(c, "hello", (char *)NULL), got = -1;

	ck_recv(c, &reply, 15000, &got);
	assert_int_equal(got, id);
	assert_true(hb_env_bool(&reply, "ok", 0));
	hb_env_free(&reply);
}

static void end_run(struct hb_client *c, const char *op, const char *run)
{
	struct hb_env reply;
	int64_t id = fx_send_op(c, op, "run", run, (char *)NULL), got = -1;

	ck_recv(c, &reply, 15000, &got);
	assert_int_equal(got, id);
	assert_true(hb_env_bool(&reply, "ok", 0));
	hb_env_free(&reply);
}

static const char claude_row[] =
	"[{\"id\":\"claude:msg_1#0\",\"agent\":\"claude\",\"kind\":\"assistant\",\"depth\":0,\"text\":\"Hi\"}]";

static void test_no_run_refused(void **state)
{
	struct hb_client c;

	(void)state;
	ck_client(&F, &c);
	expect_refused(&c, claude_row, "no-run", "needs a run opened on this connection");
	expect_alive(&c);
	/* A Claude bridge's attachment alone binds nothing: its run does. */
	{
		struct hb_env reply;
		int64_t id = fx_send_op(&c, "session.attach", "session", claude_session, "agent", "claude",
					(char *)NULL), got = -1;
		ck_recv(&c, &reply, 15000, &got);
		assert_int_equal(got, id);
		hb_env_free(&reply);
	}
	expect_refused(&c, claude_row, "no-run", "needs a run opened on this connection");
	hb_client_close(&c);
}

static void test_claude_run_publishes(void **state)
{
	struct ck_sub s;
	struct hb_client c;

	(void)state;
	ck_sub_open(&s, &F, "");
	ck_sub_warm(&s, &F);
	ck_client(&F, &c);
	assert_int_equal(fx_open_run(&c, "run-tl-claude", claude_session, "/tmp", "claude", "full-auto"), 0);
	expect_published(&c, "[{\"id\":\"claude:msg_1#0\",\"agent\":\"claude\",\"kind\":\"assistant\",\"depth\":0,"
			     "\"text\":\"Hi\"},{\"id\":\"claude:toolu_1\",\"agent\":\"claude\",\"kind\":\"tool\","
			     "\"depth\":1,\"status\":\"call\"}]", 2);
	expect_row(&s, claude_session, "claude:msg_1#0");
	expect_row(&s, claude_session, "claude:toolu_1");

	/* One bad row refuses the batch: the good row before it never shows. */
	expect_refused(&c, "[{\"id\":\"claude:good-1\",\"agent\":\"claude\",\"kind\":\"user\",\"depth\":0},"
			   "{\"id\":\"claude:bad\",\"agent\":\"claude\",\"kind\":\"no-such-kind\",\"depth\":0}]",
		       "bad-request", "row 1 refused, none published");
	expect_refused(&c, "[{\"id\":\"codex:x\",\"agent\":\"codex\",\"kind\":\"user\",\"depth\":0}]",
		       "bad-request", "must be \"claude\"");
	expect_refused(&c, "[{\"id\":\"codex:x\",\"agent\":\"claude\",\"kind\":\"user\",\"depth\":0}]",
		       "bad-request", "\"id\" is \"claude:\"");
	expect_refused(&c, "[{\"id\":\"claude:x\",\"agent\":\"claude\",\"kind\":\"user\",\"depth\":-1}]",
		       "bad-request", "\"depth\"");
	expect_refused(&c, "[\"not a row\"]", "bad-request", "row 0 refused");
	expect_refused(&c, "{\"id\":\"claude:x\"}", "bad-request", "a JSON array of rows");
	expect_refused(&c, "[{\"id\":", "bad-request", "a JSON array of rows: ");
	expect_alive(&c);
	expect_published(&c, "[{\"id\":\"claude:good-2\",\"agent\":\"claude\",\"kind\":\"user\",\"depth\":0}]", 1);
	expect_row(&s, claude_session, "claude:good-2");

	/* Stopped, the run still binds the rows of its end; closed, none. */
	end_run(&c, "run.stop", "run-tl-claude");
	expect_published(&c, "[{\"id\":\"claude:after-stop\",\"agent\":\"claude\",\"kind\":\"assistant\","
			     "\"depth\":0}]", 1);
	expect_row(&s, claude_session, "claude:after-stop");
	end_run(&c, "run.close", "run-tl-claude");
	expect_refused(&c, claude_row, "no-run", "needs a run");
	hb_client_close(&c);
	ck_sub_close(&s);
}

/* Past TL_PUBLISH_MAX bytes, or TL_PUBLISH_ROWS rows: refused, the
 * broker unharmed. */
static void test_oversized_refused(void **state)
{
	size_t big = TL_PUBLISH_MAX + 64, len = 0;
	char *json = malloc(big + 1);
	struct hb_client c;

	(void)state;
	assert_non_null(json);
	ck_client(&F, &c);
	assert_int_equal(fx_open_run(&c, "run-tl-big", claude_session, "/tmp", "claude", "full-auto"), 0);
	len = (size_t)sprintf(json, "[{\"id\":\"claude:big\",\"agent\":\"claude\",\"kind\":\"user\",\"depth\":0,"
			      "\"text\":\"");
	memset(json + len, 'a', big - len - 4);
	memcpy(json + big - 4, "\"}]", 4);
	expect_refused(&c, json, "too-large", "at most 4194304 bytes");
	/* TL_PUBLISH_ROWS + 1 small rows */
	len = 0;
	json[len++] = '[';
	for (int i = 0; i <= TL_PUBLISH_ROWS; i++)
		len += (size_t)sprintf(json + len, "%s{\"id\":\"claude:r%d\",\"agent\":\"claude\",\"kind\":\"user\","
				       "\"depth\":0}", i ? "," : "", i);
	json[len++] = ']';
	json[len] = '\0';
	expect_refused(&c, json, "too-large", "at most 256 rows");
	expect_alive(&c);
	free(json);
	hb_client_close(&c);
}

/* A Codex bridge: the desktop opens the turn's run elsewhere; the bridge's
 * session.attach binds its rows. */
static void test_codex_attachment_publishes(void **state)
{
	struct ck_sub s;
	struct hb_client c;
	struct hb_env reply;
	int64_t id, got = -1;

	(void)state;
	ck_sub_open(&s, &F, "");
	ck_sub_warm(&s, &F);
	ck_client(&F, &c);
	id = fx_send_op(&c, "session.attach", "session", codex_session, "agent", "codex", (char *)NULL);
	ck_recv(&c, &reply, 15000, &got);
	assert_int_equal(got, id);
	assert_true(hb_env_bool(&reply, "ok", 0));
	hb_env_free(&reply);
	expect_published(&c, "[{\"id\":\"codex:item-1\",\"agent\":\"codex\",\"kind\":\"command\",\"depth\":2,"
			     "\"status\":\"call\",\"command\":\"ls\"}]", 1);
	expect_row(&s, codex_session, "codex:item-1");
	expect_refused(&c, claude_row, "bad-request", "must be \"codex\"");
	id = fx_send_op(&c, "session.detach", "session", codex_session, (char *)NULL);
	ck_recv(&c, &reply, 15000, &got);
	hb_env_free(&reply);
	expect_refused(&c, "[{\"id\":\"codex:item-2\",\"agent\":\"codex\",\"kind\":\"user\",\"depth\":0}]", "no-run",
		       "needs a run");
	hb_client_close(&c);
	ck_sub_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_run_refused),
		cmocka_unit_test(test_claude_run_publishes),
		cmocka_unit_test(test_oversized_refused),
		cmocka_unit_test(test_codex_attachment_publishes),
	};

	return ck_run_group_tests(tests, setup, teardown);
}
