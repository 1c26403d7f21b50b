/*
 * worker_agent - what differs between the explainer's Codex and Claude
 * workers, as a table worker.c drives: the words of the sentences, the
 * agent's state built from the options, the first request, the agent's
 * lines, the interrupt and the goodbye.  The frames themselves are
 * agents/'s (codex_client.h, claude_host_client.h, dialect.h).
 */
#ifndef EXPLAINER_WORKER_AGENT_H
#define EXPLAINER_WORKER_AGENT_H

#include <jansson.h>
#include <stddef.h>

#include "worker.h"
#include "worker_proc.h"

/* The worker, as the agents' files see it. */
struct worker {
	struct worker_proc proc;
	const struct worker_agent *agent;
	void *state;              /* the agent's */
	worker_tool_fn tool;
	void *tool_arg;
	char *brief;
};

struct worker_agent {
	const char *agent;        /* "Codex": "the Codex worker needs ..." */
	const char *program;      /* argv[0] to a person: "codex" */
	const char *name;         /* the process: "the Codex app-server" */
	/* The agent's state for the options, its tools (a JSON array) read:
	 * NULL with err. */
	void *(*create)(struct worker *w, const struct worker_opts *o, const json_t *tools, char *err,
			size_t errlen);
	void (*begin)(void *state);                        /* the first request */
	/* One line of the agent that is a JSON object: msg, parsed (borrowed),
	 * and its text; other lines are the agent's own business. */
	void (*line)(void *state, json_t *msg, const char *line, size_t len);
	int (*interrupt)(void *state);                     /* as worker_proc_ops' */
	void (*end)(void *state);                          /* before the stop; NULL: none */
	void (*destroy)(void *state);
};

#endif
