/*
 * group - run a test program's cmocka group the way every program here
 * should: SIGPIPE ignored (a peer that goes away must not end the
 * program), HB_TEST_FILTER=name (wildcards * and ?) to run only the tests
 * it matches, and a failed group setup or teardown counted as a failure
 * (cmocka 1.1.5 prints it but returns 0).
 */
#ifndef HB_GROUP_H
#define HB_GROUP_H

/* cmocka.h needs these before it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define ck_run_group_tests(tests, setup, teardown) ck_run_group_tests_name(#tests, tests, setup, teardown)
#define ck_run_group_tests_name(name, tests, setup, teardown) \
	ck_run_group(name, tests, sizeof(tests) / sizeof((tests)[0]), setup, teardown)

/* The number of failed tests, plus one if the group setup or teardown
 * failed. */
int ck_run_group(const char *name, const struct CMUnitTest *tests, size_t count, CMFixtureFunction setup,
		 CMFixtureFunction teardown);

#endif
