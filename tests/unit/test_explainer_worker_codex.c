/*
 * test_explainer_worker_codex - svc-explainer's Codex worker driver
 * against fake bridges (sh scripts that play a scripted codex app-server):
 * the options it refuses, the bridge's argv and the requests it gets
 * (thread/start's policy, turn/start's brief), approvals declined, a
 * turn/completed before turn/start's answer, the tool calls counted, a
 * refused initialize, a bridge that dies, the deadline before any turn,
 * and a cancel the worker honours or ignores (then its group is killed).
 * Every case ends with no process left in the worker's group.  The real
 * codex, bridge and broker are in tests/e2e/worker-codex.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../svc-explainer/worker_codex.h"
#include "clock.h"

#define TOOLS "[{\"type\":\"namespace\",\"name\":\"hbcode\",\"tools\":[]}]"

/* The fakes cancel by SIGUSR1 to their parent (us), after writing what
 * must be read first; a handler reaches only file-scope state. */
static volatile sig_atomic_t cancel_flag;

static void on_usr1(int sig)
{
	(void)sig;
	cancel_flag = 1;
}

struct rig {
	char dir[64];
	char bridge[128];
	char text[8192]; /* the last file read_rig_file read */
};

static int make_rig(void **state)
{
	struct rig *r = calloc(1, sizeof *r);
	struct sigaction sa;

	if (!r)
		return -1;
	snprintf(r->dir, sizeof r->dir, "/tmp/hb-worker-codex.XXXXXX");
	if (!mkdtemp(r->dir)) {
		free(r);
		return -1;
	}
	snprintf(r->bridge, sizeof r->bridge, "%s/bridge", r->dir);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) < 0 || signal(SIGPIPE, SIG_IGN) == SIG_ERR) {
		free(r);
		return -1;
	}
	cancel_flag = 0;
	*state = r;
	return 0;
}

static int remove_rig(void **state)
{
	struct rig *r = *state;
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", r->dir);
	if (system(cmd) != 0)
		return -1;
	free(r);
	return 0;
}

/* The fake bridge: a sh script whose body is the scenario; $D is the rig's
 * folder, where it leaves what it received.  A fake that goes on reading
 * runs `cat >/dev/null` as a child: `exec` would close its output, which
 * the worker rightly takes for the bridge's end. */
static void write_bridge(const struct rig *r, const char *body)
{
	FILE *f = fopen(r->bridge, "w");

	assert_non_null(f);
	assert_true(fprintf(f, "#!/bin/sh\nD='%s'\necho \"$*\" >\"$D/argv\"\n%s\n", r->dir, body) > 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(r->bridge, 0755), 0);
}

static char *read_rig_file(struct rig *r, const char *name)
{
	char *buf = r->text;
	char path[128];
	FILE *f;
	size_t n;

	snprintf(path, sizeof path, "%s/%s", r->dir, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof r->text - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static struct worker_codex_opts opts_for(const struct rig *r)
{
	struct worker_codex_opts o = { .bridge = r->bridge,
				       .codex = "codex",
				       .session = "s-1",
				       .cwd = r->dir,
				       .dynamic_tools = TOOLS,
				       .brief = "Explain marmalade.",
				       .model = "mock-model" };
	return o;
}

/* Processes of group pgid that are not zombies (a zombie is dead, only
 * waiting for init to reap it), from /proc. */
static int live_members(int pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[300], line[512], *rest, state;
		int ppid, pgrp;
		FILE *f;
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		if (!(f = fopen(path, "r")))
			continue; /* gone meanwhile */
		rest = fgets(line, sizeof line, f) ? strrchr(line, ')') : NULL;
		fclose(f);
		if (rest && sscanf(rest, ") %c %d %d", &state, &ppid, &pgrp) == 3 && pgrp == pgid && state != 'Z')
			n++;
	}
	closedir(d);
	return n;
}

/* Stop, then nothing of the group may live on.  A SIGKILL is delivered
 * asynchronously, so the group's last members get a bounded moment to
 * go: a bound on how long to look, not on how fast stop is. */
static void stop_and_check_gone(struct worker_codex *w)
{
	int pgid = worker_codex_pgid(w);
	long long until;

	worker_codex_stop(w);
	until = hb_monotonic_ms() + 5000;
	while (live_members(pgid) > 0 && hb_monotonic_ms() < until) {
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
	assert_int_equal(live_members(pgid), 0);
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
	struct worker_codex_opts o = opts_for(r);
	struct worker_codex *w = (void *)1;
	char err[256];

	o.session = NULL;
	assert_int_equal(worker_codex_start(&o, &w, err, sizeof err), -1);
	assert_null(w);
	assert_non_null(strstr(err, "needs the bridge, codex, a session"));
	o = opts_for(r);
	o.dynamic_tools = "{\"not\":\"an array\"}";
	assert_int_equal(worker_codex_start(&o, &w, err, sizeof err), -1);
	assert_string_equal(err, "the Codex worker's tools are not a JSON array: another JSON value");
	o.dynamic_tools = "[{";
	assert_int_equal(worker_codex_start(&o, &w, err, sizeof err), -1);
	assert_non_null(strstr(err, "the Codex worker's tools are not a JSON array: "));
	o = opts_for(r);
	o.bridge = "/nonexistent/hb-codex-bridge";
	assert_int_equal(worker_codex_start(&o, &w, err, sizeof err), -1);
	assert_string_equal(err, "cannot execute /nonexistent/hb-codex-bridge: No such file or directory");
}

static void test_whole_turn(void **state)
{
	struct rig *r = *state;
	struct worker_codex_opts o = opts_for(r);
	struct worker_codex *w;
	char err[256] = "", *text;

	/* An approval before anything else; the turn's end before turn/start's
	 * answer; one dynamic tool call passing by. */
	write_bridge(r, "read init; echo \"$init\" >\"$D/initialize\"\n"
			"echo '{\"id\":\"a1\",\"method\":\"item/commandExecution/requestApproval\",\"params\":{}}'\n"
			"read answer; echo \"$answer\" >\"$D/approval\"\n"
			"echo '{\"id\":\"a2\",\"method\":\"item/tool/requestUserInput\",\"params\":{}}'\n"
			"read answer; echo \"$answer\" >\"$D/other\"\n"
			"echo '{\"id\":1,\"result\":{}}'\n"
			"read initialized; echo \"$initialized\" >\"$D/initialized\"\n"
			"read thread; echo \"$thread\" >\"$D/thread\"\n"
			"echo '{\"id\":2,\"result\":{\"thread\":{\"id\":\"th1\"}}}'\n"
			"read turn; echo \"$turn\" >\"$D/turn\"\n"
			"echo '{\"method\":\"item/completed\",\"params\":{\"item\":{\"type\":\"dynamicToolCall\"}}}'\n"
			"echo '{\"method\":\"item/completed\",\"params\":{\"item\":{\"type\":\"agentMessage\"}}}'\n"
			"echo '{\"method\":\"turn/completed\",\"params\":{\"turn\":{\"id\":\"tu1\",\"status\":\"completed\"}}}'\n"
			"echo '{\"id\":3,\"result\":{\"turn\":{\"id\":\"tu1\"}}}'\n"
			"cat >/dev/null");
	assert_int_equal(worker_codex_start(&o, &w, err, sizeof err), 0);
	assert_null(worker_codex_turn_status(w));
	assert_int_equal(worker_codex_wait(w, hb_monotonic_ms() + 60000, &cancel_flag, err, sizeof err),
			 WORKER_CODEX_TURN_ENDED);
	assert_string_equal(worker_codex_turn_status(w), "completed");
	assert_int_equal(worker_codex_tool_calls(w), 1);
	stop_and_check_gone(w);

	assert_string_equal(read_rig_file(r, "argv"), "--session s-1 -- codex app-server\n");
	assert_non_null(strstr(read_rig_file(r, "initialize"), "\"experimentalApi\":true"));
	assert_string_equal(read_rig_file(r, "approval"), "{\"id\":\"a1\",\"result\":{\"decision\":\"decline\"}}\n");
	assert_non_null(strstr(read_rig_file(r, "other"), "\"id\":\"a2\",\"error\""));
	assert_string_equal(read_rig_file(r, "initialized"), "{\"method\":\"initialized\"}\n");
	text = read_rig_file(r, "thread");
	assert_non_null(strstr(text, "\"method\":\"thread/start\""));
	assert_non_null(strstr(text, "\"approvalPolicy\":\"never\""));
	assert_non_null(strstr(text, "\"sandbox\":\"workspace-write\""));
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
	struct worker_codex_opts o = opts_for(r);
	struct worker_codex *w;
	char err[256] = "";

	write_bridge(r, "read init\necho '{\"id\":1,\"error\":{\"code\":-32600,\"message\":\"nope\"}}'\n"
			"cat >/dev/null");
	assert_int_equal(worker_codex_start(&o, &w, err, sizeof err), 0);
	assert_int_equal(worker_codex_wait(w, hb_monotonic_ms() + 60000, &cancel_flag, err, sizeof err),
			 WORKER_CODEX_FAILED);
	assert_string_equal(err, "Codex refused initialize: nope");
	stop_and_check_gone(w);
}

static void test_bridge_dies(void **state)
{
	struct rig *r = *state;
	struct worker_codex_opts o = opts_for(r);
	struct worker_codex *w;
	char err[256] = "";

	write_bridge(r, "read init\nexit 3");
	assert_int_equal(worker_codex_start(&o, &w, err, sizeof err), 0);
	assert_int_equal(worker_codex_wait(w, hb_monotonic_ms() + 60000, &cancel_flag, err, sizeof err),
			 WORKER_CODEX_FAILED);
	assert_string_equal(err, "the Codex bridge ended before the worker's turn did (exit status 3)");
	stop_and_check_gone(w);
}

static void test_deadline_before_turn(void **state)
{
	struct rig *r = *state;
	struct worker_codex_opts o = opts_for(r);
	struct worker_codex *w;
	char err[256] = "";

	/* A child of the bridge in its group, as codex would be. */
	write_bridge(r, "sleep 600 &\ncat >/dev/null");
	assert_int_equal(worker_codex_start(&o, &w, err, sizeof err), 0);
	assert_true(live_members(worker_codex_pgid(w)) > 0);
	assert_int_equal(worker_codex_wait(w, hb_monotonic_ms(), NULL, err, sizeof err), WORKER_CODEX_TIMED_OUT);
	assert_string_equal(worker_codex_turn_status(w), "killed");
	stop_and_check_gone(w);
}

static void test_cancel_honoured(void **state)
{
	struct rig *r = *state;
	struct worker_codex_opts o = opts_for(r);
	struct worker_codex *w;
	char err[256] = "";

	write_bridge(r, HANDSHAKE "echo '{\"id\":3,\"result\":{\"turn\":{\"id\":\"tu1\"}}}'\n"
			"kill -USR1 $PPID\n"
			"read line; echo \"$line\" >\"$D/interrupt\"\n"
			"case $line in *'\"turn/interrupt\"'*'\"turnId\":\"tu1\"'*)\n"
			"  echo '{\"method\":\"turn/completed\",\"params\":"
			"{\"turn\":{\"id\":\"tu1\",\"status\":\"interrupted\"}}}';;\n"
			"esac\ncat >/dev/null");
	assert_int_equal(worker_codex_start(&o, &w, err, sizeof err), 0);
	assert_int_equal(worker_codex_wait(w, hb_monotonic_ms() + 60000, &cancel_flag, err, sizeof err),
			 WORKER_CODEX_CANCELLED);
	assert_string_equal(worker_codex_turn_status(w), "interrupted");
	stop_and_check_gone(w);
	assert_non_null(strstr(read_rig_file(r, "interrupt"), "\"threadId\":\"th1\""));
}

static void test_cancel_ignored(void **state)
{
	struct rig *r = *state;
	struct worker_codex_opts o = opts_for(r);
	struct worker_codex *w;
	char err[256] = "";

	write_bridge(r, HANDSHAKE "echo '{\"id\":3,\"result\":{\"turn\":{\"id\":\"tu1\"}}}'\n"
			"kill -USR1 $PPID\ncat >/dev/null");
	assert_int_equal(worker_codex_start(&o, &w, err, sizeof err), 0);
	assert_int_equal(worker_codex_wait(w, hb_monotonic_ms() + 60000, &cancel_flag, err, sizeof err),
			 WORKER_CODEX_CANCELLED);
	assert_string_equal(worker_codex_turn_status(w), "killed");
	stop_and_check_gone(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_refused_options, make_rig, remove_rig),
		cmocka_unit_test_setup_teardown(test_whole_turn, make_rig, remove_rig),
		cmocka_unit_test_setup_teardown(test_initialize_refused, make_rig, remove_rig),
		cmocka_unit_test_setup_teardown(test_bridge_dies, make_rig, remove_rig),
		cmocka_unit_test_setup_teardown(test_deadline_before_turn, make_rig, remove_rig),
		cmocka_unit_test_setup_teardown(test_cancel_honoured, make_rig, remove_rig),
		cmocka_unit_test_setup_teardown(test_cancel_ignored, make_rig, remove_rig),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
