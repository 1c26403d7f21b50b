/*
 * exe_path - where the running program's own file is, so that a program
 * can find what was built or installed beside it (the Claude agent host,
 * agent_cmd.h) without a setting.
 */
#ifndef HB_EXE_PATH_H
#define HB_EXE_PATH_H

#include <stddef.h>

/* The folder of the running executable, absolute and without symbolic
 * links.  argv0 is main's argv[0]: used only where the system has no
 * better source (not on Linux).  0, or -1 with err. */
int hb_exe_dir(const char *argv0, char *out, size_t outlen, char *err, size_t errlen);

#endif
