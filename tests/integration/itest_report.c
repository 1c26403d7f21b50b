/*
 * itest_report - a service's report of its own state with the real
 * hb-broker: svc-echo's background task reports at its start and sends
 * what its echo_report tool queues; the report of the serving incarnation
 * shows in `hbctl status --json` (exactly as sent), as a summary line in
 * `hbctl status`, and as a service.report event naming the service and
 * the generation.  A report that is not a JSON object, or longer than
 * 4096 bytes, is logged and dropped (4096 exactly is kept), and the
 * broker keeps serving.  After a replace, status shows the new
 * incarnation's report; a service that never reported shows null.
 */
#include "../harness/checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char report_conf[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 2\n"
	"tools = echo echo_report\n";

static const char *const task_env[] = { "HB_ECHO_REPORT_TASK=1", NULL };

/* svc-echo's entry in `hbctl status --json` (a new reference). */
static json_t *echo_status(struct fixture *f)
{
	const char *args[] = { "status", "--json", NULL };
	char *out;
	json_t *st, *svc;

	assert_int_equal(fx_hbctl(f, &out, args), 0);
	if (!(st = json_loads(out, 0, NULL)))
		fail_msg("hbctl status --json printed no JSON: %s", out);
	free(out);
	if (!(svc = fx_find_service(st, "svc-echo")))
		fail_msg("hbctl status --json has no svc-echo");
	json_incref(svc);
	json_decref(st);
	return svc;
}

/* Wait until status shows a report of svc-echo whose summary is want:
 * svc-echo's status entry (a new reference). */
static json_t *wait_report(struct fixture *f, const char *want)
{
	long long deadline = fx_now_ms() + CK_WAIT_MS;

	while (fx_now_ms() < deadline) {
		json_t *svc = echo_status(f);

		if (strcmp(fx_jstr(json_object_get(svc, "report"), "summary"), want) == 0)
			return svc;
		json_decref(svc);
		fx_sleep_ms(20);
	}
	fail_msg("status never showed svc-echo's report \"%s\"", want);
	return NULL;
}

/* echo_report with json as the text the task sends. */
static void send_report(struct fixture *f, const char *json)
{
	json_t *args = json_pack("{s:s}", "json", json);
	char *text = args ? json_dumps(args, JSON_COMPACT) : NULL;

	assert_non_null(text);
	ck_call_ok(f, "echo_report", text, "report queued");
	free(text);
	json_decref(args);
}

/* A report object of exactly len bytes: a summary and padding. */
static char *report_of_size(const char *summary, size_t len)
{
	size_t head = strlen("{\"summary\":\"\",\"pad\":\"\"}") + strlen(summary), pad;
	char *text;

	assert_true(len > head);
	pad = len - head;
	text = malloc(len + 1);
	assert_non_null(text);
	snprintf(text, len + 1, "{\"summary\":\"%s\",\"pad\":\"%0*d\"}", summary, (int)pad, 0);
	assert_int_equal(strlen(text), len);
	return text;
}

/* The next service.report event: its body, after checking every field
 * the broker adds (and that it adds nothing more). */
static json_t *next_report_event(struct ck_sub *s, long long gen)
{
	json_t *ev = ck_sub_wait(s, "service.report", NULL, NULL, CK_WAIT_MS);

	assert_string_equal(fx_jstr(ev, "service"), "svc-echo");
	assert_int_equal(json_integer_value(json_object_get(ev, "generation")), gen);
	assert_true(json_is_integer(json_object_get(ev, "time")));
	assert_true(json_is_object(json_object_get(ev, "report")));
	assert_int_equal(json_object_size(ev), 5); /* service generation report event time */
	return ev;
}

static void test_report_in_status_and_events(void **state)
{
	const char *status[] = { "status", NULL };
	const char *ready = "{\"summary\":\"relay link ready\",\"state\":\"ready\",\"lastError\":null,\"since\":17}";
	struct fixture *f = *state;
	char *exact = report_of_size("exactly 4096 bytes", 4096), *over = report_of_size("one byte over", 4097);
	char *out, *log;
	json_t *svc, *ev, *want;
	long long gen;
	struct ck_sub s;

	ck_start(f, report_conf, task_env);

	/* The task's first report, sent before the service said ready. */
	svc = wait_report(f, "echo task up");
	gen = json_integer_value(json_object_get(svc, "generation"));
	want = json_pack("{s:s, s:I}", "summary", "echo task up", "pid", json_integer_value(json_object_get(svc, "pid")));
	assert_true(json_equal(json_object_get(svc, "report"), want));
	json_decref(want);
	json_decref(svc);

	/* A report from a handler's queue: the event, status, the summary line. */
	ck_sub_open(&s, f, "");
	ck_sub_warm(&s, f);
	send_report(f, ready);
	want = json_loads(ready, 0, NULL);
	ev = next_report_event(&s, gen);
	assert_true(json_equal(json_object_get(ev, "report"), want));
	json_decref(ev);
	svc = echo_status(f);
	assert_true(json_equal(json_object_get(svc, "report"), want));
	json_decref(svc);
	json_decref(want);
	assert_int_equal(fx_hbctl(f, &out, status), 0);
	if (!strstr(out, "\nsvc-echo: relay link ready\n"))
		fail_msg("hbctl status has no \"svc-echo: relay link ready\" line:\n%s", out);
	free(out);

	/* Not an object, not JSON, one byte too long: each dropped and logged.
	 * Reports travel in order on one socket, so the next event is the
	 * 4096-byte one only when none of these was taken. */
	send_report(f, "[1,2]");
	send_report(f, "not json");
	send_report(f, over);
	send_report(f, exact);
	ev = next_report_event(&s, gen);
	assert_string_equal(fx_jstr(json_object_get(ev, "report"), "summary"), "exactly 4096 bytes");
	json_decref(ev);
	log = fx_read_text(f->log);
	if (!strstr(log, "report dropped: 5 bytes that are not a JSON object of at most 4096 bytes") ||
	    !strstr(log, "report dropped: 8 bytes") || !strstr(log, "report dropped: 4097 bytes"))
		fail_msg("the broker log does not name the three dropped reports:\n%s", log);
	free(log);
	ck_call_ok(f, "echo", "{\"still\":\"serving\"}", "{\"still\":\"serving\"}");
	svc = echo_status(f);
	want = json_loads(exact, 0, NULL);
	assert_true(json_equal(json_object_get(svc, "report"), want));
	json_decref(want);
	json_decref(svc);
	ck_sub_close(&s);
	free(exact);
	free(over);
	ck_finish(f);
}

/* The replacement's own report, not the old incarnation's, once it serves. */
static void test_report_follows_the_serving_incarnation(void **state)
{
	struct fixture *f = *state;
	const char *replace[] = { "replace", "svc-echo", NULL, NULL };
	char exe[1200], *out;
	long long gen, pid;
	json_t *svc;

	ck_start(f, report_conf, task_env);
	json_decref(wait_report(f, "echo task up"));
	send_report(f, "{\"summary\":\"the old one's\"}");
	svc = wait_report(f, "the old one's");
	gen = json_integer_value(json_object_get(svc, "generation"));
	json_decref(svc);

	snprintf(exe, sizeof exe, "%s/tests/svc-echo", f->build);
	replace[2] = exe;
	assert_int_equal(fx_hbctl(f, &out, replace), 0);
	free(out);
	svc = wait_report(f, "echo task up");
	pid = json_integer_value(json_object_get(svc, "pid"));
	assert_true(json_integer_value(json_object_get(svc, "generation")) > gen);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(svc, "report"), "pid")), pid);
	json_decref(svc);
	ck_finish(f);
}

/* Without the task svc-echo never reports: null, and no summary line. */
static void test_no_report_is_null(void **state)
{
	const char *status[] = { "status", NULL };
	struct fixture *f = *state;
	json_t *svc;
	char *out;

	ck_start(f, report_conf, NULL);
	ck_call_says(f, "echo_report", "{\"json\":\"{}\"}", 0, "runs no report task");
	svc = echo_status(f);
	assert_true(json_is_null(json_object_get(svc, "report")));
	json_decref(svc);
	assert_int_equal(fx_hbctl(f, &out, status), 0);
	if (strstr(out, "svc-echo:"))
		fail_msg("hbctl status shows a report nobody sent:\n%s", out);
	free(out);
	ck_finish(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ck_unit_test(test_report_in_status_and_events),
		ck_unit_test(test_report_follows_the_serving_incarnation),
		ck_unit_test(test_no_report_is_null),
	};

	return ck_run_group_tests(tests, NULL, NULL);
}
