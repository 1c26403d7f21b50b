/*
 * scale_stats - how the scale benchmark (bench-scale.c) turns timed calls
 * into figures: samples gathered over rounds with a time limit per round,
 * their p50 and p99 (bench_stats.h's), and counts printed with thousands
 * separators.  Parts 1 and 3 both time calls this way, so their
 * figures mean the same thing.
 */
#ifndef BENCH_SCALE_STATS_H
#define BENCH_SCALE_STATS_H

#include <signal.h>
#include <stddef.h>

#include "bench_stats.h"

/* The most counts one part runs (a list of sizes from the environment). */
#define SCALE_MAX_COUNTS 8

struct scale_figure {
	double p50, p99;
	size_t n;       /* samples taken */
	int cut;        /* fewer than asked: HB_BENCH_SCALE_FIGURE_MS */
};

/* Samples of one figure, gathered over rounds. */
struct scale_samples {
	double *v;
	size_t n, cap;
	int cut;
};

/* One timed operation on arg: its time into *us; 0 or -1 (said on stderr). */
typedef int (*scale_op_fn)(void *arg, double *us);

/* Up to `calls` more samples of op into s, for at most limit_us (but at
 * least a few); 0, or -1 when op failed or *stop was set. */
int scale_sample(scale_op_fn op, void *arg, long calls, double limit_us, struct scale_samples *s,
		 const volatile sig_atomic_t *stop);
/* Calls whose time is not kept (caches, connections, the first page
 * faults); 0, or -1 when op failed or *stop was set. */
int scale_warm_up(scale_op_fn op, void *arg, long calls, const volatile sig_atomic_t *stop);
/* Sort s into f's percentiles; s is freed and emptied. */
void scale_summarize(struct scale_samples *s, struct scale_figure *f);
/* 100000 -> "100,000" in buf; returns buf. */
const char *scale_grouped(long n, char *buf, size_t len);

#endif
