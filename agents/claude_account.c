/*
 * claude_account - the Claude accounts (see claude_account.h): names,
 * folders, the active one, and the links that make an added account's
 * folder the main folder in all but its sign-in.
 */
#include "claude_account.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rmtree.h"
#include "settings.h"

int hb_claude_account_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (n == 0 || n >= HB_CLAUDE_ACCOUNT_NAME_MAX || strcmp(name, HB_CLAUDE_ACCOUNT_DEFAULT) == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		int alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');

		if (!alnum && (i == 0 || (c != '-' && c != '_')))
			return 0;
	}
	return 1;
}

int hb_claude_main_dir(char *out, size_t outlen, char *err, size_t errlen)
{
	const char *dir = getenv("CLAUDE_CONFIG_DIR"), *home = getenv("HOME");
	int n;

	if (dir && *dir)
		n = snprintf(out, outlen, "%s", dir);
	else if (home && *home)
		n = snprintf(out, outlen, "%s/.claude", home);
	else {
		snprintf(err, errlen, "Claude's folder is unknown: neither CLAUDE_CONFIG_DIR nor HOME is set");
		return -1;
	}
	if (n < 0 || (size_t)n >= outlen) {
		snprintf(err, errlen, "the path of Claude's folder is too long");
		return -1;
	}
	return 0;
}

int hb_claude_account_dir(const struct hb_paths *p, const char *name, char *out, size_t outlen, char *err,
			  size_t errlen)
{
	int n;

	if (!hb_claude_account_name_ok(name)) {
		snprintf(err, errlen, "\"%.40s\" is not an account name: 1 to 32 of a-z, 0-9, - and _, starting with a "
			 "letter or digit (\"default\" is this computer's own sign-in)", name ? name : "");
		return -1;
	}
	n = snprintf(out, outlen, "%s/%s/%s", p->data, HB_CLAUDE_ACCOUNTS_DIR, name);
	if (n < 0 || (size_t)n >= outlen) {
		snprintf(err, errlen, "the path of account %s's folder is too long", name);
		return -1;
	}
	return 0;
}

int hb_claude_account_exists(const struct hb_paths *p, const char *name)
{
	char dir[HB_PATH_MAX], err[256];
	struct stat st;

	return hb_claude_account_dir(p, name, dir, sizeof dir, err, sizeof err) == 0 && lstat(dir, &st) == 0 &&
	       S_ISDIR(st.st_mode);
}

int hb_claude_account_active(const struct hb_paths *p, char *name, size_t namelen, char *err, size_t errlen)
{
	if (hb_settings_param_string(p, HB_PARAM_CLAUDE_ACCOUNT, name, namelen, err, errlen) < 0)
		return -1;
	if (strcmp(name, HB_CLAUDE_ACCOUNT_DEFAULT) == 0)
		return 0;
	if (!hb_claude_account_exists(p, name)) {
		snprintf(err, errlen, "the active Claude account \"%.40s\" does not exist; add it (hbctl accounts add "
			 "NAME) or choose another (hbctl accounts use default)", name);
		return -1;
	}
	return 0;
}

static int is_own_entry(const char *entry)
{
	static const char *const own[] = HB_CLAUDE_OWN_ENTRIES;

	for (const char *const *o = own; *o; o++)
		if (strcmp(*o, entry) == 0)
			return 1;
	return 0;
}

/* Whether path is a link of ours: a symbolic link to main/entry. */
static int our_link(const char *path, const char *main_dir, const char *entry)
{
	char target[HB_PATH_MAX], want[HB_PATH_MAX];
	ssize_t n = readlink(path, target, sizeof target - 1);

	if (n < 0)
		return 0;
	target[n] = '\0';
	return snprintf(want, sizeof want, "%s/%s", main_dir, entry) < (int)sizeof want && strcmp(target, want) == 0;
}

/* Link each entry of main_dir into dir that is not there yet. */
static int link_entries(const char *main_dir, const char *dir, char *err, size_t errlen)
{
	DIR *d = opendir(main_dir);
	struct dirent *de;
	char from[HB_PATH_MAX], to[HB_PATH_MAX];
	struct stat st;
	int rc = 0;

	if (!d) {
		snprintf(err, errlen, "cannot read Claude's folder %s: %s", main_dir, strerror(errno));
		return -1;
	}
	while (rc == 0 && (de = readdir(d))) {
		if (hb_is_dot(de->d_name) || is_own_entry(de->d_name))
			continue;
		if (hb_path_join(from, sizeof from, main_dir, de->d_name) < 0 ||
		    hb_path_join(to, sizeof to, dir, de->d_name) < 0) {
			snprintf(err, errlen, "the path of %s is too long", de->d_name);
			rc = -1;
		} else if (lstat(to, &st) < 0 && symlink(from, to) < 0) {
			snprintf(err, errlen, "cannot link %s to %s: %s", to, from, strerror(errno));
			rc = -1;
		}
	}
	closedir(d);
	return rc;
}

/* Remove the links of dir that are ours and point at nothing. */
static int unlink_gone(const char *main_dir, const char *dir, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[HB_PATH_MAX];
	struct stat st;
	int rc = 0;

	if (!d) {
		snprintf(err, errlen, "cannot read the account folder %s: %s", dir, strerror(errno));
		return -1;
	}
	while (rc == 0 && (de = readdir(d))) {
		if (is_own_entry(de->d_name) || hb_path_join(path, sizeof path, dir, de->d_name) < 0)
			continue;
		if (our_link(path, main_dir, de->d_name) && stat(path, &st) < 0 && errno == ENOENT &&
		    unlink(path) < 0) {
			snprintf(err, errlen, "cannot remove the link %s: %s", path, strerror(errno));
			rc = -1;
		}
	}
	closedir(d);
	return rc;
}

int hb_claude_account_link(const struct hb_paths *p, const char *name, int create, char *err, size_t errlen)
{
	char dir[HB_PATH_MAX], main_dir[HB_PATH_MAX], projects[HB_PATH_MAX];
	struct stat st;

	if (hb_claude_account_dir(p, name, dir, sizeof dir, err, errlen) < 0 ||
	    hb_claude_main_dir(main_dir, sizeof main_dir, err, errlen) < 0)
		return -1;
	if (create && hb_dir_make_private(p, HB_DIR_DATA, err, errlen) < 0)
		return -1;
	if (create && (hb_path_join(projects, sizeof projects, p->data, HB_CLAUDE_ACCOUNTS_DIR) < 0 ||
		       hb_mkdir_p(projects, 0700) < 0 || (mkdir(dir, 0700) < 0 && errno != EEXIST))) {
		snprintf(err, errlen, "cannot make the account folder %s: %s", dir, strerror(errno));
		return -1;
	}
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "there is no Claude account \"%s\" (hbctl accounts add %s makes one)", name, name);
		return -1;
	}
	/* The conversations are what every account shares: the main folder
	 * has them even before Claude's first run there. */
	if (hb_path_join(projects, sizeof projects, main_dir, "projects") < 0 || hb_mkdir_p(projects, 0700) < 0) {
		snprintf(err, errlen, "cannot make %s/projects: %s", main_dir, strerror(errno));
		return -1;
	}
	return unlink_gone(main_dir, dir, err, errlen) < 0 ? -1 : link_entries(main_dir, dir, err, errlen);
}

int hb_claude_account_for_run(const struct hb_paths *p, char *name, size_t namelen, char *dir, size_t dirlen,
			      char *err, size_t errlen)
{
	if (hb_claude_account_active(p, name, namelen, err, errlen) < 0)
		return -1;
	if (strcmp(name, HB_CLAUDE_ACCOUNT_DEFAULT) == 0) {
		if (dirlen)
			*dir = '\0';
		return 0;
	}
	if (hb_claude_account_link(p, name, 0, err, errlen) < 0)
		return -1;
	return hb_claude_account_dir(p, name, dir, dirlen, err, errlen);
}

int hb_claude_account_remove(const struct hb_paths *p, const char *name, char *err, size_t errlen)
{
	char dir[HB_PATH_MAX];

	if (hb_claude_account_dir(p, name, dir, sizeof dir, err, errlen) < 0)
		return -1;
	if (!hb_claude_account_exists(p, name)) {
		snprintf(err, errlen, "there is no Claude account \"%s\"", name);
		return -1;
	}
	return hb_remove_tree(dir, err, errlen);
}
