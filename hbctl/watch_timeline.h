/*
 * watch_timeline - hbctl watch --timeline, the live view (watch.c reads
 * its options).
 */
#ifndef HBCTL_WATCH_TIMELINE_H
#define HBCTL_WATCH_TIMELINE_H

/* Its options. */
struct timeline_watch_opts {
	const char *session;	/* one session's rows, or NULL */
	const char *thread;	/* one subagent's view, or NULL */
	const char *agent;	/* one agent's rows ("codex", "claude"), or NULL */
	int json;		/* the events' JSON lines, as a script reads them */
};
/* The view; 0, EXIT_FAIL or EXIT_NO_BROKER. */
int watch_timeline(const struct timeline_watch_opts *o);

#endif
