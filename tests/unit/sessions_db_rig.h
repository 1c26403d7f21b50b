/*
 * sessions_db_rig - what the tests of svc-sessions (test_sessions.c,
 * test_sessions_links.c) share: a temporary appdata.db opened read-write
 * and read-only, the tools called on JSON text, checks of their answers,
 * and rows inserted with SQL directly.
 */
#ifndef TEST_SESSIONS_DB_RIG_H
#define TEST_SESSIONS_DB_RIG_H

#include <stddef.h>

#include <jansson.h>
#include <sqlite3.h>

struct fixture {
	char dir[64];
	char path[128];
	sqlite3 *rw;
	sqlite3 *ro;
	char err[1024];
	const char *code;  /* the failure code of the last thread-link call */
};

typedef json_t *(*tool_fn)(struct fixture *f, const json_t *args);

/* cmocka setup and teardown: a fresh database in a temporary folder. */
int setup(void **state);
int teardown(void **state);
/* Unlink dir/name (the database's files). */
void remove_file(const char *dir, const char *name);
json_t *parse(const char *text);
/* The user's call (hbctl: no agent, no run). */
json_t *manage_tool(struct fixture *f, const json_t *args);
/* An agent's call, bound to a run with this access ("" for none). */
json_t *manage_as_agent(struct fixture *f, const json_t *args, const char *own);
json_t *lookup_tool(struct fixture *f, const json_t *args);
json_t *session_info_tool(struct fixture *f, const json_t *args);
json_t *resolve_thread_tool(struct fixture *f, const json_t *args);
json_t *link_thread_tool(struct fixture *f, const json_t *args);
json_t *link_claude_tool(struct fixture *f, const json_t *args);
/* Runs the tool on JSON text and insists on success. */
json_t *ok(struct fixture *f, tool_fn tool, const char *text);
/* Runs the tool on JSON text and insists on an error containing want. */
void fails(struct fixture *f, tool_fn tool, const char *text, const char *want);
const char *str(const json_t *obj, const char *key);
int is_true(const json_t *obj, const char *key);
/* Creates a session through manage_sessions; returns its id (static buffer per call site is
 * avoided: the caller passes one). */
void create(struct fixture *f, const char *title, const char *agent, const char *project, char id[32]);
void insert_session(struct fixture *f, const char *id, const char *agent, const char *project,
		    long long updated_at, int archived);
void exec_sql(struct fixture *f, const char *sql);
json_t *list(struct fixture *f, const char *text);
size_t list_count(struct fixture *f, const char *text);
const json_t *session_at(const json_t *result, size_t i);

#endif
