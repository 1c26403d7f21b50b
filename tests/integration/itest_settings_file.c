/*
 * itest_settings_file - a settings.json that cannot be read as a plain
 * file, with the real hb-broker, svc-browser as deployed and hbctl.
 *
 * A FIFO as settings.json (what a stalled network home also does to a
 * reader) once wedged every worker that read it: after four calls
 * svc-browser stayed "up" and served nothing, and `hbctl settings` hung.
 * Here twice as many calls as svc-browser has workers each get the
 * sentence that names the file, `hbctl settings` says it too, and the
 * same svc-browser serves the next call once the file is plain again.  A
 * settings.json past the 1 MiB bound is refused the same way.
 */
#include "../harness/checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "settings.h"

#define CALLS 8 /* svc-browser has 4 workers: twice that many */
#define HBCTL_BOUND_MS 60000 /* a bound on a wait, not on speed */

static const char tabs_json[] = "{\"action\":\"tabs\"}";

static void start_browser(struct fixture *f)
{
	char *conf = fx_deployed_config(NULL, "svc-browser", (char *)NULL);

	assert_non_null(conf);
	ck_start(f, conf, NULL);
	free(conf);
}

static void settings_path(const struct fixture *f, char *path, size_t len)
{
	snprintf(path, len, "%s/config/settings.json", f->dir);
}

/* Every one of CALLS calls sent at once is answered with want. */
static void calls_refused(struct fixture *f, const char *want)
{
	struct hb_client c;
	int answered = 0;

	ck_client(f, &c);
	for (int i = 0; i < CALLS; i++)
		assert_true(ck_send_call(&c, "use_user_browser", tabs_json) > 0);
	while (answered < CALLS) {
		int64_t id;
		int ok;
		char *text = ck_recv_text(&c, &id, &ok);

		assert_false(ok);
		assert_string_equal(text, want);
		free(text);
		answered++;
	}
	hb_client_close(&c);
}

/* hbctl settings fails with want (after "hbctl: ") instead of waiting:
 * within a minute, so that one that waits fails the test. */
static void hbctl_refuses(struct fixture *f, const char *want)
{
	static const char *const args[] = { "settings", NULL };
	char line[HB_PATH_MAX + 512], path[HB_PATH_MAX], *out;
	pid_t pid = fx_spawn_prog(f, "hbctl", args, NULL, "hbctl-settings.out");
	int st;

	assert_true(pid > 0);
	if ((st = fx_wait_bounded(pid, HBCTL_BOUND_MS)) == -1)
		fail_msg("hbctl settings did not end within %d ms", HBCTL_BOUND_MS);
	assert_true(WIFEXITED(st));
	assert_int_not_equal(WEXITSTATUS(st), 0);
	snprintf(line, sizeof line, "hbctl: %s\n", want);
	snprintf(path, sizeof path, "%s/hbctl-settings.out", f->dir);
	out = fx_read_text(path);
	assert_string_equal(out, line);
	free(out);
}

/* The same svc-browser, never restarted, reads a plain file again. */
static void serves_on(struct fixture *f, pid_t pid)
{
	char path[HB_PATH_MAX];
	FILE *out;

	settings_path(f, path, sizeof path);
	assert_int_equal(unlink(path), 0);
	assert_non_null(out = fopen(path, "w"));
	assert_true(fputs("{\"browserControl\":false}", out) >= 0);
	assert_int_equal(fclose(out), 0);
	ck_call_says(f, "use_user_browser", tabs_json, 0, "The browser bridge is off");
	assert_int_equal(fx_service_pid(f, "svc-browser"), pid);
	assert_int_equal(fx_service_num(f, "svc-browser", "restarts"), 0);
	ck_svc_str_equal(f, "svc-browser", "state", "up");
}

static void test_fifo(void **state)
{
	struct fixture *f = *state;
	char path[HB_PATH_MAX], want[HB_PATH_MAX + 256];
	pid_t pid;

	start_browser(f);
	pid = fx_service_pid(f, "svc-browser");
	settings_path(f, path, sizeof path);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(want, sizeof want, "%s is a FIFO (named pipe), not a regular file; replace it with a plain file or "
		 "delete it", path);
	hbctl_refuses(f, want);
	{
		char call_want[HB_PATH_MAX + 300];
		snprintf(call_want, sizeof call_want, "The settings cannot be read: %s", want);
		calls_refused(f, call_want);
	}
	serves_on(f, pid);
	ck_finish(f);
}

static void test_oversized(void **state)
{
	struct fixture *f = *state;
	char path[HB_PATH_MAX], want[HB_PATH_MAX + 256], call_want[HB_PATH_MAX + 300];
	size_t size = 2 * HB_SETTINGS_MAX_BYTES;
	char *text = malloc(size);
	pid_t pid;
	FILE *out;

	start_browser(f);
	pid = fx_service_pid(f, "svc-browser");
	settings_path(f, path, sizeof path);
	assert_non_null(text);
	memset(text, ' ', size);
	memcpy(text, "{\"browserControl\":true}", 23);
	assert_non_null(out = fopen(path, "w"));
	assert_int_equal(fwrite(text, 1, size, out), size);
	assert_int_equal(fclose(out), 0);
	free(text);
	snprintf(want, sizeof want, "%s is %zu bytes, more than the %d bytes it may have; fix or delete it", path,
		 size, HB_SETTINGS_MAX_BYTES);
	hbctl_refuses(f, want);
	snprintf(call_want, sizeof call_want, "The settings cannot be read: %s", want);
	calls_refused(f, call_want);
	serves_on(f, pid);
	ck_finish(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ck_unit_test(test_fifo),
		ck_unit_test(test_oversized),
	};

	return ck_run_group_tests(tests, NULL, NULL);
}
