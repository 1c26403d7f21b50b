/*
 * itest_broker_gone - hbctl never waits out its call timeout for a broker
 * that is gone: SIGKILL of hb-broker during a slow `hbctl call` (default
 * timeout, 600 s) ends hbctl with exit 2 and a sentence, and a call on the
 * socket the dead broker left behind fails the same way.
 *
 * The bound (30 s) only keeps a broken build from holding the run for ten
 * minutes; it is twenty times below the timeout it guards against, so a
 * slow machine cannot make the test fail and the old behaviour cannot
 * pass it.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../harness/harness.h"

#define BOUND_MS 30000   /* hbctl call's default timeout is 600 s */
#define WAIT_MS 10000    /* for the call to reach the service */

static const char echo_conf[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 2\n"
	"tools = echo sleep\n";

/* No --timeout: the default one is what must not be waited out. */
static const char *const slow_call[] = { "call", "sleep", "{\"ms\":600000}", NULL };

static struct fixture F;

static int teardown(void **state)
{
	(void)state;
	if (F.dir[0])
		fx_stop(&F, NULL);
	memset(&F, 0, sizeof F);
	return 0;
}

/* hbctl's output file, read whole (malloc'd). */
static char *output(const char *name)
{
	char path[400];

	snprintf(path, sizeof path, "%s/%s", F.dir, name);
	return fx_read_text(path);
}

/* hbctl (already started) must end within the bound with exit 2, saying
 * every want. */
static void assert_exits_2(pid_t hbctl, const char *name, const char *const *want)
{
	int status = fx_wait_bounded(hbctl, BOUND_MS);
	char *out = output(name);

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

static void test_call_ends_when_broker_dies(void **state)
{
	char gone[64];
	const char *want[] = { gone, "went away", "outcome", "unknown", NULL };
	long long deadline;
	pid_t hbctl, broker;
	int st;

	(void)state;
	assert_int_equal(fx_start(&F, echo_conf, NULL), 0);
	broker = F.broker;
	hbctl = fx_spawn_prog(&F, "hbctl", slow_call, NULL, "call.out");
	assert_true(hbctl > 0);
	/* Kill the broker only once the call runs in the service. */
	deadline = fx_now_ms() + WAIT_MS;
	while (fx_service_num(&F, "svc-echo", "callsInFlight") < 1 && fx_now_ms() < deadline)
		fx_sleep_ms(20);
	assert_int_equal(fx_service_num(&F, "svc-echo", "callsInFlight"), 1);
	assert_int_equal(kill(broker, SIGKILL), 0);
	while (waitpid(broker, &st, 0) < 0 && errno == EINTR)
		;
	F.broker = 0;
	snprintf(gone, sizeof gone, "hb-broker (pid %ld) went away", (long)broker);
	assert_exits_2(hbctl, "call.out", want);
}

/* The dead broker's socket is still there: nothing listens on it. */
static void test_call_on_stale_socket(void **state)
{
	const char *want[] = { "hb-broker", NULL };
	char sock[400];
	struct stat sb;
	pid_t hbctl;
	int st;

	(void)state;
	assert_int_equal(fx_start(&F, echo_conf, NULL), 0);
	assert_int_equal(kill(F.broker, SIGKILL), 0);
	while (waitpid(F.broker, &st, 0) < 0 && errno == EINTR)
		;
	F.broker = 0;
	snprintf(sock, sizeof sock, "%s/run/front.sock", F.dir);
	assert_int_equal(stat(sock, &sb), 0);
	hbctl = fx_spawn_prog(&F, "hbctl", slow_call, NULL, "stale.out");
	assert_true(hbctl > 0);
	assert_exits_2(hbctl, "stale.out", want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_call_ends_when_broker_dies, teardown),
		cmocka_unit_test_teardown(test_call_on_stale_socket, teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
