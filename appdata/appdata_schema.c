/*
 * appdata_schema - the migration steps of appdata.db.
 *
 * Steps only ever get appended: a shipped step is never edited, because files
 * in the field already carry its version number.  The version is read again
 * inside the write transaction, so two processes migrating at once apply
 * each step exactly once.
 */
#include "appdata_schema.h"

#include "appdata_sql.h"

#include <stdio.h>

struct migration_step {
	int version;
	const char *sql;
	/* A step that rebuilds a table others refer to (SQLite's way to
	 * change a constraint: make the new table, copy, drop the old one,
	 * rename) runs with foreign keys off, which SQLite allows only
	 * outside a transaction, and is checked with foreign_key_check
	 * before its commit. */
	int rebuilds;
};

/* Version 1: sessions and the three tables that hang off them.
 * A Codex sub-agent thread has no session of its own: its link row names the
 * parent thread instead, and resolution walks up to a row with a session. */
static const struct migration_step migration_steps[] = {
	{ 1,
	  "CREATE TABLE sessions ("
	  " id TEXT PRIMARY KEY,"
	  " title TEXT NOT NULL,"
	  " agent TEXT NOT NULL CHECK (agent IN ('codex', 'claude')),"
	  " project_dir TEXT NOT NULL,"
	  " project_hash TEXT NOT NULL,"
	  " access_level TEXT NOT NULL"
	  "  CHECK (access_level IN ('read-only', 'full-auto', 'full-access', 'unrestricted')),"
	  " created_at INTEGER NOT NULL,"
	  " updated_at INTEGER NOT NULL,"
	  " archived INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)));"
	  "CREATE INDEX sessions_by_project ON sessions (project_hash, updated_at);"
	  "CREATE INDEX sessions_by_update ON sessions (updated_at);"
	  "CREATE TABLE project_workspace ("
	  " project_dir TEXT PRIMARY KEY,"
	  " project_hash TEXT NOT NULL,"
	  " active_session_id TEXT REFERENCES sessions (id),"
	  " updated_at INTEGER NOT NULL);"
	  "CREATE INDEX project_workspace_by_active ON project_workspace (active_session_id);"
	  "CREATE TABLE codex_session_links ("
	  " thread_id TEXT PRIMARY KEY,"
	  " session_id TEXT REFERENCES sessions (id),"
	  " parent_thread_id TEXT,"
	  " created_at INTEGER NOT NULL,"
	  " CHECK ((session_id IS NULL) <> (parent_thread_id IS NULL)));"
	  "CREATE INDEX codex_session_links_by_session ON codex_session_links (session_id, created_at);"
	  "CREATE TABLE claude_sessions ("
	  " session_id TEXT PRIMARY KEY REFERENCES sessions (id),"
	  " claude_session_id TEXT NOT NULL,"
	  " updated_at INTEGER NOT NULL);", 0 },
	/* Version 2: messages between sessions (svc-messages writes them).
	 * One row per sender session and call id, so a repeated call never
	 * sends twice.  The outbox is the recipient's queue: an entry lives
	 * from the receipt until the message is sent or discarded; `held`
	 * entries wait for the user, the others for the delivery loop;
	 * `approved` (the user sent it) and `handed` (a bridge took it: it may
	 * be in the agent already) ones skip the hold rules. */
	{ 2,
	  "CREATE TABLE chat_session_messages ("
	  " id INTEGER PRIMARY KEY,"
	  " sender_session_id TEXT NOT NULL REFERENCES sessions (id),"
	  " call_id TEXT NOT NULL,"
	  " recipient_session_id TEXT NOT NULL REFERENCES sessions (id),"
	  " sender_run_id TEXT NOT NULL,"
	  " sender_access TEXT NOT NULL,"
	  " body TEXT NOT NULL,"
	  " state TEXT NOT NULL CHECK (state IN ('queued', 'held', 'sent', 'discarded')),"
	  " hold_reason TEXT,"
	  " turn_id TEXT,"
	  " created_at INTEGER NOT NULL,"
	  " updated_at INTEGER NOT NULL,"
	  " sent_at INTEGER,"
	  " UNIQUE (sender_session_id, call_id));"
	  "CREATE INDEX chat_session_messages_by_recipient"
	  " ON chat_session_messages (recipient_session_id, state, id);"
	  "CREATE TABLE session_message_outbox ("
	  " message_id INTEGER PRIMARY KEY REFERENCES chat_session_messages (id),"
	  " recipient_session_id TEXT NOT NULL,"
	  " held INTEGER NOT NULL CHECK (held IN (0, 1)),"
	  " approved INTEGER NOT NULL DEFAULT 0 CHECK (approved IN (0, 1)),"
	  " handed INTEGER NOT NULL DEFAULT 0 CHECK (handed IN (0, 1)),"
	  " attempts INTEGER NOT NULL DEFAULT 0,"
	  " next_attempt_at INTEGER NOT NULL,"
	  " last_error TEXT);"
	  "CREATE INDEX session_message_outbox_due ON session_message_outbox (held, next_attempt_at);", 0 },
	/* Version 3: one Claude conversation belongs to at most one session
	 * (page 003).  Version 1 left the Claude id without UNIQUE; every
	 * link is kept except later claims of a conversation already claimed
	 * (the oldest link wins, the row written first among equals), which
	 * the index could not hold.  An index, not a rebuilt table: the rows
	 * stay where they are. */
	{ 3,
	  "DELETE FROM claude_sessions WHERE EXISTS (SELECT 1 FROM claude_sessions AS older"
	  " WHERE older.claude_session_id = claude_sessions.claude_session_id"
	  " AND (older.updated_at < claude_sessions.updated_at"
	  " OR (older.updated_at = claude_sessions.updated_at AND older.rowid < claude_sessions.rowid)));"
	  "CREATE UNIQUE INDEX claude_sessions_by_claude_id ON claude_sessions (claude_session_id);", 0 },
	/* Version 4: a session keeps the model and the effort its runs open
	 * with (page 003: "The run opens the host with the session's model,
	 * effort, and permission mode"); NULL is the agent's own default. */
	{ 4,
	  "ALTER TABLE sessions ADD COLUMN model TEXT;"
	  "ALTER TABLE sessions ADD COLUMN effort TEXT;", 0 },
	/* Version 5: a session's agent may be "external", an MCP client's
	 * through hb-mcp (docs/mcp.md).  The CHECK of version 1 is part of
	 * the table, so the table is rebuilt with its rows, columns and
	 * indexes as they were. */
	{ 5,
	  "CREATE TABLE sessions_v5 ("
	  " id TEXT PRIMARY KEY,"
	  " title TEXT NOT NULL,"
	  " agent TEXT NOT NULL CHECK (agent IN ('codex', 'claude', 'external')),"
	  " project_dir TEXT NOT NULL,"
	  " project_hash TEXT NOT NULL,"
	  " access_level TEXT NOT NULL"
	  "  CHECK (access_level IN ('read-only', 'full-auto', 'full-access', 'unrestricted')),"
	  " created_at INTEGER NOT NULL,"
	  " updated_at INTEGER NOT NULL,"
	  " archived INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),"
	  " model TEXT,"
	  " effort TEXT);"
	  "INSERT INTO sessions_v5 (id, title, agent, project_dir, project_hash, access_level, created_at,"
	  " updated_at, archived, model, effort) SELECT id, title, agent, project_dir, project_hash, access_level,"
	  " created_at, updated_at, archived, model, effort FROM sessions;"
	  "DROP TABLE sessions;"
	  "ALTER TABLE sessions_v5 RENAME TO sessions;"
	  "CREATE INDEX sessions_by_project ON sessions (project_hash, updated_at);"
	  "CREATE INDEX sessions_by_update ON sessions (updated_at);",
	  1 },
};

#define MIGRATION_STEP_COUNT ((int)(sizeof migration_steps / sizeof migration_steps[0]))

int appdata_schema_latest(void)
{
	return migration_steps[MIGRATION_STEP_COUNT - 1].version;
}

int appdata_schema_version(sqlite3 *db, int *version, char *err, size_t errlen)
{
	sqlite3_stmt *stmt = NULL;
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, NULL) != SQLITE_OK)
		return appdata_error(db, "reading user_version", err, errlen);
	int rc = sqlite3_step(stmt);
	if (rc != SQLITE_ROW) {
		appdata_error(db, "reading user_version", err, errlen);
		sqlite3_finalize(stmt);
		return -1;
	}
	*version = sqlite3_column_int(stmt, 0);
	sqlite3_finalize(stmt);
	return 0;
}

/* After a rebuild: 0 when every reference still finds its row. */
static int references_hold(sqlite3 *db, int version, char *err, size_t errlen)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, "PRAGMA foreign_key_check", -1, &stmt, NULL) != SQLITE_OK)
		return appdata_error(db, "checking references", err, errlen);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		snprintf(err, errlen, "migrating to version %d would leave a row of %s without the row it refers to",
			 version, (const char *)sqlite3_column_text(stmt, 0));
	else if (rc != SQLITE_DONE)
		appdata_error(db, "checking references", err, errlen);
	sqlite3_finalize(stmt);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int apply_step(sqlite3 *db, const struct migration_step *step, char *err, size_t errlen)
{
	if (sqlite3_exec(db, step->sql, NULL, NULL, NULL) != SQLITE_OK) {
		char what[64];
		snprintf(what, sizeof what, "migrating to version %d", step->version);
		return appdata_error(db, what, err, errlen);
	}
	if (step->rebuilds && references_hold(db, step->version, err, errlen) != 0)
		return -1;
	/* PRAGMA takes no bound parameters; the number is ours, not input. */
	char bump[64];
	snprintf(bump, sizeof bump, "PRAGMA user_version = %d", step->version);
	if (sqlite3_exec(db, bump, NULL, NULL, NULL) != SQLITE_OK)
		return appdata_error(db, "setting user_version", err, errlen);
	return 0;
}

/* One step in one transaction; *done set when nothing was left to do. */
static int migrate_one(sqlite3 *db, int *done, char *err, size_t errlen)
{
	if (appdata_begin_write(db, err, errlen) != 0)
		return -1;
	int version;
	if (appdata_schema_version(db, &version, err, errlen) != 0)
		goto fail;
	if (version > appdata_schema_latest()) {
		snprintf(err, errlen, "appdata.db has schema version %d, newer than this program's %d",
			 version, appdata_schema_latest());
		goto fail;
	}
	*done = 1;
	for (int i = 0; i < MIGRATION_STEP_COUNT; i++) {
		if (migration_steps[i].version <= version)
			continue;
		if (apply_step(db, &migration_steps[i], err, errlen) != 0)
			goto fail;
		*done = 0;
		break;
	}
	return appdata_commit(db, err, errlen);
fail:
	appdata_rollback(db);
	return -1;
}

int appdata_schema_migrate(sqlite3 *db, char *err, size_t errlen)
{
	int version;
	if (appdata_schema_version(db, &version, err, errlen) != 0)
		return -1;
	/* The common case: already current, no write lock taken. */
	if (version == appdata_schema_latest())
		return 0;
	/* Foreign keys off for the whole run when a step ahead rebuilds (not
	 * possible inside its transaction); each such step is checked. */
	int rebuilds = 0;
	for (int i = 0; i < MIGRATION_STEP_COUNT; i++)
		rebuilds |= migration_steps[i].version > version && migration_steps[i].rebuilds;
	if (rebuilds && sqlite3_exec(db, "PRAGMA foreign_keys = OFF", NULL, NULL, NULL) != SQLITE_OK)
		return appdata_error(db, "turning foreign keys off to migrate", err, errlen);
	int done = 0, rc = 0;
	while (!done && rc == 0)
		rc = migrate_one(db, &done, err, errlen);
	if (rebuilds && sqlite3_exec(db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK && rc == 0)
		return appdata_error(db, "turning foreign keys on after migrating", err, errlen);
	return rc;
}
