/*
 * test_explainer_worker_codex - svc-explainer's Codex worker driver
 * against fake codex app-servers (sh scripts that play a scripted codex):
 * the options it refuses, codex's argv and the requests it gets
 * (thread/start's policy, turn/start's brief), approvals declined, a
 * turn/completed before turn/start's answer, tool calls answered through
 * the callback (text, a PNG as an inputImage data URL, a broken PNG told
 * to the model) and counted, a call for another namespace refused without
 * reaching the callback, a refused initialize, a codex that dies, the
 * deadline before any turn, and a cancel the worker honours or ignores
 * (then its group is killed), also one that comes during a tool call.
 * Every case ends with no process left in the worker's group.  The real
 * codex is in tests/e2e/worker-codex.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "../../svc-explainer/worker.h"
#include "worker_rig.h"

#define TOOLS "[{\"type\":\"namespace\",\"name\":\"" WORKER_NAMESPACE "\",\"tools\":[]}]"

static struct worker_opts opts_for(struct rig *r, char **argv)
{
	return rig_opts(r, argv, "app-server", TOOLS, "mock-model");
}

/* The handshake up to turn/start's answer, the requests kept in files. */
#define HANDSHAKE                                                                        \
	"read init; echo \"$init\" >\"$D/initialize\"\n"                                  \
	"echo '{\"id\":1,\"result\":{}}'\n"                                               \
	"read initialized; echo \"$initialized\" >\"$D/initialized\"\n"                   \
	"read thread; echo \"$thread\" >\"$D/thread\"\n"                                  \
	"echo '{\"id\":2,\"result\":{\"thread\":{\"id\":\"th1\"}}}'\n"                    \
	"read turn; echo \"$turn\" >\"$D/turn\"\n"

static void test_refused_options(void **state)
{
	struct rig *r = *state;
	char *argv[3];
	struct worker_opts o = opts_for(r, argv);
	struct worker *w = (void *)1;
	char err[256];

	o.tool = NULL;
	assert_int_equal(worker_start(&worker_codex, &o, &w, err, sizeof err), -1);
	assert_null(w);
	assert_string_equal(err, "the Codex worker needs codex, a work folder, its tools, a brief and a tool callback");
	o = opts_for(r, argv);
	o.tools = "{\"not\":\"an array\"}";
	assert_int_equal(worker_start(&worker_codex, &o, &w, err, sizeof err), -1);
	assert_string_equal(err, "the Codex worker's tools are not a JSON array: another JSON value");
	o.tools = "[{";
	assert_int_equal(worker_start(&worker_codex, &o, &w, err, sizeof err), -1);
	assert_non_null(strstr(err, "the Codex worker's tools are not a JSON array: "));
	o = opts_for(r, argv);
	argv[0] = "/nonexistent/codex";
	assert_int_equal(worker_start(&worker_codex, &o, &w, err, sizeof err), -1);
	assert_string_equal(err, "cannot execute /nonexistent/codex: No such file or directory");
	assert_int_equal(r->calls.n, 0);
}

/* An item/tool/call of the fake: $1 its JSON-RPC id, $2 the namespace,
 * $3 the tool; the answer is kept in the file named by the id. */
#define TOOL_CALL(id, ns, tool)                                                                          \
	"echo '{\"id\":\"" id "\",\"method\":\"item/tool/call\",\"params\":{\"threadId\":\"th1\","        \
	"\"turnId\":\"tu1\",\"callId\":\"call-" id "\",\"namespace\":\"" ns "\",\"tool\":\"" tool "\","     \
	"\"arguments\":{\"word\":\"w-" id "\"}}}'\n"                                                     \
	"read -r answer; echo \"$answer\" >\"$D/" id "\"\n"

static void test_whole_turn(void **state)
{
	struct rig *r = *state;
	char *argv[3];
	struct worker_opts o = opts_for(r, argv);
	struct worker *w;
	char err[256] = "", *text;

	/* An approval before anything else; tool calls answered, one
	 * refused; the turn's end before turn/start's answer. */
	write_fake(r, "read init; echo \"$init\" >\"$D/initialize\"\n"
		       "echo '{\"id\":\"a1\",\"method\":\"item/commandExecution/requestApproval\",\"params\":{}}'\n"
		       "read answer; echo \"$answer\" >\"$D/approval\"\n"
		       "echo '{\"id\":\"a2\",\"method\":\"item/tool/requestUserInput\",\"params\":{}}'\n"
		       "read answer; echo \"$answer\" >\"$D/other\"\n"
		       "echo '{\"id\":1,\"result\":{}}'\n"
		       "read initialized; echo \"$initialized\" >\"$D/initialized\"\n"
		       "read thread; echo \"$thread\" >\"$D/thread\"\n"
		       "echo '{\"id\":2,\"result\":{\"thread\":{\"id\":\"th1\"}}}'\n"
		       "read turn; echo \"$turn\" >\"$D/turn\"\n"
		       TOOL_CALL("c1", WORKER_NAMESPACE, "echo")
		       TOOL_CALL("c2", WORKER_NAMESPACE, "picture")
		       TOOL_CALL("c3", "hbcode", "echo")
		       TOOL_CALL("c4", WORKER_NAMESPACE, "broken")
		       "echo '{\"method\":\"turn/completed\",\"params\":{\"turn\":{\"id\":\"tu1\",\"status\":\"completed\"}}}'\n"
		       "echo '{\"id\":3,\"result\":{\"turn\":{\"id\":\"tu1\"}}}'\n"
		       "cat >/dev/null");
	assert_int_equal(worker_start(&worker_codex, &o, &w, err, sizeof err), 0);
	assert_null(worker_turn_status(w));
	assert_int_equal(worker_wait(w, hb_monotonic_ms() + 60000, flag_raised, NULL, err, sizeof err),
			 WORKER_TURN_ENDED);
	assert_string_equal(worker_turn_status(w), "completed");
	assert_int_equal(worker_tool_calls(w), 3);
	stop_and_check_gone(w);

	/* The callback got the bare names and the arguments; the call of the
	 * other namespace never reached it. */
	assert_int_equal(r->calls.n, 3);
	assert_string_equal(r->calls.seen[0], "echo {\"word\":\"w-c1\"}");
	assert_string_equal(r->calls.seen[1], "picture {\"word\":\"w-c2\"}");
	assert_string_equal(r->calls.seen[2], "broken {\"word\":\"w-c4\"}");
	assert_string_equal(read_rig_file(r, "c1"),
			    "{\"result\":{\"contentItems\":[{\"type\":\"inputText\",\"text\":"
			    "\"echo got {\\\"word\\\":\\\"w-c1\\\"}\"}],\"success\":true},\"id\":\"c1\"}\n");
	assert_string_equal(read_rig_file(r, "c2"),
			    "{\"result\":{\"contentItems\":[{\"type\":\"inputText\",\"text\":"
			    "\"picture got {\\\"word\\\":\\\"w-c2\\\"}\"},{\"type\":\"inputImage\",\"imageUrl\":"
			    "\"data:image/png;base64," PNG_B64 "\"}],\"success\":true},\"id\":\"c2\"}\n");
	assert_string_equal(read_rig_file(r, "c3"),
			    "{\"result\":{\"contentItems\":[{\"type\":\"inputText\",\"text\":"
			    "\"only tools of the " WORKER_NAMESPACE " namespace are served here\"}],\"success\":false},\"id\":\"c3\"}\n");
	assert_string_equal(read_rig_file(r, "c4"),
			    "{\"result\":{\"contentItems\":[{\"type\":\"inputText\",\"text\":"
			    "\"The tool's picture cannot be shown: image 1 is declared image/png, but its bytes are "
			    "not a PNG.\"}],\"success\":false},\"id\":\"c4\"}\n");

	assert_string_equal(read_rig_file(r, "argv"), "app-server\n");
	assert_non_null(strstr(read_rig_file(r, "initialize"), "\"experimentalApi\":true"));
	assert_string_equal(read_rig_file(r, "approval"), "{\"id\":\"a1\",\"result\":{\"decision\":\"decline\"}}\n");
	assert_non_null(strstr(read_rig_file(r, "other"), "\"id\":\"a2\",\"error\""));
	assert_string_equal(read_rig_file(r, "initialized"), "{\"method\":\"initialized\"}\n");
	text = read_rig_file(r, "thread");
	assert_non_null(strstr(text, "\"method\":\"thread/start\""));
	assert_non_null(strstr(text, "\"approvalPolicy\":\"never\""));
	assert_non_null(strstr(text, "\"sandbox\":\"workspace-write\""));
	/* the worker is private: codex saves no rollout or thread of it */
	assert_non_null(strstr(text, "\"ephemeral\":true"));
	assert_non_null(strstr(text, "\"exclude_slash_tmp\":true"));
	assert_non_null(strstr(text, "\"model\":\"mock-model\""));
	assert_non_null(strstr(text, "\"dynamicTools\":" TOOLS));
	assert_non_null(strstr(text, r->dir));
	text = read_rig_file(r, "turn");
	assert_non_null(strstr(text, "\"method\":\"turn/start\""));
	assert_non_null(strstr(text, "\"threadId\":\"th1\""));
	assert_non_null(strstr(text, "\"text\":\"Explain marmalade.\""));
}

static void test_initialize_refused(void **state)
{
	struct rig *r = *state;
	char *argv[3];
	struct worker_opts o = opts_for(r, argv);
	struct worker *w;
	char err[256] = "";

	write_fake(r, "read init\necho '{\"id\":1,\"error\":{\"code\":-32600,\"message\":\"nope\"}}'\n"
			"cat >/dev/null");
	assert_int_equal(worker_start(&worker_codex, &o, &w, err, sizeof err), 0);
	assert_int_equal(worker_wait(w, hb_monotonic_ms() + 60000, flag_raised, NULL, err, sizeof err),
			 WORKER_FAILED);
	assert_string_equal(err, "Codex refused initialize: nope");
	stop_and_check_gone(w);
}

static void test_codex_dies(void **state)
{
	struct rig *r = *state;
	char *argv[3];
	struct worker_opts o = opts_for(r, argv);
	struct worker *w;
	char err[256] = "";

	write_fake(r, "read init\nexit 3");
	assert_int_equal(worker_start(&worker_codex, &o, &w, err, sizeof err), 0);
	assert_int_equal(worker_wait(w, hb_monotonic_ms() + 60000, flag_raised, NULL, err, sizeof err),
			 WORKER_FAILED);
	assert_string_equal(err, "the Codex app-server ended before the worker's turn did (exit status 3)");
	stop_and_check_gone(w);
}

static void test_deadline_before_turn(void **state)
{
	struct rig *r = *state;
	char *argv[3];
	struct worker_opts o = opts_for(r, argv);
	struct worker *w;
	char err[256] = "";

	/* A child of codex in its group, as a command of the worker's. */
	write_fake(r, "sleep 600 &\ncat >/dev/null");
	assert_int_equal(worker_start(&worker_codex, &o, &w, err, sizeof err), 0);
	assert_true(live_members(worker_pgid(w)) > 0);
	assert_int_equal(worker_wait(w, hb_monotonic_ms(), NULL, NULL, err, sizeof err), WORKER_TIMED_OUT);
	assert_string_equal(worker_turn_status(w), "killed");
	stop_and_check_gone(w);
}

static void test_cancel_honoured(void **state)
{
	struct rig *r = *state;
	char *argv[3];
	struct worker_opts o = opts_for(r, argv);
	struct worker *w;
	char err[256] = "";

	write_fake(r, HANDSHAKE "echo '{\"id\":3,\"result\":{\"turn\":{\"id\":\"tu1\"}}}'\n"
			"kill -USR1 $T\n"
			"read line; echo \"$line\" >\"$D/interrupt\"\n"
			"case $line in *'\"turn/interrupt\"'*'\"turnId\":\"tu1\"'*)\n"
			"  echo '{\"method\":\"turn/completed\",\"params\":"
			"{\"turn\":{\"id\":\"tu1\",\"status\":\"interrupted\"}}}';;\n"
			"esac\ncat >/dev/null");
	rig_patient_cancel();
	assert_int_equal(worker_start(&worker_codex, &o, &w, err, sizeof err), 0);
	assert_int_equal(worker_wait(w, hb_monotonic_ms() + 60000, flag_raised, NULL, err, sizeof err),
			 WORKER_CANCELLED);
	assert_string_equal(worker_turn_status(w), "interrupted");
	stop_and_check_gone(w);
	assert_non_null(strstr(read_rig_file(r, "interrupt"), "\"threadId\":\"th1\""));
}

static void test_cancel_ignored(void **state)
{
	struct rig *r = *state;
	char *argv[3];
	struct worker_opts o = opts_for(r, argv);
	struct worker *w;
	char err[256] = "";

	write_fake(r, HANDSHAKE "echo '{\"id\":3,\"result\":{\"turn\":{\"id\":\"tu1\"}}}'\n"
			"kill -USR1 $T\ncat >/dev/null");
	assert_int_equal(worker_start(&worker_codex, &o, &w, err, sizeof err), 0);
	assert_int_equal(worker_wait(w, hb_monotonic_ms() + 60000, flag_raised, NULL, err, sizeof err),
			 WORKER_CANCELLED);
	assert_string_equal(worker_turn_status(w), "killed");
	stop_and_check_gone(w);
}

/* The cancel comes while a tool runs (the callback sets the flag): the
 * call is answered first, then the turn is interrupted. */
static void test_cancel_during_tool(void **state)
{
	struct rig *r = *state;
	char *argv[3];
	struct worker_opts o = opts_for(r, argv);
	struct worker *w;
	char err[256] = "";

	write_fake(r, HANDSHAKE "echo '{\"id\":3,\"result\":{\"turn\":{\"id\":\"tu1\"}}}'\n"
		       TOOL_CALL("c1", WORKER_NAMESPACE, "stop")
		       "read -r line; echo \"$line\" >\"$D/interrupt\"\n"
		       "echo '{\"method\":\"turn/completed\",\"params\":"
		       "{\"turn\":{\"id\":\"tu1\",\"status\":\"interrupted\"}}}'\n"
		       "cat >/dev/null");
	rig_patient_cancel();
	assert_int_equal(worker_start(&worker_codex, &o, &w, err, sizeof err), 0);
	assert_int_equal(worker_wait(w, hb_monotonic_ms() + 60000, flag_raised, NULL, err, sizeof err),
			 WORKER_CANCELLED);
	assert_string_equal(worker_turn_status(w), "interrupted");
	assert_int_equal(worker_tool_calls(w), 1);
	stop_and_check_gone(w);
	assert_non_null(strstr(read_rig_file(r, "c1"), "\"success\":true"));
	assert_non_null(strstr(read_rig_file(r, "interrupt"), "\"method\":\"turn/interrupt\""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_refused_options, make_rig, remove_rig),
		cmocka_unit_test_setup_teardown(test_whole_turn, make_rig, remove_rig),
		cmocka_unit_test_setup_teardown(test_initialize_refused, make_rig, remove_rig),
		cmocka_unit_test_setup_teardown(test_codex_dies, make_rig, remove_rig),
		cmocka_unit_test_setup_teardown(test_deadline_before_turn, make_rig, remove_rig),
		cmocka_unit_test_setup_teardown(test_cancel_honoured, make_rig, remove_rig),
		cmocka_unit_test_setup_teardown(test_cancel_ignored, make_rig, remove_rig),
		cmocka_unit_test_setup_teardown(test_cancel_during_tool, make_rig, remove_rig),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
