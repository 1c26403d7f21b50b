/*
 * test_agent_cmd - the agent host's command line (agent_cmd.h): the
 * setting split at blanks and tabs, HB_AGENT_HOST over settings.json, a
 * line of blanks taken as unset, too many words or an over-long line
 * refused with a sentence; without a setting node and the host beside the
 * program, the build tree's before the installed one (seen from bin, or
 * from libexec/hbcode), as one word even with a blank in its path, and a
 * sentence naming the places when none is there, or that only the setting
 * can name one when the program's folder is not known.  hb_exe_dir names this test's own folder.
 * The launched bridges' command lines (launch_argv.h): the session's
 * model and effort as --model and --effort where it has them, and a
 * Claude session without a conversation started without --claude-session
 * (its bridge starts a new one).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "agent_cmd.h"
#include "launch_argv.h"
#include "exe_path.h"
#include "paths.h"
#include "../harness/tmp_home.h"

static char home[64];

static int make_home(void **state)
{
	(void)state;
	return fx_tmp_home(home, sizeof home, "hbagentcmd", "HB_AGENT_HOST", (char *)NULL);
}

static int remove_home(void **state)
{
	(void)state;
	return fx_tmp_home_remove(home);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* An empty folder/agent-host/host.mjs, its path into path. */
static void place_host(char *path, size_t size, const char *folder)
{
	snprintf(path, size, "%s/agent-host", folder);
	assert_int_equal(hb_mkdir_p(path, 0755), 0);
	assert_true(strlen(path) + sizeof "/host.mjs" <= size);
	strcat(path, "/host.mjs");
	write_file(path, "");
}

static void write_settings(const struct hb_paths *p, const char *json)
{
	char path[HB_PATH_MAX + 32];

	assert_int_equal(hb_mkdir_p(p->config, 0700), 0);
	snprintf(path, sizeof path, "%s/settings.json", p->config);
	write_file(path, json);
}

/* argv of the setting (or default beside exe_dir); rc of the call. */
static int host_argv(const char *exe_dir, char *argv[HB_AGENT_HOST_ARGS_MAX + 1], char *words, char *err,
		     size_t errlen)
{
	struct hb_paths p;

	assert_int_equal(hb_paths_resolve(&p, err, errlen), 0);
	err[0] = '\0';
	return hb_agent_host_argv(&p, exe_dir, words, HB_AGENT_HOST_LINE_MAX, argv, err, errlen);
}

static void test_setting(void **state)
{
	char words[HB_AGENT_HOST_LINE_MAX], *argv[HB_AGENT_HOST_ARGS_MAX + 1], err[512];
	struct hb_paths p;

	(void)state;
	assert_int_equal(hb_paths_resolve(&p, err, sizeof err), 0);
	write_settings(&p, "{\"agentHost\":\"  node\\t/opt/host.mjs  /opt/claude \"}");
	assert_int_equal(host_argv("/nowhere", argv, words, err, sizeof err), 0);
	assert_string_equal(argv[0], "node");
	assert_string_equal(argv[1], "/opt/host.mjs");
	assert_string_equal(argv[2], "/opt/claude");
	assert_null(argv[3]);

	setenv("HB_AGENT_HOST", "/usr/bin/env node /srv/host.mjs", 1);
	assert_int_equal(host_argv("/nowhere", argv, words, err, sizeof err), 0);
	assert_string_equal(argv[0], "/usr/bin/env");
	assert_string_equal(argv[2], "/srv/host.mjs");
	assert_null(argv[3]);
	unsetenv("HB_AGENT_HOST");

	write_settings(&p, "{\"agentHost\":\"a b c d e f g h i j k l m n o p q\"}");
	assert_int_equal(host_argv("/nowhere", argv, words, err, sizeof err), -1);
	assert_string_equal(err, "the agentHost command line has more than 16 words");
	write_settings(&p, "{\"agentHost\":\"a b c d e f g h i j k l m n o p\"}");
	assert_int_equal(host_argv("/nowhere", argv, words, err, sizeof err), 0);
	assert_string_equal(argv[15], "p");
	assert_null(argv[16]);

	write_settings(&p, "{\"agentHost\":7}");
	assert_int_equal(host_argv("/nowhere", argv, words, err, sizeof err), -1);
	assert_string_equal(err, "settings.json: agentHost must be a string");
}

static void test_beside(void **state)
{
	char words[HB_AGENT_HOST_LINE_MAX], *argv[HB_AGENT_HOST_ARGS_MAX + 1], err[1024];
	char dir[256], bin[300], built[300], installed[300], libexec[300], served[320];
	struct hb_paths p;

	(void)state;
	assert_int_equal(hb_paths_resolve(&p, err, sizeof err), 0);
	/* A prefix with a blank in its name; blanks only: unset. */
	snprintf(dir, sizeof dir, "%s/pre fix", home);
	snprintf(bin, sizeof bin, "%s/bin", dir);
	assert_int_equal(hb_mkdir_p(bin, 0755), 0);
	write_settings(&p, "{\"agentHost\":\" \\t \"}");

	assert_int_equal(host_argv(bin, argv, words, err, sizeof err), -1);
	assert_non_null(strstr(err, "no Claude agent host is set up: "));
	assert_non_null(strstr(err, "/pre fix/bin/../agent-host/host.mjs, "));
	assert_non_null(strstr(err, "/pre fix/bin/../libexec/hbcode/agent-host/host.mjs and "));
	assert_non_null(strstr(err, "/pre fix/bin/agent-host/host.mjs are not there"));
	assert_int_equal(host_argv(NULL, argv, words, err, sizeof err), -1);
	assert_string_equal(err, "no Claude agent host is set up: set agentHost in settings.json (or HB_AGENT_HOST) "
			    "to its command line, e.g. \"node /path/to/agent-host/host.mjs\"");

	/* A service in PREFIX/libexec/hbcode: the host beside it. */
	snprintf(libexec, sizeof libexec, "%s/libexec/hbcode", dir);
	place_host(served, sizeof served, libexec);
	assert_int_equal(host_argv(libexec, argv, words, err, sizeof err), 0);
	assert_string_equal(argv[1], served);

	place_host(installed, sizeof installed, libexec);
	assert_int_equal(host_argv(bin, argv, words, err, sizeof err), 0);
	assert_string_equal(argv[0], "node");
	assert_string_equal(argv[1], installed);
	assert_null(argv[2]);

	place_host(built, sizeof built, dir);
	assert_int_equal(host_argv(bin, argv, words, err, sizeof err), 0);
	assert_string_equal(argv[1], built);
}

/* argv[from..] must be the NULL-terminated words. */
static void expect_words(char *const *argv, int from, const char *const *words)
{
	int i = 0;

	for (; words[i]; i++) {
		assert_non_null(argv[from + i]);
		assert_string_equal(argv[from + i], words[i]);
	}
	assert_null(argv[from + i]);
}

static void test_launch_argv(void **state)
{
	char dir[300], bridge[340], err[512];
	struct hb_launch_argv c;
	struct hb_paths p;

	(void)state;
	assert_int_equal(hb_paths_resolve(&p, err, sizeof err), 0);
	write_settings(&p, "{\"agentHost\":\"sh /opt/host.mjs\",\"codexPath\":\"sh\"}");
	snprintf(dir, sizeof dir, "%s/bin", home);
	assert_int_equal(hb_mkdir_p(dir, 0755), 0);
	snprintf(bridge, sizeof bridge, "%s/hb-claude-bridge", dir);
	write_file(bridge, "");
	assert_int_equal(chmod(bridge, 0755), 0);
	snprintf(bridge, sizeof bridge, "%s/hb-codex-bridge", dir);
	write_file(bridge, "");
	assert_int_equal(chmod(bridge, 0755), 0);

	/* A Claude session never opened, with a model and an effort. */
	struct hb_launch_target fresh = { "s-1", "claude", "", "full-access", "/proj", "launch-1-1", "opus", "max" };
	assert_true(hb_launch_argv(&p, dir, &fresh, &c, err, sizeof err) > 0);
	expect_words(c.argv, 1, (const char *const[]){ "--session", "s-1", "--run", "launch-1-1", "--project", "/proj",
						      "--access", "full-access", "--model", "opus", "--effort",
						      "max", "--once", "--", "sh", "/opt/host.mjs", NULL });
	/* With its conversation and the agent's defaults. */
	struct hb_launch_target saved = { "s-1", "claude", "5a4ef92f-2795-4076-8c1c-4150199e554a", "full-auto", "/proj",
					  "launch-1-2", "", "" };
	assert_true(hb_launch_argv(&p, dir, &saved, &c, err, sizeof err) > 0);
	expect_words(c.argv, 1, (const char *const[]){ "--session", "s-1", "--run", "launch-1-2", "--project", "/proj",
						      "--access", "full-auto", "--claude-session",
						      "5a4ef92f-2795-4076-8c1c-4150199e554a", "--once", "--", "sh",
						      "/opt/host.mjs", NULL });
	/* Codex: the model alone. */
	struct hb_launch_target codex = { "s-2", "codex", "thr-1", "read-only", "/proj", NULL, "gpt-6-codex", "" };
	assert_true(hb_launch_argv(&p, dir, &codex, &c, err, sizeof err) > 0);
	assert_string_equal(c.argv[0], bridge);
	expect_words(c.argv, 1, (const char *const[]){ "--session", "s-2", "--resume", "thr-1", "--access", "read-only",
						      "--model", "gpt-6-codex", "--once", "--", c.program,
						      "app-server", NULL });
}

static void test_exe_dir(void **state)
{
	char dir[PATH_MAX], err[512], *build = getenv("HB_BUILD"), want[PATH_MAX];

	(void)state;
	assert_int_equal(hb_exe_dir("test_agent_cmd", dir, sizeof dir, err, sizeof err), 0);
	assert_true(dir[0] == '/');
	if (build) { /* tests/run.sh: the tests are in BUILD/tests */
		assert_non_null(realpath(build, want));
		strcat(want, "/tests");
		assert_string_equal(dir, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_setting, make_home, remove_home),
		cmocka_unit_test_setup_teardown(test_beside, make_home, remove_home),
		cmocka_unit_test(test_exe_dir),
		cmocka_unit_test_setup_teardown(test_launch_argv, make_home, remove_home),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
