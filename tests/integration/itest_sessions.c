/*
 * itest_sessions - svc-sessions as agents reach it: through the real
 * hb-broker (front socket and hbctl), with the service entry of
 * deploy/services.conf and appdata.db in a temporary HB_HOME.
 *
 * Covers manage_sessions (create in two project folders, rename, activate,
 * archive, concurrent creates), maintain_sessions (guide with the caller's
 * project hash, listSessions order / active mark / hash and agent filters,
 * resolveSession), argument errors as readable tool errors, the database
 * file itself (WAL, user_version 3, opened read-only here), that an
 * answered change survives a SIGKILL of the service, and who may raise a
 * session's access: calls through Codex's and Claude's doors and hbctl
 * --run are bound to a run and may not go above its access; hbctl without
 * a run is the user and may.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness/group.h"
#include "../harness/harness.h"
#include "client.h"
#include "envelope.h"
#include "sha256.h"

static struct fixture fx;
static char proj_a[PATH_MAX], proj_b[PATH_MAX]; /* real paths */
static char hash_a[HB_SHA256_HEX_LEN + 1], hash_b[HB_SHA256_HEX_LEN + 1];

/* Ids of the sessions test_manage creates, for the tests after it. */
static char id_a1[64], id_b1[64], id_a2[64];

/* ---- helpers --------------------------------------------------------------- */

static const char *jstr(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

/* Call tool with args (stolen); *text is the answer.  Returns ok. */
static int call_args(const char *tool, json_t *args, char **text)
{
	char *json = json_dumps(args, JSON_COMPACT);
	int ok = 0;

	json_decref(args);
	assert_non_null(json);
	if (fx_call(&fx, tool, json, &ok, text) < 0)
		fail_msg("%s %s: no answer from the broker: %s", tool, json, *text ? *text : "?");
	free(json);
	return ok;
}

/* A call that must succeed with a JSON object answer. */
static json_t *call_ok(const char *tool, json_t *args)
{
	char *dump = json_dumps(args, JSON_COMPACT), *text = NULL;
	json_t *result;

	if (!call_args(tool, args, &text))
		fail_msg("%s %s failed: %s", tool, dump, text);
	result = json_loads(text, 0, NULL);
	if (!json_is_object(result))
		fail_msg("%s %s: the answer is not a JSON object: %s", tool, dump, text);
	free(dump);
	free(text);
	return result;
}

/* A call that must fail with want in its text. */
static void call_fails(const char *tool, json_t *args, const char *want)
{
	char *dump = json_dumps(args, JSON_COMPACT), *text = NULL;

	if (call_args(tool, args, &text))
		fail_msg("%s %s succeeded: %s", tool, dump, text);
	if (!strstr(text, want))
		fail_msg("%s %s: error \"%s\" does not say \"%s\"", tool, dump, text, want);
	free(dump);
	free(text);
}

static json_t *create(const char *title, const char *agent, const char *path)
{
	return call_ok("manage_sessions", json_pack("{s:s, s:s, s:s, s:s}", "action", "create", "title", title,
						    "agent", agent, "projectPath", path));
}

static json_t *change(const char *action, const char *id)
{
	return call_ok("manage_sessions", json_pack("{s:s, s:s}", "action", action, "targetSessionId", id));
}

/* listSessions with extra fields (stolen, may be NULL); the sessions array
 * is borrowed from the returned object. */
static json_t *list(json_t *extra)
{
	json_t *args = extra ? extra : json_object();

	json_object_set_new(args, "action", json_string("listSessions"));
	return call_ok("maintain_sessions", args);
}

/* The ids of a list result, comma separated, for order checks. */
static void list_ids(const json_t *res, char *out, size_t outlen)
{
	json_t *sessions = json_object_get(res, "sessions"), *s;
	size_t i, n = 0;

	out[0] = '\0';
	assert_true(json_is_array(sessions));
	assert_int_equal(json_integer_value(json_object_get(res, "count")), json_array_size(sessions));
	json_array_foreach(sessions, i, s)
		n += (size_t)snprintf(out + n, n < outlen ? outlen - n : 0, "%s%s", i ? "," : "", jstr(s, "id"));
}

static json_t *find_row(const json_t *res, const char *id)
{
	json_t *sessions = json_object_get(res, "sessions"), *s;
	size_t i;

	json_array_foreach(sessions, i, s)
		if (strcmp(jstr(s, "id"), id) == 0)
			return s;
	return NULL;
}

static void expect_order(const json_t *res, const char *want)
{
	char got[1024];

	list_ids(res, got, sizeof got);
	if (strcmp(got, want) != 0)
		fail_msg("listSessions order \"%s\", want \"%s\"", got, want);
}

/* updated_at has millisecond resolution: keep "newer" unambiguous. */
static void tick(void)
{
	fx_sleep_ms(5);
}

/* sha256sum of the bytes of s, as a second opinion on hb_sha256_hex. */
static void sha256sum(const char *s, char out[HB_SHA256_HEX_LEN + 1])
{
	char cmd[PATH_MAX + 64];
	FILE *p;

	snprintf(cmd, sizeof cmd, "printf '%%s' '%s' | sha256sum", s);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, HB_SHA256_HEX_LEN + 1, p));
	pclose(p);
}

static void make_project(const char *name, char real[PATH_MAX], char hash[HB_SHA256_HEX_LEN + 1])
{
	char path[PATH_MAX], check[HB_SHA256_HEX_LEN + 1];

	snprintf(path, sizeof path, "%s/%s", fx.dir, name);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_non_null(realpath(path, real));
	hb_sha256_hex(real, strlen(real), hash);
	sha256sum(real, check);
	assert_string_equal(hash, check);
}

static void check_row(const json_t *row, const char *title, const char *agent, const char *dir,
		      const char *hash)
{
	assert_int_equal(strlen(jstr(row, "id")), 18);
	assert_memory_equal(jstr(row, "id"), "s-", 2);
	assert_string_equal(jstr(row, "title"), title);
	assert_string_equal(jstr(row, "agent"), agent);
	assert_string_equal(jstr(row, "projectDirectory"), dir);
	assert_string_equal(jstr(row, "projectDirectoryHash"), hash);
	assert_string_equal(jstr(row, "accessLevel"), "full-auto");
	assert_true(json_is_false(json_object_get(row, "active")));
	assert_true(json_is_false(json_object_get(row, "archived")));
	assert_int_equal(strlen(jstr(row, "createdAt")), 24);
	assert_int_equal(strlen(jstr(row, "updatedAt")), 24);
}

static int is_active(const json_t *res, const char *id)
{
	const json_t *row = find_row(res, id);

	if (!row)
		fail_msg("session %s is not in the list", id);
	return json_is_true(json_object_get(row, "active"));
}

/* ---- tests ------------------------------------------------------------------ */

static void test_manage_and_list(void **state)
{
	char spelled[PATH_MAX + 16], want[256], *text = NULL;
	json_t *row, *res;

	(void)state;
	make_project("projA", proj_a, hash_a);
	make_project("projB", proj_b, hash_b);

	row = create("  First in A  ", "codex", proj_a);
	check_row(row, "First in A", "codex", proj_a, hash_a);
	snprintf(id_a1, sizeof id_a1, "%s", jstr(row, "id"));
	json_decref(row);
	tick();
	row = create("First in B", "claude", proj_b);
	check_row(row, "First in B", "claude", proj_b, hash_b);
	snprintf(id_b1, sizeof id_b1, "%s", jstr(row, "id"));
	json_decref(row);
	tick();
	/* Another spelling of the same folder is the same project. */
	snprintf(spelled, sizeof spelled, "%s/projA/./", fx.dir);
	row = create("Second in A", "codex", spelled);
	check_row(row, "Second in A", "codex", proj_a, hash_a);
	snprintf(id_a2, sizeof id_a2, "%s", jstr(row, "id"));
	json_decref(row);
	assert_string_not_equal(id_a1, id_a2);

	/* Newest first; the hash filter; the agent filter; the limit. */
	res = list(NULL);
	snprintf(want, sizeof want, "%s,%s,%s", id_a2, id_b1, id_a1);
	expect_order(res, want);
	assert_int_equal(json_integer_value(json_object_get(res, "limit")), 25);
	json_decref(res);
	res = list(json_pack("{s:s}", "projectDirectoryHash", hash_a));
	snprintf(want, sizeof want, "%s,%s", id_a2, id_a1);
	expect_order(res, want);
	json_decref(res);
	res = list(json_pack("{s:s}", "projectDirectoryHash", hash_b));
	expect_order(res, id_b1);
	json_decref(res);
	res = list(json_pack("{s:s}", "agent", "claude"));
	expect_order(res, id_b1);
	json_decref(res);
	res = list(json_pack("{s:i}", "limit", 1));
	expect_order(res, id_a2);
	assert_int_equal(json_integer_value(json_object_get(res, "limit")), 1);
	json_decref(res);

	/* rename: trimmed, and the renamed session becomes the newest. */
	tick();
	row = call_ok("manage_sessions", json_pack("{s:s, s:s, s:s}", "action", "rename", "targetSessionId", id_a1,
						   "title", " Renamed A1 "));
	assert_string_equal(jstr(row, "title"), "Renamed A1");
	assert_string_not_equal(jstr(row, "updatedAt"), jstr(row, "createdAt"));
	json_decref(row);
	res = list(NULL);
	snprintf(want, sizeof want, "%s,%s,%s", id_a1, id_a2, id_b1);
	expect_order(res, want);
	assert_string_equal(jstr(find_row(res, id_a1), "title"), "Renamed A1");
	json_decref(res);

	/* activate: one active session per project, marked in the list. */
	tick();
	row = change("activate", id_a2);
	assert_true(json_is_true(json_object_get(row, "active")));
	json_decref(row);
	tick();
	row = change("activate", id_b1);
	assert_true(json_is_true(json_object_get(row, "active")));
	json_decref(row);
	res = list(NULL);
	assert_true(is_active(res, id_a2));
	assert_false(is_active(res, id_a1));
	assert_true(is_active(res, id_b1));
	json_decref(res);
	tick();
	json_decref(change("activate", id_a1));
	res = list(NULL);
	assert_true(is_active(res, id_a1));
	assert_false(is_active(res, id_a2));
	assert_true(is_active(res, id_b1));
	json_decref(res);

	/* archive: hidden by default, no longer active, not activatable. */
	tick();
	row = change("archive", id_a1);
	assert_true(json_is_true(json_object_get(row, "archived")));
	assert_true(json_is_false(json_object_get(row, "active")));
	json_decref(row);
	res = list(json_pack("{s:s}", "projectDirectoryHash", hash_a));
	expect_order(res, id_a2);
	assert_false(is_active(res, id_a2));
	json_decref(res);
	res = list(json_pack("{s:s, s:b}", "projectDirectoryHash", hash_a, "includeArchived", 1));
	snprintf(want, sizeof want, "%s,%s", id_a1, id_a2);
	expect_order(res, want);
	assert_true(json_is_true(json_object_get(find_row(res, id_a1), "archived")));
	json_decref(res);
	call_fails("manage_sessions", json_pack("{s:s, s:s}", "action", "activate", "targetSessionId", id_a1),
		   "archived");

	/* setAccessLevel */
	row = call_ok("manage_sessions", json_pack("{s:s, s:s, s:s}", "action", "setAccessLevel",
						   "targetSessionId", id_b1, "accessLevel", "read-only"));
	assert_string_equal(jstr(row, "accessLevel"), "read-only");
	json_decref(row);

	/* resolveSession: no agent link yet. */
	row = call_ok("maintain_sessions", json_pack("{s:s, s:s}", "action", "resolveSession",
						     "targetSessionId", id_b1));
	assert_string_equal(jstr(row, "sessionId"), id_b1);
	assert_string_equal(jstr(row, "agent"), "claude");
	assert_true(json_is_null(json_object_get(row, "codexThreadId")));
	assert_true(json_is_null(json_object_get(row, "claudeSessionId")));
	json_decref(row);
	free(text);
}

/* The guide; with the caller's project it prints that project's hash. */
static void test_guide(void **state)
{
	struct hb_client c;
	struct hb_env req, reply;
	char err[256], want[128], *text = NULL;
	int ok;

	(void)state;
	ok = call_args("maintain_sessions", json_pack("{s:s}", "action", "guide"), &text);
	assert_true(ok);
	assert_non_null(strstr(text, "listSessions"));
	assert_non_null(strstr(text, "projectDirectoryHash"));
	assert_null(strstr(text, "Your project"));
	free(text);

	assert_int_equal(fx_client(&fx, &c, 10000), 0);
	hb_env_init(&req);
	hb_env_set_str(&req, "op", "call");
	hb_env_set_str(&req, "tool", "maintain_sessions");
	hb_env_set_str(&req, "json", "{\"action\":\"guide\"}");
	hb_env_set_str(&req, "project", proj_a);
	if (hb_client_request(&c, &req, &reply, err, sizeof err) < 0)
		fail_msg("guide: %s", err);
	assert_true(hb_env_bool(&reply, "ok", 0));
	snprintf(want, sizeof want, "Its projectDirectoryHash: %s", hash_a);
	if (!strstr(hb_env_str_or(&reply, "text", ""), want))
		fail_msg("the guide for %s does not print its hash:\n%s", proj_a, hb_env_str_or(&reply, "text", ""));
	hb_env_free(&reply);
	hb_client_close(&c);
	/* guide takes no other field */
	call_fails("maintain_sessions", json_pack("{s:s, s:i}", "action", "guide", "limit", 3), "not used by guide");
}

static void test_errors(void **state)
{
	(void)state;
	call_fails("maintain_sessions", json_pack("{s:s, s:s}", "action", "listSessions", "bogus", "x"),
		   "unknown field \"bogus\"");
	call_fails("maintain_sessions", json_pack("{s:s, s:i}", "action", "listSessions", "limit", 201),
		   "\"limit\" is 201; it must be from 1 to 200");
	call_fails("maintain_sessions", json_pack("{s:s, s:i}", "action", "listSessions", "limit", 0), "limit");
	call_fails("maintain_sessions", json_pack("{s:s, s:s}", "action", "listSessions", "limit", "5"),
		   "must be an integer");
	call_fails("maintain_sessions", json_pack("{s:s, s:s}", "action", "resolveSession",
						  "targetSessionId", "s-0000000000000000"),
		   "No session with id s-0000000000000000");
	call_fails("maintain_sessions", json_pack("{s:s, s:s}", "action", "listSessions",
						  "projectDirectoryHash", "ABC"),
		   "64 lowercase hex");
	call_fails("maintain_sessions", json_pack("{s:s, s:s}", "action", "listSessions",
						  "targetSessionId", "s-0000000000000000"),
		   "targetSessionId is not used by listSessions");
	call_fails("maintain_sessions", json_pack("{s:s}", "action", "dropTables"), "action");
	call_fails("maintain_sessions", json_object(), "action");
	call_fails("manage_sessions", json_pack("{s:s, s:s}", "action", "archive",
						"targetSessionId", "s-0000000000000000"),
		   "No session with id s-0000000000000000");
	call_fails("manage_sessions", json_pack("{s:s, s:s, s:s, s:s}", "action", "create", "title", "x",
						"agent", "codex", "projectPath", "relative/path"),
		   "must be absolute");
	call_fails("manage_sessions", json_pack("{s:s, s:s, s:s, s:s}", "action", "create", "title", "  ",
						"agent", "codex", "projectPath", "/tmp"),
		   "title");
	call_fails("manage_sessions", json_pack("{s:s, s:s, s:s, s:s}", "action", "create", "title", "a\nb",
						"agent", "codex", "projectPath", "/tmp"),
		   "control characters");
	call_fails("manage_sessions", json_pack("{s:s, s:s, s:s, s:s}", "action", "create", "title", "x",
						"agent", "gemini", "projectPath", "/tmp"),
		   "agent");
	call_fails("manage_sessions", json_pack("{s:s, s:s, s:s}", "action", "rename", "title", "x",
						"projectPath", "/tmp"),
		   "projectPath is not used by rename");
	call_fails("manage_sessions", json_pack("{s:s, s:s, s:s}", "action", "setAccessLevel",
						"targetSessionId", id_b1, "accessLevel", "root"),
		   "accessLevel");
	/* No failed change wrote anything: still the three sessions. */
	json_t *res = list(json_pack("{s:b}", "includeArchived", 1));
	assert_int_equal(json_integer_value(json_object_get(res, "count")), 3);
	json_decref(res);
}

/* Title limits count characters, not bytes; a missing folder is named by
 * its absolute path without repeated or trailing slashes. */
static void test_titles_and_paths(void **state)
{
	char title[201 * 2 + 1], path[PATH_MAX], canon[PATH_MAX], real[PATH_MAX], hash[HB_SHA256_HEX_LEN + 1];
	json_t *row;

	(void)state;
	for (int i = 0; i < 200; i++)
		memcpy(title + 2 * i, "\xc3\xa9", 2); /* é */
	title[400] = '\0';
	row = create(title, "codex", proj_b);
	assert_string_equal(jstr(row, "title"), title);
	json_decref(change("archive", jstr(row, "id")));
	json_decref(row);
	memcpy(title + 400, "\xc3\xa9", 3);
	call_fails("manage_sessions", json_pack("{s:s, s:s, s:s, s:s}", "action", "create", "title", title,
						"agent", "codex", "projectPath", proj_b),
		   "1 to 200 characters");

	/* Only when fx.dir has no symlink in it can the lexical rule be checked. */
	if (!realpath(fx.dir, real) || strcmp(real, fx.dir) != 0)
		return;
	snprintf(path, sizeof path, "%s//no-such-folder/sub/", fx.dir);
	snprintf(canon, sizeof canon, "%s/no-such-folder/sub", fx.dir);
	hb_sha256_hex(canon, strlen(canon), hash);
	row = create("Missing folder", "claude", path);
	assert_string_equal(jstr(row, "projectDirectory"), canon);
	assert_string_equal(jstr(row, "projectDirectoryHash"), hash);
	json_decref(change("archive", jstr(row, "id")));
	json_decref(row);
}

static void test_hbctl(void **state)
{
	char args[256], *out;
	const char *list_cmd[] = { "call", "maintain_sessions", "{\"action\":\"listSessions\",\"includeArchived\":true}",
				   NULL };
	const char *bad_cmd[] = { "call", "maintain_sessions", "{\"action\":\"listSessions\",\"limit\":201}", NULL };
	const char *rename_cmd[] = { "call", "manage_sessions", args, NULL };
	const char *status[] = { "status", NULL };
	json_t *res;

	(void)state;
	assert_int_equal(fx_hbctl(&fx, &out, list_cmd), 0);
	res = json_loads(out, 0, NULL);
	if (!res)
		fail_msg("hbctl call maintain_sessions printed no JSON: %s", out);
	assert_non_null(find_row(res, id_a1));
	assert_non_null(find_row(res, id_b1));
	json_decref(res);
	free(out);

	assert_int_equal(fx_hbctl(&fx, &out, bad_cmd), 1);
	assert_non_null(strstr(out, "must be from 1 to 200"));
	free(out);

	snprintf(args, sizeof args, "{\"action\":\"rename\",\"targetSessionId\":\"%s\",\"title\":\"Via hbctl\"}", id_b1);
	assert_int_equal(fx_hbctl(&fx, &out, rename_cmd), 0);
	assert_non_null(strstr(out, "\"title\":\"Via hbctl\""));
	free(out);

	assert_int_equal(fx_hbctl(&fx, &out, status), 0);
	assert_non_null(strstr(out, "svc-sessions"));
	free(out);
}

/* Twelve creates at once across the service's workers all land. */
static void test_concurrent_creates(void **state)
{
	struct hb_client c;
	json_t *res;
	long long before;
	char ids[12][32];

	(void)state;
	res = list(json_pack("{s:b, s:i}", "includeArchived", 1, "limit", 200));
	before = json_integer_value(json_object_get(res, "count"));
	json_decref(res);
	assert_int_equal(fx_client(&fx, &c, 20000), 0);
	for (int i = 0; i < 12; i++) {
		struct hb_env req;
		char err[256], json[PATH_MAX + 128];
		int64_t id;

		snprintf(json, sizeof json,
			 "{\"action\":\"create\",\"title\":\"Parallel %d\",\"agent\":\"codex\",\"projectPath\":\"%s\"}",
			 i, proj_b);
		hb_env_init(&req);
		hb_env_set_str(&req, "op", "call");
		hb_env_set_str(&req, "tool", "manage_sessions");
		hb_env_set_str(&req, "json", json);
		if (hb_client_send(&c, &req, &id, err, sizeof err) < 0)
			fail_msg("send: %s", err);
	}
	for (int i = 0; i < 12; i++) {
		struct hb_env reply;
		char err[256];
		json_t *row;

		if (hb_client_recv(&c, &reply, 20000, err, sizeof err) < 0)
			fail_msg("create %d: %s", i, err);
		if (!hb_env_bool(&reply, "ok", 0))
			fail_msg("a concurrent create failed: %s", hb_env_str_or(&reply, "text", "?"));
		row = json_loads(hb_env_str_or(&reply, "text", ""), 0, NULL);
		assert_non_null(row);
		snprintf(ids[i], sizeof ids[i], "%s", jstr(row, "id"));
		for (int j = 0; j < i; j++)
			assert_string_not_equal(ids[i], ids[j]);
		json_decref(row);
		hb_env_free(&reply);
	}
	hb_client_close(&c);
	res = list(json_pack("{s:b, s:i}", "includeArchived", 1, "limit", 200));
	assert_int_equal(json_integer_value(json_object_get(res, "count")), before + 12);
	for (int i = 0; i < 12; i++)
		assert_non_null(find_row(res, ids[i]));
	json_decref(res);
}

static long long query_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long long v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void test_database_file(void **state)
{
	char path[400], mode[32] = "";
	sqlite3 *db = NULL;
	sqlite3_stmt *st;
	struct stat sb;
	json_t *res;

	(void)state;
	snprintf(path, sizeof path, "%s/data/appdata.db", fx.dir);
	if (stat(path, &sb) < 0)
		fail_msg("no %s", path);
	assert_true(S_ISREG(sb.st_mode));
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	snprintf(mode, sizeof mode, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	assert_string_equal(mode, "wal");
	assert_int_equal(query_int(db, "PRAGMA user_version"), 3);
	/* What the tools list is what the file holds. */
	res = list(json_pack("{s:b, s:i}", "includeArchived", 1, "limit", 200));
	assert_int_equal(query_int(db, "SELECT count(*) FROM sessions"), json_integer_value(json_object_get(res, "count")));
	json_decref(res);
	assert_int_equal(query_int(db, "SELECT count(*) FROM project_workspace WHERE active_session_id IS NOT NULL"), 1);
	sqlite3_close(db);
}

static void test_survives_sigkill(void **state)
{
	pid_t pid = fx_service_pid(&fx, "svc-sessions");
	long long gen = fx_service_num(&fx, "svc-sessions", "generation");
	char id[64];
	json_t *row, *res;

	(void)state;
	row = create("Survivor", "claude", proj_a);
	snprintf(id, sizeof id, "%s", jstr(row, "id"));
	json_decref(row);
	assert_true(pid > 0);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(fx_wait_up(&fx, "svc-sessions", gen + 1, 15000), 0);
	assert_true(fx_service_pid(&fx, "svc-sessions") != pid);
	res = list(json_pack("{s:s}", "projectDirectoryHash", hash_a));
	if (!find_row(res, id))
		fail_msg("session %s is gone after the SIGKILL", id);
	assert_string_equal(jstr(find_row(res, id), "title"), "Survivor");
	/* Newest first still holds after the restart. */
	assert_string_equal(jstr(json_array_get(json_object_get(res, "sessions"), 0), "id"), id);
	json_decref(res);
	row = change("activate", id);
	assert_true(json_is_true(json_object_get(row, "active")));
	json_decref(row);
}

/* ---- access from agents ------------------------------------------------------ */

/* The reply to request id on c. */
static void reply_to(struct hb_client *c, int64_t id, struct hb_env *reply)
{
	char err[256];
	int64_t got = -1;

	if (id < 0)
		fail_msg("a request could not be sent");
	if (hb_client_recv(c, reply, 15000, err, sizeof err) < 0)
		fail_msg("no reply: %s", err);
	hb_env_int(reply, "id", &got);
	assert_int_equal(got, id);
}

static void front_ok(struct hb_client *c, int64_t id)
{
	struct hb_env reply;

	reply_to(c, id, &reply);
	if (!hb_env_bool(&reply, "ok", 0))
		fail_msg("refused: %s", hb_env_str_or(&reply, "err.msg", "?"));
	hb_env_free(&reply);
}

static json_t *set_access_args(const char *id, const char *level)
{
	return json_pack("{s:s, s:s, s:s}", "action", "setAccessLevel", "targetSessionId", id, "accessLevel", level);
}

/* The agent's own answer to a frame sent as op on c, parsed. */
static json_t *native_answer(struct hb_client *c, const char *op, json_t *frame)
{
	char *text = json_dumps(frame, JSON_COMPACT);
	struct hb_env reply;
	json_t *ans;

	json_decref(frame);
	assert_non_null(text);
	reply_to(c, fx_send_op(c, op, "json", text, (char *)NULL), &reply);
	free(text);
	ans = json_loads(hb_env_str_or(&reply, "json", ""), 0, NULL);
	if (!ans)
		fail_msg("%s: no native answer: %s", op, hb_env_str_or(&reply, "err.msg", "?"));
	hb_env_free(&reply);
	return ans;
}

/* setAccessLevel as Codex calls it (item/tool/call on thread); returns
 * success, *text the answer (malloc'd). */
static int codex_set_access(struct hb_client *c, const char *thread, const char *call_id, const char *id,
			    const char *level, char **text)
{
	json_t *ans = native_answer(c, "codex.call", json_pack("{s:s, s:i, s:{s:s, s:s, s:s, s:s, s:s, s:o}}",
		"method", "item/tool/call", "id", 1, "params", "threadId", thread, "turnId", "turn-1",
		"callId", call_id, "namespace", "hbcode", "tool", "manage_sessions", "arguments",
		set_access_args(id, level)));
	json_t *result = json_object_get(ans, "result");
	int ok = json_is_true(json_object_get(result, "success"));

	*text = strdup(jstr(json_array_get(json_object_get(result, "contentItems"), 0), "text"));
	json_decref(ans);
	return ok;
}

/* setAccessLevel as Claude calls it (toolCall on its run's connection). */
static int claude_set_access(struct hb_client *c, const char *tool_use_id, const char *id, const char *level,
			     char **text)
{
	json_t *ans = native_answer(c, "claude.call", json_pack("{s:s, s:s, s:o, s:s}", "requestId", tool_use_id,
		"tool", "mcp__hbcode__manage_sessions", "arguments", set_access_args(id, level),
		"toolUseId", tool_use_id));
	int ok = !json_is_true(json_object_get(ans, "isError"));

	*text = strdup(jstr(json_array_get(json_object_get(ans, "content"), 0), "text"));
	json_decref(ans);
	return ok;
}

/* The access level stored for id, as the user reads it (static buffer). */
static const char *level_of(const char *id)
{
	static char level[32];
	json_t *res = list(json_pack("{s:b, s:i}", "includeArchived", 1, "limit", 200));
	const json_t *row = find_row(res, id);

	if (!row)
		fail_msg("session %s is not listed", id);
	snprintf(level, sizeof level, "%s", jstr(row, "accessLevel"));
	json_decref(res);
	return level;
}

/* The refusal an agent relays to its user. */
static void expect_refusal(int ok, char *text, const char *id, const char *own)
{
	char want[256];

	snprintf(want, sizeof want, "setAccessLevel cannot raise %s above your own access (%s); ask the user "
		 "to change it in HB Code.", id, own);
	if (ok)
		fail_msg("the raise of %s was accepted: %s", id, text);
	assert_string_equal(text, want);
	free(text);
}

static void expect_set(int ok, char *text, const char *id, const char *level)
{
	if (!ok)
		fail_msg("setting %s to %s failed: %s", id, level, text);
	free(text);
	assert_string_equal(level_of(id), level);
}

static void test_access_from_agents(void **state)
{
	char own[64], other[64], mine[64], args[256], *text = NULL, *out = NULL;
	const char *hbctl_run[] = { "call", "manage_sessions", args, "--run", "run-own", NULL };
	const char *hbctl_user[] = { "call", "manage_sessions", args, NULL };
	struct hb_client desk, bridge;
	json_t *row;
	int ok;

	(void)state;
	row = create("Codex's own", "codex", proj_a); /* full-auto */
	snprintf(own, sizeof own, "%s", jstr(row, "id"));
	json_decref(row);
	row = create("Another", "codex", proj_a);
	snprintf(other, sizeof other, "%s", jstr(row, "id"));
	json_decref(row);
	json_decref(call_ok("manage_sessions", set_access_args(other, "read-only")));
	row = create("Claude's own", "claude", proj_a);
	snprintf(mine, sizeof mine, "%s", jstr(row, "id"));
	json_decref(row);

	/* Codex: the thread's session and that session's full-auto run. */
	assert_int_equal(fx_client(&fx, &desk, 15000), 0);
	front_ok(&desk, fx_send_op(&desk, "thread.link", "threadId", "thread-own", "sessionId", own, (char *)NULL));
	assert_int_equal(fx_open_run(&desk, "run-own", own, proj_a, "codex", "full-auto"), 0);
	ok = codex_set_access(&desk, "thread-own", "call-1", own, "unrestricted", &text);
	expect_refusal(ok, text, own, "full-auto");
	assert_string_equal(level_of(own), "full-auto");
	ok = codex_set_access(&desk, "thread-own", "call-2", own, "full-access", &text);
	expect_refusal(ok, text, own, "full-auto");
	/* Lowering works, and so does setting it back up to its own access. */
	ok = codex_set_access(&desk, "thread-own", "call-3", own, "read-only", &text);
	expect_set(ok, text, own, "read-only");
	ok = codex_set_access(&desk, "thread-own", "call-4", own, "full-auto", &text);
	expect_set(ok, text, own, "full-auto");
	/* Another session: up to full-auto, not above. */
	ok = codex_set_access(&desk, "thread-own", "call-5", other, "full-auto", &text);
	expect_set(ok, text, other, "full-auto");
	ok = codex_set_access(&desk, "thread-own", "call-6", other, "full-access", &text);
	expect_refusal(ok, text, other, "full-auto");
	assert_string_equal(level_of(other), "full-auto");

	/* hbctl --run speaks as that run's agent: bound, refused alike. */
	snprintf(args, sizeof args, "{\"action\":\"setAccessLevel\",\"targetSessionId\":\"%s\","
		 "\"accessLevel\":\"unrestricted\"}", own);
	assert_int_equal(fx_hbctl(&fx, &out, hbctl_run), 1);
	assert_non_null(strstr(out, "setAccessLevel cannot raise"));
	free(out);
	assert_string_equal(level_of(own), "full-auto");
	/* Without a run, hbctl is the user: it may raise. */
	assert_int_equal(fx_hbctl(&fx, &out, hbctl_user), 0);
	free(out);
	assert_string_equal(level_of(own), "unrestricted");

	/* A Codex call while its session has no open run may only lower. */
	front_ok(&desk, fx_send_op(&desk, "run.close", "run", "run-own", (char *)NULL));
	ok = codex_set_access(&desk, "thread-own", "call-7", other, "full-access", &text);
	expect_refusal(ok, text, other, "none: this call has no open run");
	ok = codex_set_access(&desk, "thread-own", "call-8", own, "full-access", &text);
	expect_set(ok, text, own, "full-access");
	hb_client_close(&desk);

	/* Claude: the run its bridge opened on this connection. */
	assert_int_equal(fx_client(&fx, &bridge, 15000), 0);
	assert_int_equal(fx_open_run(&bridge, "run-mine", mine, proj_a, "claude", "full-auto"), 0);
	ok = claude_set_access(&bridge, "tu-1", mine, "unrestricted", &text);
	expect_refusal(ok, text, mine, "full-auto");
	assert_string_equal(level_of(mine), "full-auto");
	ok = claude_set_access(&bridge, "tu-2", mine, "read-only", &text);
	expect_set(ok, text, mine, "read-only");
	front_ok(&bridge, fx_send_op(&bridge, "run.close", "run", "run-mine", (char *)NULL));
	hb_client_close(&bridge);
}

/* ---- fixture ------------------------------------------------------------- */

/* svc-sessions exactly as deploy/services.conf runs it. */
static int setup_broker(void **state)
{
	char *conf = fx_deployed_service("svc-sessions");
	int rc;

	(void)state;
	if (!conf) {
		fprintf(stderr, "itest_sessions: no [service svc-sessions] in deploy/services.conf\n");
		return -1;
	}
	rc = fx_start(&fx, conf, NULL);
	free(conf);
	return rc;
}

static int teardown_broker(void **state)
{
	(void)state;
	return fx_stop_clean(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_manage_and_list),
		cmocka_unit_test(test_guide),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_titles_and_paths),
		cmocka_unit_test(test_hbctl),
		cmocka_unit_test(test_concurrent_creates),
		cmocka_unit_test(test_database_file),
		cmocka_unit_test(test_survives_sigkill),
		cmocka_unit_test(test_access_from_agents),
	};

	return ck_run_group_tests(tests, setup_broker, teardown_broker);
}
