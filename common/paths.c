/*
 * paths - resolve the four hbcode directories from the environment.
 *
 * Tests and `make run` use HB_HOME to keep everything in one folder; the
 * per-directory variables exist so a test can share, say, a data directory
 * between two brokers while keeping their runtime directories apart.
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
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(buf, 0700) < 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	if (mkdir(buf, mode) < 0) {
		struct stat st;
		if (errno != EEXIST)
			return -1;
		if (stat(buf, &st) < 0 || !S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			return -1;
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
