/*
 * test_browser_confine - svc-browser's confine line in deploy/services.conf
 * gives it the DevToolsActivePort file of exactly the browser folders its
 * search looks in (discover_folders), and nothing else of ~/.config: the
 * two lists live apart (the config is declarative, the search is code),
 * so this keeps them from drifting.  A folder searched but not given
 * would never be read; one given but not searched is a file it need not
 * see.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../svc-browser/discover.h"

/* svc-browser's confine line, from here or the build's parent. */
static char *confine_line(void)
{
	const char *build = getenv("HB_BUILD");
	char path[700], line[4096], *out = NULL;
	int in_browser = 0;
	FILE *in;

	snprintf(path, sizeof path, "%s/../deploy/services.conf", build ? build : "build");
	if (!(in = fopen(path, "r")) && !(in = fopen("deploy/services.conf", "r")))
		fail_msg("deploy/services.conf not found");
	while (!out && fgets(line, sizeof line, in)) {
		if (line[0] == '[')
			in_browser = strncmp(line, "[service svc-browser]", 21) == 0;
		else if (in_browser && strncmp(line, "confine = ", 10) == 0)
			out = strdup(line + 10);
	}
	fclose(in);
	if (!out)
		fail_msg("svc-browser has no confine line");
	return out;
}

static void test_port_files_match_search(void **state)
{
	char dirs[DISCOVER_MAX][HB_PATH_MAX], want[HB_PATH_MAX + 64], *line;
	int n, given = 0;

	(void)state;
	setenv("XDG_CONFIG_HOME", "/xdg", 1);
	n = discover_folders(dirs, DISCOVER_MAX);
	assert_true(n > 0);
	line = confine_line();
	for (int i = 0; i < n; i++) {
		assert_true(strncmp(dirs[i], "/xdg/", 5) == 0);
		snprintf(want, sizeof want, " read=xdg-config/%s/DevToolsActivePort", dirs[i] + 5);
		if (!strstr(line, want))
			fail_msg("svc-browser searches %s but its confine line does not give%s", dirs[i], want);
	}
	for (const char *w = strstr(line, "xdg-config"); w; w = strstr(w + 1, "xdg-config"))
		given++;
	if (given != n)
		fail_msg("svc-browser's confine line names xdg-config %d times for %d folders searched: %s", given, n,
			 line);
	free(line);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_files_match_search),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
