/*
 * scale_attach - part 3 of the scale benchmark (bench-scale.c): K
 * stand-in bridges (scale_standins.c), each attached for a session of its
 * own and repeating session.attach as the bridges do; the broker's CPU
 * time per second, idle, from /proc/PID/stat (and from every thread's
 * schedstat, to the nanosecond), then the round trip of a tool call
 * (svc-echo's echo), in rounds that alternate the counts.
 */
#ifndef BENCH_SCALE_ATTACH_H
#define BENCH_SCALE_ATTACH_H

#include <signal.h>

#include "scale_broker.h"
#include "scale_stats.h"

struct scale_attach_sizes {
	long levels[SCALE_MAX_COUNTS]; /* HB_BENCH_SCALE_ATTACHED: bridges attached at once */
	int nlevels;
	long rounds;                   /* HB_BENCH_SCALE_ATTACH_ROUNDS */
	long cpu_s;                    /* HB_BENCH_SCALE_CPU_S: idle seconds per level, over all rounds */
	long calls;                    /* HB_BENCH_SCALE_RTT_CALLS: echo calls per level, over all rounds */
	long figure_ms;                /* HB_BENCH_SCALE_FIGURE_MS: per round, at most this long of echo calls */
};

/* Run part 3 on b (scale_broker_start's) and print its figures; 0, or -1
 * when a step failed (said on stderr) or *stop was set. */
int scale_attach_part(struct scale_broker *b, const struct scale_attach_sizes *z, const volatile sig_atomic_t *stop);

#endif
