/*
 * session_lookup - maintain_sessions without the service loop: guide,
 * listSessions and resolveSession on a read-only connection.
 *
 * Arguments (unknown fields and fields of another action are errors):
 *   {"action":"guide"}
 *   {"action":"listSessions", "projectDirectoryHash"?: 64 lowercase hex,
 *    "limit"?: 1..200 (25), "includeArchived"?: bool (false),
 *    "agent"?: "codex"|"claude"}
 *   {"action":"resolveSession", "targetSessionId": id}
 * Results:
 *   guide: a JSON string, the text to show as is
 *   listSessions: {"sessions":[row...],"count":n,"limit":n}  (row: session_row.h)
 *   resolveSession: {"sessionId","agent","codexThreadId"|null,"claudeSessionId"|null}
 */
#ifndef SESSIONS_SESSION_LOOKUP_H
#define SESSIONS_SESSION_LOOKUP_H

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>

#define SESSION_LIST_DEFAULT_LIMIT 25
#define SESSION_LIST_MAX_LIMIT 200

/* caller_project: the calling session's project directory, "" when none.
 * NULL with err set on bad arguments, an unknown session or a db error. */
json_t *session_lookup_run(sqlite3 *db, const json_t *args, const char *caller_project,
			   char *err, size_t errlen);

#endif
