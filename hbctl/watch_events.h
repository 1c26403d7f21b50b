/*
 * watch_events - the loop over the broker's events that hbctl watch and
 * its timeline view (watch_timeline.c) share.
 */
#ifndef HBCTL_WATCH_EVENTS_H
#define HBCTL_WATCH_EVENTS_H

#include <stddef.h>

/* What the loop hands each event (its topic and JSON) to, and calls
 * about every half second while nothing comes. */
struct watch_sink {
	void (*event)(void *ctx, const char *topic, const char *json);
	void (*idle)(void *ctx);
	void *ctx;
};

/* The events of the topics starting with one of prefixes[0 .. n), until
 * SIGINT or SIGTERM: 0, or EXIT_NO_BROKER (said). */
int watch_events(const char *const *prefixes, size_t n, const struct watch_sink *sink);

#endif
