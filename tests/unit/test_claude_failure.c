/*
 * test_claude_failure - which lines of the pipe make a `claude_run` error
 * line (bridge/claude_failure.c), and what it says, read back from the
 * kept errors.log: Claude's errors list over its result text, the
 * assistant message Claude wrote itself as the last resort, the host's
 * `failed`; the operation from the desktop's send id or a session
 * message the host took; one line with control characters made spaces
 * and the reason cut at 900 characters; nothing for a turn that succeeds
 * or one the desktop interrupted.
 * The lines fed in have the shapes docs/agent-host-pipe.md records.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../bridge/claude_failure.h"
#include "error_log.h"
#include "log.h"
#include "paths.h"
#include "../harness/tmp_home.h"

static char home[64], path[HB_PATH_MAX + 16];

static int make_home(void **state)
{
	struct hb_paths p;
	char err[256];

	(void)state;
	if (fx_tmp_home(home, sizeof home, "hbclfail", (char *)NULL) < 0 || hb_paths_resolve(&p, err, sizeof err) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/%s", p.data, HB_ERROR_LOG_FILE);
	return 0;
}

static int remove_home(void **state)
{
	(void)state;
	return fx_tmp_home_remove(home);
}

static void feed(int from_desktop, const char *line)
{
	json_t *msg = json_loads(line, 0, NULL);

	assert_non_null(msg);
	claude_failure_seen("s-1", "r-1", from_desktop, msg);
	json_decref(msg);
}

/* The text after "[claude_run] " of the log's last line, or "" */
static const char *last(void)
{
	static char buf[8192], line[4096];
	FILE *f = fopen(path, "r");
	char *at;
	size_t n;

	line[0] = 0;
	if (!f)
		return line;
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = 0;
	fclose(f);
	if (n && buf[n - 1] == '\n')
		buf[--n] = 0;
	at = strrchr(buf, '\n');
	at = strstr(at ? at : buf, "[claude_run] ");
	snprintf(line, sizeof line, "%s", at ? at + 13 : "");
	return line;
}

static int lines(void)
{
	FILE *f = fopen(path, "r");
	int n = 0, c;

	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static void test_reasons(void **state)
{
	char big[3000], line[3200];

	(void)state;
	/* A turn that succeeds: nothing. */
	feed(1, "{\"id\":2,\"method\":\"send\",\"params\":{\"text\":\"hi\"}}");
	feed(0, "{\"event\":\"message\",\"message\":{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"OK.\"}}");
	assert_int_equal(lines(), 0);

	/* Claude's errors list wins over its result text. */
	feed(1, "{\"id\":\"d-7\",\"method\":\"send\",\"params\":{\"text\":\"hi\"}}");
	feed(0, "{\"event\":\"message\",\"message\":{\"type\":\"result\",\"subtype\":\"error_during_execution\",\"is_error\":true,"
		"\"errors\":[\"first\",\"second\"],\"result\":\"not this\"}}");
	assert_string_equal(last(), "session=s-1 run=r-1 op=d-7 first; second");

	/* A session message the host took names the turn; newlines become spaces. */
	feed(0, "{\"id\":\"session-message-3#history\",\"result\":{\"messages\":[]}}");
	feed(0, "{\"id\":\"session-message-3\",\"result\":{}}");
	feed(0, "{\"event\":\"message\",\"message\":{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,"
		"\"result\":\"API Error: 500\\nInternal\"}}");
	assert_string_equal(last(), "session=s-1 run=r-1 op=session-message-3 API Error: 500 Internal");

	/* Claude's own assistant message, when the result has no words. */
	feed(1, "{\"id\":4,\"method\":\"send\",\"params\":{\"text\":\"hi\"}}");
	feed(0, "{\"event\":\"message\",\"message\":{\"type\":\"assistant\",\"error\":\"authentication_failed\","
		"\"message\":{\"model\":\"<synthetic>\",\"content\":[{\"type\":\"text\",\"text\":\"Not logged in · Please run /login\"}]}}}");
	feed(0, "{\"event\":\"message\",\"message\":{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,\"result\":\"\"}}");
	assert_string_equal(last(), "session=s-1 run=r-1 op=4 Not logged in · Please run /login");

	/* A turn the desktop interrupted is no failure; the next one's is. */
	feed(1, "{\"id\":5,\"method\":\"send\",\"params\":{\"text\":\"hi\"}}");
	feed(1, "{\"id\":6,\"method\":\"interrupt\"}");
	feed(0, "{\"event\":\"message\",\"message\":{\"type\":\"result\",\"subtype\":\"error_during_execution\",\"is_error\":true,"
		"\"errors\":[\"[ede_diagnostic] result_type=user\"]}}");
	assert_int_equal(lines(), 3);
	feed(1, "{\"id\":7,\"method\":\"send\",\"params\":{\"text\":\"hi\"}}");
	feed(0, "{\"event\":\"message\",\"message\":{\"type\":\"result\",\"subtype\":\"error_during_execution\",\"is_error\":true,"
		"\"errors\":[\"it broke\"]}}");
	assert_string_equal(last(), "session=s-1 run=r-1 op=7 it broke");

	/* The host's failed, cut at 900 characters. */
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = 0;
	snprintf(line, sizeof line, "{\"event\":\"failed\",\"error\":\"%s\"}", big);
	feed(0, line);
	assert_int_equal(strlen(last()), strlen("session=s-1 run=r-1 op=7 ") + 900);
	assert_int_equal(lines(), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reasons, make_home, remove_home),
	};

	hb_log_init("test_claude_failure");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
