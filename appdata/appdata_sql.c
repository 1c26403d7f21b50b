/*
 * appdata_sql - statements and transactions on an open appdata.db
 * connection: the layer both the schema's migration (appdata_schema.c)
 * and the services' queries stand on, apart from the opening of the file
 * (appdata.c), which migrates and so stands on the schema.
 */
#include "appdata_sql.h"

#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

int appdata_error(sqlite3 *db, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "appdata.db: %s: %s", what, db ? sqlite3_errmsg(db) : "out of memory");
	return -1;
}

long long appdata_now_ms(void)
{
	struct timespec now;
	if (clock_gettime(CLOCK_REALTIME, &now) != 0)
		return (long long)time(NULL) * 1000;
	return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

int appdata_begin_write(sqlite3 *db, char *err, size_t errlen)
{
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return appdata_error(db, "starting a transaction", err, errlen);
	return 0;
}

int appdata_commit(sqlite3 *db, char *err, size_t errlen)
{
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		appdata_error(db, "committing", err, errlen);
		appdata_rollback(db);
		return -1;
	}
	return 0;
}

void appdata_rollback(sqlite3 *db)
{
	if (sqlite3_get_autocommit(db))
		return;
	if (sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK)
		log_warn("appdata", "rollback failed: %s", sqlite3_errmsg(db));
}

static sqlite3_stmt *prepare_va(sqlite3 *db, const char *sql, char *err, size_t errlen, const char *types,
				va_list ap)
{
	sqlite3_stmt *stmt = NULL;
	int rc = SQLITE_OK;

	if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) {
		appdata_error(db, "preparing a statement", err, errlen);
		return NULL;
	}
	for (int i = 0; types[i] && rc == SQLITE_OK; i++) {
		if (types[i] == 's') {
			const char *v = va_arg(ap, const char *);
			rc = v ? sqlite3_bind_text(stmt, i + 1, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(stmt, i + 1);
		} else {
			rc = sqlite3_bind_int64(stmt, i + 1, va_arg(ap, long long));
		}
	}
	if (rc != SQLITE_OK) {
		appdata_error(db, "binding a parameter", err, errlen);
		sqlite3_finalize(stmt);
		return NULL;
	}
	return stmt;
}

sqlite3_stmt *appdata_prepare(sqlite3 *db, const char *sql, char *err, size_t errlen, const char *types, ...)
{
	sqlite3_stmt *stmt;
	va_list ap;

	va_start(ap, types);
	stmt = prepare_va(db, sql, err, errlen, types, ap);
	va_end(ap);
	return stmt;
}

int appdata_exec(sqlite3 *db, const char *sql, int *changes, char *err, size_t errlen, const char *types, ...)
{
	sqlite3_stmt *stmt;
	va_list ap;
	int rc;

	va_start(ap, types);
	stmt = prepare_va(db, sql, err, errlen, types, ap);
	va_end(ap);
	if (!stmt)
		return -1;
	rc = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE)
		return appdata_error(db, "writing", err, errlen);
	if (changes)
		*changes = sqlite3_changes(db);
	return 0;
}
