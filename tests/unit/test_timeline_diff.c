/*
 * test_timeline_diff - the diff of a file's old and new text that Claude's
 * edit rows show (timeline/diff.c): hunks with their context, a new file,
 * several edits, text in any script, and a cut for input of any size.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../timeline/diff.h"
#include "../../timeline/row.h"

static int ends_cut(const char *s)
{
	size_t n = strlen(s), m = strlen(TL_CUT_MARK);

	return n >= m && strcmp(s + n - m, TL_CUT_MARK) == 0;
}

static void test_diff_one_hunk_with_context(void **state)
{
	char *d = tl_diff_hunks("a\nb\nc\nd\ne\nf\ng\nh\ni\n", "a\nb\nc\nd\nE\nf\ng\nh\ni\n");

	(void)state;
	assert_string_equal(d, "@@\n b\n c\n d\n-e\n+E\n f\n g\n h\n");
	free(d);
	d = tl_diff_hunks("same\n", "same\n");
	assert_string_equal(d, "");
	free(d);
}

static void test_diff_distant_changes_are_two_hunks(void **state)
{
	const char *old_text = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n";
	const char *new_text = "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\nfourteen\n";
	char *d = tl_diff_hunks(old_text, new_text);

	(void)state;
	assert_string_equal(d, "@@\n-1\n+one\n 2\n 3\n 4\n@@\n 11\n 12\n 13\n-14\n+fourteen\n");
	free(d);
	/* changes within 6 lines share one hunk */
	d = tl_diff_hunks("1\n2\n3\n4\n5\n", "x\n2\n3\n4\ny\n");
	assert_string_equal(d, "@@\n-1\n+x\n 2\n 3\n 4\n-5\n+y\n");
	free(d);
}

static void test_diff_write_of_a_new_file(void **state)
{
	const char *olds[] = { NULL }, *news[] = { "# Notes\n\nBuild with make.\n" };
	char *d = tl_diff_file("NOTES.md", olds, news, 1);

	(void)state;
	assert_string_equal(d, "--- /dev/null\n+++ b/NOTES.md\n@@\n+# Notes\n+\n+Build with make.\n");
	free(d);
}

static void test_diff_multiedit(void **state)
{
	const char *olds[] = { "CFLAGS = -O0", "all: main\n" };
	const char *news[] = { "CFLAGS = -O2", "all: main\n\nclean:\n\trm -f main\n" };
	char *d = tl_diff_file("/p/Makefile", olds, news, 2);

	(void)state;
	assert_string_equal(d, "--- a/p/Makefile\n+++ b/p/Makefile\n@@\n-CFLAGS = -O0\n+CFLAGS = -O2\n"
			       "@@\n all: main\n+\n+clean:\n+\trm -f main\n");
	free(d);
}

static void test_diff_unicode(void **state)
{
	char *d = tl_diff_hunks("héllo wörld\n日本語\n🙂 ok\n", "héllo wörld\n日本\n🙂 ok\n");

	(void)state;
	assert_string_equal(d, "@@\n héllo wörld\n-日本語\n+日本\n 🙂 ok\n");
	free(d);
}

/* A file of many lines: the diff stays bounded in memory and size. */
static void test_diff_huge_input_is_cut(void **state)
{
	size_t n = 4u << 20;
	char *a = malloc(n + 1), *b = malloc(n + 1), *d;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	for (size_t i = 0; i < n; i++)
		a[i] = (i % 7 == 6) ? '\n' : 'a', b[i] = (i % 7 == 6) ? '\n' : (i % 3 ? 'b' : 'a');
	a[n] = b[n] = '\0';
	d = tl_diff_hunks(a, b);
	assert_non_null(d);
	assert_true(strlen(d) <= TL_DIFF_MAX + strlen(TL_CUT_MARK));
	assert_true(ends_cut(d));
	assert_memory_equal(d, "@@\n-aaaaaa\n", 11);
	free(d), free(a), free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_one_hunk_with_context),
		cmocka_unit_test(test_diff_distant_changes_are_two_hunks),
		cmocka_unit_test(test_diff_write_of_a_new_file),
		cmocka_unit_test(test_diff_multiedit),
		cmocka_unit_test(test_diff_unicode),
		cmocka_unit_test(test_diff_huge_input_is_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
