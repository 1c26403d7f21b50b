/*
 * itest_paths - a runtime folder someone else made is never used: hb-broker
 * refuses to start in it, and hbctl and the bridges refuse to talk through
 * it (to whatever broker is listening there), each with a sentence naming
 * the folder, what is wrong and what to do.
 *
 * The squatter is played by chown to uid 65534 (nobody), so the tests that
 * need it run as root (as the tests do here); as another user they are
 * skipped, and the mode check stands in where it can.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../harness/harness.h"

#define LIMIT_MS 20000 /* bounds a wait for something that ends at once */

static const char echo_conf[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 2\n"
	"tools = echo\n";

static struct fixture F;

static int teardown(void **state)
{
	char run[400];

	(void)state;
	/* Give the folder back, so that the broker can stop cleanly. */
	snprintf(run, sizeof run, "%s/run", F.dir);
	if (F.dir[0] && geteuid() == 0)
		(void)!chown(run, 0, 0);
	if (F.dir[0])
		fx_stop(&F, NULL);
	memset(&F, 0, sizeof F);
	return 0;
}

/* Every want in text, and no sanitizer report, or the test fails
 * showing text. */
static void assert_says(const char *text, const char *const *want)
{
	for (const char *const *w = want; *w; w++)
		if (!strstr(text, *w))
			fail_msg("\"%s\" not in:\n%s", *w, text);
	if (strstr(text, "Sanitizer") || strstr(text, "runtime error:"))
		fail_msg("a sanitizer reported a problem:\n%s", text);
}

/* A broker started on the fixture must end by itself, non-zero, saying
 * want in its log, and bind nothing. */
static void assert_broker_refuses(const char *const *want)
{
	char path[400], *log;
	struct stat st;
	int status;

	F.broker = fx_spawn_broker(&F, NULL, "broker.log");
	assert_true(F.broker > 0);
	status = fx_wait_bounded(F.broker, LIMIT_MS);
	F.broker = 0;
	assert_int_not_equal(status, -1); /* it did not keep running */
	assert_true(WIFEXITED(status));
	assert_int_not_equal(WEXITSTATUS(status), 0);
	log = fx_read_text(F.log);
	assert_says(log, want);
	free(log);
	snprintf(path, sizeof path, "%s/run/front.sock", F.dir);
	assert_int_equal(lstat(path, &st), -1);
}

static void test_broker_refuses_squatted_runtime(void **state)
{
	char run[400], target[400];
	const char *owner[] = { "the runtime folder", run, "belongs to uid 65534", "someone else may have made it first",
				"remove it", "XDG_RUNTIME_DIR", NULL };
	const char *link[] = { "the runtime folder", run, "symbolic link", "remove it", NULL };
	const char *mode[] = { "the runtime folder", run, "mode 0777", "must be 0700", NULL };

	(void)state;
	assert_int_equal(fx_prepare(&F, echo_conf), 0);
	snprintf(run, sizeof run, "%s/run", F.dir);

	/* Another user's folder, even with the right mode. */
	if (geteuid() == 0) {
		assert_int_equal(mkdir(run, 0700), 0);
		assert_int_equal(chown(run, 65534, 65534), 0);
		assert_broker_refuses(owner);
		assert_int_equal(rmdir(run), 0);
	}

	/* Ours, but anyone may write into it: others could put their sockets
	 * or their lock file in it. */
	assert_int_equal(mkdir(run, 0700), 0);
	assert_int_equal(chmod(run, 0777), 0);
	assert_broker_refuses(mode);
	assert_int_equal(rmdir(run), 0);

	/* A symbolic link to a private folder: the link is not ours to trust. */
	snprintf(target, sizeof target, "%s/elsewhere", F.dir);
	assert_int_equal(mkdir(target, 0700), 0);
	assert_int_equal(symlink(target, run), 0);
	assert_broker_refuses(link);
	assert_int_equal(unlink(run), 0);

	/* The same squatted data folder, for the folders of other kinds. */
	if (geteuid() == 0) {
		char data[400];
		const char *want[] = { "the data folder", data, "belongs to uid 65534", NULL };

		snprintf(data, sizeof data, "%s/data", F.dir);
		assert_int_equal(mkdir(data, 0700), 0);
		assert_int_equal(chown(data, 65534, 65534), 0);
		assert_broker_refuses(want);
	}
}

/* A broker that listens in a folder someone else owns is not talked to. */
static void test_clients_refuse_squatted_runtime(void **state)
{
	static const char *const status_args[] = { "status", NULL };
	static const char *const claude_args[] = { "--session", "s-1", "--run", "r-1", "--project", "/tmp", "--access",
						   "read-only", "--", "/bin/true", NULL };
	static const char *const codex_args[] = { "--", "/bin/true", NULL };
	char run[400], out_path[400], *out;
	const char *want[] = { "the runtime folder", run, "belongs to uid 65534", "remove it", NULL };
	int status;

	(void)state;
	if (geteuid() != 0)
		skip(); /* only root can hand the folder to another user */
	assert_int_equal(fx_start(&F, echo_conf, NULL), 0);
	snprintf(run, sizeof run, "%s/run", F.dir);
	/* First as it should be: hbctl reaches the broker. */
	assert_int_equal(fx_hbctl(&F, &out, status_args), 0);
	free(out);

	/* The same broker, in a folder that is now another user's: as if they
	 * had made it first and started their broker in it. */
	assert_int_equal(chown(run, 65534, 65534), 0);
	assert_int_equal(fx_hbctl(&F, &out, status_args), 2);
	assert_says(out, want);
	assert_null(strstr(out, "SERVICE")); /* no status was printed */
	free(out);

	status = fx_wait_bounded(fx_spawn_prog(&F, "hb-claude-bridge", claude_args, NULL, "claude.out"), LIMIT_MS);
	assert_int_not_equal(status, -1);
	assert_true(WIFEXITED(status));
	assert_int_not_equal(WEXITSTATUS(status), 0);
	snprintf(out_path, sizeof out_path, "%s/claude.out", F.dir);
	out = fx_read_text(out_path);
	assert_says(out, want);
	free(out);

	/* hb-codex-bridge runs its server anyway, without the broker. */
	status = fx_wait_bounded(fx_spawn_prog(&F, "hb-codex-bridge", codex_args, NULL, "codex.out"), LIMIT_MS);
	assert_int_not_equal(status, -1);
	snprintf(out_path, sizeof out_path, "%s/codex.out", F.dir);
	out = fx_read_text(out_path);
	assert_says(out, want);
	free(out);

	/* Back to ours: talked to again. */
	assert_int_equal(chown(run, 0, 0), 0);
	assert_int_equal(fx_hbctl(&F, &out, status_args), 0);
	free(out);
	assert_int_equal(fx_stop(&F, NULL), 0);
	memset(&F, 0, sizeof F);
}

/* hbctl settings works on the config folder directly: refused there too. */
static void test_settings_refuse_squatted_config(void **state)
{
	static const char *const show[] = { "settings", NULL };
	static const char *const notify[] = { "settings", "notifications", "on", NULL };
	char config[400], *out;
	const char *want[] = { "the config folder", config, "mode 0777", "must be 0700", "HB_CONFIG_DIR", NULL };

	(void)state;
	assert_int_equal(fx_prepare(&F, echo_conf), 0);
	snprintf(config, sizeof config, "%s/config", F.dir);
	assert_int_equal(mkdir(config, 0700), 0);
	assert_int_equal(chmod(config, 0777), 0);
	assert_int_equal(fx_hbctl(&F, &out, show), 1);
	assert_says(out, want);
	free(out);
	assert_int_equal(fx_hbctl(&F, &out, notify), 1);
	assert_says(out, want);
	free(out);
	/* Nothing was written into it. */
	snprintf(config, sizeof config, "%s/config/settings.json", F.dir);
	assert_int_equal(access(config, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_broker_refuses_squatted_runtime, teardown),
		cmocka_unit_test_teardown(test_clients_refuse_squatted_runtime, teardown),
		cmocka_unit_test_teardown(test_settings_refuse_squatted_config, teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
