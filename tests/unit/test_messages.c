/*
 * test_messages - the rules of a message between sessions, without a
 * broker: the envelope byte for byte (and its escaping), the two hold
 * rules over the whole access scale, and svc-messages' store on a real
 * appdata.db: one row per sender and call id, the outbox entry in the same
 * transaction, outcomes that happen once, the user's send and discard.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "access.h"
#include "session_message.h"
#include "../../appdata/appdata.h"
#include "../../svc-messages/message_store.h"

/* ---- the envelope ---------------------------------------------------------- */

static void test_envelope_bytes(void **state)
{
	char *e = hb_message_envelope("s-1", "Build", "codex", "Please run the tests.\nThen report.");

	(void)state;
	assert_string_equal(e, "Message from another HB Code session. Answer this message in one of three ways: do "
			       "it, ask one question, or object with the reason.\n"
			       "<session_message from_session_id=\"s-1\" from_title=\"Build\" from_agent=\"codex\">\n"
			       "Please run the tests.\nThen report.\n"
			       "</session_message>");
	free(e);
}

static void test_envelope_escapes_attributes_only(void **state)
{
	char *e = hb_message_envelope("s-\"x", "A & B <C>\n\"q\"", "claude", "<b>& \"kept\"</b>");

	(void)state;
	assert_non_null(strstr(e, "from_session_id=\"s-&quot;x\""));
	assert_non_null(strstr(e, "from_title=\"A &amp; B &lt;C&gt;&#10;&quot;q&quot;\""));
	assert_non_null(strstr(e, "from_agent=\"claude\">\n<b>& \"kept\"</b>\n</session_message>"));
	free(e);
}

static void test_operation_ids(void **state)
{
	char op[48];

	(void)state;
	store_op_id(42, op, sizeof op);
	assert_string_equal(op, "session-message-42");
	assert_true(hb_is_session_message_id(op));
	assert_false(hb_is_session_message_id("session-messag-1"));
	assert_false(hb_is_session_message_id(NULL));
	assert_int_equal(store_parse_op_id("session-message-42"), 42);
	assert_int_equal(store_parse_op_id("42"), 42);
	assert_int_equal(store_parse_op_id("session-message-0"), 0);
	assert_int_equal(store_parse_op_id("session-message-4x"), 0);
	assert_int_equal(store_parse_op_id("session-message-"), 0);
	assert_int_equal(store_parse_op_id("-3"), 0);
}

/* ---- the hold rules -------------------------------------------------------- */

static const char *const levels[] = { "read-only", "full-auto", "full-access", "unrestricted" };

static void test_hold_more_access(void **state)
{
	char reason[512];

	(void)state;
	for (int s = 0; s < 4; s++)
		for (int r = 0; r < 4; r++) {
			struct hb_message_end from = { "A", levels[s], "/p" }, to = { "B", levels[r], "/p" };
			reason[0] = '\0';
			assert_int_equal(hb_message_hold(&from, &to, reason, sizeof reason), r > s);
			if (r > s)
				assert_non_null(strstr(reason, "more than this session's"));
		}
}

static void test_hold_other_project(void **state)
{
	char reason[512];

	(void)state;
	for (int r = 0; r < 4; r++) {
		/* the sender has the most access, so only the project rule can hold */
		struct hb_message_end from = { "A", "unrestricted", "/p" }, to = { "B", levels[r], "/q" };
		assert_int_equal(hb_message_hold(&from, &to, reason, sizeof reason), r > 0);
		if (r > 0)
			assert_non_null(strstr(reason, "another project (/q)"));
	}
}

static void test_hold_unknown_level(void **state)
{
	char reason[512];
	struct hb_message_end from = { "A", "", "/p" }, to = { "B", "read-only", "/p" };

	(void)state;
	assert_int_equal(hb_message_hold(&from, &to, reason, sizeof reason), 1);
	assert_int_equal(hb_access_rank("root"), -1);
}

/* ---- the store ------------------------------------------------------------- */

struct fixture {
	char dir[64], path[128], err[1024];
	sqlite3 *db;
};

static void exec_sql(struct fixture *f, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(f->db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
}

static long long count(struct fixture *f, const char *sql)
{
	sqlite3_stmt *st = NULL;
	long long n = -1;

	assert_int_equal(sqlite3_prepare_v2(f->db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);

	assert_non_null(f);
	snprintf(f->dir, sizeof f->dir, "/tmp/test_messages.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof f->path, "%s/appdata.db", f->dir);
	assert_non_null(f->db = appdata_open_rw(f->path, f->err, sizeof f->err));
	exec_sql(f, "INSERT INTO sessions (id, title, agent, project_dir, project_hash, access_level, created_at,"
		    " updated_at) VALUES"
		    " ('s-a', 'Alpha', 'codex', '/p', 'h', 'full-auto', 1, 1),"
		    " ('s-b', 'Beta', 'claude', '/p', 'h', 'read-only', 1, 1),"
		    " ('s-c', 'Gamma', 'codex', '/q', 'h2', 'full-access', 1, 1)");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char p[192];

	appdata_close(f->db);
	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof p, "%s/appdata.db%s", f->dir, (const char *[]){ "", "-wal", "-shm" }[i]);
		unlink(p);
	}
	rmdir(f->dir);
	free(f);
	return 0;
}

static long long insert(struct fixture *f, const char *call_id, const char *to, int held, int expect)
{
	struct msg_new m = { "s-a", call_id, to, "run-1", "full-auto", "hello", held, held ? "a reason" : NULL };
	struct msg_existing old;
	long long id = 0;

	memset(&old, 0, sizeof old);
	assert_int_equal(store_insert(f->db, &m, &id, &old, f->err, sizeof f->err), expect);
	return expect == 1 ? id : old.id;
}

static void test_store_one_row_per_call(void **state)
{
	struct fixture *f = *state;
	struct msg_session s;
	long long id = insert(f, "call-1", "s-b", 0, 1);

	assert_int_equal(store_session(f->db, "s-b", &s, f->err, sizeof f->err), 1);
	assert_string_equal(s.title, "Beta");
	assert_string_equal(s.access, "read-only");
	assert_int_equal(store_session(f->db, "s-zz", &s, f->err, sizeof f->err), 0);
	/* the same call again, even naming another recipient: the old row */
	assert_int_equal(insert(f, "call-1", "s-b", 0, 0), id);
	assert_int_equal(insert(f, "call-1", "s-c", 0, 0), id);
	assert_int_equal(count(f, "SELECT COUNT(*) FROM chat_session_messages"), 1);
	/* the row and its outbox entry exist together */
	assert_int_equal(count(f, "SELECT COUNT(*) FROM session_message_outbox o JOIN chat_session_messages m"
				  " ON m.id = o.message_id WHERE o.held = 0 AND m.state = 'queued'"),
			 1);
	/* another call of the same session is another message */
	assert_int_not_equal(insert(f, "call-2", "s-b", 0, 1), id);
}

static void test_store_due_and_outcomes_once(void **state)
{
	struct fixture *f = *state;
	long long id = insert(f, "call-1", "s-b", 0, 1), now = appdata_now_ms();
	struct msg_due due[4];
	int n, changed = -1;

	n = store_due(f->db, now + 1, due, 4, f->err, sizeof f->err);
	assert_int_equal(n, 1);
	assert_int_equal(due[0].id, id);
	assert_string_equal(due[0].from.title, "Alpha");
	assert_string_equal(due[0].to.agent, "claude");
	assert_string_equal(due[0].body, "hello");
	free(due[0].body);
	/* rescheduled: not due before its time */
	assert_int_equal(store_reschedule(f->db, id, now + 60000, 0, NULL, f->err, sizeof f->err), 0);
	assert_int_equal(store_due(f->db, now + 1, due, 4, f->err, sizeof f->err), 0);
	assert_int_equal(store_next_due(f->db), now + 60000);
	/* a bridge took it: asked again, it skips the rules and is checked
	 * against the agent's history */
	assert_int_equal(store_mark_handed(f->db, id, now + 60000, f->err, sizeof f->err), 0);
	assert_int_equal(store_due(f->db, now + 60001, due, 4, f->err, sizeof f->err), 1);
	assert_int_equal(due[0].handed, 1);
	assert_int_equal(due[0].approved, 0);
	free(due[0].body);
	/* a bridge attached: due at once */
	assert_int_equal(store_session_reachable(f->db, "s-b", now, f->err, sizeof f->err), 0);
	assert_int_equal(store_next_due(f->db), now);
	assert_int_equal(store_mark_sent(f->db, id, "turn-1", &changed, f->err, sizeof f->err), 0);
	assert_int_equal(changed, 1);
	assert_int_equal(store_mark_sent(f->db, id, "turn-1", &changed, f->err, sizeof f->err), 0);
	assert_int_equal(changed, 0);
	assert_int_equal(count(f, "SELECT COUNT(*) FROM session_message_outbox"), 0);
	assert_int_equal(count(f, "SELECT COUNT(*) FROM chat_session_messages WHERE state = 'sent'"
				  " AND turn_id = 'turn-1' AND sent_at > 0"),
			 1);
	/* a sent message can no longer be held, sent by hand or discarded */
	assert_int_equal(store_mark_held(f->db, id, "late", &changed, f->err, sizeof f->err), 0);
	assert_int_equal(changed, 0);
	assert_int_equal(store_approve(f->db, id, f->err, sizeof f->err), -1);
	assert_non_null(strstr(f->err, "was sent already"));
	assert_int_equal(store_discard(f->db, id, f->err, sizeof f->err), -1);
}

static void test_store_held_send_and_discard(void **state)
{
	struct fixture *f = *state;
	long long held = insert(f, "call-1", "s-c", 1, 1), queued = insert(f, "call-2", "s-b", 0, 1);
	long long late = insert(f, "call-3", "s-b", 0, 1);
	struct msg_due due[4];
	json_t *list;
	int n, changed;

	/* held entries are never due */
	n = store_due(f->db, appdata_now_ms() + 1, due, 4, f->err, sizeof f->err);
	assert_int_equal(n, 2);
	for (int i = 0; i < n; i++) {
		assert_int_not_equal(due[i].id, held);
		free(due[i].body);
	}
	list = store_list(f->db, "s-c", f->err, sizeof f->err);
	assert_int_equal(json_array_size(json_object_get(list, "messages")), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(list, "messages"), 0),
							      "status")),
			    "waiting-for-approval");
	json_decref(list);
	list = store_list(f->db, NULL, f->err, sizeof f->err);
	assert_int_equal(json_array_size(json_object_get(list, "messages")), 3);
	json_decref(list);
	/* a queued one is on its way: the user cannot discard or send it */
	assert_int_equal(store_discard(f->db, queued, f->err, sizeof f->err), -1);
	assert_non_null(strstr(f->err, "on its way"));
	/* the delivery loop may hold a queued one (the rules changed) */
	assert_int_equal(store_mark_held(f->db, late, "now more access", &changed, f->err, sizeof f->err), 0);
	assert_int_equal(changed, 1);
	assert_int_equal(store_discard(f->db, late, f->err, sizeof f->err), 0);
	assert_int_equal(count(f, "SELECT COUNT(*) FROM chat_session_messages WHERE state = 'discarded'"), 1);
	/* the user's send: due now, approved (the broker skips the rules) */
	assert_int_equal(store_approve(f->db, held, f->err, sizeof f->err), 0);
	n = store_due(f->db, appdata_now_ms() + 1, due, 4, f->err, sizeof f->err);
	assert_int_equal(n, 2);
	for (int i = 0; i < n; i++) {
		if (due[i].id == held)
			assert_int_equal(due[i].approved, 1);
		free(due[i].body);
	}
	assert_int_equal(store_approve(f->db, 999, f->err, sizeof f->err), -1);
	assert_non_null(strstr(f->err, "no session message 999"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_envelope_bytes),
		cmocka_unit_test(test_envelope_escapes_attributes_only),
		cmocka_unit_test(test_operation_ids),
		cmocka_unit_test(test_hold_more_access),
		cmocka_unit_test(test_hold_other_project),
		cmocka_unit_test(test_hold_unknown_level),
		cmocka_unit_test_setup_teardown(test_store_one_row_per_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_due_and_outcomes_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_held_send_and_discard, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
