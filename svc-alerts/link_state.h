/*
 * link_state - what the relay link's task and the tool's calls share: the
 * link's phase and last error (the task writes them, calls read them),
 * and the calls' requests to restart the link (page 000: a call that
 * finds a started link not ready restarts it and tries 8 more times).
 * One mutex; nothing here blocks.
 */
#ifndef ALERTS_LINK_STATE_H
#define ALERTS_LINK_STATE_H

#include <pthread.h>

#include "link_config.h"

enum link_phase {
	LINK_NEVER_STARTED,  /* no connection tried since the service started */
	LINK_CONNECTING,     /* connecting, or hello sent and ready awaited */
	LINK_READY,          /* ready arrived: events may be sent */
	LINK_DOWN,           /* it started once and is not up now */
};

struct link_state {
	pthread_mutex_t lock;
	enum link_phase phase;
	char error[LINK_REASON_MAX];  /* the last error, a sentence; "" none */
	unsigned long restarts;       /* restarts the calls asked for */
};

struct link_view {
	enum link_phase phase;
	char error[LINK_REASON_MAX];
};

int link_state_init(struct link_state *ls);
void link_state_destroy(struct link_state *ls);
void link_state_view(struct link_state *ls, struct link_view *out);
/* Set the phase and the last error (NULL keeps the error, "" clears it);
 * 1 when either changed, else 0. */
int link_state_set(struct link_state *ls, enum link_phase phase, const char *error);
/* A call asks for a restart (then wakes the task); the task compares the
 * count with the one it served. */
void link_state_ask_restart(struct link_state *ls);
unsigned long link_state_restarts(struct link_state *ls);

/* "never started", "connecting", "ready", "down". */
const char *link_phase_name(enum link_phase phase);

#endif
