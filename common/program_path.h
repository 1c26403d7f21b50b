/*
 * program_path - a program as execvp would find it, so that a program
 * that is not there is said before a start, in words a person can act on
 * (the broker's launcher: "codex was not found in PATH ..."), instead of
 * as the exit status of a child.
 */
#ifndef HB_PROGRAM_PATH_H
#define HB_PROGRAM_PATH_H

#include <stddef.h>

/* name with a slash: as it is; otherwise the first executable file of
 * that name in PATH (an empty entry is the current folder, as for
 * execvp).  1 with the path in out, 0 when there is none (out then holds
 * name, or the PATH searched). */
int hb_find_program(const char *name, char *out, size_t outlen);

#endif
