/*
 * pump - the one loop of a bridge: lines from the caller (our stdin),
 * lines from the agent process (its stdout), and answers from the broker,
 * each handed to the bridge's own functions, until the agent's output ends.
 */
#ifndef HB_PUMP_H
#define HB_PUMP_H

#include <stddef.h>

struct pump_ops {
	void (*from_caller)(void *ctx, char *line, size_t len);
	void (*caller_done)(void *ctx);          /* our stdin reached its end */
	void (*from_agent)(void *ctx, char *line, size_t len);
	void (*from_broker)(void *ctx);          /* the broker socket is readable */
	/* Before each wait: how long to wait at most (ms, -1: no limit), or
	 * -2 to stop now.  May be NULL (no limit). */
	long long (*before_wait)(void *ctx);
};

/* Run until the agent's stdout ends (0) or polling fails (-1). */
int pump_run(int agent_out, void *broker_sock, const struct pump_ops *ops, void *ctx);

#endif
