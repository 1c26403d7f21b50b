/*
 * bench-scale - the scale part of `make bench` (tests/bench/run.sh): how
 * the sessions tools, message delivery and the broker fare as counts grow.
 *
 *   HB_BUILD=build bench-scale        (or: sh tests/bench/run.sh build scale)
 *
 * This file reads the sizes from the environment and runs the three parts
 * in order; each part is a file of its own:
 *
 * Part 1 (scale_sessions.c): maintain_sessions listSessions {"limit":25}
 * and resolveSession on an appdata.db of N sessions (scale_fill.c), timed
 * as svc-sessions' handler in this process, as the query alone and end to
 * end through hb-broker; p50 and p99 per count and the growth between
 * counts.
 *
 * Part 2 (scale_messages.c): M messages queued with send_session_message
 * to a session while no bridge is attached, then one stand-in bridge
 * attaches and confirms each delivery with the bridges' own bookkeeping
 * (bridge/deliveries.c); time from the attach to the last confirmation
 * and to the last message recorded sent.
 *
 * Part 3 (scale_attach.c): K stand-in bridges attached at once
 * (scale_standins.c); the broker's idle CPU time per second and the round
 * trip of a tool call, in rounds that alternate the counts.
 *
 * Parts 2 and 3 share one broker (scale_broker.c); the timing and the
 * percentiles are scale_stats.c's, the /proc readings scale_proc.c's.
 *
 * Figures are printed, never judged pass/fail: a target is shown beside
 * its figure with "met" or "missed".  The exit status is non-zero only
 * when something did not work (a broker that did not start, a call
 * refused, a message not delivered).  Everything lives in temporary
 * folders (the harness's /tmp/hbtest.*), removed at the end with the
 * brokers stopped, also after SIGINT or SIGTERM (130).
 *
 * Sizes from the environment (defaults in brackets):
 * HB_BENCH_SCALE_SESSIONS ["1000 10000 100000"], HB_BENCH_SCALE_CALLS
 * [1000 per figure], HB_BENCH_SCALE_ROUNDS [5], HB_BENCH_SCALE_FIGURE_MS
 * [8000: a figure takes no more samples after this long],
 * HB_BENCH_SCALE_MESSAGES ["100 1000"], HB_BENCH_SCALE_ATTACHED ["0 10
 * 100"], HB_BENCH_SCALE_ATTACH_ROUNDS [3], HB_BENCH_SCALE_RTT_CALLS [2000
 * in all], HB_BENCH_SCALE_CPU_S [5 in all], HB_BENCH_SCALE_PARTS ["1 2 3"].
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envvar.h"
#include "scale_attach.h"
#include "scale_broker.h"
#include "scale_messages.h"
#include "scale_sessions.h"

/* Set on SIGINT or SIGTERM: every part stops at its next step. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* A size: a whole number > 0, else dflt. */
static long env_num(const char *name, long dflt)
{
	return hb_getenv_int(name, (int)dflt, 1, INT_MAX);
}

/* A list of counts >= 0 ("1000 10000", or with commas); how many, at most
 * SCALE_MAX_COUNTS. */
static int env_list(const char *name, const char *dflt, long *out)
{
	const char *v = getenv(name);
	char buf[256], *save = NULL;
	int n = 0;

	snprintf(buf, sizeof buf, "%s", v && *v ? v : dflt);
	for (char *w = strtok_r(buf, " ,", &save); w && n < SCALE_MAX_COUNTS; w = strtok_r(NULL, " ,", &save)) {
		char *end;
		long x = strtol(w, &end, 10);
		if (!*end && x >= 0)
			out[n++] = x;
	}
	return n;
}

static int part_wanted(int part)
{
	long parts[SCALE_MAX_COUNTS];
	int n = env_list("HB_BENCH_SCALE_PARTS", "1 2 3", parts);

	for (int i = 0; i < n; i++)
		if (parts[i] == part)
			return 1;
	return 0;
}

static void read_sizes(struct scale_sessions_sizes *ss, struct scale_messages_sizes *ms,
		       struct scale_attach_sizes *as)
{
	ss->ncounts = env_list("HB_BENCH_SCALE_SESSIONS", "1000 10000 100000", ss->counts);
	ss->calls = env_num("HB_BENCH_SCALE_CALLS", 1000);
	ss->rounds = env_num("HB_BENCH_SCALE_ROUNDS", 5);
	ss->figure_ms = env_num("HB_BENCH_SCALE_FIGURE_MS", 8000);
	ms->ncounts = env_list("HB_BENCH_SCALE_MESSAGES", "100 1000", ms->counts);
	as->nlevels = env_list("HB_BENCH_SCALE_ATTACHED", "0 10 100", as->levels);
	as->rounds = env_num("HB_BENCH_SCALE_ATTACH_ROUNDS", 3);
	as->cpu_s = env_num("HB_BENCH_SCALE_CPU_S", 5);
	as->calls = env_num("HB_BENCH_SCALE_RTT_CALLS", 2000);
	as->figure_ms = ss->figure_ms;
}

/* Parts 2 and 3, on one broker; 0 or -1. */
static int parts_on_one_broker(const struct scale_messages_sizes *ms, const struct scale_attach_sizes *as)
{
	struct scale_broker b;
	int rc = 0;

	fprintf(stderr, "bench-scale: starting a broker with svc-sessions, svc-messages and svc-echo...\n");
	if (scale_broker_start(&b) < 0)
		rc = -1;
	else {
		if (part_wanted(2) && !interrupted && scale_messages_part(&b, ms, &interrupted) < 0)
			rc = -1;
		if (part_wanted(3) && !interrupted && scale_attach_part(&b, as, &interrupted) < 0)
			rc = -1;
	}
	if (scale_broker_stop(&b) < 0)
		rc = -1;
	return rc;
}

int main(void)
{
	struct scale_sessions_sizes ss;
	struct scale_messages_sizes ms;
	struct scale_attach_sizes as;
	struct sigaction sa;
	int rc = 0;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	if (sigaction(SIGINT, &sa, NULL) < 0 || sigaction(SIGTERM, &sa, NULL) < 0 || signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		return fprintf(stderr, "bench-scale: cannot set up its signals\n"), 1;
	if (setvbuf(stdout, NULL, _IOLBF, 0) != 0)
		return fprintf(stderr, "bench-scale: cannot line-buffer its output\n"), 1;
	read_sizes(&ss, &ms, &as);

	if (part_wanted(1) && scale_sessions_part(&ss, &interrupted) < 0)
		rc = 1;
	if (!interrupted && (part_wanted(2) || part_wanted(3)) && parts_on_one_broker(&ms, &as) < 0)
		rc = 1;
	if (interrupted) {
		fprintf(stderr, "bench-scale: interrupted; everything it started is stopped and removed\n");
		return 130;
	}
	if (rc != 0)
		fprintf(stderr, "bench-scale: a part failed (said above); its figures are missing or partial\n");
	return rc;
}
