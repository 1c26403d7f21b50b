/*
 * test_utf8 - lib/utf8.c, which every limit "in characters" and every
 * cut of a model's text goes through: strict checks, counts, offsets and
 * prefixes that never split a character, and the repair of answers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "utf8.h"

/* a, é (2 bytes), 日 (3), 🔔 (4): 4 characters in 10 bytes. */
#define MIXED "a\xc3\xa9\xe6\x97\xa5\xf0\x9f\x94\x94"

static void strict_checks(void **state)
{
	(void)state;
	assert_true(hb_utf8_valid(MIXED, strlen(MIXED)));
	assert_false(hb_utf8_valid("\xc0\xaf", 2));         /* overlong '/' */
	assert_false(hb_utf8_valid("\xed\xa0\x80", 3));     /* a surrogate */
	assert_false(hb_utf8_valid("\xf4\x90\x80\x80", 4)); /* past U+10FFFF */
	assert_false(hb_utf8_valid("\xe6\x97", 2));         /* cut short */
	assert_int_equal(hb_utf8_chars(MIXED), 4);
	assert_int_equal(hb_utf8_chars("\xff"), -1);
}

static void counts_and_offsets(void **state)
{
	size_t len = strlen(MIXED);

	(void)state;
	assert_int_equal(hb_utf8_count(MIXED, len), 4);
	assert_int_equal(hb_utf8_count(MIXED, 0), 0);
	assert_int_equal(hb_utf8_advance(MIXED, len, 0), 0);
	assert_int_equal(hb_utf8_advance(MIXED, len, 1), 1);
	assert_int_equal(hb_utf8_advance(MIXED, len, 2), 3);
	assert_int_equal(hb_utf8_advance(MIXED, len, 3), 6);
	assert_int_equal(hb_utf8_advance(MIXED, len, 4), len);
	assert_int_equal(hb_utf8_advance(MIXED, len, 99), len);
}

static void prefixes_keep_whole_characters(void **state)
{
	size_t len = strlen(MIXED);

	(void)state;
	/* By characters. */
	assert_int_equal(hb_utf8_fit(MIXED, len, 2, len), 3);
	assert_int_equal(hb_utf8_fit(MIXED, len, 0, len), 0);
	assert_int_equal(hb_utf8_fit(MIXED, len, 99, len), len);
	/* By bytes: a character that does not fit whole is left out. */
	assert_int_equal(hb_utf8_fit(MIXED, len, 99, 2), 1);
	assert_int_equal(hb_utf8_fit(MIXED, len, 99, 5), 3);
	assert_int_equal(hb_utf8_fit(MIXED, len, 99, 9), 6);
	assert_int_equal(hb_utf8_fit(MIXED, len, 3, 9), 6);
	/* Every byte budget gives a prefix that is itself valid. */
	for (size_t b = 0; b <= len; b++) {
		size_t n = hb_utf8_fit(MIXED, len, (size_t)-1, b);
		assert_true(n <= b);
		assert_true(hb_utf8_valid(MIXED, n));
	}
}

static void repair_replaces_bad_bytes(void **state)
{
	char *r = hb_utf8_repair("ok\xff" MIXED "\xe6\x97");

	(void)state;
	assert_non_null(r);
	assert_string_equal(r, "ok\xef\xbf\xbd" MIXED "\xef\xbf\xbd\xef\xbf\xbd");
	assert_true(hb_utf8_valid(r, strlen(r)));
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(strict_checks),
		cmocka_unit_test(counts_and_offsets),
		cmocka_unit_test(prefixes_keep_whole_characters),
		cmocka_unit_test(repair_replaces_bad_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
