/*
 * worker_scratch - see worker_scratch.h.
 */
#include "worker_scratch.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "owned.h"
#include "rmtree.h"

int worker_scratch_make(const struct hb_paths *p, char *out, size_t outlen, char *err, size_t errlen)
{
	char root[HB_PATH_MAX], prefix[64];

	if (owned_dir(p, WORKER_SCRATCH_DIR, root, sizeof root, err, errlen) < 0)
		return -1;
	if (owned_prefix(prefix, sizeof prefix) < 0 || snprintf(out, outlen, "%s/%sXXXXXX", root, prefix) >= (int)outlen) {
		snprintf(err, errlen, "the cache folder's path is too long");
		return -1;
	}
	if (!mkdtemp(out)) { /* mode 0700 */
		snprintf(err, errlen, "cannot make the worker's private folder in %s: %s", root, strerror(errno));
		return -1;
	}
	return 0;
}

void worker_scratch_remove(const char *dir, const char *key)
{
	char err[HB_PATH_MAX + 256];

	if (dir[0] && hb_remove_tree(dir, err, sizeof err) < 0)
		log_warn(key, "explainer: the worker's private folder stays: %s", err);
}

/* Whether NAME is a folder whose writer is gone (mkdtemp's six letters
 * after its owner). */
static int orphaned(const char *name)
{
	const char *rest = owned_by_gone(name);

	return rest && strlen(rest) == 6;
}

int worker_scratch_remove_orphans(const struct hb_paths *p)
{
	char root[HB_PATH_MAX], path[HB_PATH_MAX], err[HB_PATH_MAX + 256] = "";
	struct dirent *d;
	DIR *dp;
	int removed = 0;

	if (owned_dir(p, WORKER_SCRATCH_DIR, root, sizeof root, err, sizeof err) < 0 || !(dp = opendir(root))) {
		log_warn(NULL, "explainer: the worker folders a killed copy left: %s", err[0] ? err : strerror(errno));
		return 0;
	}
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.' || !orphaned(d->d_name) || hb_path_join(path, sizeof path, root, d->d_name) < 0)
			continue;
		if (hb_remove_tree(path, err, sizeof err) < 0)
			log_warn(NULL, "explainer: a worker folder a killed copy left stays: %s", err);
		else
			removed++;
	}
	closedir(dp);
	return removed;
}
