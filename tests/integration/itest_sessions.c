/*
 * itest_sessions - svc-sessions as agents reach it: through the real
 * hb-broker (front socket and hbctl), with the service entry of
 * deploy/services.conf and appdata.db in a temporary HB_HOME
 * (sessions_rig.h).
 *
 * Covers manage_sessions (create in two project folders, rename, activate,
 * archive), maintain_sessions (guide with the caller's project hash,
 * listSessions order / active mark / hash and agent filters,
 * resolveSession), argument errors as readable tool errors, titles and
 * paths, hbctl, and the database file itself (WAL, user_version 5, opened
 * read-only here).  (Concurrent creates, a SIGKILL and who may raise
 * access: itest_sessions_store.c.)
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
#include "sessions_rig.h"

/* ---- tests ------------------------------------------------------------------ */

static void test_manage_and_list(void **state)
{
	char spelled[PATH_MAX + 16], want[256], *text = NULL;
	json_t *row, *res;

	(void)state;

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
	assert_int_equal(query_int(db, "PRAGMA user_version"), 5);
	/* What the tools list is what the file holds. */
	res = list(json_pack("{s:b, s:i}", "includeArchived", 1, "limit", 200));
	assert_int_equal(query_int(db, "SELECT count(*) FROM sessions"), json_integer_value(json_object_get(res, "count")));
	json_decref(res);
	assert_int_equal(query_int(db, "SELECT count(*) FROM project_workspace WHERE active_session_id IS NOT NULL"), 1);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_manage_and_list),
		cmocka_unit_test(test_guide),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_titles_and_paths),
		cmocka_unit_test(test_hbctl),
		cmocka_unit_test(test_database_file),
	};

	return ck_run_group_tests(tests, setup_broker, teardown_broker);
}
