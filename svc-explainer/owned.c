/*
 * owned - see owned.h.
 */
#include "owned.h"

#include <stdio.h>
#include <unistd.h>

#include "proc_state.h"
#include "videos.h"

int owned_dir(const struct hb_paths *p, const char *name, char *dir, size_t len, char *err, size_t errlen)
{
	if (hb_dir_make_private(p, HB_DIR_CACHE, err, errlen) < 0)
		return -1;
	if (hb_path_join(dir, len, p->cache, name) < 0) {
		snprintf(err, errlen, "the cache folder's path is too long");
		return -1;
	}
	return videos_private_subdir(dir, err, errlen);
}

int owned_prefix(char *out, size_t len)
{
	int n = snprintf(out, len, "%ld-%llu-", (long)getpid(), hb_process_start(getpid()));

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

const char *owned_by_gone(const char *entry)
{
	unsigned long long start;
	long pid;
	int used = 0;

	if (sscanf(entry, "%ld-%llu-%n", &pid, &start, &used) != 2 || used == 0 || pid <= 0)
		return NULL;
	return hb_process_gone((pid_t)pid, start) ? entry + used : NULL;
}
