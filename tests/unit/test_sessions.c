/*
 * test_sessions - svc-sessions on a temporary appdata.db: migrations,
 * manage_sessions, maintain_sessions and the broker's thread links.
 *
 * The tests call the pure functions the handlers wrap, so they need no
 * broker; rows that would take many calls to reach (250 sessions, parent
 * cycles) are inserted with SQL directly.
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

struct fixture {
	char dir[64];
	char path[128];
	sqlite3 *rw;
	sqlite3 *ro;
	char err[1024];
	const char *code;  /* the failure code of the last thread-link call */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	assert_non_null(f);
	snprintf(f->dir, sizeof f->dir, "/tmp/test_sessions.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof f->path, "%s/appdata.db", f->dir);
	f->rw = appdata_open_rw(f->path, f->err, sizeof f->err);
	assert_non_null(f->rw);
	f->ro = appdata_open_ro(f->path, f->err, sizeof f->err);
	assert_non_null(f->ro);
	*state = f;
	return 0;
}

static void remove_file(const char *dir, const char *name)
{
	char path[192];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	unlink(path);
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	appdata_close(f->ro);
	appdata_close(f->rw);
	remove_file(f->dir, "appdata.db");
	remove_file(f->dir, "appdata.db-wal");
	remove_file(f->dir, "appdata.db-shm");
	rmdir(f->dir);
	free(f);
	return 0;
}

static json_t *parse(const char *text)
{
	json_error_t jerr;
	json_t *v = json_loads(text, 0, &jerr);
	if (!v)
		fail_msg("bad test JSON %s: %s", text, jerr.text);
	return v;
}

typedef json_t *(*tool_fn)(struct fixture *f, const json_t *args);

/* The user's call (hbctl: no agent, no run). */
static json_t *manage_tool(struct fixture *f, const json_t *args)
{
	static const struct session_caller user = { 0, "" };

	return session_manage_run(f->rw, args, &user, f->err, sizeof f->err);
}

/* An agent's call, bound to a run with this access ("" for none). */
static json_t *manage_as_agent(struct fixture *f, const json_t *args, const char *own)
{
	const struct session_caller agent = { 1, own };

	return session_manage_run(f->rw, args, &agent, f->err, sizeof f->err);
}

static json_t *lookup_tool(struct fixture *f, const json_t *args)
{
	return session_lookup_run(f->ro, args, "", f->err, sizeof f->err);
}

static json_t *session_info_tool(struct fixture *f, const json_t *args)
{
	return session_info_run(f->ro, args, f->err, sizeof f->err);
}

static json_t *resolve_thread_tool(struct fixture *f, const json_t *args)
{
	f->code = NULL;
	return thread_links_resolve(f->ro, args, &f->code, f->err, sizeof f->err);
}

static json_t *link_thread_tool(struct fixture *f, const json_t *args)
{
	return thread_links_link_thread(f->rw, args, f->err, sizeof f->err);
}

static json_t *link_claude_tool(struct fixture *f, const json_t *args)
{
	f->code = NULL;
	return thread_links_link_claude(f->rw, args, &f->code, f->err, sizeof f->err);
}

/* Runs the tool on JSON text and insists on success. */
static json_t *ok(struct fixture *f, tool_fn tool, const char *text)
{
	json_t *args = parse(text);
	f->err[0] = '\0';
	json_t *result = tool(f, args);
	json_decref(args);
	if (!result)
		fail_msg("%s failed: %s", text, f->err);
	return result;
}

/* Runs the tool on JSON text and insists on an error containing want. */
static void fails(struct fixture *f, tool_fn tool, const char *text, const char *want)
{
	json_t *args = parse(text);
	f->err[0] = '\0';
	json_t *result = tool(f, args);
	json_decref(args);
	if (result) {
		char *dump = json_dumps(result, 0);
		json_decref(result);
		fail_msg("%s succeeded with %s; wanted an error with \"%s\"", text, dump, want);
	}
	if (!strstr(f->err, want))
		fail_msg("%s: error \"%s\" lacks \"%s\"", text, f->err, want);
}

static const char *str(const json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));
	if (!s)
		fail_msg("no string %s", key);
	return s;
}

static int is_true(const json_t *obj, const char *key)
{
	return json_is_true(json_object_get(obj, key));
}

/* Creates a session through manage_sessions; returns its id (static buffer per call site is
 * avoided: the caller passes one). */
static void create(struct fixture *f, const char *title, const char *agent, const char *project, char id[32])
{
	char text[512];
	snprintf(text, sizeof text, "{\"action\":\"create\",\"title\":\"%s\",\"agent\":\"%s\",\"projectPath\":\"%s\"}",
		 title, agent, project);
	json_t *row = ok(f, manage_tool, text);
	snprintf(id, 32, "%s", str(row, "id"));
	json_decref(row);
}

static void insert_session(struct fixture *f, const char *id, const char *agent, const char *project,
			   long long updated_at, int archived)
{
	char hash[PROJECT_HASH_LEN + 1];
	project_path_hash(project, hash);
	sqlite3_stmt *stmt;
	assert_int_equal(sqlite3_prepare_v2(f->rw, "INSERT INTO sessions (id, title, agent, project_dir,"
					    " project_hash, access_level, created_at, updated_at, archived)"
					    " VALUES (?1, ?1, ?2, ?3, ?4, 'full-auto', 0, ?5, ?6)", -1, &stmt, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(stmt, 2, agent, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(stmt, 3, project, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(stmt, 4, hash, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(stmt, 5, updated_at);
	sqlite3_bind_int(stmt, 6, archived);
	assert_int_equal(sqlite3_step(stmt), SQLITE_DONE);
	sqlite3_finalize(stmt);
}

static void exec_sql(struct fixture *f, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(f->rw, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
}

static json_t *list(struct fixture *f, const char *text)
{
	return ok(f, lookup_tool, text);
}

static size_t list_count(struct fixture *f, const char *text)
{
	json_t *result = list(f, text);
	size_t n = json_array_size(json_object_get(result, "sessions"));
	assert_int_equal(json_integer_value(json_object_get(result, "count")), (json_int_t)n);
	json_decref(result);
	return n;
}

static const json_t *session_at(const json_t *result, size_t i)
{
	return json_array_get(json_object_get(result, "sessions"), i);
}

/* ---- migrations and connections ---- */

static void test_migration_sets_version_and_is_idempotent(void **state)
{
	struct fixture *f = *state;
	int version = 0;
	assert_int_equal(appdata_schema_version(f->rw, &version, f->err, sizeof f->err), 0);
	assert_int_equal(version, 3);
	assert_int_equal(appdata_schema_latest(), 3);
	assert_int_equal(appdata_schema_migrate(f->rw, f->err, sizeof f->err), 0);

	sqlite3 *again = appdata_open_rw(f->path, f->err, sizeof f->err);
	assert_non_null(again);
	assert_int_equal(appdata_schema_version(again, &version, f->err, sizeof f->err), 0);
	assert_int_equal(version, 3);
	appdata_close(again);
	exec_sql(f, "SELECT id, title, agent, project_dir, project_hash, access_level, created_at,"
		    " updated_at, archived FROM sessions;"
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

/* A file of version 1 (before session messages) gets the two new tables
 * and the later steps, and keeps its rows. */
static void test_version_1_file_is_migrated(void **state)
{
	struct fixture *f = *state;
	int version = 0;

	exec_sql(f, "INSERT INTO sessions (id, title, agent, project_dir, project_hash, access_level, created_at,"
		    " updated_at) VALUES ('s-old', 'Old', 'codex', '/p', 'h', 'full-auto', 1, 1);"
		    "DROP TABLE session_message_outbox; DROP TABLE chat_session_messages;"
		    "DROP INDEX claude_sessions_by_claude_id; PRAGMA user_version = 1");
	sqlite3 *db = appdata_open_rw(f->path, f->err, sizeof f->err);
	assert_non_null(db);
	assert_int_equal(appdata_schema_version(db, &version, f->err, sizeof f->err), 0);
	assert_int_equal(version, 3);
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
	int version = 0;

	insert_session(f, "s-a", "claude", "/p", 1, 0);
	insert_session(f, "s-b", "claude", "/p", 1, 0);
	insert_session(f, "s-c", "claude", "/p", 1, 0);
	insert_session(f, "s-d", "claude", "/p", 1, 0);
	exec_sql(f, "DROP INDEX claude_sessions_by_claude_id; PRAGMA user_version = 2;"
		    "INSERT INTO claude_sessions VALUES ('s-b', 'conv-1', 9);"
		    "INSERT INTO claude_sessions VALUES ('s-a', 'conv-1', 5);"
		    "INSERT INTO claude_sessions VALUES ('s-c', 'conv-2', 7);"
		    "INSERT INTO claude_sessions VALUES ('s-d', 'conv-2', 7);");
	sqlite3 *db = appdata_open_rw(f->path, f->err, sizeof f->err);
	assert_non_null(db);
	assert_int_equal(appdata_schema_version(db, &version, f->err, sizeof f->err), 0);
	assert_int_equal(version, 3);
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

/* ---- manage_sessions ---- */

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
	      "\"agent\" must be one of: codex, claude");
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

/* ---- maintain_sessions ---- */

static void test_list_order_and_limits(void **state)
{
	struct fixture *f = *state;
	exec_sql(f, "BEGIN");
	for (int i = 0; i < 250; i++) {
		char id[32];
		snprintf(id, sizeof id, "s-%03d", i);
		insert_session(f, id, "codex", "/bulk", 1000 + i, 0);
	}
	insert_session(f, "s-tie-b", "codex", "/bulk", 5000, 0);
	insert_session(f, "s-tie-a", "codex", "/bulk", 5000, 0);
	exec_sql(f, "COMMIT");

	json_t *result = list(f, "{\"action\":\"listSessions\"}");
	assert_int_equal(json_integer_value(json_object_get(result, "limit")), 25);
	assert_int_equal(json_integer_value(json_object_get(result, "count")), 25);
	assert_string_equal(str(session_at(result, 0), "id"), "s-tie-a");
	assert_string_equal(str(session_at(result, 1), "id"), "s-tie-b");
	assert_string_equal(str(session_at(result, 2), "id"), "s-249");
	assert_string_equal(str(session_at(result, 3), "id"), "s-248");
	json_decref(result);

	assert_int_equal(list_count(f, "{\"action\":\"listSessions\",\"limit\":200}"), 200);
	assert_int_equal(list_count(f, "{\"action\":\"listSessions\",\"limit\":1}"), 1);
	fails(f, lookup_tool, "{\"action\":\"listSessions\",\"limit\":0}", "from 1 to 200");
	fails(f, lookup_tool, "{\"action\":\"listSessions\",\"limit\":201}", "from 1 to 200");
	fails(f, lookup_tool, "{\"action\":\"listSessions\",\"limit\":\"10\"}", "must be an integer");
}

static void test_list_filters(void **state)
{
	struct fixture *f = *state;
	insert_session(f, "s-mine", "codex", "/work/mine", 3, 0);
	insert_session(f, "s-mine-claude", "claude", "/work/mine", 2, 0);
	insert_session(f, "s-mine-old", "codex", "/work/mine", 1, 1);
	insert_session(f, "s-other", "codex", "/work/other", 4, 0);

	char hash[PROJECT_HASH_LEN + 1], text[256];
	project_path_hash("/work/mine", hash);
	snprintf(text, sizeof text, "{\"action\":\"listSessions\",\"projectDirectoryHash\":\"%s\"}", hash);
	json_t *result = list(f, text);
	assert_int_equal(json_array_size(json_object_get(result, "sessions")), 2);
	assert_string_equal(str(session_at(result, 0), "id"), "s-mine");
	assert_string_equal(str(session_at(result, 1), "id"), "s-mine-claude");
	assert_string_equal(str(session_at(result, 1), "agent"), "claude");
	json_decref(result);

	snprintf(text, sizeof text, "{\"action\":\"listSessions\",\"projectDirectoryHash\":\"%s\","
		 "\"includeArchived\":true}", hash);
	assert_int_equal(list_count(f, text), 3);
	assert_int_equal(list_count(f, "{\"action\":\"listSessions\",\"agent\":\"claude\"}"), 1);
	assert_int_equal(list_count(f, "{\"action\":\"listSessions\",\"agent\":\"codex\"}"), 2);
	assert_int_equal(list_count(f, "{\"action\":\"listSessions\",\"includeArchived\":true}"), 4);

	hash[0] = 'A';
	snprintf(text, sizeof text, "{\"action\":\"listSessions\",\"projectDirectoryHash\":\"%s\"}", hash);
	fails(f, lookup_tool, text, "64 lowercase hex");
	fails(f, lookup_tool, "{\"action\":\"listSessions\",\"projectDirectoryHash\":\"abc\"}", "64 lowercase hex");
	fails(f, lookup_tool, "{\"action\":\"listSessions\",\"includeArchived\":\"yes\"}", "true or false");
	fails(f, lookup_tool, "{\"action\":\"listSessions\",\"agent\":\"gpt\"}", "must be one of");
}

static void test_list_shows_links(void **state)
{
	struct fixture *f = *state;
	insert_session(f, "s-codex", "codex", "/p", 2, 0);
	insert_session(f, "s-claude", "claude", "/p", 1, 0);
	exec_sql(f, "INSERT INTO codex_session_links VALUES ('thr-old', 's-codex', NULL, 10);"
		    "INSERT INTO codex_session_links VALUES ('thr-new', 's-codex', NULL, 20);"
		    "INSERT INTO codex_session_links VALUES ('thr-sub', NULL, 'thr-new', 30);"
		    "INSERT INTO claude_sessions VALUES ('s-claude', 'cl-123', 5);");
	json_t *result = list(f, "{\"action\":\"listSessions\"}");
	assert_string_equal(str(session_at(result, 0), "codexThreadId"), "thr-new");
	assert_null(json_object_get(session_at(result, 0), "claudeSessionId"));
	assert_string_equal(str(session_at(result, 1), "claudeSessionId"), "cl-123");
	assert_null(json_object_get(session_at(result, 1), "codexThreadId"));
	json_decref(result);

	result = ok(f, lookup_tool, "{\"action\":\"resolveSession\",\"targetSessionId\":\"s-codex\"}");
	assert_string_equal(str(result, "sessionId"), "s-codex");
	assert_string_equal(str(result, "title"), "s-codex"); /* the fixture's titles are the ids */
	assert_string_equal(str(result, "agent"), "codex");
	assert_string_equal(str(result, "codexThreadId"), "thr-new");
	assert_true(json_is_null(json_object_get(result, "claudeSessionId")));
	json_decref(result);

	result = ok(f, lookup_tool, "{\"action\":\"resolveSession\",\"targetSessionId\":\"s-claude\"}");
	assert_string_equal(str(result, "claudeSessionId"), "cl-123");
	assert_true(json_is_null(json_object_get(result, "codexThreadId")));
	json_decref(result);
}

static void test_resolve_session_errors_and_injection(void **state)
{
	struct fixture *f = *state;
	insert_session(f, "s-1", "codex", "/p", 1, 0);
	fails(f, lookup_tool, "{\"action\":\"resolveSession\",\"targetSessionId\":\"s-2\"}",
	      "No session with id s-2. Find ids with maintain_sessions listSessions.");
	fails(f, lookup_tool, "{\"action\":\"resolveSession\",\"targetSessionId\":\"x' OR '1'='1\"}",
	      "No session with id x' OR '1'='1.");
	fails(f, lookup_tool, "{\"action\":\"resolveSession\",\"targetSessionId\":\"s-1'; DROP TABLE sessions; --\"}",
	      "No session with id");
	fails(f, manage_tool, "{\"action\":\"archive\",\"targetSessionId\":\"' OR 1=1 --\"}", "No session with id");
	fails(f, lookup_tool, "{\"action\":\"resolveSession\"}", "\"targetSessionId\" is required");
	assert_int_equal(list_count(f, "{\"action\":\"listSessions\",\"includeArchived\":true}"), 1);
	json_t *result = list(f, "{\"action\":\"listSessions\"}");
	assert_false(is_true(session_at(result, 0), "archived"));
	json_decref(result);
}

static void test_unknown_fields_and_types(void **state)
{
	struct fixture *f = *state;
	fails(f, lookup_tool, "{\"action\":\"listSessions\",\"sql\":\"SELECT 1\"}", "unknown field \"sql\"");
	fails(f, lookup_tool, "{\"action\":\"guide\",\"limit\":5}", "limit is not used by guide");
	fails(f, lookup_tool, "{\"action\":\"resolveSession\",\"targetSessionId\":\"s\",\"agent\":\"codex\"}",
	      "agent is not used by resolveSession");
	fails(f, lookup_tool, "{\"action\":5}", "\"action\" must be a string");
	fails(f, lookup_tool, "{}", "\"action\" is required");
	fails(f, lookup_tool, "{\"action\":\"dropTable\"}", "\"action\" must be one of");
	fails(f, manage_tool, "{\"action\":\"archive\",\"targetSessionId\":42}", "\"targetSessionId\" must be a string");
	fails(f, manage_tool, "{\"action\":\"archive\",\"targetSessionId\":\"s\",\"colour\":1}", "unknown field \"colour\"");
	fails(f, resolve_thread_tool, "{\"threadId\":\"t\",\"sessionId\":\"s\"}", "unknown field \"sessionId\"");
	fails(f, link_claude_tool, "{\"sessionId\":\"s\",\"claudeSessionId\":true}", "must be a string");

	json_t *not_object = json_array();
	assert_null(session_lookup_run(f->ro, not_object, "", f->err, sizeof f->err));
	json_decref(not_object);
}

static void test_guide(void **state)
{
	struct fixture *f = *state;
	json_t *guide = ok(f, lookup_tool, "{\"action\":\"guide\"}");
	assert_true(json_is_string(guide));
	assert_non_null(strstr(json_string_value(guide), "SHA-256"));
	assert_non_null(strstr(json_string_value(guide), "1 to 200 rows, default 25"));
	assert_null(strstr(json_string_value(guide), "Your project"));
	json_decref(guide);

	json_t *args = parse("{\"action\":\"guide\"}");
	guide = session_lookup_run(f->ro, args, "/some//project/", f->err, sizeof f->err);
	json_decref(args);
	assert_non_null(guide);
	char hash[PROJECT_HASH_LEN + 1];
	project_path_hash("/some/project", hash);
	assert_non_null(strstr(json_string_value(guide), hash));
	json_decref(guide);
}

/* ---- thread links ---- */

static void test_resolve_thread(void **state)
{
	struct fixture *f = *state;
	insert_session(f, "s-1", "codex", "/p", 1, 0);
	json_decref(ok(f, link_thread_tool, "{\"threadId\":\"root\",\"sessionId\":\"s-1\"}"));
	json_decref(ok(f, link_thread_tool, "{\"threadId\":\"child\",\"parentThreadId\":\"root\"}"));
	json_decref(ok(f, link_thread_tool, "{\"threadId\":\"grandchild\",\"parentThreadId\":\"child\"}"));

	json_t *result = ok(f, resolve_thread_tool, "{\"threadId\":\"root\"}");
	assert_string_equal(str(result, "sessionId"), "s-1");
	assert_string_equal(str(result, "threadId"), "root");
	assert_true(json_is_null(json_object_get(result, "viaParent")));
	json_decref(result);

	result = ok(f, resolve_thread_tool, "{\"threadId\":\"grandchild\"}");
	assert_string_equal(str(result, "sessionId"), "s-1");
	assert_string_equal(str(result, "threadId"), "grandchild");
	assert_string_equal(str(result, "viaParent"), "root");
	json_decref(result);

	fails(f, resolve_thread_tool, "{\"threadId\":\"nobody\"}", THREAD_NOT_LINKED_MESSAGE);
	assert_string_equal(f->err, THREAD_NOT_LINKED_MESSAGE);
	assert_non_null(f->code);
	assert_string_equal(f->code, HB_FAIL_NOT_LINKED);
	json_decref(ok(f, link_thread_tool, "{\"threadId\":\"orphan\",\"parentThreadId\":\"unlinked\"}"));
	fails(f, resolve_thread_tool, "{\"threadId\":\"orphan\"}", THREAD_NOT_LINKED_MESSAGE);
	fails(f, resolve_thread_tool, "{}", "\"threadId\" is required");
	assert_null(f->code);
}

static void test_resolve_thread_cycle_and_depth(void **state)
{
	struct fixture *f = *state;
	exec_sql(f, "INSERT INTO codex_session_links VALUES ('a', NULL, 'b', 1);"
		    "INSERT INTO codex_session_links VALUES ('b', NULL, 'c', 1);"
		    "INSERT INTO codex_session_links VALUES ('c', NULL, 'a', 1);");
	fails(f, resolve_thread_tool, "{\"threadId\":\"a\"}", "cycle");

	insert_session(f, "s-deep", "codex", "/p", 1, 0);
	exec_sql(f, "INSERT INTO codex_session_links VALUES ('d0', 's-deep', NULL, 1)");
	for (int i = 1; i <= THREAD_PARENT_DEPTH_MAX + 1; i++) {
		char sql[160];
		snprintf(sql, sizeof sql, "INSERT INTO codex_session_links VALUES ('d%d', NULL, 'd%d', 1)", i, i - 1);
		exec_sql(f, sql);
	}
	json_t *result = ok(f, resolve_thread_tool, "{\"threadId\":\"d16\"}");
	assert_string_equal(str(result, "viaParent"), "d0");
	json_decref(result);
	fails(f, resolve_thread_tool, "{\"threadId\":\"d17\"}", "more than 16 parent links");
}

static void test_link_thread_rules(void **state)
{
	struct fixture *f = *state;
	insert_session(f, "s-1", "codex", "/p", 1, 0);
	insert_session(f, "s-2", "codex", "/p", 1, 0);
	insert_session(f, "s-cl", "claude", "/p", 1, 0);

	json_t *result = ok(f, link_thread_tool, "{\"threadId\":\"t1\",\"sessionId\":\"s-1\"}");
	assert_true(is_true(result, "created"));
	assert_true(json_is_null(json_object_get(result, "parentThreadId")));
	json_decref(result);
	result = ok(f, link_thread_tool, "{\"threadId\":\"t1\",\"sessionId\":\"s-1\"}");
	assert_false(is_true(result, "created"));
	json_decref(result);

	fails(f, link_thread_tool, "{\"threadId\":\"t1\",\"sessionId\":\"s-2\"}", "already linked to session s-1");
	fails(f, link_thread_tool, "{\"threadId\":\"t1\",\"parentThreadId\":\"t0\"}", "already linked");
	fails(f, link_thread_tool, "{\"threadId\":\"t2\"}", "exactly one of sessionId and parentThreadId");
	fails(f, link_thread_tool, "{\"threadId\":\"t2\",\"sessionId\":\"s-1\",\"parentThreadId\":\"t1\"}",
	      "exactly one");
	fails(f, link_thread_tool, "{\"threadId\":\"t2\",\"sessionId\":\"s-9\"}", "No session with id s-9");
	fails(f, link_thread_tool, "{\"threadId\":\"t2\",\"sessionId\":\"s-cl\"}", "runs claude, not codex");
	fails(f, link_thread_tool, "{\"threadId\":\"t2\",\"parentThreadId\":\"t2\"}", "its own parent");
	fails(f, link_thread_tool, "{\"threadId\":\"\",\"sessionId\":\"s-1\"}", "must not be empty");

	char text[512], long_id[202];
	memset(long_id, 't', 201);
	long_id[201] = '\0';
	snprintf(text, sizeof text, "{\"threadId\":\"%s\",\"sessionId\":\"s-1\"}", long_id);
	fails(f, link_thread_tool, text, "too long");
}

static void test_link_claude(void **state)
{
	struct fixture *f = *state;
	insert_session(f, "s-cl", "claude", "/p", 1, 0);
	insert_session(f, "s-cx", "codex", "/p", 1, 0);
	json_decref(ok(f, link_claude_tool, "{\"sessionId\":\"s-cl\",\"claudeSessionId\":\"one\"}"));
	json_t *result = ok(f, link_claude_tool, "{\"sessionId\":\"s-cl\",\"claudeSessionId\":\"two\"}");
	assert_string_equal(str(result, "claudeSessionId"), "two");
	json_decref(result);
	result = ok(f, lookup_tool, "{\"action\":\"resolveSession\",\"targetSessionId\":\"s-cl\"}");
	assert_string_equal(str(result, "claudeSessionId"), "two");
	json_decref(result);
	fails(f, link_claude_tool, "{\"sessionId\":\"s-cx\",\"claudeSessionId\":\"x\"}", "runs codex, not claude");
	fails(f, link_claude_tool, "{\"sessionId\":\"s-none\",\"claudeSessionId\":\"x\"}", "No session with id s-none");
	fails(f, link_claude_tool, "{\"sessionId\":\"s-cl\"}", "\"claudeSessionId\" is required");
	assert_null(f->code);
}

/* One Claude conversation belongs to at most one HB Code session: a second
 * session's claim is refused with a sentence and changes nothing; once
 * its owner moves on to another conversation, the old one is free. */
static void test_link_claude_one_session_per_conversation(void **state)
{
	struct fixture *f = *state;
	insert_session(f, "s-one", "claude", "/p", 1, 0);
	insert_session(f, "s-two", "claude", "/p", 1, 0);
	json_decref(ok(f, link_claude_tool, "{\"sessionId\":\"s-one\",\"claudeSessionId\":\"conv-1\"}"));
	/* The owner again: the same link. */
	json_decref(ok(f, link_claude_tool, "{\"sessionId\":\"s-one\",\"claudeSessionId\":\"conv-1\"}"));
	fails(f, link_claude_tool, "{\"sessionId\":\"s-two\",\"claudeSessionId\":\"conv-1\"}",
	      "Claude session conv-1 already belongs to HB Code session s-one");
	assert_non_null(f->code);
	assert_string_equal(f->code, HB_FAIL_LINK_TAKEN);
	json_t *result = ok(f, lookup_tool, "{\"action\":\"resolveSession\",\"targetSessionId\":\"s-two\"}");
	assert_true(json_is_null(json_object_get(result, "claudeSessionId")));
	json_decref(result);
	result = ok(f, lookup_tool, "{\"action\":\"resolveSession\",\"targetSessionId\":\"s-one\"}");
	assert_string_equal(str(result, "claudeSessionId"), "conv-1");
	json_decref(result);
	/* The schema holds it too, whoever writes. */
	assert_int_not_equal(sqlite3_exec(f->rw, "INSERT INTO claude_sessions VALUES ('s-two', 'conv-1', 3)", NULL,
					  NULL, NULL),
			     SQLITE_OK);
	json_decref(ok(f, link_claude_tool, "{\"sessionId\":\"s-one\",\"claudeSessionId\":\"conv-2\"}"));
	json_decref(ok(f, link_claude_tool, "{\"sessionId\":\"s-two\",\"claudeSessionId\":\"conv-1\"}"));
	fails(f, link_claude_tool, "{\"sessionId\":\"s-two\",\"claudeSessionId\":\"conv-2\"}",
	      "already belongs to HB Code session s-one");
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_migration_sets_version_and_is_idempotent),
		T(test_newer_schema_is_refused),
		T(test_version_1_file_is_migrated),
		T(test_version_2_file_is_migrated),
		T(test_read_only_connection_cannot_write),
		T(test_read_only_open_creates_missing_file),
		T(test_create_returns_row),
		T(test_create_errors),
		T(test_title_hidden_chars),
		T(test_rename_access_archive),
		T(test_access_from_agents),
		T(test_session_info),
		T(test_update_bumps_updated_at),
		T(test_activate_and_archive_active),
		T(test_list_order_and_limits),
		T(test_list_filters),
		T(test_list_shows_links),
		T(test_resolve_session_errors_and_injection),
		T(test_unknown_fields_and_types),
		T(test_guide),
		T(test_resolve_thread),
		T(test_resolve_thread_cycle_and_depth),
		T(test_link_thread_rules),
		T(test_link_claude),
		T(test_link_claude_one_session_per_conversation),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
