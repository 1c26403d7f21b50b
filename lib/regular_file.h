/*
 * regular_file - read a small file that a person may have replaced by
 * something that is not one.
 *
 * A FIFO, a device or a folder where a settings file belongs would make a
 * plain fopen+fread block for ever (a FIFO with no writer) or read without
 * end (/dev/zero), and a huge file would cost every reader its whole
 * length.  Each reader of the config folder runs in a worker of a service,
 * or in the broker's one thread, so either would wedge it.
 */
#ifndef HB_REGULAR_FILE_H
#define HB_REGULAR_FILE_H

#include <stddef.h>

/* The whole of path into *out (malloc'd, NUL-terminated; its length in
 * *len when len is not NULL), when path is, after symbolic links, a
 * regular file of at most max_bytes.  The open never waits (O_NONBLOCK),
 * so a FIFO is refused at once.  0, or -1 with errno and a sentence in
 * err that names the file: ENOENT (no such file), EINVAL (not a regular
 * file: it says what it is), EFBIG (larger than max_bytes), or the error
 * of open or read.  A caller that reads a secret wipes *out itself. */
int hb_read_regular_file(const char *path, size_t max_bytes, char **out, size_t *len, char *err, size_t errlen);

#endif
