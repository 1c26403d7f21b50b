/*
 * readfile - reading one of the folder's small files (the manifest, a
 * scene) whole, with its size checked before anything is allocated.
 */
#ifndef EXPLAINER_READFILE_H
#define EXPLAINER_READFILE_H

#include <stddef.h>

enum readfile_links { READFILE_FOLLOW, READFILE_NOFOLLOW };

/* PATH's bytes, NUL-terminated (caller frees), when it is a regular file of
 * at most max bytes.  NULL otherwise, with err a sentence about the file
 * that does not repeat its name ("does not exist", "has 20000000 bytes,
 * more than the 16777216 it may have", ...): the caller names it.  When
 * the file does not exist, errno is ENOENT. */
char *read_small_file(const char *path, size_t max, enum readfile_links links, size_t *len, char *err,
		      size_t errlen);

#endif
