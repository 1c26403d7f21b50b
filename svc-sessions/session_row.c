/*
 * session_row - reading one session with its joins and printing it as JSON.
 *
 * Optional fields are left out rather than null in the row, so a list of
 * many sessions stays short for the model that reads it.
 */
#include "session_row.h"

#include "appdata.h"

#include <stdio.h>
#include <time.h>

void session_time_format(long long ms, char out[SESSION_TIME_LEN + 1])
{
	long long seconds = ms / 1000;
	long long millis = ms % 1000;
	if (millis < 0) {
		millis += 1000;
		seconds -= 1;
	}
	time_t t = (time_t)seconds;
	struct tm tm;
	if (!gmtime_r(&t, &tm)) {
		snprintf(out, SESSION_TIME_LEN + 1, "1970-01-01T00:00:00.000Z");
		return;
	}
	char date[20]; /* "YYYY-MM-DDTHH:MM:SS"; a year past 9999 does not fit and prints empty */
	if (strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		date[0] = '\0';
	snprintf(out, SESSION_TIME_LEN + 1, "%s.%03lldZ", date, millis);
}

static const char *column_text(sqlite3_stmt *stmt, int col)
{
	return (const char *)sqlite3_column_text(stmt, col);
}

/* Adds key: text unless the column is NULL. */
static int set_optional_text(json_t *row, const char *key, sqlite3_stmt *stmt, int col)
{
	if (sqlite3_column_type(stmt, col) == SQLITE_NULL)
		return 0;
	const char *text = column_text(stmt, col);
	if (!text)
		return -1;
	return json_object_set_new(row, key, json_string(text));
}

json_t *session_row_from_stmt(sqlite3_stmt *stmt)
{
	const char *id = column_text(stmt, 0), *title = column_text(stmt, 1);
	const char *agent = column_text(stmt, 2), *dir = column_text(stmt, 3);
	const char *hash = column_text(stmt, 4), *access = column_text(stmt, 5);
	if (!id || !title || !agent || !dir || !hash || !access)
		return NULL;
	char created[SESSION_TIME_LEN + 1], updated[SESSION_TIME_LEN + 1];
	session_time_format(sqlite3_column_int64(stmt, 8), created);
	session_time_format(sqlite3_column_int64(stmt, 9), updated);

	json_t *row = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:b, s:s, s:s}",
				"id", id, "title", title, "agent", agent,
				"projectDirectory", dir, "projectDirectoryHash", hash,
				"accessLevel", access,
				"active", sqlite3_column_int(stmt, 6) != 0,
				"archived", sqlite3_column_int(stmt, 7) != 0,
				"createdAt", created, "updatedAt", updated);
	if (!row)
		return NULL;
	if (set_optional_text(row, "codexThreadId", stmt, 10) != 0 ||
	    set_optional_text(row, "claudeSessionId", stmt, 11) != 0 ||
	    set_optional_text(row, "model", stmt, 12) != 0 || set_optional_text(row, "effort", stmt, 13) != 0) {
		json_decref(row);
		return NULL;
	}
	return row;
}

int session_row_fetch(sqlite3 *db, const char *id, json_t **row, char *err, size_t errlen)
{
	sqlite3_stmt *stmt = NULL;
	*row = NULL;
	if (sqlite3_prepare_v2(db, SESSION_ROW_SELECT " WHERE s.id = ?1", -1, &stmt, NULL) != SQLITE_OK)
		return appdata_error(db, "reading a session", err, errlen);
	int result = -1;
	if (sqlite3_bind_text(stmt, 1, id, -1, SQLITE_TRANSIENT) != SQLITE_OK) {
		appdata_error(db, "reading a session", err, errlen);
		goto out;
	}
	int rc = sqlite3_step(stmt);
	if (rc == SQLITE_DONE) {
		result = 0;
	} else if (rc == SQLITE_ROW) {
		*row = session_row_from_stmt(stmt);
		if (*row)
			result = 0;
		else
			snprintf(err, errlen, "out of memory while printing session %s", id);
	} else {
		appdata_error(db, "reading a session", err, errlen);
	}
out:
	sqlite3_finalize(stmt);
	return result;
}
