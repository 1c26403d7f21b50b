/*
 * itest_broker_gone - hbctl never waits for a broker that is not there:
 * with none ever started, or only a leftover file or socket where its
 * socket was, hbctl returns at once with exit 2; SIGKILL of hb-broker
 * during a slow `hbctl call` (default timeout, 600 s) ends hbctl with exit
 * 2 and a sentence, and a call on the socket the dead broker left behind
 * fails the same way.
 *
 * The bound (30 s) only keeps a broken build from holding the run for ten
 * minutes; it is twenty times below the timeout it guards against, so a
 * slow machine cannot make the test fail and the old behaviour cannot
 * pass it.
 */
#include "../harness/checks.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define BOUND_MS 30000   /* hbctl call's default timeout is 600 s */
#define WAIT_MS 10000    /* for the call to reach the service */

static const char echo_conf[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 2\n"
	"tools = echo sleep\n";

/* No --timeout: the default one is what must not be waited out. */
static const char *const slow_call[] = { "call", "sleep", "{\"ms\":600000}", NULL };

/* hbctl's output file, read whole (malloc'd). */
static char *output(struct fixture *f, const char *name)
{
	char path[400];

	snprintf(path, sizeof path, "%s/%s", f->dir, name);
	return fx_read_text(path);
}

/* hbctl (already started) must end within the bound with exit 2, saying
 * every want. */
static void assert_exits_2(struct fixture *f, pid_t hbctl, const char *name, const char *const *want)
{
	int status = fx_wait_bounded(hbctl, BOUND_MS);
	char *out = output(f, name);

	if (status == -1)
		fail_msg("hbctl was still waiting %d s after the broker died (stopped now); it said:\n%s",
			 BOUND_MS / 1000, out);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 2)
		fail_msg("hbctl ended with wait status %d, not exit 2; it said:\n%s", status, out);
	for (const char *const *w = want; *w; w++)
		if (!strstr(out, *w))
			fail_msg("\"%s\" not in hbctl's output:\n%s", *w, out);
	free(out);
}

/* With no broker ever started, and where a dead one left its socket file. */
static void test_hbctl_without_broker(void **state)
{
	static const char *const status[] = { "status", NULL };
	struct fixture *f = *state;
	struct sockaddr_un addr;
	char path[1200], *out;
	int fd;

	ck_prepare(f, echo_conf);
	assert_int_equal(fx_hbctl(f, &out, status), 2);
	assert_non_null(strstr(out, "no hb-broker is running"));
	free(out);

	/* A leftover regular file where the socket was. */
	snprintf(path, sizeof path, "%s/run", f->dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/run/front.sock", f->dir);
	assert_true((fd = open(path, O_WRONLY | O_CREAT, 0600)) >= 0);
	close(fd);
	assert_int_equal(fx_hbctl(f, &out, status), 2);
	assert_non_null(strstr(out, "hb-broker"));
	free(out);

	/* A leftover socket of a dead broker: bound, then closed, never removed. */
	assert_int_equal(unlink(path), 0);
	memset(&addr, 0, sizeof addr);
	addr.sun_family = AF_UNIX;
	assert_true(strlen(path) < sizeof addr.sun_path);
	memcpy(addr.sun_path, path, strlen(path) + 1);
	assert_true((fd = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof addr), 0);
	close(fd);
	assert_int_equal(fx_hbctl(f, &out, status), 2);
	assert_non_null(strstr(out, "hb-broker"));
	free(out);
	ck_finish(f);
}

/* Until the slow call runs in svc-echo. */
static void wait_call_in_service(struct fixture *f)
{
	long long deadline = fx_now_ms() + WAIT_MS;

	while (fx_service_num(f, "svc-echo", "callsInFlight") < 1 && fx_now_ms() < deadline)
		fx_sleep_ms(20);
	assert_int_equal(fx_service_num(f, "svc-echo", "callsInFlight"), 1);
}

static void test_call_ends_when_broker_dies(void **state)
{
	struct fixture *f = *state;
	char gone[64];
	const char *want[] = { gone, "went away", "outcome", "unknown", NULL };
	pid_t hbctl, broker;
	int st;

	assert_int_equal(fx_start(f, echo_conf, NULL), 0);
	broker = f->broker;
	hbctl = fx_spawn_prog(f, "hbctl", slow_call, NULL, "call.out");
	assert_true(hbctl > 0);
	/* Kill the broker only once the call runs in the service. */
	wait_call_in_service(f);
	assert_int_equal(kill(broker, SIGKILL), 0);
	while (waitpid(broker, &st, 0) < 0 && errno == EINTR)
		;
	f->broker = 0;
	snprintf(gone, sizeof gone, "hb-broker (pid %ld) went away", (long)broker);
	assert_exits_2(f, hbctl, "call.out", want);
}

/* The dead broker's socket is still there: nothing listens on it. */
static void test_call_on_stale_socket(void **state)
{
	struct fixture *f = *state;
	const char *want[] = { "hb-broker", NULL };
	char sock[400];
	struct stat sb;
	pid_t hbctl;
	int st;

	assert_int_equal(fx_start(f, echo_conf, NULL), 0);
	assert_int_equal(kill(f->broker, SIGKILL), 0);
	while (waitpid(f->broker, &st, 0) < 0 && errno == EINTR)
		;
	f->broker = 0;
	snprintf(sock, sizeof sock, "%s/run/front.sock", f->dir);
	assert_int_equal(stat(sock, &sb), 0);
	hbctl = fx_spawn_prog(f, "hbctl", slow_call, NULL, "stale.out");
	assert_true(hbctl > 0);
	assert_exits_2(f, hbctl, "stale.out", want);
}

/* A stopped broker (SIGSTOP) is said, not waited on: a slow call ends
 * with the pid and how to resume it, long before its 600 s. */
static void test_call_to_stopped_broker(void **state)
{
	struct fixture *f = *state;
	char stopped[64];
	const char *want[] = { stopped, "is stopped", "kill -CONT", NULL };
	pid_t hbctl;

	assert_int_equal(fx_start(f, echo_conf, NULL), 0);
	hbctl = fx_spawn_prog(f, "hbctl", slow_call, NULL, "stopped.out");
	assert_true(hbctl > 0);
	wait_call_in_service(f);
	assert_int_equal(kill(f->broker, SIGSTOP), 0);
	snprintf(stopped, sizeof stopped, "hb-broker (pid %ld)", (long)f->broker);
	assert_exits_2(f, hbctl, "stopped.out", want);
	assert_int_equal(kill(f->broker, SIGCONT), 0);
	ck_finish(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ck_unit_test(test_hbctl_without_broker),
		ck_unit_test(test_call_to_stopped_broker),
		ck_unit_test(test_call_ends_when_broker_dies),
		ck_unit_test(test_call_on_stale_socket),
	};

	return ck_run_group_tests(tests, NULL, NULL);
}
