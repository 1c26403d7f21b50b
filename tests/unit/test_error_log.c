/*
 * test_error_log - the kept error log (error_log.h): a line goes to
 * DATA/errors.log, mode 0600, in the same format as stderr's; lines are
 * appended; a file past HB_ERROR_LOG_MAX becomes errors.log.1 and a new
 * one starts, so the log never grows without end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "error_log.h"
#include "log.h"
#include "paths.h"
#include "../harness/tmp_home.h"

static char home[64], path[HB_PATH_MAX + 16], old[HB_PATH_MAX + 20];

static int make_home(void **state)
{
	struct hb_paths p;
	char err[256];

	(void)state;
	if (fx_tmp_home(home, sizeof home, "hberrlog", (char *)NULL) < 0 || hb_paths_resolve(&p, err, sizeof err) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/%s", p.data, HB_ERROR_LOG_FILE);
	snprintf(old, sizeof old, "%s.1", path);
	return 0;
}

static int remove_home(void **state)
{
	(void)state;
	return fx_tmp_home_remove(home);
}

static char *slurp(const char *file)
{
	FILE *f = fopen(file, "r");
	static char buf[4096];
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void test_kept(void **state)
{
	struct stat st;
	char *text;

	(void)state;
	assert_int_equal(hb_error_log("claude_run", "session=%s run=%s op=%s %s", "s-1", "r-1", "7", "first"), 0);
	assert_int_equal(hb_error_log("claude_run", "second"), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	text = slurp(path);
	assert_non_null(strstr(text, " error test_error_log["));
	assert_non_null(strstr(text, "] [claude_run] session=s-1 run=r-1 op=7 first\n"));
	/* Appended, one line each. */
	assert_true(strstr(text, "first\n") < strstr(text, "[claude_run] second\n"));
	assert_non_null(strchr(strchr(text, '\n') + 1, '\n'));
	assert_null(strchr(strchr(strchr(text, '\n') + 1, '\n') + 1, '\n'));
}

static void test_rotated(void **state)
{
	struct stat st;
	FILE *f;

	(void)state;
	assert_int_equal(hb_error_log("claude_run", "make the folder"), 0);
	assert_non_null(f = fopen(path, "a"));
	for (int i = 0; i < HB_ERROR_LOG_MAX / 64 + 1; i++)
		fprintf(f, "%063d\n", i);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(hb_error_log("claude_run", "after the limit"), 0);
	assert_int_equal(stat(old, &st), 0);
	assert_true(st.st_size >= HB_ERROR_LOG_MAX);
	assert_non_null(strstr(slurp(path), "[claude_run] after the limit\n"));
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size < 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kept, make_home, remove_home),
		cmocka_unit_test_setup_teardown(test_rotated, make_home, remove_home),
	};

	hb_log_init("test_error_log");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
