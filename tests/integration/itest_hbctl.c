/*
 * itest_hbctl - hbctl as a user runs it against the real hb-broker: call
 * (and its exit status for a failed or unknown tool), status and
 * status --json, usage errors, no broker at all, watch printing events
 * as lines of JSON until SIGINT, and settings --all listing every
 * parameter.
 */
#include "../harness/checks.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "params.h"
#include "paths.h"

static int has_status_line(const char *out, const char *svc, const char *state)
{
	const char *p = out;

	while (p && *p) {
		char name[64], st[64];
		if (sscanf(p, "%63s %63s", name, st) == 2 && strcmp(name, svc) == 0 && strcmp(st, state) == 0)
			return 1;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

/* A line of out that is a JSON object whose "event" is event. */
static int has_event_line(const char *out, const char *event)
{
	const char *p = out;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		json_t *o = json_loadb(p, len, 0, NULL);
		int hit = o && strcmp(fx_jstr(o, "event"), event) == 0 && json_is_true(json_object_get(o, "ok"));

		json_decref(o);
		if (hit)
			return 1;
		p += len + (nl ? 1 : 0);
	}
	return 0;
}

static void test_hbctl(void **state)
{
	struct fixture *fx = *state;
	const char *call_echo[] = { "call", "echo", "{\"a\":1}", NULL };
	const char *call_bad[] = { "call", "sleep", "{\"ms\":\"x\"}", NULL };
	const char *call_unknown[] = { "call", "no_such_tool", "{}", NULL };
	const char *status[] = { "status", NULL };
	const char *status_json[] = { "status", "--json", NULL };
	const char *bogus[] = { "bogus", NULL };
	const char *none[] = { NULL };
	char *out;
	json_t *st;

	assert_int_equal(fx_hbctl(fx, &out, call_echo), 0);
	assert_non_null(strstr(out, "{\"a\":1}"));
	free(out);

	assert_int_equal(fx_hbctl(fx, &out, call_bad), 1);
	if (!strstr(out, "\"ms\" must be an integer"))
		fail_msg("hbctl call sleep '{\"ms\":\"x\"}' printed: %s", out);
	free(out);

	assert_int_equal(fx_hbctl(fx, &out, call_unknown), 1);
	assert_non_null(strstr(out, "unknown tool"));
	free(out);

	assert_int_equal(fx_hbctl(fx, &out, status), 0);
	if (!has_status_line(out, "svc-echo", "up") || !has_status_line(out, "svc-sessions", "up"))
		fail_msg("hbctl status has no \"svc-echo up\" line:\n%s", out);
	free(out);

	assert_int_equal(fx_hbctl(fx, &out, status_json), 0);
	st = json_loads(out, 0, NULL);
	if (!st)
		fail_msg("hbctl status --json is not JSON: %s", out);
	assert_true(json_is_array(json_object_get(st, "services")));
	assert_non_null(fx_find_service(st, "svc-echo"));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(st, "broker"), "pid")), fx->broker);
	json_decref(st);
	free(out);

	assert_int_equal(fx_hbctl(fx, &out, bogus), 100);
	assert_non_null(strstr(out, "usage"));
	free(out);
	assert_int_equal(fx_hbctl(fx, &out, none), 100);
	free(out);
}

/* hbctl call --timeout shorter than the call: the sentence says it was
 * hbctl's own limit that ran out, with the broker still there, not a
 * broker that does not answer; the broker serves on. */
static void test_hbctl_own_timeout(void **state)
{
	struct fixture *fx = *state;
	const char *call_slow[] = { "call", "sleep", "{\"ms\":5000}", "--timeout", "200", NULL };
	const char *call_echo[] = { "call", "echo", "{\"b\":2}", NULL };
	char *out;

	assert_int_equal(fx_hbctl(fx, &out, call_slow), 2);
	assert_string_equal(out, "hbctl: hbctl's own --timeout (200 ms) ran out before hb-broker answered; hb-broker "
				 "is still running and may still be working on the request\n");
	free(out);
	assert_int_equal(fx_hbctl(fx, &out, call_echo), 0);
	assert_non_null(strstr(out, "{\"b\":2}"));
	free(out);
}

/* hbctl with no broker says so at once and exits 2. */
static void test_hbctl_no_broker(void **state)
{
	struct fixture *fx = *state;
	const char *status[] = { "status", NULL };
	struct fixture none = *fx;
	char *out, cmd[400];

	snprintf(none.dir, sizeof none.dir, "/tmp/hbtest-none.XXXXXX");
	assert_non_null(mkdtemp(none.dir));
	assert_int_equal(fx_hbctl(&none, &out, status), 2);
	assert_non_null(strstr(out, "no hb-broker"));
	free(out);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", none.dir);
	assert_int_equal(system(cmd), 0);
	fx_use_env(fx);
}

static void test_hbctl_watch(void **state)
{
	struct fixture *fx = *state;
	const char *const watch[] = { "watch", NULL };
	char path[400], *out = NULL;
	long long deadline;
	int st = 0, seen = 0;
	pid_t pid;

	snprintf(path, sizeof path, "%s/watch.out", fx->dir);
	pid = fx_spawn_prog(fx, "hbctl", watch, NULL, "watch.out");
	assert_true(pid > 0);
	/* Calls until the watcher's subscription has arrived and it printed one. */
	deadline = fx_now_ms() + 10000;
	while (!seen && fx_now_ms() < deadline) {
		ck_call_says(fx, "echo", "{\"watch\":true}", 1, "watch");
		fx_sleep_ms(50);
		free(out);
		out = fx_read_text(path);
		seen = has_event_line(out, "call.end");
	}
	assert_int_equal(kill(pid, SIGINT), 0);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!seen)
		fail_msg("hbctl watch printed no call.end line:\n%s", out);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	free(out);
	/* Every line it printed is JSON. */
	out = fx_read_text(path);
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		json_t *o = json_loads(line, 0, NULL);
		if (!o)
			fail_msg("hbctl watch printed a line that is not JSON: %s", line);
		json_decref(o);
	}
	free(out);
}

/* Lines of out that start a parameter (not indented). */
static int parameter_lines(const char *out)
{
	int n = 0;

	for (const char *p = out; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		n += *p != ' ' && *p != '\n';
	return n;
}

/* hbctl settings --all: every parameter of the table, with its value,
 * where it came from and its default; a value that cannot be used is
 * named and fails the command. */
static void test_hbctl_settings_all(void **state)
{
	struct fixture *fx = *state;
	const char *all[] = { "settings", "--all", NULL };
	char path[HB_PATH_MAX];
	char *out;
	FILE *f;

	unsetenv("HB_CODEX");
	unsetenv("HB_EXPLAINER_VOICE");
	unsetenv("HB_GEMINI_SPEECH_MODEL");
	snprintf(path, sizeof path, "%s/config/settings.json", fx->dir);
	assert_non_null(f = fopen(path, "w"));
	assert_true(fputs("{\"codexPath\":\"/opt/codex\",\"videoTemperature\":1.5}", f) >= 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(fx_hbctl(fx, &out, all), 0);
	if (!strstr(out, "codexPath = /opt/codex\n    from: settings.json; default: codex; variable: HB_CODEX\n"
			 "    the Codex program") ||
	    !strstr(out, "videoTemperature = 1.5\n    from: settings.json; default: 0.2; variable: "
			 "HB_GEMINI_VIDEO_TEMPERATURE\n") ||
	    !strstr(out, "explainerVoice = Kore\n    from: default; default: Kore; variable: HB_EXPLAINER_VOICE\n") ||
	    !strstr(out, "\nagentHost =\n    from: default; default: (empty); variable: HB_AGENT_HOST\n") ||
	    !strstr(out, "\nrelayUrl =\n    from: default; default: (empty)\n") || parameter_lines(out) != HB_PARAM_COUNT)
		fail_msg("hbctl settings --all:\n%s", out);
	free(out);

	assert_non_null(f = fopen(path, "w"));
	assert_true(fputs("{\"speechModel\":7}", f) >= 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(fx_hbctl(fx, &out, all), 1);
	if (!strstr(out, "speechModel: not usable: settings.json: speechModel must be a string\n    default: "
			 "gemini-3.1-flash-tts-preview; variable: HB_GEMINI_SPEECH_MODEL\n") ||
	    parameter_lines(out) != HB_PARAM_COUNT)
		fail_msg("hbctl settings --all with a bad speechModel:\n%s", out);
	free(out);
	assert_int_equal(unlink(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hbctl),
		cmocka_unit_test(test_hbctl_own_timeout),
		cmocka_unit_test(test_hbctl_no_broker),
		cmocka_unit_test(test_hbctl_watch),
		cmocka_unit_test(test_hbctl_settings_all),
	};

	return ck_run_group_tests(tests, ck_setup_front_broker, ck_teardown_front_broker);
}
