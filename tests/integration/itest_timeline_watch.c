/*
 * itest_timeline_watch - `hbctl watch --timeline` with the real hb-broker:
 * a timeline.row event published through the broker (by svc-echo's
 * echo_event, as a bridge will publish rows) comes out rendered for a
 * person, plain since the output is a file, and again marked "(update)"
 * when the same row comes once more; with --json as the event's JSON; and
 * only timeline.row events, not the other timeline topics.
 */
#include "../harness/checks.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static const char watch_conf[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 2\n"
	"tools = echo echo_event\n";

static const char row_event[] =
	"{\"session\":\"s-1\",\"row\":{\"id\":\"claude:toolu_1\",\"agent\":\"claude\",\"kind\":\"command\",\"depth\":0,"
	"\"status\":\"output\",\"command\":\"make\",\"output\":\"built\",\"outputRef\":\"toolu_1\"}}";

/* Publish event on topic, through svc-echo and the broker. */
static void publish(struct fixture *f, const char *topic, const char *json)
{
	json_t *args = json_pack("{s:s, s:s}", "topic", topic, "json", json);
	char *text = args ? json_dumps(args, JSON_COMPACT) : NULL;

	assert_non_null(text);
	ck_call_ok(f, "echo_event", text, "event published");
	free(text);
	json_decref(args);
}

/* Start hbctl watch with args into outname; publish until want shows (the
 * subscription is on its way meanwhile); the output, stopped. */
static char *watch_until(struct fixture *f, const char *const *args, const char *outname, const char *want)
{
	char path[400], *out = NULL;
	pid_t watcher = fx_spawn_prog(f, "hbctl", args, NULL, outname);
	int seen = 0;

	assert_true(watcher > 0);
	snprintf(path, sizeof path, "%s/%s", f->dir, outname);
	for (long long deadline = fx_now_ms() + CK_WAIT_MS; fx_now_ms() < deadline && !seen;) {
		/* another topic first: it must never show */
		publish(f, "timeline.explainer", "{\"callKey\":\"k\",\"phase\":\"rendering\",\"revision\":1}");
		publish(f, "timeline.row", row_event);
		fx_sleep_ms(50);
		free(out);
		out = fx_read_text(path);
		seen = strstr(out, want) != NULL;
	}
	assert_int_equal(kill(watcher, SIGINT), 0);
	assert_int_equal(fx_wait_bounded(watcher, 10000), 0);
	if (!seen)
		fail_msg("hbctl watch printed no \"%s\":\n%s", want, out);
	return out;
}

static void test_watch_timeline_renders_rows(void **state)
{
	const char *const plain[] = { "watch", "--timeline", NULL };
	const char *const json[] = { "watch", "--timeline", "--json", NULL };
	struct fixture *f = *state;
	char *out;

	ck_start(f, watch_conf, NULL);
	out = watch_until(f, plain, "plain.out", "Command output: $ make\n  │ built\n  (full output: toolu_1)\n");
	assert_null(strchr(out, '\033'));	/* a file gets no colour */
	assert_null(strstr(out, "explainer"));
	free(out);
	/* the same row again: printed as its update, the first print not */
	out = watch_until(f, plain, "update.out", "(update) Command output: $ make\n");
	assert_true(strncmp(out, "Command output: $ make\n", strlen("Command output: $ make\n")) == 0);
	free(out);
	out = watch_until(f, json, "json.out", "\"kind\":\"command\"");
	assert_non_null(strstr(out, "\"session\":\"s-1\""));
	assert_null(strstr(out, "callKey"));
	free(out);
	ck_finish(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ck_unit_test(test_watch_timeline_renders_rows),
	};

	return ck_run_group_tests(tests, NULL, NULL);
}
