/*
 * worker_claude - svc-explainer's private Claude worker, driven as a
 * desktop would drive it: the Claude agent host (docs/agent-host-pipe.md)
 * as our child in a process group of its own (killed with us, on Linux),
 * and the host's requests on its stdio: open (a new conversation in the
 * work folder, the worker's tools as appCapabilities and allowed without
 * asking, nothing else allowed), send with the brief, interrupt on a
 * deadline or a cancel, close.  The worker's tool calls (toolCall) are
 * answered here through the caller's callback; permission questions, for
 * any tool but the worker's own, are denied.
 *
 * Why not through hb-claude-bridge and the broker: the bridge would link
 * the worker's conversation durably to the calling session and attach to
 * the session's message deliveries, and the worker's calls would bind to
 * the session's active run, so that its tools could not be told apart
 * from the main agent's.  Answering here duplicates nothing:
 * agents/dialect.c reads and writes the frames for the broker and for us.
 *
 * The caller must ignore SIGPIPE (services do: common/service.c).
 */
#ifndef HB_WORKER_CLAUDE_H
#define HB_WORKER_CLAUDE_H

#include <stddef.h>

#include "worker.h"

struct worker_claude_opts {
	char *const *host_argv;       /* the agent host, e.g. {"node", ".../host.mjs",
					 NULL}; argv[0] looked up in PATH */
	char *const *envp;            /* the host's environment (the session's
					 user's HOME, Claude's settings, no secret);
					 NULL: ours */
	const char *model;            /* NULL: Claude Code's default */
	const char *cwd;              /* the work folder, absolute */
	const char *app_capabilities; /* JSON array of {name, description,
					 inputSchema, approval} */
	const char *brief;            /* the first turn's text */
	worker_tool_fn tool;          /* answers the worker's tool calls */
	void *tool_arg;
};

struct worker_claude;

/* Start the host and send open (a new conversation: a random session id);
 * send follows the open's answer inside worker_claude_wait.  0 and *out
 * (stop it with worker_claude_stop), or -1 with a sentence in err. */
int worker_claude_start(const struct worker_claude_opts *opts, struct worker_claude **out,
			char *err, size_t errlen);

/* Run the turn until the host reports the session idle, until deadline_ms
 * (hb_monotonic_ms) or until stop(stop_arg) says to (the cancel; stop may be NULL); those
 * two send interrupt and give the turn a second to end before the process
 * group is killed.  Tool calls are answered through opts->tool,
 * synchronously: the wait reads nothing while one runs, and looks at the
 * cancel and the deadline after it.  On WORKER_FAILED err holds a
 * sentence; the worker is unusable then, but must still be stopped. */
enum worker_end worker_claude_wait(struct worker_claude *w, long long deadline_ms,
				   int (*stop)(void *arg), void *stop_arg, char *err, size_t errlen);

/* The ended turn's status: "completed", "failed" (the turn's result was an
 * error, e.g. of the API), "interrupted" (after our interrupt), or
 * "killed" when the turn had to be ended by killing the host; NULL while
 * no turn has ended. */
const char *worker_claude_turn_status(const struct worker_claude *w);
/* Tool calls answered through the callback so far. */
unsigned worker_claude_tool_calls(const struct worker_claude *w);
/* The process group (the host's pid) while it runs: for tests. */
int worker_claude_pgid(const struct worker_claude *w);

/* End the host (close, end of input, then TERM and KILL to its whole
 * group after a grace), reap it and free w.  Nothing of the worker
 * outlives it. */
void worker_claude_stop(struct worker_claude *w);

#endif
