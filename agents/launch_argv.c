/*
 * launch_argv - see launch_argv.h.  The checks before a start (the
 * agent's program, the bridge's) are the ones whose failure a person must
 * fix, so each says what to do; the command lines are the bridges'
 * contract (2) in docs/agents.md.
 */
#include "launch_argv.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent_cmd.h"
#include "program_path.h"

const char *hb_agent_display_name(const char *agent)
{
	return strcmp(agent, "claude") == 0 ? "Claude" : "Codex";
}

const char *hb_agent_bridge_name(const char *agent)
{
	return strcmp(agent, "claude") == 0 ? "hb-claude-bridge" : "hb-codex-bridge";
}

/* --model M and --effort E of the session, where it has them: the run
 * opens with them (page 003). */
static int model_args(const struct hb_launch_target *t, char **argv, int n)
{
	if (t->model && *t->model) {
		argv[n++] = "--model";
		argv[n++] = (char *)t->model;
	}
	if (t->effort && *t->effort) {
		argv[n++] = "--effort";
		argv[n++] = (char *)t->effort;
	}
	return n;
}

/* The bridge next to hb-broker; 0, or -1 with the reason. */
static int bridge_path(const char *exe_dir, const char *agent, char *out, size_t outlen, char *reason, size_t len)
{
	const char *name = hb_agent_bridge_name(agent);

	if ((size_t)snprintf(out, outlen, "%s/%s", exe_dir, name) >= outlen || access(out, X_OK) < 0) {
		snprintf(reason, len, "its %s agent cannot be started: %s is not installed next to hb-broker (in %s)",
			 hb_agent_display_name(agent), name, exe_dir);
		return -1;
	}
	return 0;
}

static int codex_argv(const struct hb_paths *p, const char *exe_dir, const struct hb_launch_target *t,
		      struct hb_launch_argv *c, char *reason, size_t len)
{
	char err[HB_AGENT_PROGRAM_ERR_MAX];
	int n = 0;

	if (agent_program(p, c->program, sizeof c->program, err, sizeof err) < 0) {
		snprintf(reason, len, "its Codex agent cannot be started: %s", err);
		return -1;
	}
	if (bridge_path(exe_dir, "codex", c->bridge, sizeof c->bridge, reason, len) < 0)
		return -1;
	c->argv[n++] = c->bridge;
	c->argv[n++] = "--session";
	c->argv[n++] = (char *)t->session;
	c->argv[n++] = "--resume";
	c->argv[n++] = (char *)t->link;
	c->argv[n++] = "--access";
	c->argv[n++] = (char *)t->access;
	n = model_args(t, c->argv, n);
	c->argv[n++] = "--once";
	c->argv[n++] = "--";
	c->argv[n++] = c->program;
	c->argv[n++] = "app-server";
	c->argv[n] = NULL;
	return n;
}

static int claude_argv(const struct hb_paths *p, const char *exe_dir, const struct hb_launch_target *t,
		       struct hb_launch_argv *c, char *reason, size_t len)
{
	char *host[HB_AGENT_HOST_ARGS_MAX + 1], err[512];
	int n = 0;

	if (hb_agent_host_argv(p, exe_dir, c->words, sizeof c->words, host, err, sizeof err) < 0) {
		snprintf(reason, len, "its Claude agent cannot be started: %s", err);
		return -1;
	}
	if (!hb_find_program(host[0], c->program, sizeof c->program)) {
		snprintf(reason, len, "its Claude agent cannot be started: %s (the agent host's program) was not found; "
			 "install it, or give the host's command line: hbctl settings agent-host set LINE (or "
			 "HB_AGENT_HOST)", host[0]);
		return -1;
	}
	if (bridge_path(exe_dir, "claude", c->bridge, sizeof c->bridge, reason, len) < 0)
		return -1;
	c->argv[n++] = c->bridge;
	c->argv[n++] = "--session";
	c->argv[n++] = (char *)t->session;
	c->argv[n++] = "--run";
	c->argv[n++] = (char *)t->run;
	c->argv[n++] = "--project";
	c->argv[n++] = (char *)t->project;
	c->argv[n++] = "--access";
	c->argv[n++] = (char *)t->access;
	/* Without a conversation the bridge starts a new one and links it
	 * to the session before anything goes in (docs/messages.md). */
	if (*t->link) {
		c->argv[n++] = "--claude-session";
		c->argv[n++] = (char *)t->link;
	}
	n = model_args(t, c->argv, n);
	c->argv[n++] = "--once";
	c->argv[n++] = "--";
	for (int i = 0; host[i]; i++)
		c->argv[n++] = host[i];
	c->argv[n] = NULL;
	return n;
}

int hb_launch_argv(const struct hb_paths *p, const char *exe_dir, const struct hb_launch_target *t,
		   struct hb_launch_argv *c, char *reason, size_t len)
{
	return strcmp(t->agent, "claude") == 0 ? claude_argv(p, exe_dir, t, c, reason, len)
					       : codex_argv(p, exe_dir, t, c, reason, len);
}
