/*
 * appdata_schema - the migration steps of appdata.db, keyed on user_version.
 *
 * Each step runs in its own write transaction together with the bump of
 * user_version, so a crash leaves the file at one version or the next.
 */
#ifndef APPDATA_SCHEMA_H
#define APPDATA_SCHEMA_H

#include <sqlite3.h>
#include <stddef.h>

/* The version a fully migrated file has. */
int appdata_schema_latest(void);
/* PRAGMA user_version into *version; 0 or -1 with err. */
int appdata_schema_version(sqlite3 *db, int *version, char *err, size_t errlen);
/* Apply the missing steps; safe to call from several processes at once.
 * A file newer than this program is an error (we would misread it). */
int appdata_schema_migrate(sqlite3 *db, char *err, size_t errlen);

#endif
