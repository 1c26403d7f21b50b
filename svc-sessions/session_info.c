/*
 * session_info - one indexed read of a session's agent, model and effort
 * by id: the broker asks it on every run.open, so it reads only what the
 * run needs (the run opens with the session's model and effort).
 */
#include "session_info.h"

#include "appdata.h"
#include "session_args.h"

#include <stdio.h>

json_t *session_info_run(sqlite3 *db, const json_t *args, char *err, size_t errlen)
{
	static const char *const fields[] = { "sessionId", NULL };
	sqlite3_stmt *stmt = NULL;
	json_t *result = NULL;
	const char *id;
	int rc;

	if (session_args_known_fields(args, fields, err, errlen) != 0 ||
	    session_args_id(args, "sessionId", 1, &id, err, errlen) != 0)
		return NULL;
	if (sqlite3_prepare_v2(db, "SELECT agent, model, effort FROM sessions WHERE id = ?1", -1, &stmt, NULL) != SQLITE_OK) {
		appdata_error(db, "reading a session", err, errlen);
		return NULL;
	}
	rc = sqlite3_bind_text(stmt, 1, id, -1, SQLITE_TRANSIENT);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		result = json_pack("{s:s, s:b, s:s?, s:s?, s:s?}", "sessionId", id, "exists", 1, "agent",
				   (const char *)sqlite3_column_text(stmt, 0), "model",
				   (const char *)sqlite3_column_text(stmt, 1), "effort",
				   (const char *)sqlite3_column_text(stmt, 2));
	} else if (rc == SQLITE_DONE) {
		result = json_pack("{s:s, s:b, s:n}", "sessionId", id, "exists", 0, "agent");
	} else {
		appdata_error(db, "reading a session", err, errlen);
		goto out;
	}
	if (!result)
		snprintf(err, errlen, "out of memory while reading session %s", id);
out:
	sqlite3_finalize(stmt);
	return result;
}
