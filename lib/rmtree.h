/*
 * rmtree - remove a folder and everything below it without ever following
 * a symbolic link out of it: an explainer's folder (whatever a worker left
 * in it), a Claude account's folder (whose entries are links into
 * Claude's main folder).
 */
#ifndef HB_RMTREE_H
#define HB_RMTREE_H

#include <dirent.h>
#include <stddef.h>

/* Remove dir and all below it; a link or a file where dir was is removed
 * as a name; no dir is fine.  0, or -1 with a sentence in err. */
int hb_remove_tree(const char *dir, char *err, size_t errlen);
/* Empty the folder open as fd (path names it in err), keeping it.  0, or
 * -1 with err. */
int hb_remove_contents(int fd, const char *path, char *err, size_t errlen);

/* The walk's two pieces, for other code that reads folders through
 * descriptors (svc-explainer's flatdir): whether name is "." or "..",
 * and a folder's entries from a descriptor the caller keeps (closedir
 * closes only a copy).  NULL when it cannot be listed. */
int hb_is_dot(const char *name);
DIR *hb_list_folder(int fd);

#endif
