/*
 * thread_links - linking Codex threads and Claude sessions to HB Code
 * sessions, and resolving a thread back to its session.
 *
 * The broker resolves a thread on every tool call from Codex, and it may see
 * a call before the app has stored the link; hence the "try again" failure.
 * A parent link may name a thread that is not linked yet for the same
 * reason: resolution succeeds once the parent's link arrives.  Links never
 * move to another target, so a session's history cannot be rewritten.
 */
#include "thread_links.h"

#include "appdata.h"
#include "fail_codes.h"
#include "session_args.h"

#include <stdio.h>
#include <string.h>

/* One link row: exactly one of session / parent is set. */
struct link_row {
	char session[SESSION_ID_MAX + 1];
	char parent[SESSION_ID_MAX + 1];
};

static void copy_nullable(sqlite3_stmt *stmt, int col, char *out, size_t outlen)
{
	const char *text = (const char *)sqlite3_column_text(stmt, col);
	snprintf(out, outlen, "%s", text ? text : "");
}

/* 1 with *row filled, 0 when the thread has no row, -1 with err. */
static int read_link(sqlite3 *db, const char *thread, struct link_row *row, char *err, size_t errlen)
{
	sqlite3_stmt *stmt = NULL;
	if (sqlite3_prepare_v2(db, "SELECT session_id, parent_thread_id FROM codex_session_links"
			       " WHERE thread_id = ?1", -1, &stmt, NULL) != SQLITE_OK)
		return appdata_error(db, "reading a thread link", err, errlen);
	int rc = sqlite3_bind_text(stmt, 1, thread, -1, SQLITE_TRANSIENT);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	int result;
	if (rc == SQLITE_ROW) {
		copy_nullable(stmt, 0, row->session, sizeof row->session);
		copy_nullable(stmt, 1, row->parent, sizeof row->parent);
		result = 1;
	} else if (rc == SQLITE_DONE) {
		result = 0;
	} else {
		result = appdata_error(db, "reading a thread link", err, errlen);
	}
	sqlite3_finalize(stmt);
	return result;
}

static int seen_before(char seen[][SESSION_ID_MAX + 1], int count, const char *thread)
{
	for (int i = 0; i < count; i++) {
		if (strcmp(seen[i], thread) == 0)
			return 1;
	}
	return 0;
}

json_t *thread_links_resolve(sqlite3 *db, const json_t *args, const char **code, char *err, size_t errlen)
{
	static const char *const fields[] = { "threadId", NULL };
	const char *thread;
	if (session_args_known_fields(args, fields, err, errlen) != 0 ||
	    session_args_id(args, "threadId", 1, &thread, err, errlen) != 0)
		return NULL;

	char seen[THREAD_PARENT_DEPTH_MAX + 1][SESSION_ID_MAX + 1];
	snprintf(seen[0], sizeof seen[0], "%s", thread);
	for (int depth = 0; depth <= THREAD_PARENT_DEPTH_MAX; depth++) {
		struct link_row row;
		int found = read_link(db, seen[depth], &row, err, errlen);
		if (found < 0)
			return NULL;
		if (found == 0) {
			snprintf(err, errlen, "%s", THREAD_NOT_LINKED_MESSAGE);
			*code = HB_FAIL_NOT_LINKED;
			return NULL;
		}
		if (row.session[0]) {
			json_t *result = json_pack("{s:s, s:s, s:s?}", "sessionId", row.session, "threadId", thread,
						   "viaParent", depth > 0 ? seen[depth] : NULL);
			if (!result)
				snprintf(err, errlen, "out of memory while resolving thread %s", thread);
			return result;
		}
		if (seen_before(seen, depth + 1, row.parent)) {
			snprintf(err, errlen, "Thread %s has a cycle in its parent links (at %s); it belongs to no "
				 "HB Code session.", thread, row.parent);
			return NULL;
		}
		if (depth < THREAD_PARENT_DEPTH_MAX)
			snprintf(seen[depth + 1], sizeof seen[depth + 1], "%s", row.parent);
	}
	snprintf(err, errlen, "Thread %s is more than %d parent links away from a HB Code session.",
		 thread, THREAD_PARENT_DEPTH_MAX);
	return NULL;
}

/* The session must exist and run the given agent. */
static int check_session_agent(sqlite3 *db, const char *session, const char *agent, char *err, size_t errlen)
{
	sqlite3_stmt *stmt = NULL;
	if (sqlite3_prepare_v2(db, "SELECT agent FROM sessions WHERE id = ?1", -1, &stmt, NULL) != SQLITE_OK)
		return appdata_error(db, "reading a session", err, errlen);
	int rc = sqlite3_bind_text(stmt, 1, session, -1, SQLITE_TRANSIENT);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	int result = -1;
	if (rc == SQLITE_DONE) {
		session_args_no_such_session(session, err, errlen);
	} else if (rc != SQLITE_ROW) {
		appdata_error(db, "reading a session", err, errlen);
	} else {
		const char *stored = (const char *)sqlite3_column_text(stmt, 0);
		if (stored && strcmp(stored, agent) == 0)
			result = 0;
		else
			snprintf(err, errlen, "Session %s runs %s, not %s.", session, stored ? stored : "?", agent);
	}
	sqlite3_finalize(stmt);
	return result;
}

static int insert_link(sqlite3 *db, const char *thread, const char *session, const char *parent,
		       char *err, size_t errlen)
{
	sqlite3_stmt *stmt = NULL;
	if (sqlite3_prepare_v2(db, "INSERT INTO codex_session_links (thread_id, session_id, parent_thread_id,"
			       " created_at) VALUES (?1, ?2, ?3, ?4)", -1, &stmt, NULL) != SQLITE_OK)
		return appdata_error(db, "linking a thread", err, errlen);
	int rc = sqlite3_bind_text(stmt, 1, thread, -1, SQLITE_TRANSIENT);
	if (rc == SQLITE_OK)
		rc = session ? sqlite3_bind_text(stmt, 2, session, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(stmt, 2);
	if (rc == SQLITE_OK)
		rc = parent ? sqlite3_bind_text(stmt, 3, parent, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(stmt, 3);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(stmt, 4, appdata_now_ms());
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	int result = rc == SQLITE_DONE ? 0 : appdata_error(db, "linking a thread", err, errlen);
	sqlite3_finalize(stmt);
	return result;
}

/* Inside the transaction: 0 with *created set, or -1 with err. */
static int link_thread_locked(sqlite3 *db, const char *thread, const char *session, const char *parent,
			      int *created, char *err, size_t errlen)
{
	if (session && check_session_agent(db, session, "codex", err, errlen) != 0)
		return -1;
	struct link_row existing;
	int found = read_link(db, thread, &existing, err, errlen);
	if (found < 0)
		return -1;
	if (found == 0) {
		*created = 1;
		return insert_link(db, thread, session, parent, err, errlen);
	}
	*created = 0;
	if (strcmp(existing.session, session ? session : "") == 0 &&
	    strcmp(existing.parent, parent ? parent : "") == 0)
		return 0;
	snprintf(err, errlen, "Thread %s is already linked to %s %s.", thread,
		 existing.session[0] ? "session" : "parent thread",
		 existing.session[0] ? existing.session : existing.parent);
	return -1;
}

json_t *thread_links_link_thread(sqlite3 *db, const json_t *args, char *err, size_t errlen)
{
	static const char *const fields[] = { "threadId", "sessionId", "parentThreadId", NULL };
	const char *thread, *session, *parent;
	if (session_args_known_fields(args, fields, err, errlen) != 0 ||
	    session_args_id(args, "threadId", 1, &thread, err, errlen) != 0 ||
	    session_args_id(args, "sessionId", 0, &session, err, errlen) != 0 ||
	    session_args_id(args, "parentThreadId", 0, &parent, err, errlen) != 0)
		return NULL;
	if ((session != NULL) == (parent != NULL)) {
		snprintf(err, errlen, "give exactly one of sessionId and parentThreadId");
		return NULL;
	}
	if (parent && strcmp(parent, thread) == 0) {
		snprintf(err, errlen, "thread %s cannot be its own parent", thread);
		return NULL;
	}

	int created = 0;
	if (appdata_begin_write(db, err, errlen) != 0)
		return NULL;
	if (link_thread_locked(db, thread, session, parent, &created, err, errlen) != 0 ||
	    appdata_commit(db, err, errlen) != 0) {
		appdata_rollback(db);
		return NULL;
	}
	json_t *result = json_pack("{s:s, s:s?, s:s?, s:b}", "threadId", thread, "sessionId", session,
				   "parentThreadId", parent, "created", created);
	if (!result)
		snprintf(err, errlen, "out of memory after linking thread %s", thread);
	return result;
}

/* Inside the transaction: 0 when no other session holds the Claude
 * conversation, -1 with err (the refusal, or a database error). */
static int check_claude_owner(sqlite3 *db, const char *session, const char *claude, const char **code, char *err,
			      size_t errlen)
{
	sqlite3_stmt *stmt = NULL;
	if (sqlite3_prepare_v2(db, "SELECT session_id FROM claude_sessions WHERE claude_session_id = ?1"
			       " AND session_id <> ?2", -1, &stmt, NULL) != SQLITE_OK)
		return appdata_error(db, "reading a Claude session link", err, errlen);
	int rc = sqlite3_bind_text(stmt, 1, claude, -1, SQLITE_TRANSIENT);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(stmt, 2, session, -1, SQLITE_TRANSIENT);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	int result = 0;
	if (rc == SQLITE_ROW) {
		snprintf(err, errlen, "Claude session %s already belongs to HB Code session %s: a Claude conversation "
			 "belongs to one HB Code session only, so continue it in that session.", claude,
			 (const char *)sqlite3_column_text(stmt, 0));
		*code = HB_FAIL_LINK_TAKEN;
		result = -1;
	} else if (rc != SQLITE_DONE) {
		result = appdata_error(db, "reading a Claude session link", err, errlen);
	}
	sqlite3_finalize(stmt);
	return result;
}

json_t *thread_links_link_claude(sqlite3 *db, const json_t *args, const char **code, char *err, size_t errlen)
{
	static const char *const fields[] = { "sessionId", "claudeSessionId", NULL };
	static const char sql[] =
		"INSERT INTO claude_sessions (session_id, claude_session_id, updated_at) VALUES (?1, ?2, ?3)"
		" ON CONFLICT (session_id) DO UPDATE SET claude_session_id = excluded.claude_session_id,"
		" updated_at = excluded.updated_at";
	const char *session, *claude;
	if (session_args_known_fields(args, fields, err, errlen) != 0 ||
	    session_args_id(args, "sessionId", 1, &session, err, errlen) != 0 ||
	    session_args_id(args, "claudeSessionId", 1, &claude, err, errlen) != 0)
		return NULL;

	if (appdata_begin_write(db, err, errlen) != 0)
		return NULL;
	sqlite3_stmt *stmt = NULL;
	if (check_session_agent(db, session, "claude", err, errlen) != 0 ||
	    check_claude_owner(db, session, claude, code, err, errlen) != 0)
		goto fail;
	if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) {
		appdata_error(db, "linking a Claude session", err, errlen);
		goto fail;
	}
	int rc = sqlite3_bind_text(stmt, 1, session, -1, SQLITE_TRANSIENT);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(stmt, 2, claude, -1, SQLITE_TRANSIENT);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(stmt, 3, appdata_now_ms());
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	if (rc != SQLITE_DONE) {
		appdata_error(db, "linking a Claude session", err, errlen);
		goto fail;
	}
	sqlite3_finalize(stmt);
	if (appdata_commit(db, err, errlen) != 0)
		return NULL;
	json_t *result = json_pack("{s:s, s:s}", "sessionId", session, "claudeSessionId", claude);
	if (!result)
		snprintf(err, errlen, "out of memory after linking session %s", session);
	return result;
fail:
	sqlite3_finalize(stmt);
	appdata_rollback(db);
	return NULL;
}
