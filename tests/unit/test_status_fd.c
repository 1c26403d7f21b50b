/*
 * test_status_fd - the launcher's status fd from both ends: child_start
 * (lib/child.c) leaves the kept descriptor open across exec under its
 * number and nothing else of ours; the child takes it from HB_STATUS_FD
 * (common/status_fd.c: unset, close-on-exec, only a pipe) and its error
 * lines' text alone goes there (hb_log_errors_to), one line each, what
 * shape the log lines have notwithstanding; error_log.c's lines too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "error_log.h"
#include "log.h"
#include "rmtree.h"
#include "status_fd.h"

/* All that fd gives until its end. */
static void read_all(int fd, char *out, size_t outlen)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < outlen && (r = read(fd, out + n, outlen - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = '\0';
}

static void test_take(void **state)
{
	int fd[2], got, fl;
	char num[16];

	(void)state;
	unsetenv("HB_STATUS_FD");
	assert_int_equal(hb_status_fd_take(), -1);
	assert_int_equal(pipe(fd), 0);
	snprintf(num, sizeof num, "%d", fd[1]);
	setenv("HB_STATUS_FD", num, 1);
	got = hb_status_fd_take();
	assert_int_equal(got, fd[1]);
	assert_null(getenv("HB_STATUS_FD"));
	assert_true((fl = fcntl(got, F_GETFD)) >= 0 && (fl & FD_CLOEXEC));
	assert_true((fl = fcntl(got, F_GETFL)) >= 0 && (fl & O_NONBLOCK));
	/* not a number, stdin..stderr, a closed descriptor, a file that is no pipe */
	setenv("HB_STATUS_FD", "7x", 1);
	assert_int_equal(hb_status_fd_take(), -1);
	assert_null(getenv("HB_STATUS_FD"));
	setenv("HB_STATUS_FD", "2", 1);
	assert_int_equal(hb_status_fd_take(), -1);
	setenv("HB_STATUS_FD", "1000", 1);
	assert_int_equal(hb_status_fd_take(), -1);
	{
		int file = open("/dev/null", O_WRONLY);
		assert_true(file >= 0);
		snprintf(num, sizeof num, "%d", file);
		setenv("HB_STATUS_FD", num, 1);
		assert_int_equal(hb_status_fd_take(), -1);
		close(file);
	}
	close(fd[0]);
	close(fd[1]);
}

/* A child process: logs through hb_log with the status fd taken, as a
 * bridge's main does. */
static void test_error_text_goes_to_the_fd(void **state)
{
	int fd[2], st = 0;
	char num[16], text[1024], home[] = "/tmp/hbstatusfd.XXXXXX", err[256];
	pid_t pid;

	(void)state;
	assert_non_null(mkdtemp(home));
	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		close(fd[0]);
		dup2(devnull, STDERR_FILENO);
		snprintf(num, sizeof num, "%d", fd[1]);
		setenv("HB_STATUS_FD", num, 1);
		hb_log_init("test-bridge");
		hb_log_errors_to(hb_status_fd_take());
		log_info("k", "not a failure");
		log_warn("k", "not one either");
		log_error("k", "first failure %d", 1);
		log_error(NULL, "second failure\nover two lines");
		/* errors.log goes into a folder of the test's own */
		setenv("HB_HOME", home, 1);
		unsetenv("HB_DATA_DIR");
		hb_error_log("k", "third failure, %s", "through error_log.c");
		_exit(0);
	}
	close(fd[1]);
	read_all(fd[0], text, sizeof text);
	close(fd[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(hb_remove_tree(home, err, sizeof err), 0);
	assert_string_equal(text, "first failure 1\nsecond failure over two lines\nthird failure, through error_log.c\n");
}

/* child_start with keep: the program sees the descriptor under its
 * number (and writes there), the exec-failure pipe and other
 * close-on-exec descriptors of ours it does not. */
static void test_child_start_keeps_only_keep(void **state)
{
	int status[2], other[2], st = 0;
	char script[256], text[256];
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(status), 0);
	assert_int_equal(pipe(other), 0);
	assert_int_equal(fcntl(status[1], F_SETFD, FD_CLOEXEC), 0);
	assert_int_equal(fcntl(other[1], F_SETFD, FD_CLOEXEC), 0);
	snprintf(script, sizeof script, "echo said >&%d; (echo leaked >&%d) 2>/dev/null; exit 3", status[1], other[1]);
	{
		char *argv[] = { "sh", "-c", script, NULL };
		pid = child_start(&(struct child_exec){ .path = "/bin/sh", .argv = argv, .envp = NULL, .in = -1,
							.out = -1, .err = -1, .keep = status[1],
							.flags = CHILD_OWN_GROUP | CHILD_DEFAULT_SIGNALS },
				  text, sizeof text);
	}
	assert_true(pid > 0);
	close(status[1]);
	close(other[1]);
	read_all(status[0], text, sizeof text);
	assert_string_equal(text, "said\n");
	read_all(other[0], text, sizeof text);
	assert_string_equal(text, "");
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 3);
	close(status[0]);
	close(other[0]);
}

static void test_child_start_reports_exec_failure(void **state)
{
	char *argv[] = { "nothing", NULL }, err[256];
	pid_t pid;

	(void)state;
	pid = child_start(&(struct child_exec){ .path = "/nonexistent/program", .argv = argv, .in = -1, .out = -1,
						.err = -1, .keep = -1, .flags = 0 },
			  err, sizeof err);
	assert_int_equal(pid, -1);
	assert_non_null(strstr(err, "cannot execute /nonexistent/program: "));
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_take),
		cmocka_unit_test(test_error_text_goes_to_the_fd),
		cmocka_unit_test(test_child_start_keeps_only_keep),
		cmocka_unit_test(test_child_start_reports_exec_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
