/*
 * scale_attach - see scale_attach.h.  The broker's CPU is read over idle
 * windows (nothing but the attaches), and the echo calls follow each
 * window, so that neither disturbs the other's figure.
 */
#include "scale_attach.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scale_proc.h"
#include "scale_standins.h"

#define WARM_UP_CALLS 20

/* A ~100-byte argument object, as in bench-broker. */
static const char ECHO_ARGS[] =
	"{\"path\":\"/home/user/project/src/main.c\",\"pattern\":\"hb_client_request\",\"limit\":50,\"ctx\":2}";

struct attach_figures {
	int bridges;
	double stat_s, sched_s, wall_s; /* broker CPU over the idle windows, and their length */
	long replies;                   /* attach answers within them */
	struct scale_samples rtt;
	struct scale_figure fig;
};

static int echo_op(void *arg, double *us)
{
	return scale_front_call(arg, "echo", ECHO_ARGS, us);
}

/* One idle window of cpu_ms and `calls` echo calls at the current level. */
static int measure_window(struct scale_broker *b, struct standins *s, long cpu_ms, long calls, double limit_us,
			  struct attach_figures *af, const volatile sig_atomic_t *stop)
{
	double st0, sc0, st1, sc1, t0;
	long r0 = atomic_load(&s->replies);

	t0 = bench_now_us();
	if (scale_cpu_of(b->f.broker, &st0, &sc0, NULL) < 0)
		return fprintf(stderr, "bench-scale: cannot read the broker's CPU time\n"), -1;
	for (long i = 0; i < cpu_ms / 50 && !*stop; i++)
		fx_sleep_ms(50);
	if (scale_cpu_of(b->f.broker, &st1, &sc1, NULL) < 0)
		return fprintf(stderr, "bench-scale: cannot read the broker's CPU time\n"), -1;
	af->wall_s += (bench_now_us() - t0) / 1e6;
	af->stat_s += st1 - st0;
	af->sched_s += sc1 - sc0;
	af->replies += atomic_load(&s->replies) - r0;
	if (scale_warm_up(echo_op, &b->desk, WARM_UP_CALLS, stop) < 0 ||
	    scale_sample(echo_op, &b->desk, calls, limit_us, &af->rtt, stop) < 0)
		return -1;
	return atomic_load(&s->failed) ? -1 : 0;
}

/* The bridges' sessions, created as the user would. */
static int bridge_sessions(struct scale_broker *b, struct standins *s)
{
	fprintf(stderr, "bench-scale: creating %d sessions for the bridges...\n", s->max);
	for (int i = 0; i < s->max; i++) {
		char title[64];
		snprintf(title, sizeof title, "Scale bridge %d", i);
		if (fx_create_session(&b->f, title, "codex", "/tmp", "full-auto", s->sessions[i], sizeof s->sessions[i]) < 0)
			return -1;
	}
	return 0;
}

static void print_intro(const struct scale_attach_sizes *z)
{
	char num[32];

	printf("\nScale 3/3 (command: make bench; tests/bench/bench-scale.c): bridges attached at once\n");
	printf("stand-in bridges, each attached for a session of its own and repeating session.attach at the\n"
	       "interval the broker names (bridge/deliveries.c), on connections of their own, their attaches\n"
	       "spread over that interval.  With ");
	for (int i = 0; i < z->nlevels; i++)
		printf("%s%ld", i ? " / " : "", z->levels[i]);
	printf(" of them, in %ld rounds that alternate the counts: the broker's\n"
	       "CPU time per second, idle, over %ld s in all (from /proc/PID/stat, and from every thread's\n"
	       "schedstat to the ns), and the round trip of a tool call (svc-echo's echo, %s calls in all).\n\n",
	       z->rounds, z->cpu_s, scale_grouped(z->calls, num, sizeof num));
}

static void print_attached(const struct attach_figures *af, int n, long cpu_s)
{
	double tick_ms = 1000.0 / (double)sysconf(_SC_CLK_TCK);

	printf("  %-8s %-22s %-24s %-20s %s\n", "bridges", "broker CPU/s (stat)", "broker CPU/s (schedstat)",
	       "attaches answered/s", "echo round trip p50 / p99");
	for (int i = 0; i < n; i++) {
		char a[40], b[40], c[32];
		double w = af[i].wall_s > 0 ? af[i].wall_s : 1;
		snprintf(a, sizeof a, "%.1f ms (%.2f%%)", af[i].stat_s * 1000.0 / w, af[i].stat_s * 100.0 / w);
		snprintf(b, sizeof b, "%.2f ms (%.3f%%)", af[i].sched_s * 1000.0 / w, af[i].sched_s * 100.0 / w);
		snprintf(c, sizeof c, "%.1f", (double)af[i].replies / w);
		printf("  %-8d %-22s %-24s %-20s %.0f / %.0f us%s\n", af[i].bridges, a, b, c, af[i].fig.p50, af[i].fig.p99,
		       af[i].fig.cut ? " (cut short)" : "");
	}
	printf("  (/proc/PID/stat counts in clock ticks of %.0f ms: over %ld s it resolves %.1f ms/s)\n", tick_ms, cpu_s,
	       tick_ms / (double)cpu_s);
}

/* The rounds: each level in turn, in a rotating order (0 10 100, then 10
 * 100 0, ...: each count follows each other).  0 or -1. */
static int rounds(struct scale_broker *b, struct standins *s, const struct scale_attach_sizes *z,
		  struct attach_figures *af, const volatile sig_atomic_t *stop)
{
	long cpu_ms = z->cpu_s * 1000 / z->rounds, calls = z->calls / z->rounds > 0 ? z->calls / z->rounds : 1;
	double limit_us = (double)z->figure_ms * 1000.0;

	for (long round = 0; round < z->rounds; round++)
		for (int k = 0; k < z->nlevels; k++) {
			struct attach_figures *a = &af[(round + k) % z->nlevels];
			fprintf(stderr, "bench-scale: round %ld: %d bridges attached...\n", round + 1, a->bridges);
			if (standins_switch(s, a->bridges, stop) < 0 || measure_window(b, s, cpu_ms, calls, limit_us, a, stop) < 0)
				return -1;
		}
	return 0;
}

int scale_attach_part(struct scale_broker *b, const struct scale_attach_sizes *z, const volatile sig_atomic_t *stop)
{
	struct attach_figures af[SCALE_MAX_COUNTS];
	struct standins s;
	int max = 0, rc;

	memset(af, 0, sizeof af);
	for (int i = 0; i < z->nlevels; i++) {
		af[i].bridges = (int)z->levels[i];
		if (z->levels[i] > max)
			max = (int)z->levels[i];
	}
	print_intro(z);
	fflush(stdout);
	if (standins_init(&s, b->f.dir, max) < 0)
		return fprintf(stderr, "bench-scale: out of memory\n"), -1;
	if (bridge_sessions(b, &s) < 0 || standins_start(&s) < 0) {
		standins_free(&s);
		return fprintf(stderr, "bench-scale: cannot set the bridges up\n"), -1;
	}
	rc = rounds(b, &s, z, af, stop);
	if (standins_stop(&s) < 0) {
		fprintf(stderr, "bench-scale: the bridges' thread did not end\n");
		rc = -1;
	}
	standins_free(&s);
	for (int i = 0; i < z->nlevels; i++)
		scale_summarize(&af[i].rtt, &af[i].fig);
	if (rc == 0)
		print_attached(af, z->nlevels, z->cpu_s);
	else
		printf("  no figures: a step failed (said on stderr)\n");
	fflush(stdout);
	return rc;
}
