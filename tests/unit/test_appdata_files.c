/*
 * test_appdata_files - appdata.db and the files SQLite keeps beside it
 * are this user's alone (common/private_file.c): under the usual umask of
 * 022 a new appdata.db, its -wal and its -shm are 0600; a file an older
 * version left 0644, and its -wal, are narrowed at the next open; a
 * symbolic link where appdata.db belongs is refused with a sentence, not
 * followed; and a second open in the same process leaves the first
 * connection's locks in place (closing any descriptor of a file drops all
 * of a process's POSIX locks on it, and another process finding no lock
 * on the -shm file truncates it under the first's mapping: SIGBUS);
 * and SQLite's in-memory name ":memory:" leaves no file in the working
 * folder (the fuzz targets open one).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../appdata/appdata.h"
#include "../harness/tmp_home.h"

struct fixture {
	char home[256], path[320], wal[330], shm[330];
	mode_t umask;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);

	if (!f || fx_tmp_home(f->home, sizeof f->home, "hbappfiles", NULL) < 0)
		return -1;
	snprintf(f->path, sizeof f->path, "%s/appdata.db", f->home);
	snprintf(f->wal, sizeof f->wal, "%s-wal", f->path);
	snprintf(f->shm, sizeof f->shm, "%s-shm", f->path);
	f->umask = umask(022);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	umask(f->umask);
	fx_tmp_home_remove(f->home);
	free(f);
	return 0;
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		fail_msg("%s: %s", path, strerror(errno));
	return st.st_mode & 0777;
}

/* A writer that leaves its -wal and -shm in place while the test looks. */
static sqlite3 *open_and_write(const char *path)
{
	char err[512];
	sqlite3 *db = appdata_open_rw(path, err, sizeof err);

	if (!db)
		fail_msg("appdata_open_rw: %s", err);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE IF NOT EXISTS t (x); INSERT INTO t VALUES (1)", NULL, NULL,
				      NULL), SQLITE_OK);
	return db;
}

static void test_new_files_private(void **state)
{
	struct fixture *f = *state;
	sqlite3 *db = open_and_write(f->path);

	assert_int_equal(mode_of(f->path), 0600);
	assert_int_equal(mode_of(f->wal), 0600);
	assert_int_equal(mode_of(f->shm), 0600);
	appdata_close(db);
}

static void test_old_files_narrowed(void **state)
{
	struct fixture *f = *state;
	sqlite3 *db = open_and_write(f->path), *again;

	/* As an older version left them, with the writer still open. */
	assert_int_equal(chmod(f->path, 0644), 0);
	assert_int_equal(chmod(f->wal, 0644), 0);
	again = open_and_write(f->path);
	assert_int_equal(mode_of(f->path), 0600);
	assert_int_equal(mode_of(f->wal), 0600);
	appdata_close(again);
	appdata_close(db);
}

/* SQLite's dead-man-switch byte of the -shm file (UNIX_SHM_DMS): every
 * connection with the file mapped holds a read lock on it. */
#define SHM_DMS_BYTE 128

static void test_second_open_keeps_locks(void **state)
{
	struct fixture *f = *state;
	sqlite3 *db = open_and_write(f->path), *again = open_and_write(f->path);
	int st;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = SHM_DMS_BYTE, .l_len = 1 };
		int fd = open(f->shm, O_RDWR);

		_exit(fd < 0 || fcntl(fd, F_GETLK, &fl) < 0 ? 2 : fl.l_type == F_UNLCK ? 1 : 0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("after a second open this process holds no lock on %s (child said %d)", f->shm,
			 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	appdata_close(again);
	appdata_close(db);
}

static void test_link_refused(void **state)
{
	struct fixture *f = *state;
	char target[340], err[512], want[600];

	snprintf(target, sizeof target, "%s/elsewhere.db", f->home);
	assert_int_equal(symlink(target, f->path), 0);
	assert_null(appdata_open_rw(f->path, err, sizeof err));
	snprintf(want, sizeof want, "%s is a symbolic link; move it aside", f->path);
	assert_string_equal(err, want);
	assert_int_equal(access(target, F_OK), -1);
}

static void test_memory_leaves_no_file(void **state)
{
	struct fixture *f = *state;
	char err[512], here[512];
	sqlite3 *db;

	assert_non_null(getcwd(here, sizeof here));
	assert_int_equal(chdir(f->home), 0);
	db = appdata_open_rw(":memory:", err, sizeof err);
	if (!db)
		fail_msg("appdata_open_rw(\":memory:\"): %s", err);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE t (x)", NULL, NULL, NULL), SQLITE_OK);
	appdata_close(db);
	assert_int_equal(access(":memory:", F_OK), -1);
	assert_int_equal(chdir(here), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_new_files_private, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_files_narrowed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_open_keeps_locks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memory_leaves_no_file, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
