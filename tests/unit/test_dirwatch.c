/*
 * test_dirwatch - lib/dirwatch.c: a watch of a folder sees a file renamed
 * into it (how the settings are saved), a write in place, a removal, and
 * the folder itself removed (the watch is over); it is quiet when nothing
 * happened, and its descriptor polls readable only after a change.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dirwatch.h"

/* A new empty folder in dir (room for 64) and a watch of it; on a system
 * without a watch, the test is skipped. */
static struct hb_dirwatch *watch_new_folder(char *dir)
{
	struct hb_dirwatch *w;

	snprintf(dir, 64, "/tmp/test_dirwatch.XXXXXX");
	assert_non_null(mkdtemp(dir));
	if (!(w = hb_dirwatch_open(dir)) && errno == ENOSYS) {
		assert_int_equal(rmdir(dir), 0);
		skip();
	}
	assert_non_null(w);
	return w;
}

/* Close w and remove dir with the file the tests write there. */
static void forget(struct hb_dirwatch *w, const char *dir)
{
	char path[96];

	hb_dirwatch_close(w);
	snprintf(path, sizeof path, "%s/settings.json", dir);
	(void)unlink(path);
	(void)rmdir(dir);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(close(fd), 0);
}

/* Whether the watch's descriptor is readable within ms. */
static int readable(const struct hb_dirwatch *w, int ms)
{
	struct pollfd fd = { hb_dirwatch_fd(w), POLLIN, 0 };

	return poll(&fd, 1, ms) == 1 && (fd.revents & POLLIN);
}

/* Nothing happened yet: quiet, and nothing to read. */
static void assert_quiet(struct hb_dirwatch *w)
{
	assert_false(readable(w, 0));
	assert_int_equal(hb_dirwatch_drain(w), HB_DIRWATCH_QUIET);
}

static void test_rename_into(void **state)
{
	char dir[64], tmp[96], path[96];
	struct hb_dirwatch *w = watch_new_folder(dir);

	(void)state;
	assert_quiet(w);
	snprintf(tmp, sizeof tmp, "%s/settings.json.tmp", dir);
	snprintf(path, sizeof path, "%s/settings.json", dir);
	write_file(tmp, "{}");
	assert_int_equal(rename(tmp, path), 0);
	assert_true(readable(w, 2000));
	assert_int_equal(hb_dirwatch_drain(w), HB_DIRWATCH_CHANGED);
	/* drained: quiet until the next change */
	assert_quiet(w);
	forget(w, dir);
}

static void test_write_in_place(void **state)
{
	char dir[64], path[96];
	struct hb_dirwatch *w = watch_new_folder(dir);
	int fd;

	(void)state;
	snprintf(path, sizeof path, "%s/settings.json", dir);
	write_file(path, "{}");
	(void)hb_dirwatch_drain(w);
	assert_quiet(w);
	/* opened for writing and closed: IN_CLOSE_WRITE, the folder's own
	 * time unchanged (a stat of the folder would not see it) */
	assert_true((fd = open(path, O_WRONLY)) >= 0);
	assert_int_equal(write(fd, "[]", 2), 2);
	assert_int_equal(close(fd), 0);
	assert_true(readable(w, 2000));
	assert_int_equal(hb_dirwatch_drain(w), HB_DIRWATCH_CHANGED);
	forget(w, dir);
}

static void test_delete(void **state)
{
	char dir[64], path[96];
	struct hb_dirwatch *w = watch_new_folder(dir);

	(void)state;
	snprintf(path, sizeof path, "%s/settings.json", dir);
	write_file(path, "{}");
	(void)hb_dirwatch_drain(w);
	assert_quiet(w);
	assert_int_equal(unlink(path), 0);
	assert_true(readable(w, 2000));
	assert_int_equal(hb_dirwatch_drain(w), HB_DIRWATCH_CHANGED);
	assert_quiet(w);
	forget(w, dir);
}

static void test_folder_removed(void **state)
{
	char dir[64];
	struct hb_dirwatch *w = watch_new_folder(dir);

	(void)state;
	assert_int_equal(rmdir(dir), 0);
	assert_true(readable(w, 2000));
	assert_int_equal(hb_dirwatch_drain(w), HB_DIRWATCH_OVER);
	/* over for good: a folder made again under the name is not watched */
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(hb_dirwatch_drain(w), HB_DIRWATCH_OVER);
	forget(w, dir);
}

static void test_no_folder(void **state)
{
	(void)state;
	errno = 0;
	assert_null(hb_dirwatch_open("/tmp/test_dirwatch.none/settings"));
	assert_true(errno == ENOENT || errno == ENOSYS);
	hb_dirwatch_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rename_into),  cmocka_unit_test(test_write_in_place),
		cmocka_unit_test(test_delete),       cmocka_unit_test(test_folder_removed),
		cmocka_unit_test(test_no_folder),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
