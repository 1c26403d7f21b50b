/*
 * appdata - opening appdata.db read-write or read-only (statements and
 * transactions: appdata_sql.c).
 *
 * Services are long-lived and run calls on a worker pool; each call opens its
 * own connection, so no connection is ever shared between threads and no
 * process-wide handle needs a lock.  Opening a migrated file is cheap.
 */
#include "appdata.h"

#include "appdata_schema.h"
#include "log.h"
#include "paths.h"
#include "private_file.h"

#include <stdio.h>
#include <unistd.h>

int appdata_default_path(char *out, size_t outlen, char *err, size_t errlen)
{
	struct hb_paths paths;
	if (hb_paths_resolve(&paths, err, errlen) != 0)
		return -1;
	if (hb_dir_make_private(&paths, HB_DIR_DATA, err, errlen) != 0)
		return -1;
	if (hb_path_join(out, outlen, paths.data, APPDATA_FILE_NAME) != 0) {
		snprintf(err, errlen, "the data directory path %s is too long", paths.data);
		return -1;
	}
	return 0;
}

static sqlite3 *open_connection(const char *path, int flags, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "cannot open %s: %s", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		sqlite3_close_v2(db);
		return NULL;
	}
	if (sqlite3_busy_timeout(db, APPDATA_BUSY_TIMEOUT_MS) != SQLITE_OK ||
	    sqlite3_extended_result_codes(db, 1) != SQLITE_OK) {
		appdata_error(db, "configuring the connection", err, errlen);
		sqlite3_close_v2(db);
		return NULL;
	}
	return db;
}

static int exec_pragma(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return appdata_error(db, sql, err, errlen);
	return 0;
}

sqlite3 *appdata_open_rw(const char *path, char *err, size_t errlen)
{
	sqlite3 *db;

	/* The file 0600 before SQLite creates it, so its -wal and -shm are
	 * too (SQLite gives them the database's mode). */
	if (hb_db_files_private(path, err, errlen) != 0)
		return NULL;
	if (!(db = open_connection(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, err, errlen)))
		return NULL;
	if (exec_pragma(db, "PRAGMA journal_mode = WAL", err, errlen) != 0 ||
	    exec_pragma(db, "PRAGMA foreign_keys = ON", err, errlen) != 0 ||
	    exec_pragma(db, "PRAGMA synchronous = NORMAL", err, errlen) != 0 ||
	    appdata_schema_migrate(db, err, errlen) != 0) {
		sqlite3_close_v2(db);
		return NULL;
	}
	return db;
}

/* Make sure the file exists at the latest schema, through a short-lived
 * writer, before the read-only connection looks at it. */
static int ensure_migrated(const char *path, char *err, size_t errlen)
{
	sqlite3 *writer = appdata_open_rw(path, err, errlen);
	if (!writer)
		return -1;
	appdata_close(writer);
	return 0;
}

sqlite3 *appdata_open_ro(const char *path, char *err, size_t errlen)
{
	if (access(path, F_OK) != 0 && ensure_migrated(path, err, errlen) != 0)
		return NULL;
	sqlite3 *db = open_connection(path, SQLITE_OPEN_READONLY, err, errlen);
	if (!db)
		return NULL;
	if (exec_pragma(db, "PRAGMA query_only = 1", err, errlen) != 0)
		goto fail;
	int version;
	if (appdata_schema_version(db, &version, err, errlen) != 0)
		goto fail;
	if (version == appdata_schema_latest())
		return db;
	appdata_close(db);
	if (ensure_migrated(path, err, errlen) != 0)
		return NULL;
	db = open_connection(path, SQLITE_OPEN_READONLY, err, errlen);
	if (!db)
		return NULL;
	if (exec_pragma(db, "PRAGMA query_only = 1", err, errlen) != 0)
		goto fail;
	return db;
fail:
	appdata_close(db);
	return NULL;
}

void appdata_close(sqlite3 *db)
{
	if (!db)
		return;
	int rc = sqlite3_close_v2(db);
	if (rc != SQLITE_OK)
		log_warn("appdata", "closing appdata.db: %s", sqlite3_errstr(rc));
}
