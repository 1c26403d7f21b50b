/*
 * test_regular_file - hb_read_regular_file (regular_file.h), the one way a
 * small file a person may have replaced is read: a plain file whole, at
 * its bound exactly and empty; refused, each with its sentence naming the
 * file, without waiting: a FIFO with no writer (which a plain open waits
 * on for ever), a FIFO through a symbolic link, a folder, a character
 * device that never ends (/dev/zero), a missing file, a file one byte
 * over the bound.  The FIFO reads run in a child that the test waits for
 * at most a minute, so a reader that blocks fails the test instead of
 * hanging it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "regular_file.h"
#include "../harness/harness.h"

#define BOUND_MS 60000 /* a bound on a wait, not on speed */

static char dir[64];

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/hbregfile.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void put(const char *name, const char *data, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void test_plain_files(void **state)
{
	char path[128], err[512], *out, big[4097];
	size_t len;

	(void)state;
	put("a.json", "{\"x\":1}\n", 8);
	snprintf(path, sizeof path, "%s/a.json", dir);
	assert_int_equal(hb_read_regular_file(path, 4096, &out, &len, err, sizeof err), 0);
	assert_int_equal(len, 8);
	assert_string_equal(out, "{\"x\":1}\n");
	free(out);

	memset(big, 'x', sizeof big);
	put("at.txt", big, 4096);
	snprintf(path, sizeof path, "%s/at.txt", dir);
	assert_int_equal(hb_read_regular_file(path, 4096, &out, &len, err, sizeof err), 0);
	assert_int_equal(len, 4096);
	assert_int_equal(strlen(out), 4096);
	free(out);

	put("empty", "", 0);
	snprintf(path, sizeof path, "%s/empty", dir);
	assert_int_equal(hb_read_regular_file(path, 4096, &out, NULL, err, sizeof err), 0);
	assert_string_equal(out, "");
	free(out);
}

static void test_too_large(void **state)
{
	char path[128], err[512], want[256], *out = (char *)"left";
	char big[4097];

	(void)state;
	memset(big, 'x', sizeof big);
	put("over.txt", big, sizeof big);
	snprintf(path, sizeof path, "%s/over.txt", dir);
	assert_int_equal(hb_read_regular_file(path, 4096, &out, NULL, err, sizeof err), -1);
	assert_int_equal(errno, EFBIG);
	assert_null(out);
	snprintf(want, sizeof want, "%s is 4097 bytes, more than the 4096 bytes it may have; fix or delete it", path);
	assert_string_equal(err, want);
}

static void test_missing_and_folder(void **state)
{
	char path[128], err[512], want[256], *out;

	(void)state;
	snprintf(path, sizeof path, "%s/none.json", dir);
	assert_int_equal(hb_read_regular_file(path, 4096, &out, NULL, err, sizeof err), -1);
	assert_int_equal(errno, ENOENT);
	snprintf(want, sizeof want, "%s does not exist", path);
	assert_string_equal(err, want);

	snprintf(path, sizeof path, "%s/sub", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(hb_read_regular_file(path, 4096, &out, NULL, err, sizeof err), -1);
	assert_int_equal(errno, EINVAL);
	snprintf(want, sizeof want, "%s is a folder, not a regular file; replace it with a plain file or delete it",
		 path);
	assert_string_equal(err, want);

	assert_int_equal(hb_read_regular_file("/dev/zero", 4096, &out, NULL, err, sizeof err), -1);
	assert_int_equal(errno, EINVAL);
	assert_string_equal(err, "/dev/zero is a character device, not a regular file; replace it with a plain "
				 "file or delete it");
}

/* In a child: reading path must be refused as a FIFO, with its sentence. */
static void refused_as_fifo(const char *path)
{
	char want[256];
	pid_t pid;
	int st;

	snprintf(want, sizeof want, "%s is a FIFO (named pipe), not a regular file; replace it with a plain file "
		 "or delete it", path);
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		char err[512], *out;
		int rc = hb_read_regular_file(path, 4096, &out, NULL, err, sizeof err);

		if (rc != -1 || errno != EINVAL || strcmp(err, want) != 0) {
			fprintf(stderr, "rc %d, errno %d, err \"%s\"\n", rc, errno, rc ? err : "");
			_exit(1);
		}
		_exit(0);
	}
	st = fx_wait_bounded(pid, BOUND_MS);
	if (st == -1)
		fail_msg("reading %s did not return within %d ms: it waits on the FIFO", path, BOUND_MS);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_fifo(void **state)
{
	char path[128], link[128];

	(void)state;
	snprintf(path, sizeof path, "%s/settings.json", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	refused_as_fifo(path);
	snprintf(link, sizeof link, "%s/link.json", dir);
	assert_int_equal(symlink(path, link), 0);
	refused_as_fifo(link);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_plain_files, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_too_large, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_missing_and_folder, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_fifo, make_dir, remove_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
