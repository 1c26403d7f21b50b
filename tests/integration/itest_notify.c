/*
 * itest_notify - the broker speaks systemd's notify protocol: READY=1 on
 * $NOTIFY_SOCKET once its sockets are bound and its services are up, and
 * STOPPING=1 when it begins to shut down (what Type=notify relies on).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness/harness.h"

static const char echo_conf[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"tools = echo\n";

/* A datagram socket bound at path, as systemd's is. */
static int notify_socket(const char *path)
{
	struct sockaddr_un addr;
	struct timeval tv = { 10, 0 };
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

	assert_true(fd >= 0);
	memset(&addr, 0, sizeof addr);
	addr.sun_family = AF_UNIX;
	snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof addr), 0);
	assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv), 0);
	return fd;
}

static void test_ready_and_stopping(void **state)
{
	struct fixture f;
	char path[100], env[128], buf[256];
	const char *envs[] = { env, NULL };
	json_t *st;
	ssize_t n;
	int fd, status;

	(void)state;
	snprintf(path, sizeof path, "/tmp/hbnotify.%ld", (long)getpid());
	unlink(path);
	fd = notify_socket(path);
	snprintf(env, sizeof env, "NOTIFY_SOCKET=%s", path);
	assert_int_equal(fx_start(&f, echo_conf, envs), 0);

	n = recv(fd, buf, sizeof buf - 1, 0);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(strstr(buf, "READY=1"));
	/* READY means serving: the service is up and answers at once. */
	st = fx_status(&f);
	assert_non_null(st);
	json_decref(st);
	assert_int_equal(fx_service_num(&f, "svc-echo", "generation"), 1);

	assert_int_equal(kill(f.broker, SIGTERM), 0);
	n = recv(fd, buf, sizeof buf - 1, 0);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(strstr(buf, "STOPPING=1"));
	assert_int_equal(fx_stop(&f, &status), 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(fd);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ready_and_stopping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
