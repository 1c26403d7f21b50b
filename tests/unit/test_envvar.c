/*
 * test_envvar - lib/envvar.c: integer settings from the environment,
 * and a child's environment with one variable set in place of its old
 * value.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "envvar.h"

static void test_getenv_int(void **state)
{
	(void)state;
	setenv("HB_TEST_INT", "42", 1);
	assert_int_equal(hb_getenv_int("HB_TEST_INT", 7, 0, 100), 42);
	assert_int_equal(hb_getenv_int("HB_TEST_INT", 7, 0, 10), 7);
	setenv("HB_TEST_INT", "4x", 1);
	assert_int_equal(hb_getenv_int("HB_TEST_INT", 7, 0, 100), 7);
	unsetenv("HB_TEST_INT");
	assert_int_equal(hb_getenv_int("HB_TEST_INT", 7, 0, 100), 7);
}

static void test_env_with(void **state)
{
	char *env[] = { "A=1", "CLAUDE_CONFIG_DIR=/old", "CLAUDE_CONFIG_DIRX=keep", "B=2", NULL };
	char **out;

	(void)state;
	out = hb_env_with(env, "CLAUDE_CONFIG_DIR", "/new dir");
	assert_non_null(out);
	assert_string_equal(out[0], "A=1");
	assert_string_equal(out[1], "CLAUDE_CONFIG_DIRX=keep");
	assert_string_equal(out[2], "B=2");
	assert_string_equal(out[3], "CLAUDE_CONFIG_DIR=/new dir");
	assert_null(out[4]);
	free(out);
	out = hb_env_with(NULL, "X", "");
	assert_non_null(out);
	assert_string_equal(out[0], "X=");
	assert_null(out[1]);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_getenv_int),
		cmocka_unit_test(test_env_with),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
