/*
 * session_row - one session as the tools print it, read with its joins.
 *
 * listSessions and every manage_sessions action print the same row shape,
 * so the query and the JSON conversion live here once:
 *   {"id","title","agent","projectDirectory","projectDirectoryHash",
 *    "accessLevel","active","archived","createdAt","updatedAt",
 *    "codexThreadId"?,"claudeSessionId"?}
 * Times are ISO-8601 UTC with milliseconds.
 */
#ifndef SESSIONS_SESSION_ROW_H
#define SESSIONS_SESSION_ROW_H

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>

#include "appdata.h"

/* The columns session_row_from_stmt reads; callers append WHERE / ORDER BY.
 * The Codex thread shown is the most recent top-level link (a sub-agent
 * thread links to its parent thread, not to the session). */
#define SESSION_ROW_SELECT                                                         \
	"SELECT s.id, s.title, s.agent, s.project_dir, s.project_hash,"            \
	" s.access_level,"                                                         \
	" EXISTS (SELECT 1 FROM project_workspace w"                               \
	"         WHERE w.active_session_id = s.id),"                              \
	" s.archived, s.created_at, s.updated_at,"                                 \
	" " APPDATA_CODEX_THREAD_OF("s.id") ","                                     \
	" " APPDATA_CLAUDE_SESSION_OF("s.id") ","                                   \
	" s.model, s.effort"                                                       \
	" FROM sessions s"

#define SESSION_TIME_LEN 24 /* "2025-01-31T12:34:56.789Z" */

/* The current row of a statement built on SESSION_ROW_SELECT; NULL on OOM. */
json_t *session_row_from_stmt(sqlite3_stmt *stmt);
/* The session with this id: 0 with *row set, 0 with *row NULL when there is
 * none, -1 with err on a database error. */
int session_row_fetch(sqlite3 *db, const char *id, json_t **row, char *err, size_t errlen);
/* Unix milliseconds as ISO-8601 UTC. */
void session_time_format(long long ms, char out[SESSION_TIME_LEN + 1]);

#endif
