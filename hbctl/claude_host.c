/*
 * claude_host - a one-shot Claude agent host for reads (docs/agent-host-
 * pipe.md, "Reads"), as the desktop starts one for a read that needs no
 * open conversation: the setting agentHost or the host beside hbctl
 * (agent_cmd.h), without the nine markers a parent Claude Code session
 * leaves in the environment (else the host would run as a child session),
 * in a process group of its own (line_rpc.c).  One host answers any number
 * of reads in turn, so a command that pages a whole conversation starts
 * Node and the SDK once; its end sends close, closes the pipe and ends the
 * whole group.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "agent_cmd.h"
#include "exe_path.h"
#include "hbctl.h"
#include "line_rpc.h"
#include "paths.h"
#include "secrets.h"

extern char **environ;

struct claude_host {
	char words[HB_AGENT_HOST_LINE_MAX];
	char *argv[HB_AGENT_HOST_ARGS_MAX + 1];
	struct line_rpc *rpc;
};

/* The host's command line: the setting, or the host beside hbctl. */
static int host_argv(const char *argv0, char *words, size_t wordslen, char *argv[HB_AGENT_HOST_ARGS_MAX + 1])
{
	struct hb_paths paths;
	char dir[HB_PATH_MAX], err[1024];

	if (hb_paths_resolve(&paths, err, sizeof err) < 0 || hb_exe_dir(argv0, dir, sizeof dir, err, sizeof err) < 0 ||
	    hb_agent_host_argv(&paths, dir, words, wordslen, argv, err, sizeof err) < 0) {
		fprintf(stderr, "hbctl: %s\n", err);
		return -1;
	}
	return 0;
}

struct claude_host *claude_host_start(const char *argv0)
{
	struct claude_host *h = calloc(1, sizeof *h);
	char **envp;

	if (!h) {
		fprintf(stderr, "hbctl: out of memory\n");
		return NULL;
	}
	if (host_argv(argv0, h->words, sizeof h->words, h->argv) < 0) {
		free(h);
		return NULL;
	}
	if (!(envp = hb_env_without_secrets(environ, hb_claude_child_markers))) {
		fprintf(stderr, "hbctl: out of memory\n");
		free(h);
		return NULL;
	}
	h->rpc = line_rpc_start(h->argv, envp, "the Claude agent host");
	free(envp); /* one allocation; the child has its copy */
	if (!h->rpc) {
		free(h);
		return NULL;
	}
	return h;
}

int claude_host_read(struct claude_host *h, const char *method, json_t *params, json_t **reply)
{
	return line_rpc_call(h->rpc, method, params, reply);
}

void claude_host_end(struct claude_host *h)
{
	if (!h)
		return;
	line_rpc_end(h->rpc, "close");
	free(h);
}

int claude_read(const char *argv0, const char *method, json_t *params, json_t **reply)
{
	struct claude_host *h = claude_host_start(argv0);
	int rc;

	*reply = NULL;
	if (!h)
		return EXIT_FAIL;
	rc = claude_host_read(h, method, params, reply);
	claude_host_end(h);
	return rc;
}
