/*
 * group - running a test program's cmocka group (see group.h).  Here
 * once, because cmocka 1.1.5 prints a failed group setup or teardown but
 * does not count it: a broker stopped in a group teardown that reported a
 * leak under LeakSanitizer left the program's exit status at 0.
 */
#include "group.h"

#include <signal.h>
#include <stdlib.h>

/* The group fixtures of the running ck_run_group, and whether one failed:
 * cmocka calls them without a context of ours. */
static CMFixtureFunction group_setup, group_teardown;
static int group_fixture_failed;

static int counted_setup(void **state)
{
	int rc = group_setup(state);

	group_fixture_failed |= rc != 0;
	return rc;
}

static int counted_teardown(void **state)
{
	int rc = group_teardown(state);

	group_fixture_failed |= rc != 0;
	return rc;
}

int ck_run_group(const char *name, const struct CMUnitTest *tests, size_t count, CMFixtureFunction setup,
		 CMFixtureFunction teardown)
{
	const char *filter = getenv("HB_TEST_FILTER");
	int failed;

	signal(SIGPIPE, SIG_IGN);
	if (filter)
		cmocka_set_test_filter(filter);
	group_setup = setup;
	group_teardown = teardown;
	group_fixture_failed = 0;
	failed = _cmocka_run_group_tests(name, tests, count, setup ? counted_setup : NULL,
					 teardown ? counted_teardown : NULL);
	return failed + group_fixture_failed;
}
