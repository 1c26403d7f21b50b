/*
 * appdata - connections to appdata.db, the SQLite file of svc-sessions
 * (sessions, thread links) and svc-messages (messages, outbox): the one
 * database layer both link, through this public header.
 *
 * A read-write connection migrates the schema when it opens, so every writer
 * sees the current tables.  A read-only connection (maintain_sessions) is
 * opened with SQLITE_OPEN_READONLY and query_only, so no argument can make
 * it write, whatever SQL a bug might let through.
 */
#ifndef APPDATA_H
#define APPDATA_H

#include <sqlite3.h>
#include <stddef.h>

#include "appdata_sql.h"

#define APPDATA_FILE_NAME "appdata.db"
#define APPDATA_BUSY_TIMEOUT_MS 5000

/* The agent's own link of a session, as SQL subqueries on the session id
 * expression S (e.g. "s.id"); NULL when it has none.  Codex: the newest
 * top-level thread (a sub-agent thread links to its parent thread, not to
 * the session).  Claude: its conversation.  svc-sessions prints them and
 * svc-messages hands them to the broker's launcher: one definition. */
#define APPDATA_CODEX_THREAD_OF(S)                                                 \
	"(SELECT l.thread_id FROM codex_session_links l"                           \
	" WHERE l.session_id = " S " AND l.parent_thread_id IS NULL"               \
	" ORDER BY l.created_at DESC, l.thread_id DESC LIMIT 1)"
#define APPDATA_CLAUDE_SESSION_OF(S) "(SELECT c.claude_session_id FROM claude_sessions c WHERE c.session_id = " S ")"

/* "<data dir>/appdata.db", creating the data dir (0700) when missing. */
int appdata_default_path(char *out, size_t outlen, char *err, size_t errlen);

/* WAL, busy_timeout, foreign_keys on, schema migrated.  NULL with err set. */
sqlite3 *appdata_open_rw(const char *path, char *err, size_t errlen);
/* Read-only and query_only.  Creates and migrates the file first when it is
 * missing or behind, so a first lookup on a new machine finds empty tables. */
sqlite3 *appdata_open_ro(const char *path, char *err, size_t errlen);
/* sqlite3_close_v2; NULL is fine. */
void appdata_close(sqlite3 *db);

#endif
