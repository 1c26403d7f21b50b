/*
 * worker_codex - svc-explainer's private Codex worker, driven as a desktop
 * would drive it: `hb-codex-bridge --session S -- codex app-server` as our
 * child in a process group of its own (killed with us, on Linux), and the
 * few JSON-RPC requests of the Codex app-server protocol on its stdio:
 * initialize, initialized, thread/start (model, cwd, dynamicTools,
 * approvals never, writes only in cwd), turn/start with the brief, and
 * turn/interrupt on a deadline or a cancel.  The worker's tool calls go
 * from codex through the bridge to the broker like any other call; here
 * they only pass by and are counted.
 *
 * The caller must ignore SIGPIPE (services do: common/service.c): a write
 * to a bridge that died is then an error, not the end of the process.
 */
#ifndef HB_WORKER_CODEX_H
#define HB_WORKER_CODEX_H

#include <signal.h>
#include <stddef.h>

struct worker_codex_opts {
	const char *bridge;        /* hb-codex-bridge: a path, or a name looked up in PATH */
	const char *codex;         /* codex: likewise (the bridge runs `CODEX app-server`) */
	const char *session;       /* the HB Code session the worker's thread is linked to */
	char *const *envp;         /* the bridge's environment; NULL: ours (HOME and
				      CODEX_HOME of the session's user, HB_HOME) */
	const char *model;         /* NULL: the Codex configuration's */
	const char *cwd;           /* the work folder: the thread's cwd, the only
				      place the worker may write */
	const char *dynamic_tools; /* JSON array of DynamicToolSpec (the hbcode
				      namespace form, as the catalog's) */
	const char *brief;         /* the first turn's text */
};

struct worker_codex;

/* How worker_codex_wait ended. */
enum worker_codex_end {
	WORKER_CODEX_TURN_ENDED, /* turn/completed: worker_codex_turn_status says how */
	WORKER_CODEX_CANCELLED,  /* *cancel became nonzero */
	WORKER_CODEX_TIMED_OUT,  /* the deadline passed */
	WORKER_CODEX_FAILED,     /* err says why (the bridge ended, an error answer...) */
};

/* Start the bridge and send initialize; the rest of the requests follow
 * their answers inside worker_codex_wait.  0 and *out (stop it with
 * worker_codex_stop), or -1 with a sentence in err. */
int worker_codex_start(const struct worker_codex_opts *opts, struct worker_codex **out,
		       char *err, size_t errlen);

/* Run the turn until it completes, until deadline_ms (hb_monotonic_ms) or
 * until *cancel is set (cancel may be NULL); those two send turn/interrupt
 * and give the turn a second to end before the process group is killed.
 * Approval requests are declined.  On WORKER_CODEX_FAILED err holds a
 * sentence; the worker is unusable then, but must still be stopped. */
enum worker_codex_end worker_codex_wait(struct worker_codex *w, long long deadline_ms,
					const volatile sig_atomic_t *cancel, char *err, size_t errlen);

/* The ended turn's status ("completed", "interrupted", "failed"), or
 * "killed" when the turn had to be ended by killing the worker, or NULL
 * while no turn has ended. */
const char *worker_codex_turn_status(const struct worker_codex *w);
/* Dynamic tool calls the worker has finished so far. */
unsigned worker_codex_tool_calls(const struct worker_codex *w);
/* The process group (the bridge's pid) while it runs: for tests. */
int worker_codex_pgid(const struct worker_codex *w);

/* End the bridge (end of input, then TERM and KILL to its whole group
 * after a grace), reap it and free w.  Nothing of the worker outlives it. */
void worker_codex_stop(struct worker_codex *w);

#endif
