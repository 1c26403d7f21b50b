/*
 * agent_cmd - the agents' programs, for every program that starts one:
 * the command line of the Claude agent host (agent-host/host.mjs,
 * docs/agent-host-pipe.md) for hbctl claude's reads, hb-broker's launcher
 * and svc-explainer's Claude worker, and the Codex program (agent_program)
 * for the launcher, svc-explainer's Codex worker and hbctl timeline.
 *
 * The setting agentHost (settings.json, or HB_AGENT_HOST) wins, split at
 * blanks.  Without it the host that came with the program is used, so
 * that a build or an installation works without setting anything: node
 * with EXE_DIR/../agent-host/host.mjs in the build tree (the programs are
 * in build/), else EXE_DIR/../libexec/hbcode/agent-host/host.mjs (a
 * program in PREFIX/bin) or EXE_DIR/agent-host/host.mjs (a service in
 * PREFIX/libexec/hbcode), where `make install` puts it.
 */
#ifndef HB_AGENT_CMD_H
#define HB_AGENT_CMD_H

#include <stddef.h>

#include "paths.h"

#define HB_AGENT_HOST_ARGS_MAX 16   /* words of the command line */
#define HB_AGENT_HOST_LINE_MAX 4096 /* bytes of words (hb_agent_host_argv) */

/* argv (NULL-terminated, for child_spawn) of the agent host.  exe_dir is
 * the folder of the running program (hb_exe_dir), or NULL when it is not
 * known (then only the setting can name a host); words, of wordslen
 * bytes (HB_AGENT_HOST_LINE_MAX is enough), holds the strings argv points
 * into.  0, or -1 with err: settings.json is broken, the line is empty of
 * words, too long or has more than HB_AGENT_HOST_ARGS_MAX of them, or no
 * host is set and none is beside the program. */
int hb_agent_host_argv(const struct hb_paths *p, const char *exe_dir, char *words, size_t wordslen,
		       char *argv[HB_AGENT_HOST_ARGS_MAX + 1], char *err, size_t errlen);

/* The Codex program: the setting codexPath (HB_CODEX in the environment
 * wins; "codex" when neither is set), found as execvp would find it
 * (program_path.h).  0 with its path in out (HB_PATH_MAX is enough), or
 * -1 with a sentence in err (HB_AGENT_PROGRAM_ERR_MAX is enough):
 * settings.json is broken, codexPath is a path to no executable file, or
 * a name that is not in PATH; the last two say how to set it. */
#define HB_AGENT_PROGRAM_ERR_MAX 8192
int agent_program(const struct hb_paths *p, char *out, size_t outlen, char *err, size_t errlen);

#endif
