/*
 * test_secrets - the environment an agent started by a service gets
 * (hb_env_without_secrets): every secret gone, however it is placed and
 * whatever it is next to, nothing else changed or reordered, and the copy
 * its own, so changing the process's environment afterwards leaves it be.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "secrets.h"

extern char **environ;

static void expect_env(char **got, const char *const *want)
{
	size_t i;

	assert_non_null(got);
	for (i = 0; want[i]; i++) {
		assert_non_null(got[i]);
		assert_string_equal(got[i], want[i]);
	}
	assert_null(got[i]);
}

static void test_secrets_left_out(void **state)
{
	char *env[] = { "GEMINI_API_KEY=first", "PATH=/usr/bin", "GEMINI_API_KEY_FILE=/k",
			"XGEMINI_API_KEY=x", "GEMINI_API_KEY=", "HOME=/home/u", "GEMINI_API_KEY", "A=GEMINI_API_KEY=1",
			NULL };
	const char *want[] = { "PATH=/usr/bin", "GEMINI_API_KEY_FILE=/k", "XGEMINI_API_KEY=x", "HOME=/home/u",
			       "A=GEMINI_API_KEY=1", NULL };
	char **got = hb_env_without_secrets(env, NULL);

	(void)state;
	expect_env(got, want);
	free(got);
}

static void test_every_secret_listed(void **state)
{
	char *env[8] = { "KEEP=1", NULL };
	char vars[6][64];
	size_t n = 1;
	const char *want[] = { "KEEP=1", NULL };
	char **got;

	(void)state;
	for (const char *const *s = hb_always_secret; *s && n < 7; s++, n++) {
		snprintf(vars[n - 1], sizeof vars[n - 1], "%s=value", *s);
		env[n] = vars[n - 1];
	}
	env[n] = NULL;
	assert_true(n > 1);
	got = hb_env_without_secrets(env, NULL);
	expect_env(got, want);
	free(got);
}

/* A Claude worker's host: the child-session markers go too. */
static void test_claude_markers_left_out(void **state)
{
	char *env[] = { "CLAUDECODE=1", "PATH=/usr/bin", "CLAUDE_CODE_SESSION_ID=parent", "GEMINI_API_KEY=k",
			"TRACEPARENT=00-x", "CLAUDE_CONFIG_DIR=/home/u/.claude", "AI_AGENT=x", NULL };
	const char *want[] = { "PATH=/usr/bin", "CLAUDE_CONFIG_DIR=/home/u/.claude", NULL };
	char **got = hb_env_without_secrets(env, hb_claude_child_markers);

	(void)state;
	expect_env(got, want);
	free(got);
}

static void test_empty(void **state)
{
	char *env[] = { NULL };
	char **got = hb_env_without_secrets(env, NULL);

	(void)state;
	assert_non_null(got);
	assert_null(got[0]);
	free(got);
	got = hb_env_without_secrets(NULL, NULL);
	assert_non_null(got);
	assert_null(got[0]);
	free(got);
}

/* The process's own environment, as svc-explainer gives it to its worker:
 * the key is there before, gone from the copy, and the copy stays as it
 * was when the process's environment changes after it. */
static void test_environ_copied(void **state)
{
	char **got;
	int keep = 0;

	(void)state;
	assert_int_equal(setenv("GEMINI_API_KEY", "sk-test-not-real", 1), 0);
	assert_int_equal(setenv("HB_TEST_SECRETS_KEEP", "kept", 1), 0);
	got = hb_env_without_secrets(environ, NULL);
	assert_non_null(got);
	assert_int_equal(setenv("HB_TEST_SECRETS_KEEP", "changed later", 1), 0);
	assert_int_equal(unsetenv("GEMINI_API_KEY"), 0);
	for (char **e = got; *e; e++) {
		assert_true(strncmp(*e, "GEMINI_API_KEY=", 15) != 0);
		if (strcmp(*e, "HB_TEST_SECRETS_KEEP=kept") == 0)
			keep++;
	}
	assert_int_equal(keep, 1);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_secrets_left_out),
		cmocka_unit_test(test_every_secret_listed),
		cmocka_unit_test(test_claude_markers_left_out),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_environ_copied),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
