/*
 * test_claude_account - the Claude accounts (agents/claude_account.c):
 * names, the active account from settings.json or the environment, an
 * added account's folder linked to the main one except for its own
 * sign-in entries, refreshed when the main folder changes, and removed
 * without touching what its links point at.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "claude_account.h"
#include "paths.h"
#include "settings.h"
#include "../harness/tmp_home.h"

static char home[64], main_dir[128];

static int make_home(void **state)
{
	(void)state;
	if (fx_tmp_home(home, sizeof home, "hbclacct", "HB_CLAUDE_ACCOUNT", (char *)NULL) < 0)
		return -1;
	snprintf(main_dir, sizeof main_dir, "%s/claude-main", home);
	setenv("CLAUDE_CONFIG_DIR", main_dir, 1);
	return mkdir(main_dir, 0700);
}

static int remove_home(void **state)
{
	(void)state;
	unsetenv("CLAUDE_CONFIG_DIR");
	return fx_tmp_home_remove(home);
}

static void resolve(struct hb_paths *p)
{
	char err[256];

	assert_int_equal(hb_paths_resolve(p, err, sizeof err), 0);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* What entry of the account folder is: 'l' a link to the main folder's
 * entry, 'f' a file or folder of its own, '-' nothing. */
static char entry(const char *acct, const char *name)
{
	char path[PATH_MAX], target[PATH_MAX], want[PATH_MAX];
	struct stat st;
	ssize_t n;

	snprintf(path, sizeof path, "%s/%s", acct, name);
	if (lstat(path, &st) < 0)
		return '-';
	if (!S_ISLNK(st.st_mode))
		return 'f';
	n = readlink(path, target, sizeof target - 1);
	assert_true(n > 0);
	target[n] = '\0';
	snprintf(want, sizeof want, "%s/%s", main_dir, name);
	assert_string_equal(target, want);
	return 'l';
}

static void test_names(void **state)
{
	(void)state;
	assert_true(hb_claude_account_name_ok("work"));
	assert_true(hb_claude_account_name_ok("team-2_b"));
	assert_true(hb_claude_account_name_ok("0abcdefghijklmnopqrstuvwxyz12345"));	/* 32 */
	assert_false(hb_claude_account_name_ok("0abcdefghijklmnopqrstuvwxyz123456"));	/* 33 */
	assert_false(hb_claude_account_name_ok(""));
	assert_false(hb_claude_account_name_ok(NULL));
	assert_false(hb_claude_account_name_ok("default"));
	assert_false(hb_claude_account_name_ok("Work"));
	assert_false(hb_claude_account_name_ok("-x"));
	assert_false(hb_claude_account_name_ok("../x"));
	assert_false(hb_claude_account_name_ok("a/b"));
	assert_false(hb_claude_account_name_ok("a b"));
}

static void test_main_dir(void **state)
{
	char dir[PATH_MAX], err[256], *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;

	(void)state;
	assert_int_equal(hb_claude_main_dir(dir, sizeof dir, err, sizeof err), 0);
	assert_string_equal(dir, main_dir);
	unsetenv("CLAUDE_CONFIG_DIR");
	setenv("HOME", "/home/someone", 1);
	assert_int_equal(hb_claude_main_dir(dir, sizeof dir, err, sizeof err), 0);
	assert_string_equal(dir, "/home/someone/.claude");
	unsetenv("HOME");
	assert_int_equal(hb_claude_main_dir(dir, sizeof dir, err, sizeof err), -1);
	assert_non_null(strstr(err, "neither CLAUDE_CONFIG_DIR nor HOME is set"));
	if (old_home)
		setenv("HOME", old_home, 1);
	free(old_home);
	setenv("CLAUDE_CONFIG_DIR", main_dir, 1);
}

static void test_link_refresh_remove(void **state)
{
	struct hb_paths p;
	char acct[PATH_MAX], err[512], path[PATH_MAX];
	struct stat st;

	(void)state;
	resolve(&p);
	put(main_dir, "settings.json", "{}");
	put(main_dir, "CLAUDE.md", "be brief");
	put(main_dir, ".credentials.json", "main's sign-in");
	put(main_dir, ".claude.json", "{}");
	assert_false(hb_claude_account_exists(&p, "work"));
	assert_int_equal(hb_claude_account_link(&p, "work", 0, err, sizeof err), -1);
	assert_non_null(strstr(err, "there is no Claude account \"work\""));

	assert_int_equal(hb_claude_account_link(&p, "work", 1, err, sizeof err), 0);
	assert_true(hb_claude_account_exists(&p, "work"));
	assert_int_equal(hb_claude_account_dir(&p, "work", acct, sizeof acct, err, sizeof err), 0);
	snprintf(path, sizeof path, "%s/claude-accounts/work", p.data);
	assert_string_equal(acct, path);
	assert_int_equal(stat(acct, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	/* linked: the settings, the instructions, and the conversations,
	 * which the main folder now has even before Claude's first run */
	assert_int_equal(entry(acct, "settings.json"), 'l');
	assert_int_equal(entry(acct, "CLAUDE.md"), 'l');
	assert_int_equal(entry(acct, "projects"), 'l');
	snprintf(path, sizeof path, "%s/projects", main_dir);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	/* the sign-in is the account's own: never linked */
	assert_int_equal(entry(acct, ".credentials.json"), '-');
	assert_int_equal(entry(acct, ".claude.json"), '-');

	/* Claude signs in there and writes its own files; the main folder
	 * gains an entry and loses one */
	put(acct, ".credentials.json", "work's sign-in");
	put(acct, "statsig", "the account's own");
	put(main_dir, "statsig", "main's");
	put(main_dir, "agents", "new");
	snprintf(path, sizeof path, "%s/CLAUDE.md", main_dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(hb_claude_account_link(&p, "work", 0, err, sizeof err), 0);
	assert_int_equal(entry(acct, "agents"), 'l');
	assert_int_equal(entry(acct, "CLAUDE.md"), '-');
	assert_int_equal(entry(acct, "statsig"), 'f');
	assert_int_equal(entry(acct, ".credentials.json"), 'f');

	/* removing the account removes its folder, never what it links to */
	assert_int_equal(hb_claude_account_remove(&p, "work", err, sizeof err), 0);
	assert_false(hb_claude_account_exists(&p, "work"));
	snprintf(path, sizeof path, "%s/settings.json", main_dir);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof path, "%s/projects", main_dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(hb_claude_account_remove(&p, "work", err, sizeof err), -1);
	assert_non_null(strstr(err, "there is no Claude account \"work\""));
	assert_int_equal(hb_claude_account_remove(&p, "../data", err, sizeof err), -1);
	assert_non_null(strstr(err, "is not an account name"));
}

static void test_active_account(void **state)
{
	struct hb_paths p;
	char name[HB_CLAUDE_ACCOUNT_NAME_MAX], dir[PATH_MAX], want[PATH_MAX], err[512];

	(void)state;
	resolve(&p);
	assert_int_equal(hb_claude_account_active(&p, name, sizeof name, err, sizeof err), 0);
	assert_string_equal(name, "default");
	assert_int_equal(hb_claude_account_for_run(&p, name, sizeof name, dir, sizeof dir, err, sizeof err), 0);
	assert_string_equal(name, "default");
	assert_string_equal(dir, "");

	assert_int_equal(hb_settings_param_set(&p, HB_PARAM_CLAUDE_ACCOUNT, "team", err, sizeof err), 0);
	assert_int_equal(hb_claude_account_active(&p, name, sizeof name, err, sizeof err), -1);
	assert_non_null(strstr(err, "the active Claude account \"team\" does not exist"));
	assert_int_equal(hb_claude_account_link(&p, "team", 1, err, sizeof err), 0);
	assert_int_equal(hb_claude_account_for_run(&p, name, sizeof name, dir, sizeof dir, err, sizeof err), 0);
	assert_string_equal(name, "team");
	snprintf(want, sizeof want, "%s/claude-accounts/team", p.data);
	assert_string_equal(dir, want);

	/* the environment wins, as for every setting */
	setenv("HB_CLAUDE_ACCOUNT", "default", 1);
	assert_int_equal(hb_claude_account_active(&p, name, sizeof name, err, sizeof err), 0);
	assert_string_equal(name, "default");
	unsetenv("HB_CLAUDE_ACCOUNT");
	assert_int_equal(hb_settings_param_set(&p, HB_PARAM_CLAUDE_ACCOUNT, NULL, err, sizeof err), 0);
	assert_int_equal(hb_claude_account_remove(&p, "team", err, sizeof err), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test_setup_teardown(test_main_dir, make_home, remove_home),
		cmocka_unit_test_setup_teardown(test_link_refresh_remove, make_home, remove_home),
		cmocka_unit_test_setup_teardown(test_active_account, make_home, remove_home),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
