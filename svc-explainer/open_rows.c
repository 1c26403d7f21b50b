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
#include "proc_state.h"
#include "readfile.h"
#include "videos.h"

/* A row is a few hundred bytes; anything much larger is not ours. */
#define OPEN_ROW_MAX_BYTES 65536

static atomic_ulong next_row;

static int rows_dir(const struct hb_paths *p, char *dir, size_t len, char *err, size_t errlen)
{
	if (hb_dir_make_private(p, HB_DIR_CACHE, err, errlen) < 0)
		return -1;
	if (hb_path_join(dir, len, p->cache, OPEN_ROWS_DIR) < 0) {
		snprintf(err, errlen, "the cache folder's path is too long");
		return -1;
	}
	return videos_private_subdir(dir, err, errlen);
}

void open_row_keep(struct open_row *r, const struct hb_paths *p, const char *row, const char *key)
{
	char dir[HB_PATH_MAX], name[96], err[HB_PATH_MAX + 256];

	if (!r->path[0]) {
		snprintf(name, sizeof name, "%ld-%llu-%lu.json", (long)getpid(), hb_process_start(getpid()),
			 atomic_fetch_add(&next_row, 1));
		if (rows_dir(p, dir, sizeof dir, err, sizeof err) < 0 ||
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
	unsigned long long start;
	unsigned long n;
	long pid;
	int used = 0;

	if (sscanf(name, "%ld-%llu-%lu.json%n", &pid, &start, &n, &used) != 3 || used == 0 ||
	    name[used] != '\0' || pid <= 0)
		return 0;
	return hb_process_gone((pid_t)pid, start);
}

int open_rows_end_orphans(const struct hb_paths *p, void (*fn)(const char *row, void *arg), void *arg)
{
	char dir[HB_PATH_MAX], path[HB_PATH_MAX], err[HB_PATH_MAX + 256] = "";
	struct dirent *d;
	DIR *dp;
	int ended = 0;

	if (rows_dir(p, dir, sizeof dir, err, sizeof err) < 0 || !(dp = opendir(dir))) {
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
