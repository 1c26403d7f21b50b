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

struct rig {
	char dir[64];
	char path[128];
	struct hb_dirwatch *w;
};

static int setup(void **state)
{
	struct rig *r = calloc(1, sizeof *r);

	if (!r)
		return -1;
	snprintf(r->dir, sizeof r->dir, "/tmp/test_dirwatch.XXXXXX");
	if (!mkdtemp(r->dir))
		return -1;
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct rig *r = *state;
	char path[160];

	hb_dirwatch_close(r->w);
	snprintf(path, sizeof path, "%s/settings.json", r->dir);
	(void)unlink(path);
	snprintf(path, sizeof path, "%s/settings.json.tmp", r->dir);
	(void)unlink(path);
	(void)rmdir(r->dir);
	free(r);
	return 0;
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

/* Open a watch of the rig's folder; on a system without one, skip. */
static struct rig *watched(void **state)
{
	struct rig *r = *state;

	r->w = hb_dirwatch_open(r->dir);
	if (!r->w && errno == ENOSYS)
		skip();
	assert_non_null(r->w);
	assert_false(readable(r->w, 0));
	assert_int_equal(hb_dirwatch_drain(r->w), HB_DIRWATCH_QUIET);
	return r;
}

static void test_rename_into(void **state)
{
	struct rig *r = watched(state);
	char tmp[160];

	snprintf(tmp, sizeof tmp, "%s/settings.json.tmp", r->dir);
	snprintf(r->path, sizeof r->path, "%s/settings.json", r->dir);
	write_file(tmp, "{}");
	assert_int_equal(rename(tmp, r->path), 0);
	assert_true(readable(r->w, 2000));
	assert_int_equal(hb_dirwatch_drain(r->w), HB_DIRWATCH_CHANGED);
	/* drained: quiet until the next change */
	assert_false(readable(r->w, 0));
	assert_int_equal(hb_dirwatch_drain(r->w), HB_DIRWATCH_QUIET);
}

static void test_write_in_place(void **state)
{
	struct rig *r = *state;
	int fd;

	snprintf(r->path, sizeof r->path, "%s/settings.json", r->dir);
	write_file(r->path, "{}");
	r = watched(state);
	/* opened for writing and closed: IN_CLOSE_WRITE, the folder's own
	 * time unchanged (a stat of the folder would not see it) */
	assert_true((fd = open(r->path, O_WRONLY)) >= 0);
	assert_int_equal(write(fd, "[]", 2), 2);
	assert_int_equal(close(fd), 0);
	assert_true(readable(r->w, 2000));
	assert_int_equal(hb_dirwatch_drain(r->w), HB_DIRWATCH_CHANGED);
}

static void test_delete(void **state)
{
	struct rig *r = *state;

	snprintf(r->path, sizeof r->path, "%s/settings.json", r->dir);
	write_file(r->path, "{}");
	r = watched(state);
	assert_int_equal(unlink(r->path), 0);
	assert_true(readable(r->w, 2000));
	assert_int_equal(hb_dirwatch_drain(r->w), HB_DIRWATCH_CHANGED);
	assert_int_equal(hb_dirwatch_drain(r->w), HB_DIRWATCH_QUIET);
}

static void test_folder_removed(void **state)
{
	struct rig *r = watched(state);

	assert_int_equal(rmdir(r->dir), 0);
	assert_true(readable(r->w, 2000));
	assert_int_equal(hb_dirwatch_drain(r->w), HB_DIRWATCH_OVER);
	/* over for good: a folder made again under the name is not watched */
	assert_int_equal(mkdir(r->dir, 0700), 0);
	assert_int_equal(hb_dirwatch_drain(r->w), HB_DIRWATCH_OVER);
}

static void test_no_folder(void **state)
{
	struct rig *r = *state;
	char missing[160];

	snprintf(missing, sizeof missing, "%s/none", r->dir);
	errno = 0;
	assert_null(hb_dirwatch_open(missing));
	assert_true(errno == ENOENT || errno == ENOSYS);
	hb_dirwatch_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rename_into, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_delete, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folder_removed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_folder, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
