/*
 * worker - the explainer's private worker, whichever agent plays it: one
 * driver (worker.c) and a small table per agent (worker_agent.h:
 * worker_codex.c drives `codex app-server`, worker_claude.c the Claude
 * agent host), driven as a desktop would drive it.
 *
 * svc-explainer drives the agent itself, as a desktop would, and answers
 * the worker's tool calls itself: they never reach the broker, so no other
 * run can call a worker's tool, the worker's thread is never linked to the
 * session (its drafts stay out of the session's history and its messages),
 * and nothing of the worker is in the broker's catalog.  The agents' frames
 * are read and written by agents/dialect.c, as the broker does.
 *
 * Why not through the bridges and the broker: a bridge would link the
 * worker's thread or conversation durably to the calling session and
 * attach to the session's message deliveries, and the worker's calls would
 * bind to the session's active run, so that its tools could not be told
 * apart from the main agent's.
 *
 * The agent runs in a process group of its own, led by a guard that kills
 * the whole group when svc-explainer dies (lib/child.h), so it ends
 * with the call, on a cancel, at the deadline and when svc-explainer dies.
 * The process half is worker_proc.c's.  The caller must ignore SIGPIPE
 * (services do: common/service.c).
 */
#ifndef EXPLAINER_WORKER_H
#define EXPLAINER_WORKER_H

#include <stddef.h>

#include "workdir.h"

/* The namespace of the worker's tools: Codex's dynamicTools namespace; for
 * Claude the host's MCP server is always "hbcode" (mcp__hbcode__NAME). */
#define WORKER_NAMESPACE "hbcode_explainer"

/* Answers one tool call of the worker: tool is the bare name, args_json
 * the arguments' JSON text.  Runs on the thread that waits for the worker
 * (worker_*_wait), which reads nothing from the agent meanwhile; the
 * answer's text and PNG (workdir_answer) are freed by the caller. */
typedef struct workdir_answer (*worker_tool_fn)(void *arg, const char *tool, const char *args_json);

/* How a wait for the worker's turn ended. */
enum worker_end {
	WORKER_TURN_ENDED, /* the turn ended by itself: *_turn_status says how */
	WORKER_CANCELLED,  /* the caller's stop test said so */
	WORKER_TIMED_OUT,  /* the deadline passed */
	WORKER_FAILED,     /* err says why (the agent ended, an error answer...) */
};

struct worker_opts {
	char *const *argv;   /* the agent: codex's {codex, "app-server", NULL},
				or the agent host's (agent_cmd.h); argv[0] looked
				up in PATH */
	char *const *envp;   /* the agent's environment (HOME and the agent's
				settings of the session's user, no secret);
				NULL: ours */
	const char *model;   /* NULL: the agent's default */
	const char *cwd;     /* the work folder, absolute: the only place the
				worker may write */
	const char *tools;   /* JSON array: Codex's dynamicTools (one namespace
				WORKER_NAMESPACE), the host's appCapabilities
				({name, description, inputSchema, approval}) */
	const char *brief;   /* the first turn's text */
	worker_tool_fn tool; /* answers the worker's tool calls */
	void *tool_arg;
};

/* An agent's table (worker_agent.h). */
struct worker_agent;
extern const struct worker_agent worker_codex, worker_claude;

struct worker;

/* Start the agent and send its first request; the rest follow their
 * answers inside worker_wait, so its deadline and cancel cover the
 * start-up too.  0 and *out (stop it with worker_stop), or -1 with a
 * sentence in err. */
int worker_start(const struct worker_agent *agent, const struct worker_opts *opts, struct worker **out, char *err,
		 size_t errlen);

/* Run the turn until it ends, until deadline_ms (hb_monotonic_ms) or until
 * stop(stop_arg) says to (the cancel; stop may be NULL); those two ask the
 * agent to interrupt the turn and give it a second to end before the
 * process group is killed.  Tool calls are answered through opts->tool,
 * synchronously: the wait reads nothing while one runs, and looks at the
 * cancel and the deadline after it.  A call the worker cannot read is
 * answered as an error; approval and permission questions are declined.
 * On WORKER_FAILED err holds a sentence; the worker is unusable then, but
 * must still be stopped. */
enum worker_end worker_wait(struct worker *w, long long deadline_ms, int (*stop)(void *arg), void *stop_arg,
			    char *err, size_t errlen);

/* The ended turn's status: "completed", "failed" (Codex's failed turn,
 * Claude's error result), "interrupted" (after an interrupt), or "killed"
 * when the turn had to be ended by killing the agent; NULL while no turn
 * has ended. */
const char *worker_turn_status(const struct worker *w);
/* Tool calls answered through the callback so far. */
unsigned worker_tool_calls(const struct worker *w);
/* The process group (the agent's pid) while it runs: for tests. */
int worker_pgid(const struct worker *w);

/* End the agent (its own goodbye where it has one, end of input, then
 * TERM and KILL to its whole group after a grace), reap it and free w.
 * Nothing of the worker outlives it. */
void worker_stop(struct worker *w);

#endif
