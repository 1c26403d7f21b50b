/*
 * test_appdata_readers - read-only connections to appdata.db kept open
 * between calls (appdata/appdata_readers.c): one is reused, and sees
 * what was written after its last use; one whose file was replaced or
 * removed is not; one given back with a transaction or a statement still
 * open is closed, never kept with a stale snapshot; the idle list is
 * bounded; a version 4 file is migrated by the first reader and read
 * after; every connection is closed at the end (LeakSanitizer).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../appdata/appdata.h"
#include "../../appdata/appdata_readers.h"
#include "../harness/tmp_home.h"

struct fixture {
	char home[256], path[320];
	struct appdata_readers readers;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	char err[256];
	sqlite3 *rw;

	if (!f || fx_tmp_home(f->home, sizeof f->home, "hbreaders", NULL) < 0)
		return -1;
	snprintf(f->path, sizeof f->path, "%s/appdata.db", f->home);
	if (!(rw = appdata_open_rw(f->path, err, sizeof err)))
		return -1;
	appdata_close(rw);
	if (appdata_readers_init(&f->readers) < 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	appdata_readers_free(&f->readers);
	fx_tmp_home_remove(f->home);
	free(f);
	return 0;
}

static void write_session(const char *path, const char *id)
{
	char err[256], sql[512], *msg = NULL;
	sqlite3 *rw = appdata_open_rw(path, err, sizeof err);

	assert_non_null(rw);
	snprintf(sql, sizeof sql,
		 "INSERT INTO sessions (id, title, agent, project_dir, project_hash, access_level, created_at, "
		 "updated_at) VALUES ('%s', 't', 'codex', '/tmp', 'h', 'read-only', 1, 1)", id);
	if (sqlite3_exec(rw, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("insert: %s", msg ? msg : "?");
	appdata_close(rw);
}

static int count_sessions(sqlite3 *db)
{
	sqlite3_stmt *st;
	int n = -1;

	assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM sessions", -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

static void test_reused_and_fresh(void **state)
{
	struct fixture *f = *state;
	struct appdata_reader a, b;
	char err[256];
	sqlite3 *first;

	assert_int_equal(appdata_readers_take(&f->readers, f->path, &a, err, sizeof err), 0);
	first = a.db;
	assert_int_equal(count_sessions(a.db), 0);
	appdata_readers_give(&f->readers, &a);
	assert_int_equal(f->readers.nidle, 1);
	/* another process's write in between: the kept connection sees it */
	write_session(f->path, "s-1");
	assert_int_equal(appdata_readers_take(&f->readers, f->path, &b, err, sizeof err), 0);
	assert_ptr_equal(b.db, first);
	assert_int_equal(count_sessions(b.db), 1);
	/* it is read-only whatever SQL comes */
	assert_int_not_equal(sqlite3_exec(b.db, "DELETE FROM sessions", NULL, NULL, NULL), SQLITE_OK);
	appdata_readers_give(&f->readers, &b);
}

static void test_replaced_file_is_not_reused(void **state)
{
	struct fixture *f = *state;
	struct appdata_reader a, b;
	char err[256], moved[400];

	write_session(f->path, "s-old");
	assert_int_equal(appdata_readers_take(&f->readers, f->path, &a, err, sizeof err), 0);
	assert_int_equal(count_sessions(a.db), 1);
	appdata_readers_give(&f->readers, &a);
	/* the file moved away and a new one made in its place */
	snprintf(moved, sizeof moved, "%s.moved", f->path);
	assert_int_equal(rename(f->path, moved), 0);
	assert_int_equal(appdata_readers_take(&f->readers, f->path, &b, err, sizeof err), 0);
	assert_int_equal(count_sessions(b.db), 0);	/* the new file, not the old one */
	assert_int_equal(f->readers.nidle, 0);		/* the stale one was closed */
	appdata_readers_give(&f->readers, &b);
	unlink(moved);
}

/* A file of schema version 4 (sessions of codex and claude only) is
 * migrated by the first reader's open (version 5: external too), keeps
 * its row, and the kept connection reads an external session written
 * after. */
static void test_version_4_file_read_after_migration(void **state)
{
	struct fixture *f = *state;
	struct appdata_reader a, b;
	char err[256], *msg = NULL;
	sqlite3 *raw, *rw;
	sqlite3_stmt *st;

	write_session(f->path, "s-old");
	assert_int_equal(sqlite3_open_v2(f->path, &raw, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	if (sqlite3_exec(raw, "PRAGMA foreign_keys = OFF; BEGIN;"
			 "CREATE TABLE s4 (id TEXT PRIMARY KEY, title TEXT NOT NULL,"
			 " agent TEXT NOT NULL CHECK (agent IN ('codex', 'claude')), project_dir TEXT NOT NULL,"
			 " project_hash TEXT NOT NULL, access_level TEXT NOT NULL, created_at INTEGER NOT NULL,"
			 " updated_at INTEGER NOT NULL, archived INTEGER NOT NULL DEFAULT 0, model TEXT, effort TEXT);"
			 "INSERT INTO s4 SELECT * FROM sessions; DROP TABLE sessions; ALTER TABLE s4 RENAME TO sessions;"
			 "PRAGMA user_version = 4; COMMIT;",
			 NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("making a version 4 file: %s", msg ? msg : "?");
	sqlite3_close(raw);
	assert_int_equal(appdata_readers_take(&f->readers, f->path, &a, err, sizeof err), 0);
	assert_int_equal(count_sessions(a.db), 1);
	appdata_readers_give(&f->readers, &a);
	assert_non_null(rw = appdata_open_rw(f->path, err, sizeof err));
	assert_int_equal(sqlite3_exec(rw, "INSERT INTO sessions (id, title, agent, project_dir, project_hash,"
				      " access_level, created_at, updated_at) VALUES ('s-mcp', 'claude-code', 'external',"
				      " '/tmp', 'h', 'read-only', 2, 2)", NULL, NULL, NULL),
			 SQLITE_OK);
	appdata_close(rw);
	assert_int_equal(appdata_readers_take(&f->readers, f->path, &b, err, sizeof err), 0);
	assert_ptr_equal(b.db, a.db);
	assert_int_equal(sqlite3_prepare_v2(b.db, "SELECT agent FROM sessions WHERE id = 's-mcp'", -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "external");
	sqlite3_finalize(st);
	appdata_readers_give(&f->readers, &b);
}

static void test_open_transaction_is_not_kept(void **state)
{
	struct fixture *f = *state;
	struct appdata_reader a, b;
	sqlite3_stmt *st;
	char err[256];

	assert_int_equal(appdata_readers_take(&f->readers, f->path, &a, err, sizeof err), 0);
	assert_int_equal(sqlite3_exec(a.db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
	appdata_readers_give(&f->readers, &a);
	assert_int_equal(f->readers.nidle, 0);
	assert_int_equal(appdata_readers_take(&f->readers, f->path, &b, err, sizeof err), 0);
	assert_int_equal(sqlite3_prepare_v2(b.db, "SELECT 1", -1, &st, NULL), SQLITE_OK);
	appdata_readers_give(&f->readers, &b);	/* a statement left unfinalized */
	assert_int_equal(f->readers.nidle, 0);
	/* (closed with sqlite3_close_v2: the statement goes with it) */
	sqlite3_finalize(st);
}

static void test_idle_list_is_bounded(void **state)
{
	struct fixture *f = *state;
	struct appdata_reader r[APPDATA_READERS_MAX + 3];
	char err[256];

	for (int i = 0; i < APPDATA_READERS_MAX + 3; i++)
		assert_int_equal(appdata_readers_take(&f->readers, f->path, &r[i], err, sizeof err), 0);
	for (int i = 0; i < APPDATA_READERS_MAX + 3; i++)
		appdata_readers_give(&f->readers, &r[i]);
	assert_int_equal(f->readers.nidle, APPDATA_READERS_MAX);
}

static void test_missing_file_is_created(void **state)
{
	struct fixture *f = *state;
	struct appdata_reader a;
	char err[256];

	assert_int_equal(unlink(f->path), 0);
	assert_int_equal(appdata_readers_take(&f->readers, f->path, &a, err, sizeof err), 0);
	assert_int_equal(count_sessions(a.db), 0);
	appdata_readers_give(&f->readers, &a);
	assert_int_equal(access(f->path, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reused_and_fresh, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replaced_file_is_not_reused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_version_4_file_read_after_migration, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_transaction_is_not_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_list_is_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_file_is_created, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
