/*
 * scale_sessions - part 1 of the scale benchmark (bench-scale.c):
 * maintain_sessions listSessions {"limit":25} and resolveSession (a random
 * existing id) on an appdata.db of N sessions, made with the project's own
 * open and schema code (appdata/) and filled by one bulk insert
 * (scale_fill.c), timed three ways (scale_sessions_rig.h): the handler in
 * this process, the query alone, and end to end through hb-broker to
 * svc-sessions as deployed.  The counts alternate in rounds so that the
 * machine's noise falls on all of them alike; p50 and p99 per count, and
 * the growth from one count to the next (scale_sessions_report.c).
 */
#ifndef BENCH_SCALE_SESSIONS_H
#define BENCH_SCALE_SESSIONS_H

#include <signal.h>

#include "scale_stats.h"

struct scale_sessions_sizes {
	long counts[SCALE_MAX_COUNTS]; /* HB_BENCH_SCALE_SESSIONS; those <= 0 are skipped */
	int ncounts;
	long calls;                    /* HB_BENCH_SCALE_CALLS: per figure, over all rounds */
	long rounds;                   /* HB_BENCH_SCALE_ROUNDS */
	long figure_ms;                /* HB_BENCH_SCALE_FIGURE_MS: a figure takes no more samples after this */
};

/* Run part 1 and print its figures; 0, or -1 when a step failed (said on
 * stderr) or *stop was set.  Its brokers and folders are gone after. */
int scale_sessions_part(const struct scale_sessions_sizes *z, const volatile sig_atomic_t *stop);

#endif
