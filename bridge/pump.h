/*
 * pump - the one loop of a bridge: lines from the caller (our stdin),
 * lines from the agent process (its stdout), answers from the broker and
 * the signals that end a bridge, each handed to the bridge's own
 * functions, until the agent's output ends.
 */
#ifndef HB_PUMP_H
#define HB_PUMP_H

#include <stddef.h>

#include "line_child.h"

struct pump_ops {
	/* NULL: there is no caller, stdin is not read (caller_done unused). */
	void (*from_caller)(void *ctx, char *line, size_t len);
	void (*caller_done)(void *ctx);          /* our stdin reached its end */
	line_child_fn from_agent;               /* a line of the agent's output */
	void (*from_broker)(void *ctx);          /* the broker socket is readable */
	/* Before each wait: how long to wait at most (ms, -1: no limit), or
	 * -2 to stop now.  May be NULL (no limit). */
	long long (*before_wait)(void *ctx);
	/* SIGTERM or SIGINT arrived (after pump_catch_signals); may be NULL. */
	void (*signalled)(void *ctx);
};

/* Catch SIGTERM, and SIGINT unless it is ignored (as a shell leaves it
 * for a job in the background), so that the bridge ends the way it ends
 * when its caller goes: it closes the agent and detaches its session.
 * The handler only writes to a pipe that pump_run polls, so the signal is
 * handled in the loop, never between two calls of it.  0 or -1. */
int pump_catch_signals(void);

/* Run until the agent's output ends (0) or polling fails (-1); the
 * agent's lines are read by the one JSON-line child engine
 * (agents/line_child.h), which the agent was started or adopted into. */
int pump_run(struct line_child *agent, void *broker_sock, const struct pump_ops *ops, void *ctx);

#endif
