/*
 * launch_argv - the command line of a bridge hb-broker starts for a
 * session no bridge carries (docs/agents.md, "launched bridges"): which
 * bridge, the agent program behind it (codexPath, or the Claude agent
 * host's line) and the flags of the session.  What the kernel does with it
 * (fork, attach, retry) is broker/launch.c's; what the agents are is here.
 */
#ifndef HB_LAUNCH_ARGV_H
#define HB_LAUNCH_ARGV_H

#include <stddef.h>

#include "agent_cmd.h"
#include "paths.h"

#define HB_LAUNCH_ARGS_MAX (20 + HB_AGENT_HOST_ARGS_MAX)

/* The session a bridge is started for. */
struct hb_launch_target {
	const char *session;
	const char *agent;      /* codex | claude */
	const char *link;       /* its Codex thread or Claude conversation; claude:
				   "" starts a new conversation for the session */
	const char *access;     /* the level the hold rules approved */
	const char *project;    /* claude: the run's project folder */
	const char *run;        /* claude: the id of the run the bridge opens */
	const char *model;      /* the session's model and effort; "": the agent's default */
	const char *effort;
};

/* A bridge's command line, the strings it points to with it. */
struct hb_launch_argv {
	char *argv[HB_LAUNCH_ARGS_MAX + 1];
	char bridge[HB_PATH_MAX];   /* argv[0]: the bridge, beside hb-broker */
	char program[HB_PATH_MAX];  /* the agent program, as found in PATH */
	char words[HB_AGENT_HOST_LINE_MAX];
};

/* "Codex" or "Claude": the agent's name in sentences. */
const char *hb_agent_display_name(const char *agent);
/* "hb-codex-bridge" or "hb-claude-bridge". */
const char *hb_agent_bridge_name(const char *agent);
/* Fill c for t (t->agent codex or claude) with the bridge in exe_dir; the
 * number of words, or -1 with the reason a person can act on ("its Codex
 * agent cannot be started: ..."). */
int hb_launch_argv(const struct hb_paths *p, const char *exe_dir, const struct hb_launch_target *t,
		   struct hb_launch_argv *c, char *reason, size_t len);

#endif
