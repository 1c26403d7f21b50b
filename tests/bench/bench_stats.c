/*
 * bench_stats - the benchmarks' clock and order statistics, once, so that
 * a p99 in one table means what it means in the next.
 */
#include "bench_stats.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double bench_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

double bench_now_ms(void)
{
	return bench_now_us() / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void bench_sort(double *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_double);
}

double bench_pct(const double *v, size_t n, double p)
{
	size_t i = (size_t)(p / 100.0 * (double)n + 0.5);

	if (n == 0)
		return 0;
	return v[i == 0 ? 0 : (i > n ? n - 1 : i - 1)];
}

double bench_median(const double *v, size_t n)
{
	double *tmp, m;

	if (n == 0)
		return 0;
	if (!(tmp = malloc(n * sizeof *tmp)))
		return v[n / 2]; /* unsorted, but a figure rather than none */
	memcpy(tmp, v, n * sizeof *tmp);
	bench_sort(tmp, n);
	m = n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
	free(tmp);
	return m;
}
