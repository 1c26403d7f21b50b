/*
 * test_claude_history - how hb-claude-bridge judges one page of the
 * agent host's `history` read when it looks for a session message's uuid
 * (the proof of delivery, page 003): found by `uuid` or among `uuids`, a
 * further page before the oldest message while hasMore, reload, absent,
 * and the host's error; and the request it writes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "../../bridge/claude_history.h"

#define OURS "5d0c2a1e-0000-8000-8000-00000000000a"

static enum claude_history_verdict judge(const char *answer, char before[64], const char **why)
{
	json_t *a = json_loads(answer, 0, NULL);
	enum claude_history_verdict v;
	static char why_copy[256];

	assert_non_null(a);
	v = claude_history_judge(a, OURS, before, 64, why);
	if (*why) {
		strncpy(why_copy, *why, sizeof why_copy - 1);
		*why = why_copy;
	}
	json_decref(a);
	return v;
}

static void test_found_by_uuid_or_uuids(void **state)
{
	char before[64] = "";
	const char *why;

	(void)state;
	assert_int_equal(judge("{\"id\":\"x\",\"result\":{\"messages\":[{\"uuid\":\"a\",\"uuids\":[\"a\"]},"
			       "{\"uuid\":\"" OURS "\",\"uuids\":[\"" OURS "\"],\"type\":\"user\"}],\"hasMore\":true}}",
			       before, &why),
			 CLAUDE_HISTORY_FOUND);
	assert_int_equal(judge("{\"result\":{\"messages\":[{\"uuid\":\"b\",\"uuids\":[\"b\",\"" OURS "\"]}],"
			       "\"hasMore\":false}}",
			       before, &why),
			 CLAUDE_HISTORY_FOUND);
}

static void test_more_pages_then_absent(void **state)
{
	char before[64] = "";
	const char *why;

	(void)state;
	assert_int_equal(judge("{\"result\":{\"messages\":[{\"uuid\":\"oldest\",\"uuids\":[\"oldest\"]},"
			       "{\"uuid\":\"newer\",\"uuids\":[\"newer\"]}],\"hasMore\":true}}",
			       before, &why),
			 CLAUDE_HISTORY_MORE);
	assert_string_equal(before, "oldest");
	assert_int_equal(judge("{\"result\":{\"messages\":[{\"uuid\":\"first\"}],\"hasMore\":false}}", before, &why),
			 CLAUDE_HISTORY_ABSENT);
	assert_null(why);
	/* an unknown conversation */
	assert_int_equal(judge("{\"result\":{\"messages\":[],\"hasMore\":false}}", before, &why),
			 CLAUDE_HISTORY_ABSENT);
	/* hasMore without a message to page from: nothing further to ask */
	assert_int_equal(judge("{\"result\":{\"messages\":[],\"hasMore\":true}}", before, &why),
			 CLAUDE_HISTORY_ABSENT);
}

static void test_reload_and_errors(void **state)
{
	char before[64] = "";
	const char *why;

	(void)state;
	assert_int_equal(judge("{\"result\":{\"reload\":true}}", before, &why), CLAUDE_HISTORY_RELOAD);
	assert_int_equal(judge("{\"error\":{\"code\":\"invalid_request\",\"message\":\"history: sessionId and cwd "
			       "are required\"}}",
			       before, &why),
			 CLAUDE_HISTORY_ERROR);
	assert_string_equal(why, "history: sessionId and cwd are required");
	assert_int_equal(judge("{\"result\":{\"hasMore\":false}}", before, &why), CLAUDE_HISTORY_ERROR);
	assert_non_null(strstr(why, "no messages list"));
}

static void test_request(void **state)
{
	json_t *r = claude_history_request("session-message-3#history", "f1646ff9-e531-41c5-8422-c2c961c95389",
					   "/tmp/p", NULL);
	json_t *p = json_object_get(r, "params");

	(void)state;
	assert_string_equal(json_string_value(json_object_get(r, "method")), "history");
	assert_string_equal(json_string_value(json_object_get(r, "id")), "session-message-3#history");
	assert_string_equal(json_string_value(json_object_get(p, "sessionId")), "f1646ff9-e531-41c5-8422-c2c961c95389");
	assert_string_equal(json_string_value(json_object_get(p, "cwd")), "/tmp/p");
	assert_int_equal(json_integer_value(json_object_get(p, "limit")), CLAUDE_HISTORY_PAGE);
	assert_null(json_object_get(p, "before"));
	json_decref(r);
	r = claude_history_request("i", "s", "/c", "oldest");
	assert_string_equal(json_string_value(json_object_get(json_object_get(r, "params"), "before")), "oldest");
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_found_by_uuid_or_uuids),
		cmocka_unit_test(test_more_pages_then_absent),
		cmocka_unit_test(test_reload_and_errors),
		cmocka_unit_test(test_request),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
