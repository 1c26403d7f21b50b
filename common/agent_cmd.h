/*
 * agent_cmd - where the programs an agent runs on are: the folder of the
 * running executable (its siblings: the bridges next to hb-broker), a
 * program looked up in PATH as execvp would, and the Claude agent host's
 * command line (the setting agentHost, or the host.mjs shipped beside us).
 */
#ifndef HB_AGENT_CMD_H
#define HB_AGENT_CMD_H

#include <stddef.h>

#include "paths.h"

/* Most words an agent host command line may have. */
#define HB_AGENT_HOST_ARGS_MAX 16

/* The absolute folder of the program started as argv0 (a name without a
 * slash is looked up in PATH).  0, or -1 with err. */
int hb_exe_dir(const char *argv0, char *out, size_t outlen, char *err, size_t errlen);

/* name as execvp would run it: a name with a slash as it is, otherwise the
 * first executable file of that name in PATH.  1 with the path in out, 0
 * when there is none (out then says where it looked: name or PATH). */
int hb_find_program(const char *name, char *out, size_t outlen);

/* The agent host's command line: the setting agentHost (or HB_AGENT_HOST)
 * split at blanks, or else `node EXE_DIR/../agent-host/host.mjs` when that
 * file exists (the build tree), else `node
 * EXE_DIR/../libexec/hbcode/agent-host/host.mjs` (installed).  The words
 * point into buf; argv ends with NULL.  The number of words, or -1 with a
 * sentence in err (a broken settings file, a line too long, no host). */
int hb_agent_host_argv(const struct hb_paths *p, const char *exe_dir, char *buf, size_t buflen,
		       char *argv[HB_AGENT_HOST_ARGS_MAX + 1], char *err, size_t errlen);

#endif
