/*
 * watch - hbctl watch's two parts: the loop over the broker's events
 * (watch.c) and the timeline view it feeds (watch_timeline.c).
 */
#ifndef HBCTL_WATCH_H
#define HBCTL_WATCH_H

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

/* hbctl watch --timeline's options (watch.c reads them). */
struct timeline_watch_opts {
	const char *session;	/* one session's rows, or NULL */
	const char *thread;	/* one subagent's view, or NULL */
	const char *agent;	/* one agent's rows ("codex", "claude"), or NULL */
	int json;		/* the events' JSON lines, as a script reads them */
};
/* watch_timeline.c: the view; 0, EXIT_FAIL or EXIT_NO_BROKER. */
int watch_timeline(const struct timeline_watch_opts *o);

#endif
