/*
 * bench_stats - what every benchmark does with the times it takes: a
 * microsecond clock, sorting, the nearest-rank percentile and the median.
 */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stddef.h>

/* CLOCK_MONOTONIC in microseconds (lib/clock.h counts in ms only). */
double bench_now_us(void);
/* The same clock in milliseconds. */
double bench_now_ms(void);
/* Sort v[n] ascending. */
void bench_sort(double *v, size_t n);
/* Nearest-rank percentile p (0..100) of sorted v[n]; 0 when n is 0. */
double bench_pct(const double *v, size_t n, double p);
/* The median of v[n] (left unsorted: a sorted copy is taken), the mean
 * of the middle two when n is even; 0 when n is 0. */
double bench_median(const double *v, size_t n);

#endif
