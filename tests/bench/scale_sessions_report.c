/*
 * scale_sessions_report - see scale_sessions_report.h.  Growth is scaled
 * to x10 the sessions, so that any figure above x10 grows faster than
 * linearly whatever the counts asked for.
 */
#include "scale_sessions_report.h"

#include <stdio.h>

static const char *const action_names[NACTIONS] = { "listSessions", "resolveSession" };
static const char *const way_names[NWAYS] = { "inside (handler)", "query alone", "end to end" };

/* Growth from one count to the next, scaled to x10 the count. */
static double growth(double lo, double hi, long nlo, long nhi)
{
	return lo > 0 && nlo > 0 && nhi > nlo ? hi / lo / ((double)nhi / (double)nlo) * 10.0 : 0;
}

/* svc-sessions' own CPU per end-to-end call of action a, mean, in us. */
static double svc_cpu_us(const struct count_rig *r, int a)
{
	return r->svc_calls[a] ? r->svc_cpu_s[a] * 1e6 / (double)r->svc_calls[a] : 0;
}

static void print_growth(const struct count_rig *cf, int ncounts)
{
	double worst50 = 0, worst99 = 0;
	char a[32], b[32];

	if (ncounts < 2)
		return;
	printf("\n  growth from one count to the next, p50 / p99 (x10 the sessions and x10 the time is linear):\n");
	for (int act = 0; act < NACTIONS; act++)
		for (int w = 0; w <= NWAYS; w++) {
			printf("    %-15s %-24s", action_names[act], w < NWAYS ? way_names[w] : "svc-sessions CPU/call");
			for (int i = 1; i < ncounts; i++) {
				long nlo = cf[i - 1].sessions, nhi = cf[i].sessions;
				double lo50, hi50, lo99 = 0, hi99 = 0, g50, g99;
				if (w < NWAYS) {
					lo50 = cf[i - 1].fig[act][w].p50, hi50 = cf[i].fig[act][w].p50;
					lo99 = cf[i - 1].fig[act][w].p99, hi99 = cf[i].fig[act][w].p99;
				} else {
					lo50 = svc_cpu_us(&cf[i - 1], act), hi50 = svc_cpu_us(&cf[i], act);
				}
				g50 = lo50 > 0 ? hi50 / lo50 : 0;
				g99 = lo99 > 0 ? hi99 / lo99 : 0;
				if (growth(lo50, hi50, nlo, nhi) > worst50)
					worst50 = growth(lo50, hi50, nlo, nhi);
				if (growth(lo99, hi99, nlo, nhi) > worst99)
					worst99 = growth(lo99, hi99, nlo, nhi);
				if (w < NWAYS)
					printf("  %s->%s: x%.2f / x%.2f", scale_grouped(nlo, a, sizeof a),
					       scale_grouped(nhi, b, sizeof b), g50, g99);
				else
					printf("  %s->%s: x%.2f (mean)", scale_grouped(nlo, a, sizeof a),
					       scale_grouped(nhi, b, sizeof b), g50);
			}
			printf("\n");
		}
	printf("  the fastest growth per x10 sessions: p50 and CPU x%.2f (%s);\n"
	       "  p99 x%.2f (%s; a p99 here is mostly the machine's other work)\n",
	       worst50, worst50 <= 10.0 ? "none grows faster than linearly" : "one grows faster than linearly", worst99,
	       worst99 <= 10.0 ? "none faster than linearly" : "one faster than linearly");
}

/* The table: a row per count and action. */
static void print_table(const struct count_rig *rigs, int n)
{
	char num[32];

	printf("  %-9s %-15s %-17s %-17s %-19s %-14s %s\n", "sessions", "action", "inside p50/p99", "query p50/p99",
	       "end to end p50/p99", "faults/call", "svc-sessions per call");
	printf("  %-9s %-15s %-17s %-17s %-19s %-14s %s\n", "", "", "", "", "", "inside, query", "(end to end): CPU, faults");
	for (int i = 0; i < n; i++)
		for (int a = 0; a < NACTIONS; a++) {
			const struct count_rig *r = &rigs[i];
			char cells[NWAYS][32], faults[32], svc[40];
			for (int w = 0; w < NWAYS; w++) {
				const struct scale_figure *f = &r->fig[a][w];
				snprintf(cells[w], sizeof cells[w], "%5.0f / %5.0f%s", f->p50, f->p99, f->cut ? "*" : "");
			}
			snprintf(faults, sizeof faults, "%.0f, %.0f",
				 r->fault_calls[a][WAY_INSIDE] ?
					 (double)r->faults[a][WAY_INSIDE] / (double)r->fault_calls[a][WAY_INSIDE] : 0,
				 r->fault_calls[a][WAY_QUERY] ?
					 (double)r->faults[a][WAY_QUERY] / (double)r->fault_calls[a][WAY_QUERY] : 0);
			snprintf(svc, sizeof svc, "%.0f us, %.0f", svc_cpu_us(r, a),
				 r->svc_calls[a] ? (double)r->svc_faults[a] / (double)r->svc_calls[a] : 0);
			printf("  %-9s %-15s %-17s %-17s %-19s %-14s %s\n",
			       a == 0 ? scale_grouped(r->sessions, num, sizeof num) : "", action_names[a], cells[0], cells[1],
			       cells[2], faults, svc);
		}
	for (int i = 0; i < n; i++)
		printf("  (%s sessions: filled in %.1f s, appdata.db %.1f MiB)\n",
		       scale_grouped(rigs[i].sessions, num, sizeof num), rigs[i].fill_s, rigs[i].db_mib);
	for (int i = 0; i < n; i++)
		for (int a = 0; a < NACTIONS; a++)
			for (int w = 0; w < NWAYS; w++)
				if (rigs[i].fig[a][w].cut)
					printf("  * %s, %s, %s: %zu samples only (HB_BENCH_SCALE_FIGURE_MS)\n",
					       scale_grouped(rigs[i].sessions, num, sizeof num), action_names[a],
					       way_names[w], rigs[i].fig[a][w].n);
}

/* The target, on the largest count measured. */
static void print_target(const struct count_rig *last)
{
	double p50 = last->fig[ACT_LIST][WAY_INSIDE].p50 / 1000.0, p99 = last->fig[ACT_LIST][WAY_INSIDE].p99 / 1000.0;
	double cpu = svc_cpu_us(last, ACT_LIST) / 1000.0;

	printf("  target: listSessions <= 1 ms inside svc-sessions at 100,000 sessions%s:\n"
	       "    the handler in process: p50 %.2f ms (%s), p99 %.2f ms (%s); svc-sessions' own CPU per call, "
	       "mean: %.2f ms (%s)\n",
	       last->sessions == 100000 ? "" : " (measured at another count)", p50, p50 <= 1.0 ? "met" : "missed", p99,
	       p99 <= 1.0 ? "met" : "missed", cpu, cpu <= 1.0 ? "met" : "missed");
}

void scale_sessions_report(const struct count_rig *rigs, int n)
{
	print_table(rigs, n);
	print_growth(rigs, n);
	print_target(&rigs[n - 1]);
}
