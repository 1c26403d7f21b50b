/*
 * scale_sessions - see scale_sessions.h.  The in-process figures are taken
 * first, on every count, before any broker runs; then each count's broker
 * starts and the end-to-end figures follow, again in rounds.
 */
#include "scale_sessions.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "scale_broker.h"
#include "scale_proc.h"
#include "scale_sessions_report.h"
#include "scale_sessions_rig.h"

#define WARM_UP_CALLS 20

struct phase {
	struct count_rig *rigs;
	int n;
	const struct scale_sessions_sizes *z;
	const volatile sig_atomic_t *stop;
};

/* Samples (or warm-up calls) of one figure.  The handler's run on a thread
 * of their own, as a handler runs on one of the service's workers: a
 * malloc arena that holds nothing between calls, whose heap grows and
 * shrinks with each call as a worker's does (glibc hands the arena of a
 * thread that ended to the next one).  The query's connection, kept open,
 * lives in this thread's arena instead. */
struct job {
	scale_op_fn op;
	void *arg;
	long calls;
	double limit_us;            /* 0: warm-up calls, nothing kept */
	struct scale_samples *s;
	const volatile sig_atomic_t *stop;
	int rc;
};

static void *job_run(void *arg)
{
	struct job *j = arg;

	j->rc = j->limit_us > 0 ? scale_sample(j->op, j->arg, j->calls, j->limit_us, j->s, j->stop)
				: scale_warm_up(j->op, j->arg, j->calls, j->stop);
	return NULL;
}

static int run_job(struct job *j, int own_thread)
{
	pthread_t t;

	if (!own_thread) {
		job_run(j);
		return j->rc;
	}
	if (pthread_create(&t, NULL, job_run, j) != 0 || pthread_join(t, NULL) != 0)
		return fprintf(stderr, "bench-scale: cannot run a thread\n"), -1;
	return j->rc;
}

/* One round's samples of action a the way w on r, with what they cost
 * (this process's page faults, or svc-sessions' CPU and faults). */
static int sample_one(struct phase *p, struct count_rig *r, int a, int w, long per, double limit)
{
	struct job j = { count_rig_way(w), r, per, limit, &r->s[a][w], p->stop, 0 };
	long f0 = scale_minor_faults(), sf0 = 0, sf1 = 0;
	size_t n0 = r->s[a][w].n;
	double st, sc0 = 0, sc1 = 0;

	r->action = a;
	if (w == WAY_E2E && scale_cpu_of(r->svc, &st, &sc0, &sf0) < 0)
		return fprintf(stderr, "bench-scale: cannot read svc-sessions' CPU time\n"), -1;
	if (run_job(&j, w == WAY_INSIDE) < 0)
		return -1;
	if (w != WAY_E2E) {
		r->faults[a][w] += scale_minor_faults() - f0;
		r->fault_calls[a][w] += (long)(r->s[a][w].n - n0);
	} else if (scale_cpu_of(r->svc, &st, &sc1, &sf1) == 0) {
		r->svc_cpu_s[a] += sc1 - sc0;
		r->svc_faults[a] += sf1 - sf0;
		r->svc_calls[a] += (long)(r->s[a][w].n - n0);
	}
	return 0;
}

/* Rounds over the counts, in a rotating order so that no count always
 * runs first: the machine's noise falls on every count alike. */
static int rounds(struct phase *p, int first_way, int last_way)
{
	long nrounds = p->z->rounds, per = p->z->calls / nrounds > 0 ? p->z->calls / nrounds : 1;
	double limit = (double)p->z->figure_ms * 1000.0 / (double)nrounds;

	for (int i = 0; i < p->n; i++)
		for (int a = 0; a < NACTIONS; a++)
			for (int w = first_way; w <= last_way; w++) {
				struct job j = { count_rig_way(w), &p->rigs[i], WARM_UP_CALLS, 0, NULL, p->stop, 0 };
				p->rigs[i].action = a;
				fx_use_env(&p->rigs[i].f);
				if (run_job(&j, w == WAY_INSIDE) < 0)
					return -1;
			}
	for (long round = 0; round < nrounds; round++)
		for (int k = 0; k < p->n; k++) {
			struct count_rig *r = &p->rigs[(round + k) % p->n];
			fx_use_env(&r->f); /* the handler finds appdata.db through HB_HOME */
			for (int a = 0; a < NACTIONS; a++)
				for (int w = first_way; w <= last_way; w++)
					if (sample_one(p, r, a, w, per, limit) < 0)
						return -1;
		}
	return 0;
}

static void print_intro(const struct scale_sessions_sizes *z)
{
	char num[32];

	printf("\nScale 1/3 (command: make bench; tests/bench/bench-scale.c): maintain_sessions\n");
	printf("listSessions {\"limit\":25} and resolveSession {a random existing id} on appdata.db of ");
	for (int i = 0; i < z->ncounts; i++)
		printf("%s%s", i ? " / " : "", scale_grouped(z->counts[i], num, sizeof num));
	printf("\nsessions (one bulk insert each: %d projects, codex and claude, updated_at over two years, some\n"
	       "archived, thread links and Claude ids); %s calls per figure in %ld rounds that alternate the\n"
	       "counts, in us.  inside = handle_maintain_sessions in this process, on a thread of its own, one\n"
	       "call made and freed per call as svc-sessions' pool does (a read-only connection kept open between\n"
	       "calls, as svc-sessions keeps them; the query, the JSON answer); query alone = session_lookup_run on a connection kept open; end to end\n"
	       "= client -> hb-broker -> svc-sessions -> answer (svc-sessions and svc-messages as deployed), with\n"
	       "svc-sessions' own CPU time and minor page faults per call over those calls (/proc).\n\n",
	       SCALE_PROJECTS, scale_grouped(z->calls, num, sizeof num), z->rounds);
}

/* Every sample buffer here, in this thread's arena: nothing may stay in
 * the handler's (run_job).  0 or -1. */
static int reserve_samples(struct phase *p)
{
	for (int i = 0; i < p->n; i++)
		for (int a = 0; a < NACTIONS; a++)
			for (int w = 0; w < NWAYS; w++) {
				struct scale_samples *s = &p->rigs[i].s[a][w];
				if (!(s->v = malloc(((size_t)p->z->calls + 1) * sizeof *s->v)))
					return fprintf(stderr, "bench-scale: out of memory\n"), -1;
				s->cap = (size_t)p->z->calls + 1;
			}
	return 0;
}

/* Each count's broker, and a client on it; 0 or -1 (said). */
static int start_brokers(struct phase *p)
{
	const char *const env[] = { "HB_LOG=warn", NULL };

	for (int i = 0; i < p->n; i++) {
		struct count_rig *r = &p->rigs[i];
		if (fx_start_prepared(&r->f, env) < 0 || fx_client(&r->f, &r->client, 15000) < 0 ||
		    (r->svc = fx_service_pid(&r->f, "svc-sessions")) <= 0) {
			fprintf(stderr, "bench-scale: the broker with svc-sessions and svc-messages did not start\n");
			scale_print_log_tail(r->f.log);
			return -1;
		}
	}
	return 0;
}

/* Fill every count, then the in-process figures, then end to end. */
static int measure(struct phase *p)
{
	for (int i = 0; i < p->z->ncounts; i++)
		if (p->z->counts[i] > 0) {
			p->rigs[p->n].sessions = p->z->counts[i];
			p->rigs[p->n].rng = 0x5ca1eULL + (unsigned long long)i;
			p->n++;
			if (count_rig_fill(&p->rigs[p->n - 1]) < 0)
				return -1;
		}
	if (p->n == 0)
		return 0;
	/* fx_prepare has set each folder's HB_HOME once here, so setenv in
	 * rounds reuses these strings. */
	if (reserve_samples(p) < 0)
		return -1;
	fprintf(stderr, "bench-scale: maintain_sessions in process...\n");
	if (rounds(p, WAY_INSIDE, WAY_QUERY) < 0)
		return -1;
	fprintf(stderr, "bench-scale: maintain_sessions end to end...\n");
	if (start_brokers(p) < 0 || rounds(p, WAY_E2E, WAY_E2E) < 0)
		return -1;
	for (int i = 0; i < p->n; i++)
		for (int a = 0; a < NACTIONS; a++)
			for (int w = 0; w < NWAYS; w++)
				scale_summarize(&p->rigs[i].s[a][w], &p->rigs[i].fig[a][w]);
	scale_sessions_report(p->rigs, p->n);
	return 0;
}

int scale_sessions_part(const struct scale_sessions_sizes *z, const volatile sig_atomic_t *stop)
{
	struct count_rig *rigs = calloc(SCALE_MAX_COUNTS, sizeof *rigs);
	struct phase p = { rigs, 0, z, stop };
	int rc;

	print_intro(z);
	if (!rigs)
		return fprintf(stderr, "bench-scale: out of memory\n"), -1;
	rc = measure(&p);
	for (int i = 0; i < p.n; i++)
		if (count_rig_close(&p.rigs[i]) < 0 && rc == 0) {
			fprintf(stderr, "bench-scale: hb-broker did not end cleanly; see above\n");
			rc = -1;
		}
	if (rc < 0)
		printf("  no figures: a step failed (said on stderr)\n");
	free(rigs);
	fflush(stdout);
	return rc;
}
