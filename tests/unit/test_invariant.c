/*
 * test_invariant - common/invariant.h: HB_ASSERT names the file and line
 * of a broken invariant, aborts with HB_ASSERT_ABORT=1 (as under make
 * test), and only logs without it; a kept invariant says nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "invariant.h"

/* Run HB_ASSERT(value == 2) in a child with HB_ASSERT_ABORT as abort_env
 * (NULL: unset); its stderr into out, its wait status back; *line gets
 * the line of the HB_ASSERT. */
static int assert_in_child(int value, const char *abort_env, char *out, size_t outlen, int *line)
{
	int fd[2], st = 0;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	assert_int_equal(pipe(fd), 0);
	*line = __LINE__ + 9;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fd[1], STDERR_FILENO);
		if (abort_env)
			setenv("HB_ASSERT_ABORT", abort_env, 1);
		else
			unsetenv("HB_ASSERT_ABORT");
		HB_ASSERT(value == 2);
		_exit(0);
	}
	close(fd[1]);
	while (n + 1 < outlen && (r = read(fd[0], out + n, outlen - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	close(fd[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

static void test_broken_aborts_with_file_and_line(void **state)
{
	char out[1024], where[64];
	int line, st = assert_in_child(3, "1", out, sizeof out, &line);

	(void)state;
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGABRT);
	snprintf(where, sizeof where, "test_invariant.c:%d ", line);
	assert_non_null(strstr(out, where));
	assert_non_null(strstr(out, "invariant broken at "));
	assert_non_null(strstr(out, ": value == 2"));
}

static void test_broken_only_logs_without_the_variable(void **state)
{
	char out[1024];
	int line, st = assert_in_child(3, NULL, out, sizeof out, &line);

	(void)state;
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_non_null(strstr(out, "invariant broken at "));
	st = assert_in_child(3, "0", out, sizeof out, &line);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void test_kept_says_nothing(void **state)
{
	char out[1024];
	int line, st = assert_in_child(2, "1", out, sizeof out, &line);

	(void)state;
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_string_equal(out, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_broken_aborts_with_file_and_line),
		cmocka_unit_test(test_broken_only_logs_without_the_variable),
		cmocka_unit_test(test_kept_says_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
