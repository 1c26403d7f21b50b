/*
 * test_sessions_links - svc-sessions on a temporary appdata.db: listing and
 * resolving sessions, the argument checks, the guide, and the broker's
 * thread links (resolve, cycles, link rules, Claude conversations).
 *
 * Rows that would take many calls to reach (250 sessions, parent cycles)
 * are inserted with SQL directly (the fixture: sessions_db_rig.h).
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
