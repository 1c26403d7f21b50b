/*
 * test_sessions - svc-sessions on a temporary appdata.db: migrations and
 * manage_sessions (create, rename, access, archive, activate, session info).
 *
 * The tests call the pure functions the handlers wrap, so they need no
 * broker (the fixture: sessions_db_rig.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../appdata/appdata.h"
#include "fail_codes.h"
#include "../../appdata/appdata_schema.h"
#include "../../svc-sessions/project_path.h"
#include "../../svc-sessions/session_info.h"
#include "../../svc-sessions/session_lookup.h"
#include "../../svc-sessions/session_manage.h"
#include "../../svc-sessions/thread_links.h"
#include "sessions_db_rig.h"

static void test_migration_sets_version_and_is_idempotent(void **state)
{
	struct fixture *f = *state;
	int version = 0;
	assert_int_equal(appdata_schema_version(f->rw, &version, f->err, sizeof f->err), 0);
	assert_int_equal(version, 5);
	assert_int_equal(appdata_schema_latest(), 5);
	assert_int_equal(appdata_schema_migrate(f->rw, f->err, sizeof f->err), 0);

	sqlite3 *again = appdata_open_rw(f->path, f->err, sizeof f->err);
	assert_non_null(again);
	assert_int_equal(appdata_schema_version(again, &version, f->err, sizeof f->err), 0);
	assert_int_equal(version, 5);
	appdata_close(again);
	exec_sql(f, "SELECT id, title, agent, project_dir, project_hash, access_level, created_at,"
		    " updated_at, archived, model, effort FROM sessions;"
		    "SELECT project_dir, project_hash, active_session_id, updated_at FROM project_workspace;"
		    "SELECT thread_id, session_id, parent_thread_id, created_at FROM codex_session_links;"
		    "SELECT session_id, claude_session_id, updated_at FROM claude_sessions;"
		    "SELECT id, sender_session_id, call_id, recipient_session_id, sender_run_id, sender_access,"
		    " body, state, hold_reason, turn_id, created_at, updated_at, sent_at FROM chat_session_messages;"
		    "SELECT message_id, recipient_session_id, held, approved, handed, attempts, next_attempt_at,"
		    " last_error FROM session_message_outbox;");
}

static void test_newer_schema_is_refused(void **state)
{
	struct fixture *f = *state;
	exec_sql(f, "PRAGMA user_version = 99");
	assert_null(appdata_open_rw(f->path, f->err, sizeof f->err));
	assert_non_null(strstr(f->err, "newer"));
}

/* Open the file read-write, which migrates it: it must be at the latest
 * version then.  The connection, for the caller to check and close. */
static sqlite3 *open_migrated(struct fixture *f)
{
	int version = 0;
	sqlite3 *db = appdata_open_rw(f->path, f->err, sizeof f->err);

	assert_non_null(db);
	assert_int_equal(appdata_schema_version(db, &version, f->err, sizeof f->err), 0);
	assert_int_equal(version, appdata_schema_latest());
	return db;
}

/* A file of version 1 (before session messages) gets the two new tables
 * and the later steps, and keeps its rows. */
static void test_version_1_file_is_migrated(void **state)
{
	struct fixture *f = *state;

	exec_sql(f, "INSERT INTO sessions (id, title, agent, project_dir, project_hash, access_level, created_at,"
		    " updated_at) VALUES ('s-old', 'Old', 'codex', '/p', 'h', 'full-auto', 1, 1);"
		    "DROP TABLE session_message_outbox; DROP TABLE chat_session_messages;"
		    "DROP INDEX claude_sessions_by_claude_id; ALTER TABLE sessions DROP COLUMN model;"
		    "ALTER TABLE sessions DROP COLUMN effort; PRAGMA user_version = 1");
	sqlite3 *db = open_migrated(f);
	assert_int_equal(sqlite3_exec(db, "SELECT COUNT(*) FROM chat_session_messages, session_message_outbox", NULL,
				      NULL, NULL),
			 SQLITE_OK);
	appdata_close(db);
	assert_int_equal(list_count(f, "{\"action\":\"listSessions\"}"), 1);
}

static long long count_rows(struct fixture *f, const char *sql)
{
	sqlite3_stmt *stmt = NULL;
	assert_int_equal(sqlite3_prepare_v2(f->rw, sql, -1, &stmt, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
	long long n = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	return n;
}

/* A file of version 2, whose claude_sessions had no UNIQUE on the Claude
 * id: every link is kept, except that of a conversation claimed twice
 * only the older claim stays (the page: a conversation belongs to at most
 * one session); then the UNIQUE holds. */
static void test_version_2_file_is_migrated(void **state)
{
	struct fixture *f = *state;

	insert_session(f, "s-a", "claude", "/p", 1, 0);
	insert_session(f, "s-b", "claude", "/p", 1, 0);
	insert_session(f, "s-c", "claude", "/p", 1, 0);
	insert_session(f, "s-d", "claude", "/p", 1, 0);
	exec_sql(f, "DROP INDEX claude_sessions_by_claude_id; ALTER TABLE sessions DROP COLUMN model;"
		    "ALTER TABLE sessions DROP COLUMN effort; PRAGMA user_version = 2;"
		    "INSERT INTO claude_sessions VALUES ('s-b', 'conv-1', 9);"
		    "INSERT INTO claude_sessions VALUES ('s-a', 'conv-1', 5);"
		    "INSERT INTO claude_sessions VALUES ('s-c', 'conv-2', 7);"
		    "INSERT INTO claude_sessions VALUES ('s-d', 'conv-2', 7);");
	sqlite3 *db = open_migrated(f);
	appdata_close(db);
	assert_int_equal(count_rows(f, "SELECT count(*) FROM claude_sessions"), 2);
	assert_int_equal(count_rows(f, "SELECT count(*) FROM claude_sessions WHERE session_id = 's-a'"
				    " AND claude_session_id = 'conv-1' AND updated_at = 5"), 1);
	/* The same age: the row written first stays. */
	assert_int_equal(count_rows(f, "SELECT count(*) FROM claude_sessions WHERE session_id = 's-c'"
				    " AND claude_session_id = 'conv-2'"), 1);
	assert_int_equal(count_rows(f, "SELECT count(*) FROM sessions"), 4);
	assert_int_not_equal(sqlite3_exec(f->rw, "INSERT INTO claude_sessions VALUES ('s-b', 'conv-2', 10)", NULL,
					  NULL, NULL),
			     SQLITE_OK);
}

/* A file of version 3 gets the model and effort of its sessions, NULL
 * (the agent's defaults), and keeps its rows. */
static void test_version_3_file_is_migrated(void **state)
{
	struct fixture *f = *state;

	insert_session(f, "s-a", "claude", "/p", 1, 0);
	exec_sql(f, "ALTER TABLE sessions DROP COLUMN model; ALTER TABLE sessions DROP COLUMN effort;"
		    "PRAGMA user_version = 3;");
	sqlite3 *db = open_migrated(f);
	appdata_close(db);
	assert_int_equal(count_rows(f, "SELECT count(*) FROM sessions WHERE id = 's-a' AND model IS NULL"
				    " AND effort IS NULL"), 1);
}

/* A file of version 4, whose sessions take codex and claude only, is
 * rebuilt to take external too (hb-mcp's sessions), keeping its rows,
 * their columns and what refers to them; the references still hold. */
static void test_version_4_file_is_migrated(void **state)
{
	struct fixture *f = *state;

	insert_session(f, "s-a", "claude", "/p", 1, 0);
	exec_sql(f, "UPDATE sessions SET model = 'opus', effort = 'high' WHERE id = 's-a';"
		    "INSERT INTO claude_sessions VALUES ('s-a', 'conv-1', 5);"
		    "PRAGMA foreign_keys = OFF;"
		    "CREATE TABLE sessions_v4 (id TEXT PRIMARY KEY, title TEXT NOT NULL,"
		    " agent TEXT NOT NULL CHECK (agent IN ('codex', 'claude')), project_dir TEXT NOT NULL,"
		    " project_hash TEXT NOT NULL, access_level TEXT NOT NULL, created_at INTEGER NOT NULL,"
		    " updated_at INTEGER NOT NULL, archived INTEGER NOT NULL DEFAULT 0, model TEXT, effort TEXT);"
		    "INSERT INTO sessions_v4 SELECT * FROM sessions; DROP TABLE sessions;"
		    "ALTER TABLE sessions_v4 RENAME TO sessions; PRAGMA foreign_keys = ON; PRAGMA user_version = 4;");
	assert_int_not_equal(sqlite3_exec(f->rw, "UPDATE sessions SET agent = 'external'", NULL, NULL, NULL),
			     SQLITE_OK);
	sqlite3 *db = open_migrated(f);
	appdata_close(db);
	assert_int_equal(count_rows(f, "SELECT count(*) FROM sessions WHERE id = 's-a' AND agent = 'claude'"
				    " AND model = 'opus' AND effort = 'high' AND project_dir = '/p'"), 1);
	assert_int_equal(count_rows(f, "SELECT count(*) FROM claude_sessions WHERE session_id = 's-a'"), 1);
	assert_int_equal(count_rows(f, "SELECT count(*) FROM sqlite_master WHERE name IN ('sessions_by_project',"
				    " 'sessions_by_update')"), 2);
	assert_int_equal(sqlite3_exec(f->rw, "UPDATE sessions SET agent = 'external'", NULL, NULL, NULL), SQLITE_OK);
	/* Foreign keys are on again: a link to no session is refused. */
	assert_int_not_equal(sqlite3_exec(f->rw, "INSERT INTO claude_sessions VALUES ('s-none', 'conv-2', 5)", NULL,
					  NULL, NULL),
			     SQLITE_OK);
}

/* An MCP client's session (hb-mcp): agent external, listed by agent. */
static void test_create_external_session(void **state)
{
	struct fixture *f = *state;
	char text[512];

	snprintf(text, sizeof text, "{\"action\":\"create\",\"title\":\"claude-code\",\"agent\":\"external\","
		 "\"projectPath\":\"%s\"}", f->dir);
	json_t *row = ok(f, manage_tool, text);
	assert_string_equal(str(row, "agent"), "external");
	json_decref(row);
	assert_int_equal(list_count(f, "{\"action\":\"listSessions\",\"agent\":\"external\"}"), 1);
	assert_int_equal(list_count(f, "{\"action\":\"listSessions\",\"agent\":\"claude\"}"), 0);
}

static void test_read_only_connection_cannot_write(void **state)
{
	struct fixture *f = *state;
	char *msg = NULL;
	int rc = sqlite3_exec(f->ro, "INSERT INTO sessions (id, title, agent, project_dir, project_hash,"
			      " access_level, created_at, updated_at) VALUES"
			      " ('s-x', 't', 'codex', '/p', 'h', 'full-auto', 0, 0)", NULL, NULL, &msg);
	assert_int_not_equal(rc, SQLITE_OK);
	sqlite3_free(msg);
	assert_int_not_equal(sqlite3_exec(f->ro, "PRAGMA query_only = 0; DELETE FROM sessions", NULL, NULL, NULL),
			     SQLITE_OK);
	assert_int_equal(list_count(f, "{\"action\":\"listSessions\"}"), 0);
}

static void test_read_only_open_creates_missing_file(void **state)
{
	struct fixture *f = *state;
	char path[160];
	snprintf(path, sizeof path, "%s/fresh.db", f->dir);
	sqlite3 *db = appdata_open_ro(path, f->err, sizeof f->err);
	assert_non_null(db);
	int version = 0;
	assert_int_equal(appdata_schema_version(db, &version, f->err, sizeof f->err), 0);
	assert_int_equal(version, appdata_schema_latest());
	appdata_close(db);
	remove_file(f->dir, "fresh.db");
	remove_file(f->dir, "fresh.db-wal");
	remove_file(f->dir, "fresh.db-shm");
}

static void test_create_returns_row(void **state)
{
	struct fixture *f = *state;
	char text[512], hash[PROJECT_HASH_LEN + 1], real[PROJECT_PATH_MAX + 1];
	snprintf(text, sizeof text, "{\"action\":\"create\",\"title\":\"  Fix the build \",\"agent\":\"claude\","
		 "\"projectPath\":\"%s//\"}", f->dir);
	json_t *row = ok(f, manage_tool, text);
	assert_int_equal(strncmp(str(row, "id"), "s-", 2), 0);
	assert_int_equal(strlen(str(row, "id")), 18);
	assert_string_equal(str(row, "title"), "Fix the build");
	assert_string_equal(str(row, "agent"), "claude");
	assert_string_equal(str(row, "accessLevel"), SESSION_DEFAULT_ACCESS_LEVEL);
	assert_non_null(realpath(f->dir, real));
	assert_string_equal(str(row, "projectDirectory"), real);
	project_path_hash(real, hash);
	assert_string_equal(str(row, "projectDirectoryHash"), hash);
	assert_true(json_is_false(json_object_get(row, "active")));
	assert_true(json_is_false(json_object_get(row, "archived")));
	assert_int_equal(strlen(str(row, "createdAt")), 24);
	assert_int_equal(str(row, "createdAt")[23], 'Z');
	assert_null(json_object_get(row, "codexThreadId"));
	assert_null(json_object_get(row, "claudeSessionId"));
	json_decref(row);

	row = ok(f, manage_tool, "{\"action\":\"create\",\"title\":\"x\",\"agent\":\"codex\","
		 "\"projectPath\":\"/no/such//dir/\",\"accessLevel\":\"read-only\"}");
	assert_string_equal(str(row, "projectDirectory"), "/no/such/dir");
	assert_string_equal(str(row, "accessLevel"), "read-only");
	json_decref(row);
}

static void test_create_errors(void **state)
{
	struct fixture *f = *state;
	fails(f, manage_tool, "{\"action\":\"create\",\"agent\":\"codex\",\"projectPath\":\"/p\"}", "\"title\" is required");
	fails(f, manage_tool, "{\"action\":\"create\",\"title\":\"   \",\"agent\":\"codex\",\"projectPath\":\"/p\"}",
	      "1 to 200 characters");
	fails(f, manage_tool, "{\"action\":\"create\",\"title\":\"a\\nb\",\"agent\":\"codex\",\"projectPath\":\"/p\"}",
	      "control characters");
	fails(f, manage_tool, "{\"action\":\"create\",\"title\":\"t\",\"agent\":\"gemini\",\"projectPath\":\"/p\"}",
	      "\"agent\" must be one of: codex, claude, external");
	fails(f, manage_tool, "{\"action\":\"create\",\"title\":\"t\",\"projectPath\":\"/p\"}", "\"agent\" is required");
	fails(f, manage_tool, "{\"action\":\"create\",\"title\":\"t\",\"agent\":\"codex\",\"projectPath\":\"rel/p\"}",
	      "absolute");
	fails(f, manage_tool, "{\"action\":\"create\",\"title\":\"t\",\"agent\":\"codex\",\"projectPath\":\"/p\","
	      "\"accessLevel\":\"root\"}", "\"accessLevel\" must be one of");
	fails(f, manage_tool, "{\"action\":\"create\",\"title\":\"t\",\"agent\":\"codex\",\"projectPath\":\"/p\","
	      "\"targetSessionId\":\"s-1\"}", "targetSessionId is not used by create");

	char text[8192], title[260];
	memset(title, 'x', 201);
	title[201] = '\0';
	snprintf(text, sizeof text, "{\"action\":\"create\",\"title\":\"%s\",\"agent\":\"codex\",\"projectPath\":\"/p\"}",
		 title);
	fails(f, manage_tool, text, "got 201");
	title[200] = '\0';
	snprintf(text, sizeof text, "{\"action\":\"create\",\"title\":\"%s\",\"agent\":\"codex\",\"projectPath\":\"/p\"}",
		 title);
	json_decref(ok(f, manage_tool, text));

	char path[4200];
	path[0] = '/';
	memset(path + 1, 'd', 4096);
	path[4097] = '\0';
	snprintf(text, sizeof text, "{\"action\":\"create\",\"title\":\"t\",\"agent\":\"codex\",\"projectPath\":\"%s\"}",
		 path);
	fails(f, manage_tool, text, "too long");
}

/* A title that reads as something else is refused, naming the character
 * and its place; the characters scripts and emoji need are kept. */
static void test_title_hidden_chars(void **state)
{
	static const struct {
		const char *utf8, *said;
	} refused[] = {
		{ "\xe2\x80\xae", "U+202E RIGHT-TO-LEFT OVERRIDE" },
		{ "\xe2\x80\xad", "U+202D LEFT-TO-RIGHT OVERRIDE" },
		{ "\xe2\x80\xaa", "U+202A LEFT-TO-RIGHT EMBEDDING" },
		{ "\xe2\x80\xab", "U+202B RIGHT-TO-LEFT EMBEDDING" },
		{ "\xe2\x80\xac", "U+202C POP DIRECTIONAL FORMATTING" },
		{ "\xe2\x80\x8b", "U+200B ZERO WIDTH SPACE" },
		{ "\xe2\x80\x8e", "U+200E LEFT-TO-RIGHT MARK" },
		{ "\xe2\x80\x8f", "U+200F RIGHT-TO-LEFT MARK" },
		{ "\xe2\x81\xa6", "U+2066 LEFT-TO-RIGHT ISOLATE" },
		{ "\xe2\x81\xa7", "U+2067 RIGHT-TO-LEFT ISOLATE" },
		{ "\xe2\x81\xa8", "U+2068 FIRST STRONG ISOLATE" },
		{ "\xe2\x81\xa9", "U+2069 POP DIRECTIONAL ISOLATE" },
		{ "\xe2\x81\xa0", "U+2060 WORD JOINER" },
		{ "\xe2\x81\xa3", "U+2063 an invisible mathematical operator" },
		{ "\xef\xbb\xbf", "U+FEFF ZERO WIDTH NO-BREAK SPACE (byte order mark)" },
		{ "\xc2\xad", "U+00AD SOFT HYPHEN" },
		{ "\xd8\x9c", "U+061C ARABIC LETTER MARK" },
		{ "\xe2\x80\xa8", "U+2028 LINE SEPARATOR" },
		{ "\xe2\x80\xa9", "U+2029 PARAGRAPH SEPARATOR" },
		{ "\xf3\xa0\x81\x81", "U+E0041 a tag character" },
	};
	static const char *const kept[] = {
		"Family \xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7", /* ZWJ */
		"\xd9\x85\xdb\x8c\xe2\x80\x8c\xd8\xae\xd9\x88\xd8\xa7\xd9\x87\xd9\x85",             /* ZWNJ */
		"Love \xe2\x9d\xa4\xef\xb8\x8f",                                             /* VS16 */
		"\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d build",                                  /* Hebrew */
	};
	struct fixture *f = *state;
	char text[512], want[512], id[64];
	json_t *row;

	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		snprintf(text, sizeof text, "{\"action\":\"create\",\"title\":\"ab%scd\",\"agent\":\"codex\","
			 "\"projectPath\":\"/p\"}", refused[i].utf8);
		snprintf(want, sizeof want, "title must not contain invisible or direction-changing characters: "
			 "character 3 is %s, which can make a title read as something else; remove it", refused[i].said);
		fails(f, manage_tool, text, want);
	}
	row = ok(f, manage_tool, "{\"action\":\"create\",\"title\":\"plain\",\"agent\":\"codex\",\"projectPath\":\"/p\"}");
	snprintf(id, sizeof id, "%s", str(row, "id"));
	json_decref(row);
	snprintf(text, sizeof text, "{\"action\":\"rename\",\"targetSessionId\":\"%s\",\"title\":\"txt\xe2\x80\xae"
		 "exe.doc\"}", id);
	fails(f, manage_tool, text, "character 4 is U+202E RIGHT-TO-LEFT OVERRIDE");
	for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
		snprintf(text, sizeof text, "{\"action\":\"create\",\"title\":\"%s\",\"agent\":\"codex\","
			 "\"projectPath\":\"/p\"}", kept[i]);
		row = ok(f, manage_tool, text);
		assert_string_equal(str(row, "title"), kept[i]);
		json_decref(row);
	}
}

static void test_rename_access_archive(void **state)
{
	struct fixture *f = *state;
	char id[32], text[256];
	create(f, "first", "codex", "/proj/a", id);

	snprintf(text, sizeof text, "{\"action\":\"rename\",\"targetSessionId\":\"%s\",\"title\":\" Second \"}", id);
	json_t *row = ok(f, manage_tool, text);
	assert_string_equal(str(row, "title"), "Second");
	json_decref(row);

	snprintf(text, sizeof text, "{\"action\":\"setAccessLevel\",\"targetSessionId\":\"%s\","
		 "\"accessLevel\":\"unrestricted\"}", id);
	row = ok(f, manage_tool, text);
	assert_string_equal(str(row, "accessLevel"), "unrestricted");
	json_decref(row);

	snprintf(text, sizeof text, "{\"action\":\"setAccessLevel\",\"targetSessionId\":\"%s\"}", id);
	fails(f, manage_tool, text, "\"accessLevel\" is required");
	snprintf(text, sizeof text, "{\"action\":\"archive\",\"targetSessionId\":\"%s\",\"title\":\"x\"}", id);
	fails(f, manage_tool, text, "title is not used by archive");
	fails(f, manage_tool, "{\"action\":\"rename\",\"title\":\"x\"}", "\"targetSessionId\" is required");
	fails(f, manage_tool, "{\"action\":\"delete\",\"targetSessionId\":\"x\"}", "\"action\" must be one of");

	snprintf(text, sizeof text, "{\"action\":\"archive\",\"targetSessionId\":\"%s\"}", id);
	row = ok(f, manage_tool, text);
	assert_true(is_true(row, "archived"));
	json_decref(row);
	snprintf(text, sizeof text, "{\"action\":\"unarchive\",\"targetSessionId\":\"%s\"}", id);
	row = ok(f, manage_tool, text);
	assert_false(is_true(row, "archived"));
	json_decref(row);

	fails(f, manage_tool, "{\"action\":\"archive\",\"targetSessionId\":\"s-missing\"}",
	      "No session with id s-missing. Find ids with maintain_sessions listSessions.");
}

/* The access level stored for id, read with SQL (static buffer). */
static const char *stored_access(struct fixture *f, const char *id)
{
	static char level[32];
	sqlite3_stmt *stmt;

	assert_int_equal(sqlite3_prepare_v2(f->ro, "SELECT access_level FROM sessions WHERE id = ?1", -1, &stmt, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_TRANSIENT);
	assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
	snprintf(level, sizeof level, "%s", (const char *)sqlite3_column_text(stmt, 0));
	sqlite3_finalize(stmt);
	return level;
}

/* Every (stored, own, wanted) triple of the access scale, plus a call
 * without a run: an agent may lower a level or set it up to its own run's
 * access, never above; a refusal changes nothing.  The user may set any. */
static void test_access_from_agents(void **state)
{
	static const char *const levels[] = { "read-only", "full-auto", "full-access", "unrestricted" };
	static const char *const owns[] = { "read-only", "full-auto", "full-access", "unrestricted", "" };
	struct fixture *f = *state;
	char id[32], text[256];
	json_t *args, *row;

	create(f, "target", "codex", "/proj/access", id);
	for (int cur = 0; cur < 4; cur++)
		for (int own = 0; own < 5; own++)
			for (int want = 0; want < 4; want++) {
				int ceiling = own == 4 ? 0 : own;
				int allowed = want <= cur || want <= ceiling;

				snprintf(text, sizeof text, "{\"action\":\"setAccessLevel\",\"targetSessionId\":\"%s\","
					 "\"accessLevel\":\"%s\"}", id, levels[cur]);
				json_decref(ok(f, manage_tool, text));
				snprintf(text, sizeof text, "{\"action\":\"setAccessLevel\",\"targetSessionId\":\"%s\","
					 "\"accessLevel\":\"%s\"}", id, levels[want]);
				args = parse(text);
				f->err[0] = '\0';
				row = manage_as_agent(f, args, owns[own]);
				json_decref(args);
				if (allowed != (row != NULL))
					fail_msg("stored %s, own \"%s\", wanted %s: %s (%s)", levels[cur], owns[own],
						 levels[want], row ? "allowed" : "refused", f->err);
				if (row) {
					assert_string_equal(str(row, "accessLevel"), levels[want]);
					json_decref(row);
					continue;
				}
				if (!strstr(f->err, "setAccessLevel cannot raise ") || !strstr(f->err, id) ||
				    !strstr(f->err, "ask the user to change it in HB Code."))
					fail_msg("refusal \"%s\" is not the sentence for the agent", f->err);
				assert_non_null(strstr(f->err, own == 4 ? "(none: this call has no open run)" : owns[own]));
				assert_string_equal(stored_access(f, id), levels[cur]); /* nothing changed */
			}

	/* A new session is a raise too: not above the agent's own access. */
	args = parse("{\"action\":\"create\",\"title\":\"t\",\"agent\":\"codex\",\"projectPath\":\"/p\","
		     "\"accessLevel\":\"unrestricted\"}");
	assert_null(manage_as_agent(f, args, "full-auto"));
	assert_non_null(strstr(f->err, "create cannot give a session more access (unrestricted) than your own "
				       "(full-auto)"));
	row = manage_as_agent(f, args, "unrestricted");
	assert_non_null(row);
	json_decref(row);
	json_decref(args);
	/* The default (full-auto) counts as well. */
	args = parse("{\"action\":\"create\",\"title\":\"t\",\"agent\":\"codex\",\"projectPath\":\"/p\"}");
	assert_null(manage_as_agent(f, args, "read-only"));
	assert_non_null(strstr(f->err, "(full-auto) than your own (read-only)"));
	row = manage_as_agent(f, args, "full-auto");
	assert_non_null(row);
	assert_string_equal(str(row, "accessLevel"), "full-auto");
	json_decref(row);
	json_decref(args);
}

/* What run.open asks: does the session exist, which agent runs it. */
static void test_session_info(void **state)
{
	struct fixture *f = *state;
	char id[32], text[128];
	json_t *info;

	create(f, "for a run", "claude", "/proj/info", id);
	snprintf(text, sizeof text, "{\"sessionId\":\"%s\"}", id);
	info = ok(f, session_info_tool, text);
	assert_string_equal(str(info, "sessionId"), id);
	assert_true(json_is_true(json_object_get(info, "exists")));
	assert_string_equal(str(info, "agent"), "claude");
	json_decref(info);
	info = ok(f, session_info_tool, "{\"sessionId\":\"s-nobody\"}");
	assert_true(json_is_false(json_object_get(info, "exists")));
	assert_true(json_is_null(json_object_get(info, "agent")));
	json_decref(info);
	fails(f, session_info_tool, "{}", "\"sessionId\" is required");
	fails(f, session_info_tool, "{\"sessionId\":\"s-1\",\"agent\":\"codex\"}", "unknown field");
}

/* A session keeps the model and effort its runs open with: create and
 * setModel set them (what setModel leaves out goes back to the agent's
 * default), the row and _session_info show them, and an effort is checked
 * against the session's agent. */
static void test_model_and_effort(void **state)
{
	struct fixture *f = *state;
	char text[512], id[64];
	json_t *row, *info;

	row = ok(f, manage_tool, "{\"action\":\"create\",\"title\":\"m\",\"agent\":\"claude\",\"projectPath\":\"/p\","
		 "\"model\":\"opus\",\"effort\":\"xhigh\"}");
	assert_string_equal(str(row, "model"), "opus");
	assert_string_equal(str(row, "effort"), "xhigh");
	snprintf(id, sizeof id, "%s", str(row, "id"));
	snprintf(text, sizeof text, "{\"sessionId\":\"%s\"}", id);
	info = ok(f, session_info_tool, text);
	assert_string_equal(str(info, "model"), "opus");
	assert_string_equal(str(info, "effort"), "xhigh");
	json_decref(info);
	snprintf(text, sizeof text, "{\"action\":\"setModel\",\"targetSessionId\":\"%s\",\"effort\":\"ultra\"}", id);
	fails(f, manage_tool, text, "\"effort\" must be one of: low, medium, high, xhigh, max");
	snprintf(text, sizeof text, "{\"action\":\"setModel\",\"targetSessionId\":\"%s\",\"model\":\"son net\"}", id);
	fails(f, manage_tool, text, "model must be a model name");
	snprintf(text, sizeof text, "{\"action\":\"setModel\",\"targetSessionId\":\"%s\",\"effort\":\"low\"}", id);
	json_decref(row);
	row = ok(f, manage_tool, text);
	assert_null(json_object_get(row, "model"));
	assert_string_equal(str(row, "effort"), "low");
	json_decref(row);
	snprintf(text, sizeof text, "{\"action\":\"setModel\",\"targetSessionId\":\"%s\"}", id);
	row = ok(f, manage_tool, text);
	assert_null(json_object_get(row, "model"));
	assert_null(json_object_get(row, "effort"));
	json_decref(row);
	fails(f, manage_tool, "{\"action\":\"rename\",\"targetSessionId\":\"s-x\",\"title\":\"t\",\"model\":\"opus\"}",
	      "model is not used by rename");

	/* Codex: an effort is a word its model offers, not Claude's list. */
	row = ok(f, manage_tool, "{\"action\":\"create\",\"title\":\"c\",\"agent\":\"codex\",\"projectPath\":\"/p\","
		 "\"model\":\"gpt-6-codex\",\"effort\":\"minimal\"}");
	assert_string_equal(str(row, "effort"), "minimal");
	json_decref(row);
	fails(f, manage_tool, "{\"action\":\"create\",\"title\":\"c\",\"agent\":\"codex\",\"projectPath\":\"/p\","
	      "\"effort\":\"High!\"}", "effort must be a reasoning effort");
}

static void test_update_bumps_updated_at(void **state)
{
	struct fixture *f = *state;
	insert_session(f, "s-old", "codex", "/p", 1000, 0);
	json_t *row = ok(f, manage_tool, "{\"action\":\"rename\",\"targetSessionId\":\"s-old\",\"title\":\"new\"}");
	assert_string_equal(str(row, "createdAt"), "1970-01-01T00:00:00.000Z");
	assert_true(strcmp(str(row, "updatedAt"), "2020") > 0);
	json_decref(row);
}

static void test_activate_and_archive_active(void **state)
{
	struct fixture *f = *state;
	char a[32], b[32], text[256];
	create(f, "a", "codex", "/proj/one", a);
	create(f, "b", "claude", "/proj/one", b);

	snprintf(text, sizeof text, "{\"action\":\"activate\",\"targetSessionId\":\"%s\"}", a);
	json_t *row = ok(f, manage_tool, text);
	assert_true(is_true(row, "active"));
	json_decref(row);

	snprintf(text, sizeof text, "{\"action\":\"activate\",\"targetSessionId\":\"%s\"}", b);
	json_decref(ok(f, manage_tool, text));
	json_t *result = list(f, "{\"action\":\"listSessions\"}");
	for (size_t i = 0; i < 2; i++) {
		const json_t *s = session_at(result, i);
		assert_int_equal(is_true(s, "active"), strcmp(str(s, "id"), b) == 0);
	}
	json_decref(result);

	snprintf(text, sizeof text, "{\"action\":\"archive\",\"targetSessionId\":\"%s\"}", b);
	row = ok(f, manage_tool, text);
	assert_false(is_true(row, "active"));
	json_decref(row);
	assert_int_equal(list_count(f, "{\"action\":\"listSessions\"}"), 1);

	snprintf(text, sizeof text, "{\"action\":\"activate\",\"targetSessionId\":\"%s\"}", b);
	fails(f, manage_tool, text, "is archived");

	sqlite3_stmt *stmt;
	assert_int_equal(sqlite3_prepare_v2(f->rw, "SELECT active_session_id FROM project_workspace", -1, &stmt, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
	assert_int_equal(sqlite3_column_type(stmt, 0), SQLITE_NULL);
	sqlite3_finalize(stmt);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_migration_sets_version_and_is_idempotent),
		T(test_newer_schema_is_refused),
		T(test_version_1_file_is_migrated),
		T(test_version_2_file_is_migrated),
		T(test_version_3_file_is_migrated),
		T(test_version_4_file_is_migrated),
		T(test_create_external_session),
		T(test_read_only_connection_cannot_write),
		T(test_read_only_open_creates_missing_file),
		T(test_create_returns_row),
		T(test_create_errors),
		T(test_title_hidden_chars),
		T(test_rename_access_archive),
		T(test_access_from_agents),
		T(test_session_info),
		T(test_model_and_effort),
		T(test_update_bumps_updated_at),
		T(test_activate_and_archive_active),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
