/*
 * open_rows - a running call's timeline row kept on disk, and the rows of
 * a killed copy found and handed back to be ended (open_rows.h).
 *
 * Written through output.c's temporary file and rename, so a copy killed
 * while it writes leaves the previous row whole (and a temporary file
 * whose name starts with "." that output.c removes once its writer is
 * gone).
 */
#include "open_rows.h"

#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "output.h"
#include "owned.h"
#include "readfile.h"

/* A row is a few hundred bytes; anything much larger is not ours. */
#define OPEN_ROW_MAX_BYTES 65536

static atomic_ulong next_row;

void open_row_keep(struct open_row *r, const struct hb_paths *p, const char *row, const char *key)
{
	char dir[HB_PATH_MAX], prefix[64], name[96], err[HB_PATH_MAX + 256] = "its path is too long";

	if (!r->path[0]) {
		if (owned_prefix(prefix, sizeof prefix) < 0 ||
		    snprintf(name, sizeof name, "%s%lu.json", prefix, atomic_fetch_add(&next_row, 1)) >= (int)sizeof name ||
		    owned_dir(p, OPEN_ROWS_DIR, dir, sizeof dir, err, sizeof err) < 0 ||
		    hb_path_join(r->path, sizeof r->path, dir, name) < 0) {
			r->path[0] = '\0';
			log_warn(key, "explainer: the timeline row is not kept for a restart: %s", err);
			return;
		}
	}
	if (output_write_file(r->path, row, strlen(row), err, sizeof err) < 0)
		log_warn(key, "explainer: the timeline row is not kept for a restart: %s", err);
}

void open_row_end(struct open_row *r)
{
	if (r->path[0] && unlink(r->path) < 0 && errno != ENOENT)
		log_warn(NULL, "explainer: cannot remove the ended row %s: %s", r->path, strerror(errno));
	r->path[0] = '\0';
}

/* Whether NAME is a kept row whose writer is gone. */
static int orphaned(const char *name)
{
	const char *rest = owned_by_gone(name);
	unsigned long n;
	int used = 0;

	return rest && sscanf(rest, "%lu.json%n", &n, &used) == 1 && used > 0 && rest[used] == '\0';
}

int open_rows_end_orphans(const struct hb_paths *p, void (*fn)(const char *row, void *arg), void *arg)
{
	char dir[HB_PATH_MAX], path[HB_PATH_MAX], err[HB_PATH_MAX + 256] = "";
	struct dirent *d;
	DIR *dp;
	int ended = 0;

	if (owned_dir(p, OPEN_ROWS_DIR, dir, sizeof dir, err, sizeof err) < 0 || !(dp = opendir(dir))) {
		log_warn(NULL, "explainer: the rows a killed copy left open: %s", err[0] ? err : strerror(errno));
		return 0;
	}
	while ((d = readdir(dp))) {
		size_t len = 0;
		char *row;
		int read;

		if (d->d_name[0] == '.' || !orphaned(d->d_name) ||
		    hb_path_join(path, sizeof path, dir, d->d_name) < 0)
			continue;
		row = read_small_file(path, OPEN_ROW_MAX_BYTES, READFILE_NOFOLLOW, &len, err, sizeof err);
		if ((read = row != NULL))
			fn(row, arg);
		else
			log_warn(NULL, "explainer: a row a killed copy left open: %s", err);
		free(row);
		if (unlink(path) < 0 && errno != ENOENT)
			log_warn(NULL, "explainer: cannot remove %s: %s", path, strerror(errno));
		else
			ended += read;
	}
	closedir(dp);
	return ended;
}
