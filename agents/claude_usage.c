/*
 * claude_usage - the per-account usage reading in the cache folder, so
 * that readers within a minute share one start of Claude Code (reading
 * usage starts one) and a finished run, which changes the usage, clears
 * it.  The file is written beside and renamed, so no reader sees half;
 * readers that find none take a lock in turn, so that two at once still
 * start Claude Code once.  Codex's rate limits, which codex app-server
 * reports after its model's answers, are kept the same way in a folder of
 * their own, for as long as nothing newer comes.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "claude_usage.h"

#define CLAUDE_FOLDER "claude-usage"
#define CODEX_FOLDER "codex-usage"
#define CODEX_ACCOUNT "default"  /* codex's one sign-in (its CODEX_HOME) */

/* FOLDER/ACCOUNT.json in the cache folder, or with the suffix given
 * (ACCOUNT.lock). */
static int folder_file(const struct hb_paths *p, const char *folder, const char *account, const char *suffix,
		       char *out, size_t len, int make, char *err, size_t errlen)
{
	char dir[HB_PATH_MAX];

	if (!*account || strchr(account, '/') || account[0] == '.') {
		snprintf(err, errlen, "%s is not an account name", account);
		return -1;
	}
	if (hb_path_join(dir, sizeof dir, p->cache, folder) < 0 ||
	    snprintf(out, len, "%s/%s%s", dir, account, suffix) >= (int)len) {
		snprintf(err, errlen, "the cache folder's path %s is too long", p->cache);
		return -1;
	}
	if (make && hb_dir_make_private(p, HB_DIR_CACHE, err, errlen) < 0)
		return -1;
	if (make && hb_mkdir_p(dir, 0700) < 0) {
		snprintf(err, errlen, "cannot make %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

static int account_file(const struct hb_paths *p, const char *account, const char *suffix, char *out, size_t len,
			int make, char *err, size_t errlen)
{
	return folder_file(p, CLAUDE_FOLDER, account, suffix, out, len, make, err, errlen);
}

static int usage_path(const struct hb_paths *p, const char *account, char *out, size_t len, int make,
		      char *err, size_t errlen)
{
	return account_file(p, account, ".json", out, len, make, err, errlen);
}

int hb_claude_usage_lock(const struct hb_paths *p, const char *account, int wait_ms, char *err, size_t errlen)
{
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	const struct timespec step = { 0, 50 * 1000000L };
	char path[HB_PATH_MAX];
	struct stat st;
	int fd;

	if (account_file(p, account, ".lock", path, sizeof path, 1, err, errlen) < 0)
		return -1;
	if ((fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s is not a file of this user", path);
		close(fd);
		return -1;
	}
	/* Not F_SETLKW: a reader that hangs must not hang the others. */
	for (int waited = 0; fcntl(fd, F_SETLK, &lk) < 0; waited += 50) {
		if ((errno != EACCES && errno != EAGAIN) || waited >= wait_ms) {
			snprintf(err, errlen, "%s", errno == EACCES || errno == EAGAIN
						      ? "another reader held the usage lock too long"
						      : strerror(errno));
			close(fd);
			return -1;
		}
		nanosleep(&step, NULL);
	}
	return fd;
}

/* The reading in path taken at most max_age_s before now (and not after
 * it), with its time in *at_out; NULL as hb_claude_usage_cached says. */
static json_t *load_reading(const char *path, time_t now, long max_age_s, time_t *at_out)
{
	struct stat st;
	json_t *file, *reading = NULL;
	json_int_t at;
	int fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return NULL;
	/* Someone else's file, or one others may write, is no reading of ours. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 0077)) {
		close(fd);
		return NULL;
	}
	file = json_loadfd(fd, 0, NULL);
	close(fd);
	at = json_integer_value(json_object_get(file, "at"));
	if (json_is_integer(json_object_get(file, "at")) && at <= (json_int_t)now &&
	    (json_int_t)now - at < max_age_s && json_is_object(json_object_get(file, "reading"))) {
		reading = json_incref(json_object_get(file, "reading"));
		*at_out = (time_t)at;
	}
	json_decref(file);
	return reading;
}

json_t *hb_claude_usage_cached(const struct hb_paths *p, const char *account, time_t now, time_t *at_out)
{
	char path[HB_PATH_MAX], err[HB_PATH_MAX + 64];

	if (usage_path(p, account, path, sizeof path, 0, err, sizeof err) < 0)
		return NULL;
	return load_reading(path, now, HB_CLAUDE_USAGE_FRESH_S, at_out);
}

/* reading, taken at now, written whole to path (made in its folder) by
 * a new file renamed over the old one. */
static int store_reading(const struct hb_paths *p, const char *path, const json_t *reading, time_t now, char *err,
			 size_t errlen)
{
	char tmp[HB_PATH_MAX + 32];
	json_t *file;
	char *text;
	int fd, ok;

	if (snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid()) >= (int)sizeof tmp) {
		snprintf(err, errlen, "the cache folder's path %s is too long", p->cache);
		return -1;
	}
	file = json_pack("{s:I, s:O}", "at", (json_int_t)now, "reading", (json_t *)reading);
	text = file ? json_dumps(file, JSON_COMPACT) : NULL;
	json_decref(file);
	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	unlink(tmp); /* a leftover of a killed reader with our pid */
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		free(text);
		return -1;
	}
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	ok = close(fd) == 0 && ok;
	free(text);
	if (!ok || rename(tmp, path) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

int hb_claude_usage_store(const struct hb_paths *p, const char *account, const json_t *reading, time_t now,
			  char *err, size_t errlen)
{
	char path[HB_PATH_MAX];

	err[0] = 0;
	if (usage_path(p, account, path, sizeof path, 1, err, errlen) < 0)
		return -1;
	return store_reading(p, path, reading, now, err, errlen);
}

int hb_codex_usage_store(const struct hb_paths *p, const json_t *rate_limits, time_t now, char *err, size_t errlen)
{
	char path[HB_PATH_MAX];

	err[0] = 0;
	if (folder_file(p, CODEX_FOLDER, CODEX_ACCOUNT, ".json", path, sizeof path, 1, err, errlen) < 0)
		return -1;
	return store_reading(p, path, rate_limits, now, err, errlen);
}

json_t *hb_codex_usage_last(const struct hb_paths *p, time_t now, time_t *at_out)
{
	char path[HB_PATH_MAX], err[HB_PATH_MAX + 64];

	if (folder_file(p, CODEX_FOLDER, CODEX_ACCOUNT, ".json", path, sizeof path, 0, err, sizeof err) < 0)
		return NULL;
	return load_reading(path, now, LONG_MAX, at_out);
}

int hb_claude_usage_forget(const struct hb_paths *p, const char *account, char *err, size_t errlen)
{
	char path[HB_PATH_MAX];

	if (usage_path(p, account, path, sizeof path, 0, err, errlen) < 0)
		return -1;
	if (unlink(path) < 0 && errno != ENOENT) {
		snprintf(err, errlen, "cannot remove %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
