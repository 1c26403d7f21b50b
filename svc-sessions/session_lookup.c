/*
 * session_lookup - the read-only actions of maintain_sessions.
 *
 * Only bound parameters reach SQL; the statements are fixed text, and the
 * optional filters are written as "?N IS NULL OR column = ?N" so one
 * statement serves every combination without building SQL from input.
 */
#include "session_lookup.h"

#include "appdata.h"
#include "json.h"
#include "project_path.h"
#include "session_args.h"
#include "session_guide.h"
#include "session_row.h"

#include <stdio.h>
#include <string.h>

static const char *const known_fields[] = {
	"action", "projectDirectoryHash", "limit", "includeArchived", "agent", "targetSessionId", NULL
};
static const char *const actions[] = { "guide", "listSessions", "resolveSession", NULL };
static const char *const guide_fields[] = { NULL };
static const char *const list_fields[] = { "projectDirectoryHash", "limit", "includeArchived", "agent", NULL };
static const char *const resolve_fields[] = { "targetSessionId", NULL };

struct list_filter {
	const char *project_hash; /* NULL: every project */
	const char *agent;        /* NULL: both agents */
	int include_archived;
	long long limit;
};

static int read_list_filter(const json_t *args, struct list_filter *f, char *err, size_t errlen)
{
	if (hb_json_opt_string(args, "projectDirectoryHash", PROJECT_HASH_LEN, 1, &f->project_hash,
			       err, errlen) != 0)
		return -1;
	if (f->project_hash && !project_hash_is_valid(f->project_hash)) {
		snprintf(err, errlen, "projectDirectoryHash must be exactly %d lowercase hex characters "
			 "(the SHA-256 of the project path; see the guide action)", PROJECT_HASH_LEN);
		return -1;
	}
	if (hb_json_opt_int(args, "limit", 1, SESSION_LIST_MAX_LIMIT, SESSION_LIST_DEFAULT_LIMIT,
			    &f->limit, err, errlen) != 0)
		return -1;
	if (hb_json_opt_bool(args, "includeArchived", 0, &f->include_archived, err, errlen) != 0)
		return -1;
	return session_args_choice(args, "agent", session_agents, 0, &f->agent, err, errlen);
}

static int bind_list_filter(sqlite3_stmt *stmt, const struct list_filter *f)
{
	int rc = SQLITE_OK;
	rc = f->project_hash ? sqlite3_bind_text(stmt, 1, f->project_hash, -1, SQLITE_TRANSIENT)
			     : sqlite3_bind_null(stmt, 1);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int(stmt, 2, f->include_archived);
	if (rc == SQLITE_OK)
		rc = f->agent ? sqlite3_bind_text(stmt, 3, f->agent, -1, SQLITE_TRANSIENT)
			      : sqlite3_bind_null(stmt, 3);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(stmt, 4, f->limit);
	return rc == SQLITE_OK ? 0 : -1;
}

/* The rows into sessions; 0 or -1 with err. */
static int collect_rows(sqlite3 *db, sqlite3_stmt *stmt, json_t *sessions, char *err, size_t errlen)
{
	for (;;) {
		int rc = sqlite3_step(stmt);
		if (rc == SQLITE_DONE)
			return 0;
		if (rc != SQLITE_ROW)
			return appdata_error(db, "listing sessions", err, errlen);
		json_t *row = session_row_from_stmt(stmt);
		if (!row || json_array_append_new(sessions, row) != 0) {
			snprintf(err, errlen, "out of memory while listing sessions");
			return -1;
		}
	}
}

static json_t *list_sessions(sqlite3 *db, const json_t *args, char *err, size_t errlen)
{
	static const char sql[] = SESSION_ROW_SELECT
		" WHERE (?1 IS NULL OR s.project_hash = ?1)"
		" AND (?2 OR s.archived = 0)"
		" AND (?3 IS NULL OR s.agent = ?3)"
		" ORDER BY s.updated_at DESC, s.id LIMIT ?4";
	struct list_filter filter = { 0 };
	if (read_list_filter(args, &filter, err, errlen) != 0)
		return NULL;

	sqlite3_stmt *stmt = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) {
		appdata_error(db, "listing sessions", err, errlen);
		return NULL;
	}
	json_t *sessions = json_array();
	json_t *result = NULL;
	if (!sessions) {
		snprintf(err, errlen, "out of memory while listing sessions");
		goto out;
	}
	if (bind_list_filter(stmt, &filter) != 0) {
		appdata_error(db, "listing sessions", err, errlen);
		goto out;
	}
	if (collect_rows(db, stmt, sessions, err, errlen) != 0)
		goto out;
	result = json_pack("{s:O, s:I, s:I}", "sessions", sessions,
			   "count", (json_int_t)json_array_size(sessions), "limit", (json_int_t)filter.limit);
	if (!result)
		snprintf(err, errlen, "out of memory while listing sessions");
out:
	json_decref(sessions);
	sqlite3_finalize(stmt);
	return result;
}

static json_t *resolve_session(sqlite3 *db, const json_t *args, char *err, size_t errlen)
{
	const char *id;
	if (session_args_id(args, "targetSessionId", 1, &id, err, errlen) != 0)
		return NULL;
	json_t *row;
	if (session_row_fetch(db, id, &row, err, errlen) != 0)
		return NULL;
	if (!row) {
		session_args_no_such_session(id, err, errlen);
		return NULL;
	}
	json_t *codex = json_object_get(row, "codexThreadId");
	json_t *claude = json_object_get(row, "claudeSessionId");
	json_t *result = json_pack("{s:O, s:O, s:O, s:O, s:O}",
				   "sessionId", json_object_get(row, "id"),
				   "title", json_object_get(row, "title"),
				   "agent", json_object_get(row, "agent"),
				   "codexThreadId", codex ? codex : json_null(),
				   "claudeSessionId", claude ? claude : json_null());
	json_decref(row);
	if (!result)
		snprintf(err, errlen, "out of memory while resolving session %s", id);
	return result;
}

json_t *session_lookup_run(sqlite3 *db, const json_t *args, const char *caller_project,
			   char *err, size_t errlen)
{
	const char *action;
	if (session_args_known_fields(args, known_fields, err, errlen) != 0 ||
	    session_args_action(args, actions, &action, err, errlen) != 0)
		return NULL;
	if (strcmp(action, "guide") == 0) {
		if (session_args_used_fields(args, action, guide_fields, err, errlen) != 0)
			return NULL;
		return session_guide(caller_project, err, errlen);
	}
	if (strcmp(action, "listSessions") == 0) {
		if (session_args_used_fields(args, action, list_fields, err, errlen) != 0)
			return NULL;
		return list_sessions(db, args, err, errlen);
	}
	if (session_args_used_fields(args, action, resolve_fields, err, errlen) != 0)
		return NULL;
	return resolve_session(db, args, err, errlen);
}
