/*
 * session_manage - create, rename, archive, unarchive, activate,
 * setAccessLevel and setModel (the model and effort the session's runs
 * open with; what it leaves out goes back to the agent's default).
 *
 * Each change runs in one BEGIN IMMEDIATE transaction that checks the
 * session, writes, and reads the row back, so the row returned is exactly the
 * state committed, even with the app writing at the same time.  The level
 * an agent may not exceed is checked against the stored one inside that
 * transaction, so a change made meanwhile by the app cannot slip past it.
 */
#include "session_manage.h"

#include "appdata.h"
#include "json.h"
#include "project_path.h"
#include "session_args.h"
#include "session_id.h"
#include "access.h"
#include "session_row.h"

#include <stdio.h>
#include <string.h>

/* What a change to an existing session needs, read from its arguments. */
struct change {
	const struct session_caller *caller;
	const char *id;
	char title[SESSION_TITLE_BUF];
	const char *access_level;
	const char *model, *effort;     /* setModel: NULL is the agent's default */
};

/* The stored state a change is checked against. */
struct target {
	int archived;
	char project_dir[PROJECT_PATH_MAX + 1];
	char project_hash[PROJECT_HASH_LEN + 1];
	char access_level[32];          /* "" when the stored value does not fit */
	char agent[16];
};

typedef int (*apply_fn)(sqlite3 *db, const struct change *c, const struct target *t, long long now,
			char *err, size_t errlen);

/* Runs one fixed statement; binds ?1 id, ?2 now, ?3 a, ?4 b as far as the
 * statement has parameters. */
static int run_statement(sqlite3 *db, const char *sql, const char *id, long long now,
			 const char *a, const char *b, char *err, size_t errlen)
{
	sqlite3_stmt *stmt = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK)
		return appdata_error(db, "updating a session", err, errlen);
	int count = sqlite3_bind_parameter_count(stmt);
	int rc = sqlite3_bind_text(stmt, 1, id, -1, SQLITE_TRANSIENT);
	if (rc == SQLITE_OK && count >= 2)
		rc = sqlite3_bind_int64(stmt, 2, now);
	if (rc == SQLITE_OK && count >= 3)
		rc = sqlite3_bind_text(stmt, 3, a, -1, SQLITE_TRANSIENT);
	if (rc == SQLITE_OK && count >= 4)
		rc = sqlite3_bind_text(stmt, 4, b, -1, SQLITE_TRANSIENT);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	int result = rc == SQLITE_DONE ? 0 : appdata_error(db, "updating a session", err, errlen);
	sqlite3_finalize(stmt);
	return result;
}

static int copy_column(sqlite3_stmt *stmt, int col, char *out, size_t outlen)
{
	const char *text = (const char *)sqlite3_column_text(stmt, col);
	if (!text || strlen(text) >= outlen)
		return -1;
	memcpy(out, text, strlen(text) + 1);
	return 0;
}

/* 0 with *t filled, or -1 with err (unknown id or db error). */
static int load_target(sqlite3 *db, const char *id, struct target *t, char *err, size_t errlen)
{
	sqlite3_stmt *stmt = NULL;
	if (sqlite3_prepare_v2(db, "SELECT archived, project_dir, project_hash, access_level, agent FROM sessions"
			       " WHERE id = ?1", -1, &stmt, NULL) != SQLITE_OK)
		return appdata_error(db, "reading a session", err, errlen);
	int result = -1;
	int rc = sqlite3_bind_text(stmt, 1, id, -1, SQLITE_TRANSIENT);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	if (rc == SQLITE_DONE) {
		session_args_no_such_session(id, err, errlen);
	} else if (rc != SQLITE_ROW) {
		appdata_error(db, "reading a session", err, errlen);
	} else if (copy_column(stmt, 1, t->project_dir, sizeof t->project_dir) != 0 ||
		   copy_column(stmt, 2, t->project_hash, sizeof t->project_hash) != 0 ||
		   copy_column(stmt, 4, t->agent, sizeof t->agent) != 0) {
		snprintf(err, errlen, "session %s has a malformed project directory", id);
	} else {
		t->archived = sqlite3_column_int(stmt, 0);
		/* An unknown stored level only makes the agent rule stricter. */
		if (copy_column(stmt, 3, t->access_level, sizeof t->access_level) != 0)
			t->access_level[0] = '\0';
		result = 0;
	}
	sqlite3_finalize(stmt);
	return result;
}

static int apply_rename(sqlite3 *db, const struct change *c, const struct target *t, long long now,
			char *err, size_t errlen)
{
	(void)t;
	return run_statement(db, "UPDATE sessions SET title = ?3, updated_at = ?2 WHERE id = ?1",
			     c->id, now, c->title, NULL, err, errlen);
}

static int apply_archive(sqlite3 *db, const struct change *c, const struct target *t, long long now,
			 char *err, size_t errlen)
{
	(void)t;
	if (run_statement(db, "UPDATE sessions SET archived = 1, updated_at = ?2 WHERE id = ?1",
			  c->id, now, NULL, NULL, err, errlen) != 0)
		return -1;
	/* An archived session is hidden from the app; it must not stay the
	 * project's active one. */
	return run_statement(db, "UPDATE project_workspace SET active_session_id = NULL, updated_at = ?2"
			     " WHERE active_session_id = ?1", c->id, now, NULL, NULL, err, errlen);
}

static int apply_unarchive(sqlite3 *db, const struct change *c, const struct target *t, long long now,
			   char *err, size_t errlen)
{
	(void)t;
	return run_statement(db, "UPDATE sessions SET archived = 0, updated_at = ?2 WHERE id = ?1",
			     c->id, now, NULL, NULL, err, errlen);
}

static int apply_activate(sqlite3 *db, const struct change *c, const struct target *t, long long now,
			  char *err, size_t errlen)
{
	if (t->archived) {
		snprintf(err, errlen, "Session %s is archived; unarchive it before activating it.", c->id);
		return -1;
	}
	if (run_statement(db, "INSERT INTO project_workspace (project_dir, project_hash, active_session_id,"
			  " updated_at) VALUES (?3, ?4, ?1, ?2) ON CONFLICT (project_dir) DO UPDATE SET"
			  " project_hash = excluded.project_hash, active_session_id = excluded.active_session_id,"
			  " updated_at = excluded.updated_at",
			  c->id, now, t->project_dir, t->project_hash, err, errlen) != 0)
		return -1;
	return run_statement(db, "UPDATE sessions SET updated_at = ?2 WHERE id = ?1",
			     c->id, now, NULL, NULL, err, errlen);
}

/* The highest level an agent may give a session: its own run's access.  A
 * call without a run (a Codex thread whose session has no open run) counts
 * as read-only: access is never guessed upward. */
static int agent_ceiling(const struct session_caller *caller)
{
	int own = hb_access_rank(caller->access);

	return own < 0 ? 0 : own;
}

/* The caller's access as the refusals name it. */
static const char *own_access(const struct session_caller *caller)
{
	return hb_access_rank(caller->access) < 0 ? "none: this call has no open run" : caller->access;
}

static int apply_access_level(sqlite3 *db, const struct change *c, const struct target *t, long long now,
			      char *err, size_t errlen)
{
	int wanted = hb_access_rank(c->access_level);

	/* Lowering (or keeping) is always allowed; raising only up to the
	 * agent's own access.  The hold of session messages compares these
	 * levels: an agent that could raise them could have work started
	 * with more access than the user gave it. */
	if (c->caller->is_agent && wanted > hb_access_rank(t->access_level) && wanted > agent_ceiling(c->caller)) {
		snprintf(err, errlen, "setAccessLevel cannot raise %s above your own access (%s); ask the user to "
			 "change it in HB Code.", c->id, own_access(c->caller));
		return -1;
	}
	return run_statement(db, "UPDATE sessions SET access_level = ?3, updated_at = ?2 WHERE id = ?1",
			     c->id, now, c->access_level, NULL, err, errlen);
}

/* The effort is checked against the session's agent, which the
 * arguments alone do not name. */
static int apply_model(sqlite3 *db, const struct change *c, const struct target *t, long long now,
		       char *err, size_t errlen)
{
	json_t *args = json_pack("{s:s*}", "effort", c->effort);
	const char *effort;
	int bad = !args || session_args_effort(args, t->agent, &effort, err, errlen) != 0;

	json_decref(args);
	if (bad)
		return -1;
	return run_statement(db, "UPDATE sessions SET model = ?3, effort = ?4, updated_at = ?2 WHERE id = ?1",
			     c->id, now, c->model, c->effort, err, errlen);
}

/* Check, apply and read back in one transaction. */
static json_t *change_session(sqlite3 *db, const struct change *c, apply_fn apply, char *err, size_t errlen)
{
	struct target target;
	json_t *row = NULL;
	if (appdata_begin_write(db, err, errlen) != 0)
		return NULL;
	if (load_target(db, c->id, &target, err, errlen) != 0 ||
	    apply(db, c, &target, appdata_now_ms(), err, errlen) != 0 ||
	    session_row_fetch(db, c->id, &row, err, errlen) != 0)
		goto fail;
	if (!row) {
		session_args_no_such_session(c->id, err, errlen);
		goto fail;
	}
	if (appdata_commit(db, err, errlen) != 0)
		goto fail;
	return row;
fail:
	json_decref(row);
	appdata_rollback(db);
	return NULL;
}

/* texts: id, title, agent, project dir and hash, access level, model and
 * effort (NULL: the agent's default). */
static int insert_session(sqlite3 *db, const char *const texts[8], char *err, size_t errlen)
{
	sqlite3_stmt *stmt = NULL;
	if (sqlite3_prepare_v2(db, "INSERT INTO sessions (id, title, agent, project_dir, project_hash,"
			       " access_level, model, effort, created_at, updated_at, archived)"
			       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, 0)", -1, &stmt, NULL) != SQLITE_OK)
		return appdata_error(db, "creating a session", err, errlen);
	int rc = SQLITE_OK;
	for (int i = 0; i < 8 && rc == SQLITE_OK; i++)
		rc = texts[i] ? sqlite3_bind_text(stmt, i + 1, texts[i], -1, SQLITE_TRANSIENT)
			      : sqlite3_bind_null(stmt, i + 1);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(stmt, 9, appdata_now_ms());
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	int result = rc == SQLITE_DONE ? 0 : appdata_error(db, "creating a session", err, errlen);
	sqlite3_finalize(stmt);
	return result;
}

static json_t *create_session(sqlite3 *db, const json_t *args, const struct session_caller *caller,
			      char *err, size_t errlen)
{
	char title[SESSION_TITLE_BUF], dir[PROJECT_PATH_MAX + 1], hash[PROJECT_HASH_LEN + 1];
	char id[SESSION_ID_LEN + 1];
	const char *agent, *access, *path, *model, *effort;
	if (session_args_title(args, title, sizeof title, err, errlen) != 0 ||
	    session_args_choice(args, "agent", session_agents, 1, &agent, err, errlen) != 0 ||
	    session_args_model(args, &model, err, errlen) != 0 ||
	    session_args_effort(args, agent, &effort, err, errlen) != 0 ||
	    hb_json_req_string(args, "projectPath", PROJECT_PATH_MAX, &path, err, errlen) != 0 ||
	    project_path_canonical(path, dir, sizeof dir, err, errlen) != 0 ||
	    session_args_choice(args, "accessLevel", hb_access_levels, 0, &access, err, errlen) != 0)
		return NULL;
	if (!access)
		access = SESSION_DEFAULT_ACCESS_LEVEL;
	/* A new session above the agent's own access is a raise too. */
	if (caller->is_agent && hb_access_rank(access) > agent_ceiling(caller)) {
		snprintf(err, errlen, "create cannot give a session more access (%s) than your own (%s); pass a "
			 "lower accessLevel, or ask the user to create it in HB Code.", access, own_access(caller));
		return NULL;
	}
	if (session_id_generate(id, err, errlen) != 0)
		return NULL;
	project_path_hash(dir, hash);

	json_t *row = NULL;
	if (appdata_begin_write(db, err, errlen) != 0)
		return NULL;
	if (insert_session(db, (const char *const[8]){ id, title, agent, dir, hash, access, model, effort }, err,
			   errlen) != 0 ||
	    session_row_fetch(db, id, &row, err, errlen) != 0)
		goto fail;
	if (!row) {
		snprintf(err, errlen, "session %s vanished while being created", id);
		goto fail;
	}
	if (appdata_commit(db, err, errlen) != 0)
		goto fail;
	return row;
fail:
	json_decref(row);
	appdata_rollback(db);
	return NULL;
}

static const char *const known_fields[] = {
	"action", "targetSessionId", "title", "agent", "projectPath", "accessLevel", "model", "effort", NULL
};
static const char *const actions[] = {
	"create", "rename", "archive", "unarchive", "activate", "setAccessLevel", "setModel", NULL
};
static const char *const create_fields[] = { "title", "agent", "projectPath", "accessLevel", "model", "effort",
					      NULL };
static const char *const rename_fields[] = { "targetSessionId", "title", NULL };
static const char *const target_fields[] = { "targetSessionId", NULL };
static const char *const access_fields[] = { "targetSessionId", "accessLevel", NULL };
static const char *const model_fields[] = { "targetSessionId", "model", "effort", NULL };

struct change_action {
	const char *name;
	const char *const *fields;
	apply_fn apply;
	int takes_title;
	int takes_access_level;
	int takes_model;
};

static const struct change_action change_actions[] = {
	{ "rename", rename_fields, apply_rename, 1, 0, 0 },
	{ "archive", target_fields, apply_archive, 0, 0, 0 },
	{ "unarchive", target_fields, apply_unarchive, 0, 0, 0 },
	{ "activate", target_fields, apply_activate, 0, 0, 0 },
	{ "setAccessLevel", access_fields, apply_access_level, 0, 1, 0 },
	{ "setModel", model_fields, apply_model, 0, 0, 1 },
};

static json_t *run_change(sqlite3 *db, const json_t *args, const struct change_action *a,
			  const struct session_caller *caller, char *err, size_t errlen)
{
	struct change c = { .caller = caller };
	if (session_args_used_fields(args, a->name, a->fields, err, errlen) != 0 ||
	    session_args_id(args, "targetSessionId", 1, &c.id, err, errlen) != 0)
		return NULL;
	if (a->takes_title && session_args_title(args, c.title, sizeof c.title, err, errlen) != 0)
		return NULL;
	if (a->takes_access_level &&
	    session_args_choice(args, "accessLevel", hb_access_levels, 1, &c.access_level, err, errlen) != 0)
		return NULL;
	if (a->takes_model && (session_args_model(args, &c.model, err, errlen) != 0 ||
			       hb_json_opt_string(args, "effort", 32, 1, &c.effort, err, errlen) != 0))
		return NULL;
	return change_session(db, &c, a->apply, err, errlen);
}

json_t *session_manage_run(sqlite3 *db, const json_t *args, const struct session_caller *caller,
			   char *err, size_t errlen)
{
	const char *action;
	if (session_args_known_fields(args, known_fields, err, errlen) != 0 ||
	    session_args_action(args, actions, &action, err, errlen) != 0)
		return NULL;
	if (strcmp(action, "create") == 0) {
		if (session_args_used_fields(args, action, create_fields, err, errlen) != 0)
			return NULL;
		return create_session(db, args, caller, err, errlen);
	}
	for (size_t i = 0; i < sizeof change_actions / sizeof change_actions[0]; i++) {
		if (strcmp(action, change_actions[i].name) == 0)
			return run_change(db, args, &change_actions[i], caller, err, errlen);
	}
	snprintf(err, errlen, "unknown action %s", action);
	return NULL;
}
