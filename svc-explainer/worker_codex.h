/*
 * worker_codex - svc-explainer's private Codex worker, driven as a desktop
 * would drive it: `codex app-server` as our child in a process group of
 * its own (killed with us, on Linux), and the few JSON-RPC requests of the
 * Codex app-server protocol on its stdio: initialize, initialized,
 * thread/start (model, cwd, dynamicTools, approvals never, writes only in
 * cwd), turn/start with the brief, and turn/interrupt on a deadline or a
 * cancel.  The worker's tool calls (item/tool/call in WORKER_NAMESPACE)
 * are answered here through the caller's callback.
 *
 * Why not through hb-codex-bridge and the broker: the bridge would link
 * the worker's thread durably to the calling session and attach to the
 * session's message deliveries, and the worker's calls would bind to the
 * session's active run, so that its tools could not be told apart from
 * the main agent's.  Answering here duplicates nothing: agents/dialect.c
 * reads and writes the frames for the broker and for us.
 *
 * The caller must ignore SIGPIPE (services do: common/service.c).
 */
#ifndef HB_WORKER_CODEX_H
#define HB_WORKER_CODEX_H

#include <stddef.h>

#include "worker.h"

struct worker_codex_opts {
	const char *codex;         /* a path, or a name looked up in PATH */
	char *const *envp;         /* codex's environment (HOME and CODEX_HOME of
				      the session's user, no secret); NULL: ours */
	const char *model;         /* NULL: the Codex configuration's */
	const char *cwd;           /* the work folder: the thread's cwd, the only
				      place the worker may write */
	const char *dynamic_tools; /* JSON array: one {"type":"namespace","name":
				      WORKER_NAMESPACE, ..., "tools":[...]} */
	const char *brief;         /* the first turn's text */
	worker_tool_fn tool;       /* answers the worker's tool calls */
	void *tool_arg;
};

struct worker_codex;

/* Start codex and send initialize; the rest of the requests follow their
 * answers inside worker_codex_wait.  0 and *out (stop it with
 * worker_codex_stop), or -1 with a sentence in err. */
int worker_codex_start(const struct worker_codex_opts *opts, struct worker_codex **out,
		       char *err, size_t errlen);

/* Run the turn until it completes, until deadline_ms (hb_monotonic_ms) or
 * until stop(stop_arg) says to (the cancel; stop may be NULL); those two send turn/interrupt
 * and give the turn a second to end before the process group is killed.
 * Tool calls are answered through opts->tool, synchronously: the wait
 * reads nothing while one runs, and looks at the cancel and the deadline
 * after it.  A call for another namespace, or one that cannot be read, is
 * refused; approval requests are declined.  On WORKER_FAILED err holds a
 * sentence; the worker is unusable then, but must still be stopped. */
enum worker_end worker_codex_wait(struct worker_codex *w, long long deadline_ms,
				  int (*stop)(void *arg), void *stop_arg, char *err, size_t errlen);

/* The ended turn's status ("completed", "interrupted", "failed"), or
 * "killed" when the turn had to be ended by killing the worker, or NULL
 * while no turn has ended. */
const char *worker_codex_turn_status(const struct worker_codex *w);
/* Tool calls answered through the callback so far. */
unsigned worker_codex_tool_calls(const struct worker_codex *w);
/* The process group (codex's pid) while it runs: for tests. */
int worker_codex_pgid(const struct worker_codex *w);

/* End codex (end of input, then TERM and KILL to its whole group after a
 * grace), reap it and free w.  Nothing of the worker outlives it. */
void worker_codex_stop(struct worker_codex *w);

#endif
