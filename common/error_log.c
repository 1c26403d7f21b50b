/*
 * error_log - error lines kept in DATA/errors.log as well as on stderr.
 *
 * One write(2) with O_APPEND per line, so lines of several processes never
 * interleave.  The data folder is checked private first (paths.h): the
 * reasons may name projects and sessions.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error_log.h"
#include "log.h"
#include "paths.h"

static int keep(const char *line, size_t len)
{
	char path[HB_PATH_MAX], old[HB_PATH_MAX + 4], err[512];
	struct hb_paths p;
	struct stat st;
	int fd, ok;

	if (hb_paths_resolve(&p, err, sizeof err) < 0 || hb_dir_make_private(&p, HB_DIR_DATA, err, sizeof err) < 0 ||
	    hb_path_join(path, sizeof path, p.data, HB_ERROR_LOG_FILE) < 0) {
		log_warn(NULL, "the error log is not kept: %s", err[0] ? err : "its path is too long");
		return -1;
	}
	/* Two writers may both rotate: at worst a few lines land in .1. */
	if (stat(path, &st) == 0 && st.st_size >= HB_ERROR_LOG_MAX) {
		snprintf(old, sizeof old, "%s.1", path);
		if (rename(path, old) < 0)
			log_warn(NULL, "cannot rotate %s: %s", path, strerror(errno));
	}
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		log_warn(NULL, "the error log %s is not kept: %s", path, strerror(errno));
		return -1;
	}
	ok = write(fd, line, len) == (ssize_t)len;
	if (close(fd) < 0 || !ok) {
		log_warn(NULL, "the error log %s is not kept: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int hb_error_log(const char *key, const char *fmt, ...)
{
	char line[2048];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = hb_log_format(line, sizeof line, HB_LOG_ERROR, key, fmt, ap);
	va_end(ap);
	/* A launched bridge's status fd too, as for log.c's error lines. */
	va_start(ap, fmt);
	hb_log_error_text(fmt, ap);
	va_end(ap);
	(void)!write(STDERR_FILENO, line, n); /* best effort, as log.c */
	return keep(line, n);
}
