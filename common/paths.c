/*
 * paths - resolve the four hbcode directories from the environment.
 *
 * Tests and `make run` use HB_HOME to keep everything in one folder; the
 * per-directory variables exist so a test can share, say, a data directory
 * between two brokers while keeping their runtime directories apart.
 *
 * Each folder is private to its user.  Without XDG_RUNTIME_DIR the runtime
 * folder is /tmp/hbcode-UID, a name any local user can take first: then
 * hbctl would talk to their broker and our sessions would go into their
 * database.  So a folder is created 0700, or, when it is already there,
 * used only if it is a real folder (lstat: not a symbolic link) of ours
 * with mode 0700; the clients check the same before they connect.
 */
#include "paths.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct dir_rule {
	const char *override;   /* e.g. HB_DATA_DIR */
	const char *home_sub;   /* under HB_HOME */
	const char *xdg;        /* e.g. XDG_DATA_HOME */
	const char *xdg_default;/* under $HOME when xdg is unset */
	const char *mac;        /* under $HOME on macOS */
};

static int resolve_one(char *out, const struct dir_rule *r, char *err, size_t errlen)
{
	const char *v, *home;
	int n;

	if ((v = getenv(r->override)) && *v)
		n = snprintf(out, HB_PATH_MAX, "%s", v);
	else if ((v = getenv("HB_HOME")) && *v)
		n = snprintf(out, HB_PATH_MAX, "%s/%s", v, r->home_sub);
#ifdef __APPLE__
	else if ((home = getenv("HOME")) && *home)
		n = snprintf(out, HB_PATH_MAX, "%s/%s/hbcode", home, r->mac);
#else
	else if (r->xdg && (v = getenv(r->xdg)) && *v)
		n = snprintf(out, HB_PATH_MAX, "%s/hbcode", v);
	else if (!r->xdg_default) {
		/* No XDG_RUNTIME_DIR: a private folder in /tmp, per user. */
		n = snprintf(out, HB_PATH_MAX, "/tmp/hbcode-%ld", (long)getuid());
	} else if ((home = getenv("HOME")) && *home)
		n = snprintf(out, HB_PATH_MAX, "%s/%s/hbcode", home, r->xdg_default);
#endif
	else {
		snprintf(err, errlen, "cannot place the %s directory: set HOME, HB_HOME or %s",
			 r->home_sub, r->override);
		return -1;
	}
	(void)home;
	if (n < 0 || n >= HB_PATH_MAX) {
		snprintf(err, errlen, "the %s directory path is too long", r->home_sub);
		return -1;
	}
	return 0;
}

int hb_paths_resolve(struct hb_paths *p, char *err, size_t errlen)
{
	static const struct dir_rule rules[4] = {
		{ "HB_DATA_DIR", "data", "XDG_DATA_HOME", ".local/share", "Library/Application Support" },
		{ "HB_CACHE_DIR", "cache", "XDG_CACHE_HOME", ".cache", "Library/Caches" },
		{ "HB_CONFIG_DIR", "config", "XDG_CONFIG_HOME", ".config", "Library/Preferences" },
		{ "HB_RUNTIME_DIR", "run", "XDG_RUNTIME_DIR", NULL, "Library/Caches/run" },
	};
	char *dirs[4] = { p->data, p->cache, p->config, p->runtime };

	for (int i = 0; i < 4; i++)
		if (resolve_one(dirs[i], &rules[i], err, errlen) < 0)
			return -1;
	return 0;
}

const char *hb_paths_dir(const struct hb_paths *p, enum hb_dir which)
{
	switch (which) {
	case HB_DIR_DATA:
		return p->data;
	case HB_DIR_CACHE:
		return p->cache;
	case HB_DIR_CONFIG:
		return p->config;
	case HB_DIR_RUNTIME:
		break;
	}
	return p->runtime;
}

/* For the sentences: what the folder is, and how to use another one. */
static const struct {
	const char *what;
	const char *elsewhere;
} dir_names[4] = {
	[HB_DIR_DATA] = { "data", "set HB_DATA_DIR (or HB_HOME) to a folder of your own" },
	[HB_DIR_CACHE] = { "cache", "set HB_CACHE_DIR (or HB_HOME) to a folder of your own" },
	[HB_DIR_CONFIG] = { "config", "set HB_CONFIG_DIR (or HB_HOME) to a folder of your own" },
	[HB_DIR_RUNTIME] = { "runtime", "set XDG_RUNTIME_DIR (or HB_RUNTIME_DIR) to a folder of your own" },
};

/* path without trailing slashes (lstat would follow a link named "x/"). */
static int copy_path(char *buf, const char *path, const char *what, char *err, size_t errlen)
{
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len == 0 || len >= HB_PATH_MAX) {
		snprintf(err, errlen, "the %s folder path \"%.64s\" is empty or too long", what, path);
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, len);
	buf[len] = '\0';
	return 0;
}

/* 0 when path is a private folder of ours; else -1 with the sentence. */
static int judge(const char *path, enum hb_dir which, char *err, size_t errlen)
{
	const char *what = dir_names[which].what, *elsewhere = dir_names[which].elsewhere;
	struct stat st;
	int e;

	if (lstat(path, &st) < 0) {
		e = errno;
		if (e == ENOENT)
			snprintf(err, errlen, "the %s folder %s does not exist", what, path);
		else
			snprintf(err, errlen, "cannot look at the %s folder %s: %s", what, path, strerror(e));
		errno = e;
		return -1;
	}
	if (S_ISLNK(st.st_mode))
		snprintf(err, errlen, "the %s folder %s is a symbolic link, which may lead anywhere someone chose; "
			 "remove it, or %s", what, path, elsewhere);
	else if (!S_ISDIR(st.st_mode))
		snprintf(err, errlen, "the %s folder %s is not a folder; remove it, or %s", what, path, elsewhere);
	else if (st.st_uid != geteuid())
		snprintf(err, errlen, "the %s folder %s belongs to uid %ld, not to you (uid %ld): someone else may "
			 "have made it first; remove it, or %s", what, path, (long)st.st_uid, (long)geteuid(),
			 elsewhere);
	else if ((st.st_mode & 0777) != 0700)
		snprintf(err, errlen, "the %s folder %s has mode %04o, so other users may reach into it; it must be "
			 "0700: run chmod 700 on it if you trust what is in it, or remove it, or %s", what, path,
			 (unsigned)(st.st_mode & 0777), elsewhere);
	else
		return 0;
	errno = EACCES;
	return -1;
}

/* mkdir path 0700: 1 when made here, 0 when it was there, -1 on error.
 * A folder made here gets exactly 0700 whatever the umask; lstat first,
 * so chmod never follows a link. */
static int make_one(const char *path)
{
	struct stat st;

	/* there already: not made again (a confined service may not make
	 * folders in the parents, and mkdir says EACCES before EEXIST) */
	if (lstat(path, &st) == 0)
		return 0;
	if (mkdir(path, 0700) < 0)
		return errno == EEXIST ? 0 : -1;
	if (lstat(path, &st) < 0)
		return -1;
	if (S_ISDIR(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 07777) != 0700 &&
	    chmod(path, 0700) < 0)
		return -1;
	return 1;
}

int hb_dir_make_private(const struct hb_paths *p, enum hb_dir which, char *err, size_t errlen)
{
	const char *what = dir_names[which].what;
	char buf[HB_PATH_MAX];

	if (copy_path(buf, hb_paths_dir(p, which), what, err, errlen) < 0)
		return -1;
	/* The parents: those made here are 0700 too; existing ones are the
	 * user's or the system's (/tmp, ~/.local) and not judged. */
	for (char *s = buf + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (make_one(buf) < 0) {
			int e = errno;
			snprintf(err, errlen, "cannot create %s for the %s folder: %s", buf, what, strerror(e));
			errno = e;
			return -1;
		}
		*s = '/';
	}
	if (make_one(buf) < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot create the %s folder %s: %s", what, buf, strerror(e));
		errno = e;
		return -1;
	}
	/* Made here or not: someone may have been quicker than our mkdir. */
	return judge(buf, which, err, errlen);
}

int hb_dir_check_private(const struct hb_paths *p, enum hb_dir which, char *err, size_t errlen)
{
	char buf[HB_PATH_MAX];

	if (copy_path(buf, hb_paths_dir(p, which), dir_names[which].what, err, errlen) < 0)
		return -1;
	return judge(buf, which, err, errlen);
}

int hb_paths_make_private(const struct hb_paths *p, char *err, size_t errlen)
{
	/* The runtime folder first: it is the one in a shared place. */
	static const enum hb_dir order[4] = { HB_DIR_RUNTIME, HB_DIR_DATA, HB_DIR_CACHE, HB_DIR_CONFIG };

	for (int i = 0; i < 4; i++)
		if (hb_dir_make_private(p, order[i], err, errlen) < 0)
			return -1;
	return 0;
}

int hb_runtime_endpoint(const char *name, char *out, size_t outlen, char *err, size_t errlen)
{
	struct hb_paths p;

	if (hb_paths_resolve(&p, err, errlen) < 0) {
		errno = EINVAL;
		return -1;
	}
	if (hb_dir_check_private(&p, HB_DIR_RUNTIME, err, errlen) < 0)
		return -1;
	if (hb_ipc_endpoint(out, outlen, &p, name) < 0) {
		snprintf(err, errlen, "the runtime folder %s is too long for a socket path", p.runtime);
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int hb_mkdir_p(const char *path, mode_t mode)
{
	char buf[HB_PATH_MAX];
	size_t len = strlen(path);

	if (len == 0 || len >= sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, len + 1);
	for (char *s = buf + 1; *s; s++) {
		struct stat st;

		if (*s != '/')
			continue;
		*s = '\0';
		/* a folder that is there is not made again: a confined service
		 * (confine.h) may not make folders in its parents, and mkdir
		 * says EACCES there before it says EEXIST */
		if (!(stat(buf, &st) == 0 && S_ISDIR(st.st_mode)) && mkdir(buf, 0700) < 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	{
		struct stat st;

		if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
			return 0;
		if (mkdir(buf, mode) < 0) {
			if (errno != EEXIST)
				return -1;
			if (stat(buf, &st) < 0 || !S_ISDIR(st.st_mode)) {
				errno = ENOTDIR;
				return -1;
			}
		}
	}
	return 0;
}

int hb_path_join(char *out, size_t outlen, const char *dir, const char *name)
{
	int n = snprintf(out, outlen, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

int hb_ipc_endpoint(char *out, size_t outlen, const struct hb_paths *p, const char *name)
{
	int n = snprintf(out, outlen, "ipc://%s/%s", p->runtime, name);

	if (n < 0 || (size_t)n >= outlen || strlen(p->runtime) + 1 + strlen(name) > HB_IPC_PATH_MAX)
		return -1;
	return 0;
}
