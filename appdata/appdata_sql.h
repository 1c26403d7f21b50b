/*
 * appdata_sql - statements and transactions on an appdata.db connection
 * (included by appdata.h, the public header; see appdata_sql.c).
 */
#ifndef APPDATA_SQL_H
#define APPDATA_SQL_H

#include <sqlite3.h>
#include <stddef.h>

/* Milliseconds since the Unix epoch (the unit of every *_at column). */
long long appdata_now_ms(void);

/* Transactions; each writes the SQLite message into err on failure.
 * BEGIN IMMEDIATE takes the write lock up front, so busy_timeout applies
 * there and not to a later lock upgrade that could deadlock. */
int appdata_begin_write(sqlite3 *db, char *err, size_t errlen);
int appdata_commit(sqlite3 *db, char *err, size_t errlen);
/* Best effort; an error is only logged. */
void appdata_rollback(sqlite3 *db);

/* A statement with its parameters bound in order: types holds one letter
 * per parameter, 's' const char * (NULL binds NULL) or 'i' long long.
 * NULL with err set on failure; the caller finalizes. */
sqlite3_stmt *appdata_prepare(sqlite3 *db, const char *sql, char *err, size_t errlen, const char *types, ...);
/* Run one statement that returns no rows; *changes (may be NULL) gets
 * sqlite3_changes.  0 or -1 with err. */
int appdata_exec(sqlite3 *db, const char *sql, int *changes, char *err, size_t errlen, const char *types, ...);

/* "appdata.db: <what>: <sqlite message>" into err; returns -1. */
int appdata_error(sqlite3 *db, const char *what, char *err, size_t errlen);

#endif
