/*
 * message_store - see message_store.h.  Every state change carries the
 * state it expects in its WHERE clause, so a repeated outcome (the bridge
 * answered twice, svc-messages re-asked after a restart) changes nothing
 * the second time and the caller learns it from *changed.
 */
#include "message_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appdata.h"
#include "session_message.h"

static void copy_col(sqlite3_stmt *st, int col, char *out, size_t outlen)
{
	const unsigned char *v = sqlite3_column_text(st, col);

	snprintf(out, outlen, "%s", v ? (const char *)v : "");
}

int store_session(sqlite3 *db, const char *id, struct msg_session *s, char *err, size_t errlen)
{
	sqlite3_stmt *st = appdata_prepare(db, "SELECT id, title, agent, project_dir, access_level FROM sessions"
					       " WHERE id = ?", err, errlen, "s", id);
	int rc;

	if (!st)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		copy_col(st, 0, s->id, sizeof s->id);
		copy_col(st, 1, s->title, sizeof s->title);
		copy_col(st, 2, s->agent, sizeof s->agent);
		copy_col(st, 3, s->project, sizeof s->project);
		copy_col(st, 4, s->access, sizeof s->access);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return appdata_error(db, "reading a session", err, errlen);
	return rc == SQLITE_ROW;
}

static int find_call(sqlite3 *db, const char *sender, const char *call_id, struct msg_existing *old, char *err,
		     size_t errlen)
{
	sqlite3_stmt *st = appdata_prepare(db, "SELECT id, recipient_session_id, state FROM chat_session_messages"
					       " WHERE sender_session_id = ? AND call_id = ?",
					   err, errlen, "ss", sender, call_id);
	int rc;

	if (!st)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		old->id = sqlite3_column_int64(st, 0);
		copy_col(st, 1, old->recipient, sizeof old->recipient);
		copy_col(st, 2, old->state, sizeof old->state);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return appdata_error(db, "reading a message", err, errlen);
	return rc == SQLITE_ROW;
}

int store_insert(sqlite3 *db, const struct msg_new *m, long long *id, struct msg_existing *old, char *err,
		 size_t errlen)
{
	long long now = appdata_now_ms();
	int found;

	if (appdata_begin_write(db, err, errlen) < 0)
		return -1;
	/* Inside the write lock: two attempts of one call cannot both insert. */
	if ((found = find_call(db, m->sender, m->call_id, old, err, errlen)) != 0) {
		appdata_rollback(db);
		return found < 0 ? -1 : 0;
	}
	if (appdata_exec(db,
			 "INSERT INTO chat_session_messages (sender_session_id, call_id, recipient_session_id,"
			 " sender_run_id, sender_access, body, state, hold_reason, created_at, updated_at)"
			 " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			 NULL, err, errlen, "ssssssssii", m->sender, m->call_id, m->recipient, m->run, m->sender_access,
			 m->body, m->held ? "held" : "queued", m->held ? m->hold_reason : NULL, now, now) < 0)
		goto fail;
	*id = sqlite3_last_insert_rowid(db);
	if (appdata_exec(db,
			 "INSERT INTO session_message_outbox (message_id, recipient_session_id, held, next_attempt_at)"
			 " VALUES (?, ?, ?, ?)",
			 NULL, err, errlen, "isii", *id, m->recipient, (long long)m->held, now) < 0)
		goto fail;
	return appdata_commit(db, err, errlen) < 0 ? -1 : 1;
fail:
	appdata_rollback(db);
	return -1;
}

#define DUE_SELECT                                                                                       \
	"SELECT m.id, m.call_id, m.sender_access, o.approved, m.body, o.handed,"                         \
	" s.id, s.title, s.agent, s.project_dir, s.access_level,"                                        \
	" r.id, r.title, r.agent, r.project_dir, r.access_level,"                                        \
	" CASE r.agent WHEN 'codex' THEN " APPDATA_CODEX_THREAD_OF("r.id")                              \
	" ELSE " APPDATA_CLAUDE_SESSION_OF("r.id") " END, r.model, r.effort"                           \
	" FROM session_message_outbox o JOIN chat_session_messages m ON m.id = o.message_id"            \
	" JOIN sessions s ON s.id = m.sender_session_id JOIN sessions r ON r.id = m.recipient_session_id"

static void session_cols(sqlite3_stmt *st, int c, struct msg_session *s)
{
	copy_col(st, c, s->id, sizeof s->id);
	copy_col(st, c + 1, s->title, sizeof s->title);
	copy_col(st, c + 2, s->agent, sizeof s->agent);
	copy_col(st, c + 3, s->project, sizeof s->project);
	copy_col(st, c + 4, s->access, sizeof s->access);
}

int store_due(sqlite3 *db, long long now, struct msg_due *out, int max, char *err, size_t errlen)
{
	sqlite3_stmt *st = appdata_prepare(db, DUE_SELECT " WHERE o.held = 0 AND o.next_attempt_at <= ?"
							   " ORDER BY m.id LIMIT ?",
					   err, errlen, "ii", now, (long long)max);
	int n = 0, rc;

	if (!st)
		return -1;
	while (n < max && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct msg_due *d = &out[n];
		const unsigned char *body = sqlite3_column_text(st, 4);
		memset(d, 0, sizeof *d);
		d->id = sqlite3_column_int64(st, 0);
		copy_col(st, 1, d->call_id, sizeof d->call_id);
		copy_col(st, 2, d->sender_access, sizeof d->sender_access);
		d->approved = sqlite3_column_int(st, 3);
		d->handed = sqlite3_column_int(st, 5);
		session_cols(st, 6, &d->from);
		session_cols(st, 11, &d->to);
		copy_col(st, 16, d->to_link, sizeof d->to_link);
		copy_col(st, 17, d->to_model, sizeof d->to_model);
		copy_col(st, 18, d->to_effort, sizeof d->to_effort);
		if (!(d->body = strdup(body ? (const char *)body : "")))
			break;
		n++;
	}
	sqlite3_finalize(st);
	return n;
}

int store_pending(sqlite3 *db, long long *next)
{
	char err[256];
	sqlite3_stmt *st = appdata_prepare(db, "SELECT MIN(next_attempt_at) FROM session_message_outbox"
					       " WHERE held = 0", err, sizeof err, "");
	int rc = -1;

	*next = 0;
	if (st && sqlite3_step(st) == SQLITE_ROW) {
		rc = sqlite3_column_type(st, 0) != SQLITE_NULL;
		*next = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return rc;
}

long long store_next_due(sqlite3 *db)
{
	long long next;

	return store_pending(db, &next) > 0 ? next : 0;
}

/* Two statements in one transaction; *changed from the first. */
static int change(sqlite3 *db, const char *first, const char *second, long long id, const char *text,
		  int *changed, char *err, size_t errlen)
{
	long long now = appdata_now_ms();
	int n = 0;

	if (appdata_begin_write(db, err, errlen) < 0)
		return -1;
	if (appdata_exec(db, first, &n, err, errlen, "sii", text, now, id) < 0 ||
	    (n && appdata_exec(db, second, NULL, err, errlen, "i", id) < 0)) {
		appdata_rollback(db);
		return -1;
	}
	if (changed)
		*changed = n;
	return appdata_commit(db, err, errlen);
}

int store_mark_sent(sqlite3 *db, long long id, const char *turn, int *changed, char *err, size_t errlen)
{
	return change(db,
		      "UPDATE chat_session_messages SET state = 'sent', turn_id = ?1, sent_at = ?2, updated_at = ?2"
		      " WHERE id = ?3 AND state IN ('queued', 'held')",
		      "DELETE FROM session_message_outbox WHERE message_id = ?", id, turn, changed, err, errlen);
}

int store_mark_held(sqlite3 *db, long long id, const char *reason, int *changed, char *err, size_t errlen)
{
	return change(db,
		      "UPDATE chat_session_messages SET state = 'held', hold_reason = ?, updated_at = ?"
		      " WHERE id = ? AND state = 'queued'",
		      "UPDATE session_message_outbox SET held = 1 WHERE message_id = ?", id, reason, changed, err,
		      errlen);
}

int store_reschedule(sqlite3 *db, long long id, long long next_ms, int failed, const char *why, char *err,
		     size_t errlen)
{
	return appdata_exec(db,
			    "UPDATE session_message_outbox SET next_attempt_at = ?, attempts = attempts + ?,"
			    " last_error = COALESCE(?, last_error) WHERE message_id = ?",
			    NULL, err, errlen, "iisi", next_ms, (long long)(failed != 0), why, id);
}

int store_mark_handed(sqlite3 *db, long long id, long long next_ms, char *err, size_t errlen)
{
	return appdata_exec(db,
			    "UPDATE session_message_outbox SET handed = 1, next_attempt_at = ?, last_error = NULL"
			    " WHERE message_id = ?",
			    NULL, err, errlen, "ii", next_ms, id);
}

int store_session_reachable(sqlite3 *db, const char *session, long long now, char *err, size_t errlen)
{
	return appdata_exec(db,
			    "UPDATE session_message_outbox SET next_attempt_at = ? WHERE recipient_session_id = ?"
			    " AND held = 0 AND next_attempt_at > ?",
			    NULL, err, errlen, "isi", now, session, now);
}

/* The state of message id, into state; 0 when there is none. */
static int message_state(sqlite3 *db, long long id, char *state, size_t len, char *err, size_t errlen)
{
	sqlite3_stmt *st = appdata_prepare(db, "SELECT state FROM chat_session_messages WHERE id = ?", err, errlen,
					   "i", id);
	int rc;

	if (!st)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		copy_col(st, 0, state, len);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW;
}

/* Why a message in state cannot be sent or discarded now. */
static int refuse(long long id, const char *state, const char *what, char *err, size_t errlen)
{
	char op[48];

	store_op_id(id, op, sizeof op);
	if (strcmp(state, "sent") == 0)
		snprintf(err, errlen, "%s was sent already; it cannot be %s", op, what);
	else if (strcmp(state, "discarded") == 0)
		snprintf(err, errlen, "%s was discarded; it cannot be %s", op, what);
	else
		snprintf(err, errlen, "%s is on its way to the other session and needs no approval; it cannot be %s",
			 op, what);
	return -1;
}

/* The user's answer to a held message: the message's new state and what
 * becomes of its outbox entry, in one transaction. */
static int answer_held(sqlite3 *db, long long id, const char *what, const char *message_sql, const char *outbox_sql,
		       char *err, size_t errlen)
{
	char state[16] = "";
	int found;

	if (appdata_begin_write(db, err, errlen) < 0)
		return -1;
	if ((found = message_state(db, id, state, sizeof state, err, errlen)) <= 0) {
		appdata_rollback(db);
		if (found == 0)
			snprintf(err, errlen, "there is no session message %lld", id);
		return -1;
	}
	/* Only a held message is the user's to answer: a queued one may be
	 * in the recipient's agent already. */
	if (strcmp(state, "held") != 0) {
		appdata_rollback(db);
		return refuse(id, state, what, err, errlen);
	}
	if (appdata_exec(db, message_sql, NULL, err, errlen, "ii", appdata_now_ms(), id) < 0 ||
	    appdata_exec(db, outbox_sql, NULL, err, errlen, "i", id) < 0) {
		appdata_rollback(db);
		return -1;
	}
	return appdata_commit(db, err, errlen);
}

int store_approve(sqlite3 *db, long long id, char *err, size_t errlen)
{
	/* Due at once, and approved: the broker skips the hold rules for it. */
	return answer_held(db, id, "sent by hand",
			   "UPDATE chat_session_messages SET state = 'queued', updated_at = ? WHERE id = ?",
			   "UPDATE session_message_outbox SET held = 0, approved = 1, next_attempt_at = 0"
			   " WHERE message_id = ?",
			   err, errlen);
}

int store_discard(sqlite3 *db, long long id, char *err, size_t errlen)
{
	return answer_held(db, id, "discarded",
			   "UPDATE chat_session_messages SET state = 'discarded', updated_at = ? WHERE id = ?",
			   "DELETE FROM session_message_outbox WHERE message_id = ?", err, errlen);
}

#define LIST_SELECT                                                                                      \
	"SELECT m.id, m.state, m.hold_reason, m.body, m.call_id, m.created_at, m.turn_id,"               \
	" s.id, s.title, r.id, r.title, s.agent, o.last_error"                                           \
	" FROM chat_session_messages m"                                                                  \
	" LEFT JOIN session_message_outbox o ON o.message_id = m.id"                                     \
	" JOIN sessions s ON s.id = m.sender_session_id JOIN sessions r ON r.id = m.recipient_session_id"

static json_t *list_row(sqlite3_stmt *st)
{
	static const char *const status[][2] = {
		{ "queued", "queued" }, { "held", "waiting-for-approval" }, { "sent", "sent" },
		{ "discarded", "discarded" },
	};
	const char *state = (const char *)sqlite3_column_text(st, 1), *shown = state;
	char op[48];

	for (size_t i = 0; i < sizeof status / sizeof status[0]; i++)
		if (state && strcmp(state, status[i][0]) == 0)
			shown = status[i][1];
	store_op_id(sqlite3_column_int64(st, 0), op, sizeof op);
	return json_pack("{s:s, s:s?, s:s?, s:s?, s:s?, s:I, s:s?, s:s?, s:s?, s:s?, s:s?, s:s?, s:s?}", "id", op,
			 "status",
			 shown,
			 "holdReason", (const char *)sqlite3_column_text(st, 2), "message",
			 (const char *)sqlite3_column_text(st, 3), "callId", (const char *)sqlite3_column_text(st, 4),
			 "createdAt", (json_int_t)sqlite3_column_int64(st, 5), "turnId",
			 (const char *)sqlite3_column_text(st, 6), "fromSessionId",
			 (const char *)sqlite3_column_text(st, 7), "fromTitle", (const char *)sqlite3_column_text(st, 8),
			 "toSessionId", (const char *)sqlite3_column_text(st, 9), "toTitle",
			 (const char *)sqlite3_column_text(st, 10), "fromAgent", (const char *)sqlite3_column_text(st, 11),
			 "lastError", (const char *)sqlite3_column_text(st, 12));
}

json_t *store_list(sqlite3 *db, const char *session, char *err, size_t errlen)
{
	int all = !session || !*session, rc;
	sqlite3_stmt *st = appdata_prepare(db, LIST_SELECT " WHERE m.state IN ('queued', 'held')"
							   " AND (? OR m.recipient_session_id = ?) ORDER BY m.id",
					   err, errlen, "is", (long long)all, all ? "" : session);
	json_t *list = json_array(), *row;

	if (!st || !list) {
		sqlite3_finalize(st);
		json_decref(list);
		return NULL;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (!(row = list_row(st)) || json_array_append_new(list, row) < 0)
			break;
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_decref(list);
		appdata_error(db, "listing messages", err, errlen);
		return NULL;
	}
	return json_pack("{s:o}", "messages", list);
}

json_t *store_get(sqlite3 *db, long long id, char *err, size_t errlen)
{
	sqlite3_stmt *st = appdata_prepare(db, LIST_SELECT " WHERE m.id = ?", err, errlen, "i", id);
	json_t *row = NULL;

	if (!st)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW)
		row = list_row(st);
	else
		snprintf(err, errlen, "there is no session message %lld", id);
	sqlite3_finalize(st);
	return row;
}

void store_op_id(long long id, char *out, size_t outlen)
{
	snprintf(out, outlen, HB_SESSION_MESSAGE_PREFIX "%lld", id);
}

long long store_parse_op_id(const char *text)
{
	const char *p = text;
	char *end;
	long long id;

	if (hb_is_session_message_id(p))
		p += strlen(HB_SESSION_MESSAGE_PREFIX);
	if (*p < '1' || *p > '9')
		return 0;
	id = strtoll(p, &end, 10);
	return *end ? 0 : id;
}
