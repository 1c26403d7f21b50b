/*
 * scale_stats - see scale_stats.h.  Percentiles are bench_stats.c's, as
 * in bench-broker.c, so the scale figures read like the broker's.
 */
#include "scale_stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_ROUND_SAMPLES 10 /* a round cut short by HB_BENCH_SCALE_FIGURE_MS keeps these */

int scale_sample(scale_op_fn op, void *arg, long calls, double limit_us, struct scale_samples *s,
		 const volatile sig_atomic_t *stop)
{
	double t0 = bench_now_us();

	if (s->n + (size_t)calls > s->cap) {
		double *v = realloc(s->v, (s->n + (size_t)calls) * sizeof *v);
		if (!v)
			return fprintf(stderr, "bench-scale: out of memory\n"), -1;
		s->v = v;
		s->cap = s->n + (size_t)calls;
	}
	for (long i = 0; i < calls && !*stop; i++) {
		if (op(arg, &s->v[s->n]) < 0)
			return -1;
		s->n++;
		if (i + 1 < calls && i + 1 >= MIN_ROUND_SAMPLES && bench_now_us() - t0 > limit_us) {
			s->cut = 1;
			break;
		}
	}
	return *stop ? -1 : 0;
}

int scale_warm_up(scale_op_fn op, void *arg, long calls, const volatile sig_atomic_t *stop)
{
	for (long i = 0; i < calls && !*stop; i++) {
		double us;
		if (op(arg, &us) < 0)
			return -1;
	}
	return *stop ? -1 : 0;
}

void scale_summarize(struct scale_samples *s, struct scale_figure *f)
{
	bench_sort(s->v, s->n);
	f->p50 = bench_pct(s->v, s->n, 50);
	f->p99 = bench_pct(s->v, s->n, 99);
	f->n = s->n;
	f->cut = s->cut;
	free(s->v);
	memset(s, 0, sizeof *s);
}

const char *scale_grouped(long n, char *buf, size_t len)
{
	char digits[32];
	size_t nd, o = 0;

	nd = (size_t)snprintf(digits, sizeof digits, "%ld", n);
	for (size_t i = 0; i < nd && o + 2 < len; i++) {
		if (i > 0 && (nd - i) % 3 == 0 && digits[0] != '-')
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}
