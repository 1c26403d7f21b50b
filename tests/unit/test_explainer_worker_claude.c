/*
 * test_explainer_worker_claude - svc-explainer's Claude worker driver
 * against fake agent hosts (sh scripts that play a scripted host of
 * docs/agent-host-pipe.md): the options it refuses, the open it sends (a
 * fresh UUID v4, the work folder, dontAsk, the worker's tools and only
 * them allowed, the model) and the send with the brief once open is
 * answered, an idle before the turn that does not end it, open sent again
 * with "default" by a host that does not know dontAsk, a permission
 * denied, tool calls answered through the callback with toolResult (text,
 * a PNG as an image block) and counted, a toolCall that cannot be read
 * answered as an error, close at the stop, a refused open, a refused
 * send, a host that fails or dies, the deadline before the open, a cancel
 * the host honours (interrupt) or ignores (then its group is killed), and
 * a deadline that passes while a tool runs.  Every case ends with no
 * process left in the worker's group, also when the service is killed
 * outright while the host has a child of its own.  The real host and Claude Code are
 * in tests/e2e/worker-claude.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <jansson.h>

#include "../../svc-explainer/worker.h"
#include "worker_rig.h"

#define CAPS                                                                                                 \
	"[{\"name\":\"echo\",\"description\":\"Echo.\",\"inputSchema\":{\"type\":\"object\"},\"approval\":"      \
	"\"read-only\"},{\"name\":\"picture\",\"description\":\"A picture.\",\"inputSchema\":{\"type\":"         \
	"\"object\"},\"approval\":\"agent\"}]"

static struct worker_opts opts_for(struct rig *r, char **argv)
{
	return rig_opts(r, argv, "host.mjs", CAPS, "claude-mock");
}

/* The open answered, the send read and answered, the turn running. */
#define OPENED                                                                                              \
	"read -r open; echo \"$open\" >\"$D/open\"\n"                                                       \
	"echo '{\"id\":1,\"result\":{\"sessionId\":\"s\",\"resumed\":false,\"inheritedMarkers\":[]}}'\n"   \
	"read -r send; echo \"$send\" >\"$D/send\"\n"                                                       \
	"echo '{\"id\":2,\"result\":{}}'\n" STATE("running")
#define STATE(s)                                                                                            \
	"echo '{\"event\":\"message\",\"message\":{\"type\":\"system\",\"subtype\":\"session_state_changed\"," \
	"\"state\":\"" s "\"}}'\n"
#define RESULT(subtype, error)                                                                              \
	"echo '{\"event\":\"message\",\"message\":{\"type\":\"result\",\"subtype\":\"" subtype "\","          \
	"\"is_error\":" error "}}'\n"
/* A toolCall of the fake, its answer kept in the file named by the id. */
#define TOOL_CALL(id, tool)                                                                                 \
	"echo '{\"event\":\"toolCall\",\"requestId\":\"" id "\",\"tool\":\"" tool "\",\"arguments\":"          \
	"{\"word\":\"w-" id "\"},\"toolUseId\":\"toolu_" id "\"}'\n"                                          \
	"read -r answer; echo \"$answer\" >\"$D/" id "\"\n"

static void test_refused_options(void **state)
{
	struct rig *r = *state;
	char *argv[3];
	struct worker_opts o = opts_for(r, argv);
	struct worker *w = (void *)1;
	char err[256];

	o.tool = NULL;
	assert_int_equal(worker_start(&worker_claude, &o, &w, err, sizeof err), -1);
	assert_null(w);
	assert_string_equal(err, "the Claude worker needs the agent host, a work folder, its tools, a brief and a "
				 "tool callback");
	o = opts_for(r, argv);
	o.tools = "{\"not\":\"an array\"}";
	assert_int_equal(worker_start(&worker_claude, &o, &w, err, sizeof err), -1);
	assert_string_equal(err, "the Claude worker's tools are not a JSON array: another JSON value");
	o.tools = "[{\"name\":\"echo\"},{\"description\":\"no name\"}]";
	assert_int_equal(worker_start(&worker_claude, &o, &w, err, sizeof err), -1);
	assert_string_equal(err, "the Claude worker's tool 2 has no name");
	o = opts_for(r, argv);
	argv[0] = "/nonexistent/node";
	assert_int_equal(worker_start(&worker_claude, &o, &w, err, sizeof err), -1);
	assert_string_equal(err, "cannot execute /nonexistent/node: No such file or directory");
	assert_int_equal(r->calls.n, 0);
}

/* A UUID of version 4 (RFC 9562), lower case. */
static int is_uuid_v4(const char *s)
{
	static const char form[] = "xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx";

	if (!s || strlen(s) != sizeof form - 1)
		return 0;
	for (size_t i = 0; form[i]; i++) {
		int hex = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');
		if ((form[i] == 'x' && !hex) || (form[i] == '-' && s[i] != '-') || (form[i] == '4' && s[i] != '4') ||
		    (form[i] == 'V' && !strchr("89ab", s[i])))
			return 0;
	}
	return 1;
}

static void test_whole_turn(void **state)
{
	struct rig *r = *state;
	char *argv[3], err[256] = "", first_session[40];
	struct worker_opts o = opts_for(r, argv);
	struct worker *w;
	json_t *open, *params, *caps;

	/* An idle before the send's answer is not the turn's end. */
	write_fake(r, "read -r open; echo \"$open\" >\"$D/open\"\n"
		      "echo '{\"id\":1,\"result\":{\"sessionId\":\"s\",\"resumed\":false,\"inheritedMarkers\":[]}}'\n"
		      STATE("idle")
		      "read -r send; echo \"$send\" >\"$D/send\"\n"
		      "echo '{\"id\":2,\"result\":{}}'\n" STATE("running")
		      "echo '{\"event\":\"permission\",\"requestId\":\"perm-1\",\"tool\":\"Bash\",\"input\":"
		      "{\"command\":\"ls\"},\"toolUseId\":\"toolu_0\"}'\n"
		      "read -r answer; echo \"$answer\" >\"$D/perm-1\"\n"
		      TOOL_CALL("tool-1", "echo")
		      TOOL_CALL("tool-2", "picture")
		      "echo '{\"event\":\"toolCall\",\"requestId\":\"tool-3\"}'\n"
		      "read -r answer; echo \"$answer\" >\"$D/tool-3\"\n"
		      "echo '{\"event\":\"toolCancel\",\"requestId\":\"tool-2\",\"toolUseId\":\"toolu_tool-2\"}'\n"
		      RESULT("success", "false") STATE("idle")
		      "read -r line; echo \"$line\" >\"$D/close\"\n"
		      "cat >/dev/null");
	assert_int_equal(worker_start(&worker_claude, &o, &w, err, sizeof err), 0);
	assert_null(worker_turn_status(w));
	assert_int_equal(worker_wait(w, hb_monotonic_ms() + 60000, flag_raised, NULL, err, sizeof err),
			 WORKER_TURN_ENDED);
	assert_string_equal(worker_turn_status(w), "completed");
	assert_int_equal(worker_tool_calls(w), 2);
	stop_and_check_gone(w);

	assert_string_equal(read_rig_file(r, "argv"), "host.mjs\n");
	assert_non_null(open = json_loads(read_rig_file(r, "open"), 0, NULL));
	assert_int_equal(json_integer_value(json_object_get(open, "id")), 1);
	assert_string_equal(json_string_value(json_object_get(open, "method")), "open");
	params = json_object_get(open, "params");
	assert_true(is_uuid_v4(json_string_value(json_object_get(params, "sessionId"))));
	snprintf(first_session, sizeof first_session, "%s", json_string_value(json_object_get(params, "sessionId")));
	assert_string_equal(json_string_value(json_object_get(params, "cwd")), r->dir);
	assert_string_equal(json_string_value(json_object_get(params, "permissionMode")), "dontAsk");
	assert_string_equal(json_string_value(json_object_get(params, "model")), "claude-mock");
	assert_int_equal(json_array_size(json_object_get(params, "allowedTools")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(params, "allowedTools"), 0)),
			    "mcp__hbcode__echo");
	assert_string_equal(json_string_value(json_array_get(json_object_get(params, "allowedTools"), 1)),
			    "mcp__hbcode__picture");
	assert_non_null(caps = json_loads(CAPS, 0, NULL));
	assert_true(json_equal(json_object_get(params, "appCapabilities"), caps));
	/* the worker is private: Claude Code keeps no transcript of it */
	assert_true(json_is_false(json_object_get(params, "persistSession")));
	assert_int_equal(json_object_size(params), 7);
	json_decref(caps);
	json_decref(open);
	assert_string_equal(read_rig_file(r, "send"),
			    "{\"id\":2,\"method\":\"send\",\"params\":{\"text\":\"Explain marmalade.\"}}\n");
	assert_string_equal(read_rig_file(r, "perm-1"),
			    "{\"id\":100,\"method\":\"permission\",\"params\":{\"requestId\":\"perm-1\",\"decision\":"
			    "\"deny\",\"message\":\"The explainer worker may use only its own tools.\"}}\n");
	assert_string_equal(read_rig_file(r, "tool-1"),
			    "{\"id\":101,\"method\":\"toolResult\",\"params\":{\"content\":[{\"type\":\"text\",\"text\":"
			    "\"echo got {\\\"word\\\":\\\"w-tool-1\\\"}\"}],\"isError\":false,\"requestId\":\"tool-1\"}}\n");
	assert_string_equal(read_rig_file(r, "tool-2"),
			    "{\"id\":102,\"method\":\"toolResult\",\"params\":{\"content\":[{\"type\":\"text\",\"text\":"
			    "\"picture got {\\\"word\\\":\\\"w-tool-2\\\"}\"},{\"type\":\"image\",\"data\":\"" PNG_B64
			    "\",\"mimeType\":\"image/png\"}],\"isError\":false,\"requestId\":\"tool-2\"}}\n");
	assert_string_equal(read_rig_file(r, "tool-3"),
			    "{\"id\":103,\"method\":\"toolResult\",\"params\":{\"content\":[{\"type\":\"text\",\"text\":"
			    "\"a toolCall needs requestId, tool and object arguments\"}],\"isError\":true,\"requestId\":"
			    "\"tool-3\"}}\n");
	assert_string_equal(read_rig_file(r, "close"), "{\"id\":4,\"method\":\"close\",\"params\":{}}\n");
	assert_int_equal(r->calls.n, 2);
	assert_string_equal(r->calls.seen[0], "echo {\"word\":\"w-tool-1\"}");
	assert_string_equal(r->calls.seen[1], "picture {\"word\":\"w-tool-2\"}");

	/* Each worker is a new conversation. */
	o = opts_for(r, argv);
	write_fake(r, "read -r open; echo \"$open\" >\"$D/open\"\nexit 5");
	assert_int_equal(worker_start(&worker_claude, &o, &w, err, sizeof err), 0);
	assert_int_equal(worker_wait(w, hb_monotonic_ms() + 60000, NULL, NULL, err, sizeof err), WORKER_FAILED);
	stop_and_check_gone(w);
	assert_non_null(open = json_loads(read_rig_file(r, "open"), 0, NULL));
	assert_true(is_uuid_v4(json_string_value(json_object_get(json_object_get(open, "params"), "sessionId"))));
	assert_string_not_equal(json_string_value(json_object_get(json_object_get(open, "params"), "sessionId")),
				first_session);
	json_decref(open);
}

/* A host that does not know dontAsk: the open again with "default", the
 * questions that mode asks denied, and the turn's error result. */
static void test_default_mode(void **state)
{
	struct rig *r = *state;
	char *argv[3], err[256] = "";
	struct worker_opts o = opts_for(r, argv);
	struct worker *w;

	write_fake(r, "read -r open; echo \"$open\" >\"$D/open1\"\n"
		      "echo '{\"id\":1,\"error\":{\"code\":\"invalid_request\",\"message\":\"params.permissionMode: "
		      "must be one of default, acceptEdits, plan\"}}'\n"
		      OPENED
		      "echo '{\"event\":\"permission\",\"requestId\":\"perm-1\",\"tool\":\"Write\",\"input\":{}}'\n"
		      "read -r answer; echo \"$answer\" >\"$D/perm-1\"\n"
		      RESULT("error_max_turns", "true") STATE("idle")
		      "cat >/dev/null");
	assert_int_equal(worker_start(&worker_claude, &o, &w, err, sizeof err), 0);
	assert_int_equal(worker_wait(w, hb_monotonic_ms() + 60000, flag_raised, NULL, err, sizeof err),
			 WORKER_TURN_ENDED);
	assert_string_equal(worker_turn_status(w), "failed");
	stop_and_check_gone(w);
	assert_non_null(strstr(read_rig_file(r, "open1"), "\"permissionMode\":\"dontAsk\""));
	assert_non_null(strstr(read_rig_file(r, "open"), "\"permissionMode\":\"default\""));
	assert_non_null(strstr(read_rig_file(r, "perm-1"), "\"decision\":\"deny\""));
	assert_non_null(strstr(read_rig_file(r, "send"), "\"method\":\"send\""));
}

static void expect_failure(struct rig *r, const char *body, const char *why)
{
	char *argv[3], err[256] = "";
	struct worker_opts o = opts_for(r, argv);
	struct worker *w;

	write_fake(r, body);
	assert_int_equal(worker_start(&worker_claude, &o, &w, err, sizeof err), 0);
	assert_int_equal(worker_wait(w, hb_monotonic_ms() + 60000, flag_raised, NULL, err, sizeof err),
			 WORKER_FAILED);
	assert_string_equal(err, why);
	assert_null(worker_turn_status(w));
	stop_and_check_gone(w);
}

static void test_failures(void **state)
{
	struct rig *r = *state;

	expect_failure(r,
		       "read -r open\n"
		       "echo '{\"id\":1,\"error\":{\"code\":\"open_failed\",\"message\":\"Claude Code native binary "
		       "not found\"}}'\n"
		       "echo '{\"event\":\"failed\",\"error\":\"Claude Code native binary not found\"}'\n"
		       "echo '{\"event\":\"closed\",\"reason\":\"failed\"}'\nexit 1",
		       "the Claude agent host refused open: Claude Code native binary not found");
	expect_failure(r,
		       "read -r open\n"
		       "echo '{\"id\":1,\"result\":{\"sessionId\":\"s\",\"resumed\":false,\"inheritedMarkers\":[]}}'\n"
		       "read -r send\n"
		       "echo '{\"id\":2,\"error\":{\"code\":\"busy\",\"message\":\"Claude is still busy\"}}'\n"
		       "cat >/dev/null",
		       "the Claude agent host refused send: Claude is still busy");
	expect_failure(r,
		       OPENED "echo '{\"event\":\"failed\",\"error\":\"Claude Code process exited with code 1\"}'\n"
		       "echo '{\"event\":\"closed\",\"reason\":\"failed\"}'\nexit 1",
		       "the Claude agent host failed: Claude Code process exited with code 1");
	expect_failure(r, OPENED "echo '{\"event\":\"closed\",\"reason\":\"ended\"}'\nexit 0",
		       "the Claude agent host closed before the worker's turn ended: ended");
	expect_failure(r, "read -r open\nexit 3",
		       "the Claude agent host ended before the worker's turn did (exit status 3)");
}

static void test_deadline_before_open(void **state)
{
	struct rig *r = *state;
	char *argv[3], err[256] = "";
	struct worker_opts o = opts_for(r, argv);
	struct worker *w;

	/* A child of the host in its group, as Claude Code would be. */
	write_fake(r, "sleep 600 &\ncat >/dev/null");
	assert_int_equal(worker_start(&worker_claude, &o, &w, err, sizeof err), 0);
	assert_true(live_members(worker_pgid(w)) > 0);
	assert_int_equal(worker_wait(w, hb_monotonic_ms(), NULL, NULL, err, sizeof err), WORKER_TIMED_OUT);
	assert_string_equal(worker_turn_status(w), "killed");
	stop_and_check_gone(w);
}

static void test_cancel_honoured(void **state)
{
	struct rig *r = *state;
	char *argv[3], err[256] = "";
	struct worker_opts o = opts_for(r, argv);
	struct worker *w;

	write_fake(r, OPENED "kill -USR1 $T\n"
		      "read -r line; echo \"$line\" >\"$D/interrupt\"\n"
		      "case $line in *'\"method\":\"interrupt\"'*)\n"
		      "  echo '{\"id\":3,\"result\":{}}'\n"
		      "  " RESULT("error_during_execution", "true") "  " STATE("idle") ";;\n"
		      "esac\ncat >/dev/null");
	rig_patient_cancel();
	assert_int_equal(worker_start(&worker_claude, &o, &w, err, sizeof err), 0);
	assert_int_equal(worker_wait(w, hb_monotonic_ms() + 60000, flag_raised, NULL, err, sizeof err),
			 WORKER_CANCELLED);
	assert_string_equal(worker_turn_status(w), "interrupted");
	stop_and_check_gone(w);
	assert_string_equal(read_rig_file(r, "interrupt"), "{\"id\":3,\"method\":\"interrupt\",\"params\":{}}\n");
}

static void test_cancel_ignored(void **state)
{
	struct rig *r = *state;
	char *argv[3], err[256] = "";
	struct worker_opts o = opts_for(r, argv);
	struct worker *w;

	write_fake(r, OPENED "sleep 600 &\nkill -USR1 $T\ncat >/dev/null");
	assert_int_equal(worker_start(&worker_claude, &o, &w, err, sizeof err), 0);
	assert_int_equal(worker_wait(w, hb_monotonic_ms() + 60000, flag_raised, NULL, err, sizeof err),
			 WORKER_CANCELLED);
	assert_string_equal(worker_turn_status(w), "killed");
	stop_and_check_gone(w);
}

/* The deadline passes while a tool runs ("slow" returns only after it):
 * the call is answered first, then the turn is interrupted. */
static void test_deadline_during_tool(void **state)
{
	struct rig *r = *state;
	char *argv[3], err[256] = "";
	struct worker_opts o = opts_for(r, argv);
	struct worker *w;

	write_fake(r, OPENED TOOL_CALL("tool-1", "slow")
		      "read -r line; echo \"$line\" >\"$D/interrupt\"\n"
		      RESULT("error_during_execution", "true") STATE("idle")
		      "cat >/dev/null");
	r->calls.deadline = hb_monotonic_ms() + 200;
	assert_int_equal(worker_start(&worker_claude, &o, &w, err, sizeof err), 0);
	assert_int_equal(worker_wait(w, r->calls.deadline, NULL, NULL, err, sizeof err), WORKER_TIMED_OUT);
	assert_string_equal(worker_turn_status(w), "interrupted");
	assert_int_equal(worker_tool_calls(w), 1);
	stop_and_check_gone(w);
	assert_non_null(strstr(read_rig_file(r, "tool-1"), "\"isError\":false"));
	assert_non_null(strstr(read_rig_file(r, "interrupt"), "\"method\":\"interrupt\""));
}

/* The service killed outright, with no stop: the group's guard kills the
 * whole group, the host's own child too (as Claude Code is: the host's
 * parent-death signal would not reach it). */
static void test_service_killed(void **state)
{
	struct rig *r = *state;
	char *argv[3], err[256] = "";
	struct worker_opts o = opts_for(r, argv);
	long long until;
	int fds[2], pgid = 0;
	pid_t service;

	write_fake(r, "sleep 600 &\necho \"$!\" >\"$D/grandchild\"\ncat >/dev/null");
	assert_int_equal(pipe(fds), 0);
	service = fork();
	assert_true(service >= 0);
	if (service == 0) {
		struct worker *w;
		close(fds[0]);
		if (worker_start(&worker_claude, &o, &w, err, sizeof err) < 0)
			_exit(1);
		pgid = worker_pgid(w);
		if (write(fds[1], &pgid, sizeof pgid) != (ssize_t)sizeof pgid)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &pgid, sizeof pgid), (ssize_t)sizeof pgid);
	close(fds[0]);
	/* A bound on how long to look for the host's child, not a timing. */
	until = hb_monotonic_ms() + 5000;
	while (!read_rig_file(r, "grandchild") && hb_monotonic_ms() < until) {
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
	assert_non_null(read_rig_file(r, "grandchild"));
	assert_true(live_members(pgid) >= 3); /* the guard, the host, its child */
	assert_int_equal(kill(service, SIGKILL), 0);
	assert_int_equal(waitpid(service, NULL, 0), service);
	assert_group_gone(pgid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_refused_options, make_rig, remove_rig),
		cmocka_unit_test_setup_teardown(test_whole_turn, make_rig, remove_rig),
		cmocka_unit_test_setup_teardown(test_default_mode, make_rig, remove_rig),
		cmocka_unit_test_setup_teardown(test_failures, make_rig, remove_rig),
		cmocka_unit_test_setup_teardown(test_deadline_before_open, make_rig, remove_rig),
		cmocka_unit_test_setup_teardown(test_cancel_honoured, make_rig, remove_rig),
		cmocka_unit_test_setup_teardown(test_cancel_ignored, make_rig, remove_rig),
		cmocka_unit_test_setup_teardown(test_deadline_during_tool, make_rig, remove_rig),
		cmocka_unit_test_setup_teardown(test_service_killed, make_rig, remove_rig),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
