/*
 * act_save - where the files use_user_browser makes (screenshots, PDFs)
 * go: <cache>/browser/<session>/, a private folder of svc-browser's own
 * cache, the one place its confinement lets it write (docs/browser.md,
 * "Save as PDF: where the file goes").  A name the agent gives is a plain
 * file name in that folder, never a path: it cannot reach another
 * session's folder, the user's files, or anything a link points to.
 */
#include "act.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Only letters, digits, '-' and '_' of a session id go into a path. */
static void safe_session(const char *in, char *out, size_t outlen)
{
	size_t n = 0;

	for (; *in && n + 1 < outlen; in++)
		if ((*in >= 'a' && *in <= 'z') || (*in >= 'A' && *in <= 'Z') || (*in >= '0' && *in <= '9') ||
		    *in == '-' || *in == '_')
			out[n++] = *in;
	if (n == 0 && outlen > 4)
		n = (size_t)snprintf(out, outlen, "user");
	out[n] = '\0';
}

int act_save_dir(struct act *a, char *dir, size_t dirlen, char *err, size_t errlen)
{
	char session[80];

	safe_session(a->ctx->session, session, sizeof session);
	if (hb_dir_make_private(&a->paths, HB_DIR_CACHE, err, errlen) < 0)
		return -1;
	if (snprintf(dir, dirlen, "%s/browser/%s", a->paths.cache, session) >= (int)dirlen || hb_mkdir_p(dir, 0700) < 0) {
		snprintf(err, errlen, "cannot make %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

int act_file_name_ok(const char *name, const char *ext)
{
	size_t len = strlen(name), elen = strlen(ext);

	if (len == 0 || len > ACT_FILE_NAME_MAX || name[0] == '.' || len <= elen || strcmp(name + len - elen, ext) != 0)
		return 0;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' ||
		      *c == '_' || *c == '.'))
			return 0;
	return 1;
}

/* The bytes into a new file at path (never one that is there): 0, or -1
 * with err. */
static int write_new(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);

	if (fd < 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	if (write(fd, data, len) != (ssize_t)len) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	if (close(fd) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		unlink(path);
		return -1;
	}
	return 0;
}

int act_save_file(struct act *a, const char *name, const char *ext, const void *data, size_t len, char *path,
		  size_t pathlen, char *err, size_t errlen)
{
	char dir[HB_PATH_MAX], tmp[HB_PATH_MAX + 96];
	struct timespec ts;
	struct stat st;

	if (act_save_dir(a, dir, sizeof dir, err, errlen) < 0)
		return -1;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (!name) {
		if (snprintf(path, pathlen, "%s/%s-%lld%03ld%s", dir, a->tab.id, (long long)ts.tv_sec,
			     ts.tv_nsec / 1000000, ext) >= (int)pathlen) {
			snprintf(err, errlen, "the path in %s is too long", dir);
			return -1;
		}
		return write_new(path, data, len, err, errlen);
	}
	if (!act_file_name_ok(name, ext)) {
		snprintf(err, errlen, "\"%.100s\" is not a plain file name ending in %s", name, ext);
		return -1;
	}
	if (snprintf(path, pathlen, "%s/%s", dir, name) >= (int)pathlen ||
	    snprintf(tmp, sizeof tmp, "%s/.%s-%lld%09ld.part", dir, a->tab.id, (long long)ts.tv_sec, ts.tv_nsec) >=
		    (int)sizeof tmp) {
		snprintf(err, errlen, "the path in %s is too long", dir);
		return -1;
	}
	/* a name that is there already is replaced only when it is a file:
	 * a link or a folder under that name is said, and left alone
	 * (rename replaces the link itself and never writes where it points,
	 * so a link put there after this look gains nothing either) */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s is there already and is %s, not a file this tool wrote; it was left alone", path,
			 S_ISLNK(st.st_mode) ? "a symbolic link" : S_ISDIR(st.st_mode) ? "a folder" : "not a regular file");
		return -1;
	}
	if (write_new(tmp, data, len, err, errlen) < 0)
		return -1;
	if (rename(tmp, path) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}
