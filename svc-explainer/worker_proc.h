/*
 * worker_proc - the process half of svc-explainer's worker, the same for
 * either agent (worker_codex.c, worker_claude.c add their frames): the
 * agent started in a process group of its own with the parent-death
 * signal, its lines read in bounded drains inside one cancel/deadline
 * loop, the tool calls answered through the caller's callback, an
 * interrupt followed by a kill of the group when the turn does not end in
 * time, and the stop that leaves nothing of the group behind.
 *
 * The caller must ignore SIGPIPE (services do: common/service.c): a write
 * to an agent that died is then an error, not the end of the process.
 */
#ifndef EXPLAINER_WORKER_PROC_H
#define EXPLAINER_WORKER_PROC_H

#include <jansson.h>
#include <stddef.h>

#include "line_child.h"
#include "worker.h"

struct worker_proc {
	struct line_child lc;    /* the agent, spoken to in lines (agents/) */
	const char *name;        /* "the Codex app-server": for sentences */
	char status[32];         /* the ended turn's, or "killed"; "" while running */
	char failure[512];       /* the first failure (the agent's end, a refusal) */
	unsigned tool_calls;     /* answered through the callback */
	int exited;              /* the agent is a zombie (not reaped yet) */
	int exit_status;         /* then: its exit status, 128+signal when killed */
	int reaped;
	int hurry;               /* the wait ended by a cancel or the deadline:
				    the stop kills at once */
};

/* What the loop asks of the agent's side. */
struct worker_proc_ops {
	/* One line the agent wrote (without its newline). */
	void (*line)(void *ctx, const char *line, size_t len);
	/* The cancel or the deadline came: ask the agent to end its turn.
	 * 0 asked (the turn has a second to end, a cancel's 0.2 s), -1 nothing to ask
	 * yet (the group is killed at once). */
	int (*interrupt)(void *ctx);
};

/* Start argv (argv[0] looked up in PATH; envp NULL: ours) with its stdio
 * on pipes, in a group of its own and with the parent-death signal.  name
 * must outlive p.  0, or -1 with a sentence in err. */
int worker_proc_start(struct worker_proc *p, const char *name, char *const argv[], char *const envp[], char *err,
		      size_t errlen);

/* Record the first failure: a printf format with one %s (detail). */
void worker_proc_fail(struct worker_proc *p, const char *fmt, const char *detail);
/* The turn ended with status (NULL or "": "unknown"). */
void worker_proc_turn_ended(struct worker_proc *p, const char *status);
/* Write msg as one line and take its reference (NULL: out of memory); a
 * write that fails is a failure. */
void worker_proc_send(struct worker_proc *p, json_t *msg);
/* The same for a line already written out (malloc'd, freed here; NULL:
 * out of memory). */
void worker_proc_send_text(struct worker_proc *p, char *text);

/* One agent's answer to a tool call, from the tool's answer: a
 * dialect_codex_answer or a dialect_claude_result. */
typedef char *(*worker_frame_fn)(const char *id, int ok, const char *text, const char *images);
/* Run the tool callback for tool (args: JSON text) and write its answer
 * with frame for the call id (JSON text), its PNG as the image; the call
 * is counted.  malloc'd, or NULL when out of memory. */
char *worker_proc_answer(struct worker_proc *p, worker_tool_fn tool, void *tool_arg, const char *name,
			 const char *args, const char *id, worker_frame_fn frame);

/* Read the agent's lines into ops->line until the turn ends (p->status),
 * a failure, the deadline (hb_monotonic_ms) or a cancel: stop(stop_arg)
 * nonzero, polled every 50 ms and after each tool call (stop may be NULL);
 * those two call ops->interrupt and kill the group if the turn has not
 * ended a second later (status "killed").  What the agent wrote before
 * the cancel or deadline is read first.  On WORKER_FAILED err holds a
 * sentence. */
enum worker_end worker_proc_wait(struct worker_proc *p, const struct worker_proc_ops *ops, void *ctx,
				 long long deadline_ms, int (*stop)(void *arg), void *stop_arg, char *err,
				 size_t errlen);

/* End the agent: end of its input, then TERM and KILL to its whole group
 * after a grace each; reap it and free what p holds (not p).  Nothing of
 * the group outlives it. */
void worker_proc_stop(struct worker_proc *p);

#endif
