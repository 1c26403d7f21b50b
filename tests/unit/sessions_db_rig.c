/*
 * sessions_db_rig - the svc-sessions tests' shared fixture (see sessions_db_rig.h).
 */
#include "sessions_db_rig.h"

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

int setup(void **state)
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

void remove_file(const char *dir, const char *name)
{
	char path[192];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	unlink(path);
}

int teardown(void **state)
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

json_t *parse(const char *text)
{
	json_error_t jerr;
	json_t *v = json_loads(text, 0, &jerr);
	if (!v)
		fail_msg("bad test JSON %s: %s", text, jerr.text);
	return v;
}

/* The user's call (hbctl: no agent, no run). */
json_t *manage_tool(struct fixture *f, const json_t *args)
{
	static const struct session_caller user = { 0, "" };

	return session_manage_run(f->rw, args, &user, f->err, sizeof f->err);
}

/* An agent's call, bound to a run with this access ("" for none). */
json_t *manage_as_agent(struct fixture *f, const json_t *args, const char *own)
{
	const struct session_caller agent = { 1, own };

	return session_manage_run(f->rw, args, &agent, f->err, sizeof f->err);
}

json_t *lookup_tool(struct fixture *f, const json_t *args)
{
	return session_lookup_run(f->ro, args, "", f->err, sizeof f->err);
}

json_t *session_info_tool(struct fixture *f, const json_t *args)
{
	return session_info_run(f->ro, args, f->err, sizeof f->err);
}

json_t *resolve_thread_tool(struct fixture *f, const json_t *args)
{
	f->code = NULL;
	return thread_links_resolve(f->ro, args, &f->code, f->err, sizeof f->err);
}

json_t *link_thread_tool(struct fixture *f, const json_t *args)
{
	return thread_links_link_thread(f->rw, args, f->err, sizeof f->err);
}

json_t *link_claude_tool(struct fixture *f, const json_t *args)
{
	f->code = NULL;
	return thread_links_link_claude(f->rw, args, &f->code, f->err, sizeof f->err);
}

/* Runs the tool on JSON text and insists on success. */
json_t *ok(struct fixture *f, tool_fn tool, const char *text)
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
void fails(struct fixture *f, tool_fn tool, const char *text, const char *want)
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

const char *str(const json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));
	if (!s)
		fail_msg("no string %s", key);
	return s;
}

int is_true(const json_t *obj, const char *key)
{
	return json_is_true(json_object_get(obj, key));
}

/* Creates a session through manage_sessions; returns its id (static buffer per call site is
 * avoided: the caller passes one). */
void create(struct fixture *f, const char *title, const char *agent, const char *project, char id[32])
{
	char text[512];
	snprintf(text, sizeof text, "{\"action\":\"create\",\"title\":\"%s\",\"agent\":\"%s\",\"projectPath\":\"%s\"}",
		 title, agent, project);
	json_t *row = ok(f, manage_tool, text);
	snprintf(id, 32, "%s", str(row, "id"));
	json_decref(row);
}

void insert_session(struct fixture *f, const char *id, const char *agent, const char *project,
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

void exec_sql(struct fixture *f, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(f->rw, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
}

json_t *list(struct fixture *f, const char *text)
{
	return ok(f, lookup_tool, text);
}

size_t list_count(struct fixture *f, const char *text)
{
	json_t *result = list(f, text);
	size_t n = json_array_size(json_object_get(result, "sessions"));
	assert_int_equal(json_integer_value(json_object_get(result, "count")), (json_int_t)n);
	json_decref(result);
	return n;
}

const json_t *session_at(const json_t *result, size_t i)
{
	return json_array_get(json_object_get(result, "sessions"), i);
}
