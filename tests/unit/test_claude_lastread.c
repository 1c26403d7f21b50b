/*
 * test_claude_lastread - the bounds of hb-claude-bridge's final
 * transcript read (claude_last_read), against a stand-in host: a shell
 * loop that answers every `history` request with one page and writes
 * each request to a file.  The search ends after CLAUDE_HISTORY_MAX_PAGES
 * pages of a transcript that always has more, after three reloads of one
 * that keeps changing, and as soon as the message is found; each further
 * page asks before the oldest message of the page before.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <jansson.h>

#include "../../bridge/claude_history.h"
#include "../../bridge/claude_lastread.h"

#define OURS "5d0c2a1e-0000-8000-8000-00000000000a"

/* $1: the file each request is appended to; $2: how to answer.
 *   more:    a page of one message page-N, and more before it;
 *   reload:  the anchor is gone;
 *   found-N: pages as more, and our message in page N. */
static const char host_script[] =
	"n=0\n"
	"while IFS= read -r line; do\n"
	"  n=$((n + 1))\n"
	"  printf '%s\\n' \"$line\" >>\"$1\"\n"
	"  case $2 in\n"
	"  reload) echo '{\"id\":\"hb-last-read\",\"result\":{\"reload\":true}}' ;;\n"
	"  found-$n) echo '{\"id\":\"hb-last-read\",\"result\":{\"messages\":[{\"uuid\":\"" OURS "\"}],"
	"\"hasMore\":true}}' ;;\n"
	"  *) printf '{\"id\":\"hb-last-read\",\"result\":{\"messages\":[{\"uuid\":\"page-%d\"}],"
	"\"hasMore\":true}}\\n' \"$n\" ;;\n"
	"  esac\n"
	"done\n";

struct fixture {
	char dir[64];
	char log[96];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);

	if (!f)
		return -1;
	snprintf(f->dir, sizeof f->dir, "/tmp/hb-lastread.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->log, sizeof f->log, "%s/requests", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	unlink(f->log);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* claude_last_read against the stand-in answering mode; the requests it
 * made, one JSON text per element, into *requests (a new array). */
static int last_read(struct fixture *f, const char *mode, json_t **requests)
{
	char *const argv[] = { "/bin/sh", "-c", (char *)host_script, "host", f->log, (char *)mode, NULL };
	char why[256] = "", line[1024];
	FILE *in;
	int found;

	unlink(f->log);
	found = claude_last_read(argv, "11111111-2222-3333-4444-555555555555", "/tmp/project", OURS, 20000, why,
				 sizeof why);
	if (found < 0)
		fail_msg("the read failed: %s", why);
	*requests = json_array();
	assert_non_null(in = fopen(f->log, "r"));
	while (fgets(line, sizeof line, in)) {
		json_t *r = json_loads(line, 0, NULL);
		assert_non_null(r);
		assert_string_equal(json_string_value(json_object_get(r, "method")), "history");
		json_array_append_new(*requests, r);
	}
	fclose(in);
	return found;
}

static const char *before_of(const json_t *requests, size_t i)
{
	return json_string_value(json_object_get(json_object_get(json_array_get(requests, i), "params"), "before"));
}

static void test_pages_end_at_the_bound(void **state)
{
	json_t *requests;

	assert_int_equal(last_read(*state, "more", &requests), 0);
	assert_int_equal(json_array_size(requests), CLAUDE_HISTORY_MAX_PAGES);
	assert_null(before_of(requests, 0)); /* the newest page first */
	for (size_t i = 1; i < json_array_size(requests); i++) {
		char want[32];
		snprintf(want, sizeof want, "page-%zu", i);
		assert_non_null(before_of(requests, i));
		assert_string_equal(before_of(requests, i), want);
	}
	json_decref(requests);
}

static void test_reloads_end_after_three(void **state)
{
	json_t *requests;

	assert_int_equal(last_read(*state, "reload", &requests), 0);
	/* The first read and three more, each from the newest. */
	assert_int_equal(json_array_size(requests), 4);
	for (size_t i = 0; i < 4; i++)
		assert_null(before_of(requests, i));
	json_decref(requests);
}

static void test_found_ends_the_search(void **state)
{
	json_t *requests;

	assert_int_equal(last_read(*state, "found-5", &requests), 1);
	assert_int_equal(json_array_size(requests), 5);
	json_decref(requests);
	/* Past the bound it is not looked for. */
	assert_int_equal(last_read(*state, "found-21", &requests), 0);
	assert_int_equal(json_array_size(requests), CLAUDE_HISTORY_MAX_PAGES);
	json_decref(requests);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pages_end_at_the_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reloads_end_after_three, setup, teardown),
		cmocka_unit_test_setup_teardown(test_found_ends_the_search, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
