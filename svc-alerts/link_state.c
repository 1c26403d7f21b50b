/*
 * link_state - the relay link's phase and last error, shared by the
 * link's task (the one writer) and the tool's calls (readers that may ask
 * for a restart).
 */
#include "link_state.h"

#include <stdio.h>
#include <string.h>

int link_state_init(struct link_state *ls)
{
	memset(ls, 0, sizeof *ls);
	ls->phase = LINK_NEVER_STARTED;
	return pthread_mutex_init(&ls->lock, NULL) == 0 ? 0 : -1;
}

void link_state_destroy(struct link_state *ls)
{
	pthread_mutex_destroy(&ls->lock);
}

void link_state_view(struct link_state *ls, struct link_view *out)
{
	pthread_mutex_lock(&ls->lock);
	out->phase = ls->phase;
	snprintf(out->error, sizeof out->error, "%s", ls->error);
	pthread_mutex_unlock(&ls->lock);
}

int link_state_set(struct link_state *ls, enum link_phase phase, const char *error)
{
	int changed;

	pthread_mutex_lock(&ls->lock);
	changed = ls->phase != phase || (error && strcmp(error, ls->error) != 0);
	ls->phase = phase;
	if (error)
		snprintf(ls->error, sizeof ls->error, "%s", error);
	pthread_mutex_unlock(&ls->lock);
	return changed;
}

void link_state_ask_restart(struct link_state *ls)
{
	pthread_mutex_lock(&ls->lock);
	ls->restarts++;
	pthread_mutex_unlock(&ls->lock);
}

unsigned long link_state_restarts(struct link_state *ls)
{
	unsigned long n;

	pthread_mutex_lock(&ls->lock);
	n = ls->restarts;
	pthread_mutex_unlock(&ls->lock);
	return n;
}

const char *link_phase_name(enum link_phase phase)
{
	switch (phase) {
	case LINK_NEVER_STARTED:
		return "never started";
	case LINK_CONNECTING:
		return "connecting";
	case LINK_READY:
		return "ready";
	case LINK_DOWN:
		return "down";
	}
	return "unknown";
}
