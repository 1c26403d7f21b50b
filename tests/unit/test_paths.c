/*
 * test_paths - where the four hbcode directories land for each combination
 * of HB_HOME, HB_*_DIR, XDG_* and HOME, plus hb_mkdir_p, hb_path_join,
 * the unix-socket length limit of hb_ipc_endpoint, and the private-folder
 * checks (hb_dir_make_private and friends): a folder of the wrong mode, a
 * symbolic link or a folder of another user in its place is refused with
 * a sentence; a fresh folder is made 0700 whatever the umask.
 *
 * Every test starts from a clean environment (all these variables unset)
 * and sets only what it needs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "paths.h"

static const char *const all_vars[] = {
	"HB_HOME", "HB_DATA_DIR", "HB_CACHE_DIR", "HB_CONFIG_DIR", "HB_RUNTIME_DIR",
	"XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "HOME", NULL,
};

static int clean_env(void **state)
{
	(void)state;
	for (const char *const *v = all_vars; *v; v++)
		unsetenv(*v);
	return 0;
}

static void resolve(struct hb_paths *p)
{
	char err[256] = "";

	memset(p, 0x55, sizeof *p);
	if (hb_paths_resolve(p, err, sizeof err) != 0)
		fail_msg("hb_paths_resolve failed: %s", err);
}

static void test_hb_home(void **state)
{
	struct hb_paths p;

	(void)state;
	setenv("HB_HOME", "/srv/hb", 1);
	setenv("HOME", "/home/u", 1);
	setenv("XDG_DATA_HOME", "/x/data", 1);
	setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
	resolve(&p);
	assert_string_equal(p.data, "/srv/hb/data");
	assert_string_equal(p.cache, "/srv/hb/cache");
	assert_string_equal(p.config, "/srv/hb/config");
	assert_string_equal(p.runtime, "/srv/hb/run");
}

/* Each per-directory variable wins over HB_HOME for its directory only. */
static void test_override_wins_over_hb_home(void **state)
{
	static const struct {
		const char *var;
		size_t which; /* offset in struct hb_paths */
	} rules[] = {
		{ "HB_DATA_DIR", offsetof(struct hb_paths, data) },
		{ "HB_CACHE_DIR", offsetof(struct hb_paths, cache) },
		{ "HB_CONFIG_DIR", offsetof(struct hb_paths, config) },
		{ "HB_RUNTIME_DIR", offsetof(struct hb_paths, runtime) },
	};
	static const char *const under_home[] = { "/h/data", "/h/cache", "/h/config", "/h/run" };

	(void)state;
	for (size_t r = 0; r < 4; r++) {
		struct hb_paths p;

		clean_env(NULL);
		setenv("HB_HOME", "/h", 1);
		setenv("XDG_DATA_HOME", "/x", 1);
		setenv(rules[r].var, "/elsewhere/dir", 1);
		resolve(&p);
		for (size_t d = 0; d < 4; d++) {
			const char *got = (const char *)&p + rules[d].which;

			if (d == r)
				assert_string_equal(got, "/elsewhere/dir");
			else
				assert_string_equal(got, under_home[d]);
		}
	}
}

/* An empty variable counts as unset. */
static void test_empty_values_ignored(void **state)
{
	struct hb_paths p;

	(void)state;
	setenv("HB_DATA_DIR", "", 1);
	setenv("HB_HOME", "", 1);
	setenv("HOME", "/home/u", 1);
	setenv("XDG_CACHE_HOME", "", 1);
	resolve(&p);
#ifdef __APPLE__
	assert_string_equal(p.data, "/home/u/Library/Application Support/hbcode");
#else
	assert_string_equal(p.data, "/home/u/.local/share/hbcode");
	assert_string_equal(p.cache, "/home/u/.cache/hbcode");
#endif
}

#ifndef __APPLE__
static void test_xdg(void **state)
{
	struct hb_paths p;

	(void)state;
	setenv("HOME", "/home/u", 1);
	setenv("XDG_DATA_HOME", "/x/share", 1);
	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	setenv("XDG_CONFIG_HOME", "/x/config", 1);
	setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
	resolve(&p);
	assert_string_equal(p.data, "/x/share/hbcode");
	assert_string_equal(p.cache, "/x/cache/hbcode");
	assert_string_equal(p.config, "/x/config/hbcode");
	assert_string_equal(p.runtime, "/run/user/1000/hbcode");

	/* HB_* still wins over XDG_*. */
	setenv("HB_RUNTIME_DIR", "/tmp/t1", 1);
	setenv("HB_HOME", "/h", 1);
	resolve(&p);
	assert_string_equal(p.data, "/h/data");
	assert_string_equal(p.runtime, "/tmp/t1");
}

static void test_home_fallbacks(void **state)
{
	struct hb_paths p;
	char want[64];

	(void)state;
	setenv("HOME", "/home/u", 1);
	resolve(&p);
	assert_string_equal(p.data, "/home/u/.local/share/hbcode");
	assert_string_equal(p.cache, "/home/u/.cache/hbcode");
	assert_string_equal(p.config, "/home/u/.config/hbcode");
	/* No XDG_RUNTIME_DIR: a per-user folder in /tmp. */
	snprintf(want, sizeof want, "/tmp/hbcode-%ld", (long)getuid());
	assert_string_equal(p.runtime, want);

	/* Mixed: one XDG variable set, the others from HOME. */
	setenv("XDG_CONFIG_HOME", "/cfg", 1);
	resolve(&p);
	assert_string_equal(p.config, "/cfg/hbcode");
	assert_string_equal(p.data, "/home/u/.local/share/hbcode");
}

static void test_runtime_needs_no_home(void **state)
{
	struct hb_paths p;
	char err[256] = "";

	(void)state;
	/* Without HOME the data directory has nowhere to go... */
	assert_int_equal(hb_paths_resolve(&p, err, sizeof err), -1);
	assert_non_null(strstr(err, "HOME"));
	assert_non_null(strstr(err, "HB_DATA_DIR"));
	/* ...but with the three others placed, the runtime one falls back to /tmp. */
	setenv("XDG_DATA_HOME", "/d", 1);
	setenv("XDG_CACHE_HOME", "/c", 1);
	setenv("XDG_CONFIG_HOME", "/f", 1);
	resolve(&p);
	assert_int_equal(strncmp(p.runtime, "/tmp/hbcode-", 12), 0);
}
#else
static void test_macos_library(void **state)
{
	struct hb_paths p;

	(void)state;
	setenv("HOME", "/Users/u", 1);
	setenv("XDG_DATA_HOME", "/ignored", 1);
	resolve(&p);
	assert_string_equal(p.data, "/Users/u/Library/Application Support/hbcode");
	assert_string_equal(p.cache, "/Users/u/Library/Caches/hbcode");
	assert_string_equal(p.config, "/Users/u/Library/Preferences/hbcode");
}
#endif

static void test_nothing_set_is_an_error(void **state)
{
	struct hb_paths p;
	char err[256] = "";

	(void)state;
	assert_int_equal(hb_paths_resolve(&p, err, sizeof err), -1);
	assert_true(err[0] != '\0');
}

static void test_too_long(void **state)
{
	struct hb_paths p;
	char err[256] = "", *long_dir = malloc(HB_PATH_MAX + 10);

	(void)state;
	assert_non_null(long_dir);
	long_dir[0] = '/';
	memset(long_dir + 1, 'a', HB_PATH_MAX + 8);
	long_dir[HB_PATH_MAX + 9] = '\0';
	setenv("HB_HOME", long_dir, 1);
	assert_int_equal(hb_paths_resolve(&p, err, sizeof err), -1);
	assert_non_null(strstr(err, "too long"));
	/* A value that fits alone but not with "/config" appended. */
	long_dir[HB_PATH_MAX - 4] = '\0';
	setenv("HB_HOME", long_dir, 1);
	assert_int_equal(hb_paths_resolve(&p, err, sizeof err), -1);
	free(long_dir);
}

/* A fresh temporary directory; the tests below work inside it. */
static char tmp_root[64];

static int make_tmp(void **state)
{
	(void)state;
	snprintf(tmp_root, sizeof tmp_root, "/tmp/hb-test-paths-XXXXXX");
	return mkdtemp(tmp_root) ? 0 : -1;
}

static int remove_tmp(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
	return system(cmd) == 0 ? 0 : -1;
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		fail_msg("stat %s: %s", path, strerror(errno));
	assert_true(S_ISDIR(st.st_mode));
	return st.st_mode & 07777;
}

static void test_mkdir_p(void **state)
{
	char path[256], mid[256];
	mode_t old = umask(022);

	(void)state;
	snprintf(path, sizeof path, "%s/a/b/c", tmp_root);
	assert_int_equal(hb_mkdir_p(path, 0700), 0);
	assert_int_equal(mode_of(path), 0700);
	/* Parents are made private too. */
	snprintf(mid, sizeof mid, "%s/a/b", tmp_root);
	assert_int_equal(mode_of(mid), 0700);
	/* Again on the existing tree: fine, nothing changes. */
	assert_int_equal(hb_mkdir_p(path, 0700), 0);
	assert_int_equal(mode_of(path), 0700);
	/* Another mode for the last component (less the umask). */
	snprintf(path, sizeof path, "%s/a/b/d", tmp_root);
	assert_int_equal(hb_mkdir_p(path, 0750), 0);
	assert_int_equal(mode_of(path), 0750);
	/* Doubled slashes do no harm. */
	snprintf(path, sizeof path, "%s//e//f", tmp_root);
	assert_int_equal(hb_mkdir_p(path, 0700), 0);
	snprintf(path, sizeof path, "%s/e/f", tmp_root);
	assert_int_equal(mode_of(path), 0700);
	umask(old);
}

static void test_mkdir_p_errors(void **state)
{
	char path[HB_PATH_MAX + 16];
	FILE *f;

	(void)state;
	assert_int_equal(hb_mkdir_p("", 0700), -1);
	memset(path, 'a', sizeof path - 1);
	path[0] = '/';
	path[sizeof path - 1] = '\0';
	errno = 0;
	assert_int_equal(hb_mkdir_p(path, 0700), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	/* A parent that is a regular file. */
	snprintf(path, sizeof path, "%s/file", tmp_root);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(path, sizeof path, "%s/file/sub", tmp_root);
	assert_int_equal(hb_mkdir_p(path, 0700), -1);
}

static void test_path_join(void **state)
{
	char out[16];

	(void)state;
	assert_int_equal(hb_path_join(out, sizeof out, "/a/b", "c.db"), 0);
	assert_string_equal(out, "/a/b/c.db");
	/* 15 characters fit in 16 bytes, 16 do not. */
	assert_int_equal(hb_path_join(out, sizeof out, "/aaaaaaaaa", "bbbb"), 0);
	assert_int_equal(hb_path_join(out, sizeof out, "/aaaaaaaaa", "bbbbb"), -1);
}

static void test_ipc_endpoint(void **state)
{
	struct hb_paths p;
	char out[HB_PATH_MAX + 32];
	size_t name_len = strlen("front.sock");

	(void)state;
	memset(&p, 0, sizeof p);
	snprintf(p.runtime, sizeof p.runtime, "/run/user/1000/hbcode");
	assert_int_equal(hb_ipc_endpoint(out, sizeof out, &p, "front.sock"), 0);
	assert_string_equal(out, "ipc:///run/user/1000/hbcode/front.sock");

	/* runtime + "/" + name of exactly HB_IPC_PATH_MAX characters is the longest allowed. */
	memset(p.runtime, 0, sizeof p.runtime);
	p.runtime[0] = '/';
	memset(p.runtime + 1, 'r', HB_IPC_PATH_MAX - 1 - name_len - 1);
	assert_int_equal(strlen(p.runtime) + 1 + name_len, HB_IPC_PATH_MAX);
	assert_int_equal(hb_ipc_endpoint(out, sizeof out, &p, "front.sock"), 0);
	assert_int_equal(strlen(out), strlen("ipc://") + HB_IPC_PATH_MAX);
	/* One more is refused: it would not fit a unix socket address. */
	p.runtime[strlen(p.runtime)] = 'r';
	assert_int_equal(hb_ipc_endpoint(out, sizeof out, &p, "front.sock"), -1);

	/* A long runtime directory, as a deep HB_HOME gives. */
	memset(p.runtime, 0, sizeof p.runtime);
	p.runtime[0] = '/';
	memset(p.runtime + 1, 'd', 120);
	assert_int_equal(hb_ipc_endpoint(out, sizeof out, &p, "x"), -1);

	/* An output buffer too small. */
	snprintf(p.runtime, sizeof p.runtime, "/run/hb");
	assert_int_equal(hb_ipc_endpoint(out, 10, &p, "front.sock"), -1);
}


/* ---- private folders ---------------------------------------------------- */

/* p with every folder at path (the tests pick which one they judge). */
static void paths_at(struct hb_paths *p, const char *path)
{
	memset(p, 0, sizeof *p);
	snprintf(p->data, sizeof p->data, "%s", path);
	snprintf(p->cache, sizeof p->cache, "%s", path);
	snprintf(p->config, sizeof p->config, "%s", path);
	snprintf(p->runtime, sizeof p->runtime, "%s", path);
}

/* Refused by both the maker and the checker, with every part of want in
 * the sentence, and the folder left as it was. */
static void assert_refused(const char *path, enum hb_dir which, const char *const *want)
{
	struct hb_paths p;
	struct stat before, after;
	char err[2048];

	paths_at(&p, path);
	assert_int_equal(lstat(path, &before), 0);
	for (int check = 0; check < 2; check++) {
		err[0] = '\0';
		if (check)
			assert_int_equal(hb_dir_check_private(&p, which, err, sizeof err), -1);
		else
			assert_int_equal(hb_dir_make_private(&p, which, err, sizeof err), -1);
		assert_int_not_equal(errno, ENOENT);
		for (const char *const *w = want; *w; w++)
			if (!strstr(err, *w))
				fail_msg("\"%s\" not in: %s", *w, err);
	}
	assert_int_equal(lstat(path, &after), 0);
	assert_int_equal(after.st_mode, before.st_mode);
	assert_int_equal(after.st_uid, before.st_uid);
}

static void test_private_fresh_is_0700(void **state)
{
	static const mode_t masks[] = { 0, 0277, 0777 };
	struct hb_paths p;
	char path[300], parent[200], err[1024] = "";

	(void)state;
	for (size_t i = 0; i < sizeof masks / sizeof masks[0]; i++) {
		mode_t old = umask(masks[i]);
		int rc;

		snprintf(parent, sizeof parent, "%s/m%zu/made", tmp_root, i);
		snprintf(path, sizeof path, "%s/run/", parent); /* a trailing slash is fine */
		paths_at(&p, path);
		rc = hb_dir_make_private(&p, HB_DIR_RUNTIME, err, sizeof err);
		umask(old);
		if (rc != 0)
			fail_msg("umask %04o: %s", (unsigned)masks[i], err);
		assert_int_equal(mode_of(path), 0700);
		/* The parents it made are private too. */
		assert_int_equal(mode_of(parent), 0700);
		/* Again on the folder it made: accepted, by the checker too. */
		assert_int_equal(hb_dir_make_private(&p, HB_DIR_RUNTIME, err, sizeof err), 0);
		assert_int_equal(hb_dir_check_private(&p, HB_DIR_RUNTIME, err, sizeof err), 0);
	}
}

static void test_private_existing_accepted(void **state)
{
	struct hb_paths p;
	char path[256], err[1024] = "";

	(void)state;
	snprintf(path, sizeof path, "%s/mine", tmp_root);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(chmod(path, 0700), 0);
	paths_at(&p, path);
	for (int which = HB_DIR_DATA; which <= HB_DIR_RUNTIME; which++) {
		if (hb_dir_make_private(&p, (enum hb_dir)which, err, sizeof err) != 0)
			fail_msg("%s", err);
		assert_int_equal(hb_dir_check_private(&p, (enum hb_dir)which, err, sizeof err), 0);
	}
	assert_int_equal(hb_paths_make_private(&p, err, sizeof err), 0);
}

static void test_private_wrong_mode(void **state)
{
	static const mode_t modes[] = { 0755, 0750, 0701, 0710, 0777, 0500 };
	char path[256], mode[16];

	(void)state;
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		const char *want[] = { "the runtime folder", path, mode, "must be 0700", "chmod 700",
				       "remove it", "XDG_RUNTIME_DIR", NULL };

		snprintf(path, sizeof path, "%s/mode%zu", tmp_root, i);
		snprintf(mode, sizeof mode, "mode %04o", (unsigned)modes[i]);
		assert_int_equal(mkdir(path, 0700), 0);
		assert_int_equal(chmod(path, modes[i]), 0);
		assert_refused(path, HB_DIR_RUNTIME, want);
	}
}

static void test_private_symlink(void **state)
{
	char path[256], target[256];
	const char *want[] = { "the data folder", path, "symbolic link", "remove it", "HB_DATA_DIR", NULL };

	(void)state;
	/* Even to a private folder of ours: the link itself could be anyone's. */
	snprintf(target, sizeof target, "%s/target", tmp_root);
	snprintf(path, sizeof path, "%s/link", tmp_root);
	assert_int_equal(mkdir(target, 0700), 0);
	assert_int_equal(symlink(target, path), 0);
	assert_refused(path, HB_DIR_DATA, want);
	/* A dangling one is no better. */
	snprintf(path, sizeof path, "%s/dangling", tmp_root);
	assert_int_equal(symlink("/nonexistent/hbcode", path), 0);
	assert_refused(path, HB_DIR_DATA, want);
}

static void test_private_other_owner(void **state)
{
	char path[256], owner[64];
	const char *want[] = { "the config folder", path, owner, "not to you", "someone else may have made it first",
			       "remove it", "HB_CONFIG_DIR", NULL };

	(void)state;
	if (geteuid() != 0)
		skip(); /* only root can give a folder away */
	snprintf(path, sizeof path, "%s/theirs", tmp_root);
	snprintf(owner, sizeof owner, "belongs to uid 65534");
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(chown(path, 65534, 65534), 0);
	/* Mode 0700 and a real folder: only the owner is wrong. */
	assert_refused(path, HB_DIR_CONFIG, want);
}

static void test_private_not_a_folder(void **state)
{
	char path[256];
	const char *want[] = { "the cache folder", path, "is not a folder", "HB_CACHE_DIR", NULL };
	FILE *f;

	(void)state;
	snprintf(path, sizeof path, "%s/file", tmp_root);
	assert_non_null(f = fopen(path, "w"));
	fclose(f);
	assert_int_equal(chmod(path, 0700), 0);
	assert_refused(path, HB_DIR_CACHE, want);
}

static void test_private_check_creates_nothing(void **state)
{
	struct hb_paths p;
	char path[256], err[1024] = "";
	struct stat st;

	(void)state;
	snprintf(path, sizeof path, "%s/absent", tmp_root);
	paths_at(&p, path);
	errno = 0;
	assert_int_equal(hb_dir_check_private(&p, HB_DIR_RUNTIME, err, sizeof err), -1);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err, "does not exist"));
	assert_int_equal(lstat(path, &st), -1);
}

/* What hbctl, the services and the bridges connect through. */
static void test_runtime_endpoint(void **state)
{
	char path[256], ep[HB_PATH_MAX + 8], err[1024] = "", want[300];

	(void)state;
	snprintf(path, sizeof path, "%s/run", tmp_root);
	setenv("HB_RUNTIME_DIR", path, 1);
	setenv("HB_HOME", tmp_root, 1);
	errno = 0;
	assert_int_equal(hb_runtime_endpoint("front.sock", ep, sizeof ep, err, sizeof err), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(chmod(path, 0755), 0);
	assert_int_equal(hb_runtime_endpoint("front.sock", ep, sizeof ep, err, sizeof err), -1);
	assert_non_null(strstr(err, "mode 0755"));
	assert_int_equal(chmod(path, 0700), 0);
	if (hb_runtime_endpoint("front.sock", ep, sizeof ep, err, sizeof err) != 0)
		fail_msg("%s", err);
	snprintf(want, sizeof want, "ipc://%s/front.sock", path);
	assert_string_equal(ep, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_hb_home, clean_env),
		cmocka_unit_test_setup(test_override_wins_over_hb_home, clean_env),
		cmocka_unit_test_setup(test_empty_values_ignored, clean_env),
#ifndef __APPLE__
		cmocka_unit_test_setup(test_xdg, clean_env),
		cmocka_unit_test_setup(test_home_fallbacks, clean_env),
		cmocka_unit_test_setup(test_runtime_needs_no_home, clean_env),
#else
		cmocka_unit_test_setup(test_macos_library, clean_env),
#endif
		cmocka_unit_test_setup(test_nothing_set_is_an_error, clean_env),
		cmocka_unit_test_setup(test_too_long, clean_env),
		cmocka_unit_test_setup_teardown(test_mkdir_p, make_tmp, remove_tmp),
		cmocka_unit_test_setup_teardown(test_mkdir_p_errors, make_tmp, remove_tmp),
		cmocka_unit_test_setup_teardown(test_private_fresh_is_0700, make_tmp, remove_tmp),
		cmocka_unit_test_setup_teardown(test_private_existing_accepted, make_tmp, remove_tmp),
		cmocka_unit_test_setup_teardown(test_private_wrong_mode, make_tmp, remove_tmp),
		cmocka_unit_test_setup_teardown(test_private_symlink, make_tmp, remove_tmp),
		cmocka_unit_test_setup_teardown(test_private_other_owner, make_tmp, remove_tmp),
		cmocka_unit_test_setup_teardown(test_private_not_a_folder, make_tmp, remove_tmp),
		cmocka_unit_test_setup_teardown(test_private_check_creates_nothing, make_tmp, remove_tmp),
		cmocka_unit_test_setup_teardown(test_runtime_endpoint, make_tmp, remove_tmp),
		cmocka_unit_test(test_path_join),
		cmocka_unit_test(test_ipc_endpoint),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
