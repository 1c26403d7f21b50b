/*
 * flatdir - an explainer folder as a unit on disk: copied, flushed and
 * removed whole, for keeping a video's source beside it (videos.h).
 *
 * An explainer folder is flat (its manifest names plain files, no "/"),
 * so a copy takes regular files only and refuses anything else with a
 * sentence: a symbolic link could make a later render read outside the
 * folder, and a subfolder would be carried along for nothing.  Removal is
 * the other way round: it takes whatever is there (a worker's leftovers in
 * any shape), without ever following a link out of the folder.  Every file
 * written here is flushed to disk before the caller renames it into place.
 */
#ifndef EXPLAINER_FLATDIR_H
#define EXPLAINER_FLATDIR_H

#include <stddef.h>

/* Copies every regular file of from into to, each with mode 0600 and
 * flushed to disk, then flushes to.  to is made with mode 0700, or may be
 * an empty folder already.  0, or -1 with a sentence in err, and to
 * removed again (or emptied, when it was there before). */
int flatdir_copy(const char *from, const char *to, char *err, size_t errlen);
/* Checks that dir holds only regular files and flushes each one and the
 * folder to disk, so that a rename of dir publishes complete files even
 * after a power cut.  0, or -1 with err. */
int flatdir_sync(const char *dir, char *err, size_t errlen);
/* Writes len bytes of data to path (created or truncated, not through a
 * link, mode 0600) and flushes them to disk; the caller renames it into
 * place.  0, or -1 with err. */
int flatdir_write_file(const char *path, const void *data, size_t len, char *err, size_t errlen);
/* Removes dir and everything in it; links are removed, never followed.
 * A dir that does not exist is fine.  0, or -1 with err. */
int flatdir_remove(const char *dir, char *err, size_t errlen);

#endif
