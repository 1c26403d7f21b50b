/*
 * session_info - the broker's question before it opens a run: does the
 * session exist, and which agent runs it.
 *
 *   _session_info {sessionId}
 *       -> {"sessionId","exists":bool,"agent":"codex"|"claude"|null}
 *
 * An unknown session is an answer (exists false), not an error, so the
 * broker can tell it apart from a service that cannot read appdata.db.
 */
#ifndef SESSIONS_SESSION_INFO_H
#define SESSIONS_SESSION_INFO_H

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>

/* The result object, or NULL with err set (bad arguments, database error). */
json_t *session_info_run(sqlite3 *db, const json_t *args, char *err, size_t errlen);

#endif
