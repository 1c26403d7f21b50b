/*
 * smallfile - read a small file that another program wrote into a folder
 * we do not own (Chrome's DevToolsActivePort, the settings file) without
 * letting it stop the reader: a FIFO put in its place would block open()
 * and read() for ever, a device would never end, and a huge file would
 * eat memory.  Only a regular file of at most a caller's bound is read.
 */
#ifndef HB_SMALLFILE_H
#define HB_SMALLFILE_H

#include <stddef.h>

/* Read path whole when it is a regular file of at most max bytes: 1 with
 * *out (malloc'd, NUL-terminated; the caller frees it) and *len; 0 when
 * nothing is there (ENOENT, or a folder on the way missing), *out NULL;
 * -1 with a sentence in err that names the file and says what is wrong
 * with it (not a regular file, larger than max bytes, unreadable). */
int hb_read_small_file(const char *path, size_t max, char **out, size_t *len, char *err, size_t errlen);

#endif
