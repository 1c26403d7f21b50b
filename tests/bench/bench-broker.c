/*
 * bench-broker - the broker's benchmark, one run, one table.
 *
 *   bench-broker FRONT_EP BARE_EP BROKER_PID
 *
 * FRONT_EP is the front socket of a running hb-broker whose config has the
 * service "echo" (svc-echo, tools echo and sleep) and the service
 * "bare-echo" (bare-relay svc, tool becho); BARE_EP is the front of a
 * `bare-relay relay` with a `bare-relay worker` behind it.  tests/bench/run.sh
 * sets all of that up.
 *
 * Measures: the sequential call round trip through the broker beside the
 * bare ZeroMQ relay (same client code, same request bytes: the bare worker
 * sends the encoded call envelope back) and their ratio; pipelined calls
 * per second with 64 in flight and their ratio to the bare relay's; the
 * time from SIGKILL of svc-echo to the next call it serves; the broker's
 * resident memory idle and with 10,000 calls in flight; the CPU each
 * process spends per pipelined call, on all three paths.  Latency and
 * throughput rounds alternate between the paths so machine noise hits
 * both; each figure is the median of rounds.  The latency and throughput
 * measurement is made HB_BENCH_RUNS times in a row, each run printed, since
 * a ratio is only met when it holds in every run.
 *
 * Sizes from the environment (defaults in brackets): HB_BENCH_RUNS [3],
 * HB_BENCH_CALLS [20000 per path and run], HB_BENCH_WARMUP [2000],
 * HB_BENCH_ROUNDS [5], HB_BENCH_SECONDS [3 per path and run],
 * HB_BENCH_KILLS [10], HB_BENCH_INFLIGHT [10000],
 * HB_BENCH_SETTLE_MS [600: time a restarted service runs before the next
 * kill; run.sh sets HB_HEALTHY_MS below it, so every kill takes the
 * broker's first-restart-at-once path as a production crash would].
 * HB_BENCH_BARE_PIDS ("RELAY WORKER", set by run.sh) names the bare
 * path's processes, so that their CPU per pipelined call is printed
 * beside the broker's and its services' (read from /proc/PID/stat).
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "bench_stats.h"
#include "client.h"
#include "envelope.h"

#define PIPELINE_DEPTH 64
#define RUNS_MAX 8

/* issue 19's targets, as ratios to the bare relay in the same run */
#define TARGET_P50 1.10
#define TARGET_P99 1.20
#define TARGET_PIPELINED 0.80

/* A ~100-byte argument object, as an agent's small tool call would send. */
static const char ARGS[] =
	"{\"path\":\"/home/user/project/src/main.c\",\"pattern\":\"hb_client_request\",\"limit\":50,\"ctx\":2}";

struct path {
	const char *name;      /* for the table */
	const char *endpoint;
	const char *tool;
	struct hb_client c;
	double p50[64], p99[64], mean[64], rate[64];
	int rounds, trounds;
	/* per run: the medians of its rounds */
	double run_p50[RUNS_MAX], run_p99[RUNS_MAX], run_mean[RUNS_MAX], run_rate[RUNS_MAX];
	/* CPU per pipelined call (us) of the client, the process in the
	 * middle (hb-broker or the relay) and the service (0: unknown) */
	pid_t cpu_pid[2];
	double cpu[3][64], run_cpu[3][RUNS_MAX];
	/* task switches per pipelined call of the same three, all threads */
	double sw[3][64], run_sw[3][RUNS_MAX];
};

static long long env_num(const char *name, long long dflt)
{
	const char *v = getenv(name);
	char *end;
	long long n;

	if (!v || !*v)
		return dflt;
	n = strtoll(v, &end, 10);
	return *end || n <= 0 ? dflt : n;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void die(const char *what, const char *err)
{
	fprintf(stderr, "bench-broker: %s: %s\n", what, err);
	exit(1);
}

static void build_call(struct hb_env *req, const char *tool, const char *args)
{
	hb_env_init(req);
	hb_env_set_str(req, "op", "call");
	hb_env_set_str(req, "tool", tool);
	hb_env_set_str(req, "json", args);
}

/* One call; 0 when it was answered ok (the bare worker's echo of the
 * request has no "ok": any answer with our id counts). */
static int one_call(struct hb_client *c, const char *tool, const char *args, int bare, char *err, size_t errlen)
{
	struct hb_env req, reply;
	int ok;

	build_call(&req, tool, args);
	if (hb_client_request(c, &req, &reply, err, errlen) < 0)
		return -1;
	ok = bare || hb_env_bool(&reply, "ok", 0);
	if (!ok)
		snprintf(err, errlen, "%s", hb_env_str_or(&reply, "err.msg", hb_env_str_or(&reply, "text", "failed")));
	hb_env_free(&reply);
	return ok ? 0 : -1;
}

static void latency_round(struct path *p, int n, double *samples)
{
	char err[256];
	double sum = 0;
	int bare = strcmp(p->name, "bare") == 0;

	for (int i = 0; i < n; i++) {
		double t0 = bench_now_us();
		if (one_call(&p->c, p->tool, ARGS, bare, err, sizeof err) < 0)
			die(p->name, err);
		samples[i] = bench_now_us() - t0;
		sum += samples[i];
	}
	bench_sort(samples, (size_t)n);
	p->p50[p->rounds] = bench_pct(samples, (size_t)n, 50);
	p->p99[p->rounds] = bench_pct(samples, (size_t)n, 99);
	p->mean[p->rounds] = sum / n;
	p->rounds++;
}

/* CPU time of process pid so far, all its threads, in us; -1 when it
 * cannot be read (no /proc: not Linux). */
static double cpu_us(pid_t pid)
{
	char path[64], buf[1024], *f;
	unsigned long long utime, stime;
	long hz = sysconf(_SC_CLK_TCK);
	size_t n;
	FILE *in;

	if (pid <= 0 || hz <= 0)
		return -1;
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if (!(in = fopen(path, "r")))
		return -1;
	n = fread(buf, 1, sizeof buf - 1, in);
	fclose(in);
	buf[n] = '\0';
	/* The fields after the name, which may hold spaces: state is the
	 * third field, utime and stime the 14th and 15th. */
	if (!(f = strrchr(buf, ')')) ||
	    sscanf(f + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
		return -1;
	return (double)(utime + stime) * 1e6 / (double)hz;
}

/* Task switches of process pid so far, voluntary and not, all its
 * threads; -1 when they cannot be read.  A thread that ended meanwhile
 * drops out of the sum, which only a restart does here. */
static double switches(pid_t pid)
{
	char path[320], line[128];
	struct dirent *d;
	double total = 0;
	DIR *dir;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
	if (!(dir = opendir(path)))
		return -1;
	while ((d = readdir(dir))) {
		unsigned long long n;
		FILE *in;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/%ld/task/%.32s/status", (long)pid, d->d_name);
		if (!(in = fopen(path, "r")))
			continue;
		while (fgets(line, sizeof line, in))
			if (sscanf(line, "voluntary_ctxt_switches: %llu", &n) == 1 ||
			    sscanf(line, "nonvoluntary_ctxt_switches: %llu", &n) == 1)
				total += (double)n;
		fclose(in);
	}
	closedir(dir);
	return total;
}

/* Keep PIPELINE_DEPTH calls in flight for ms; calls answered per second,
 * and the CPU per call of the three processes. */
static void throughput_round(struct path *p, int ms)
{
	struct hb_env req, reply;
	char err[256];
	int64_t id;
	long long done = 0;
	int inflight = 0;
	double t0, end, t1;
	pid_t pids[3] = { getpid(), p->cpu_pid[0], p->cpu_pid[1] };
	double cpu0[3], sw0[3];

	build_call(&req, p->tool, ARGS);
	for (int i = 0; i < 3; i++) {
		cpu0[i] = cpu_us(pids[i]);
		sw0[i] = switches(pids[i]);
	}
	t0 = bench_now_us();
	end = t0 + ms * 1000.0;
	for (; inflight < PIPELINE_DEPTH; inflight++)
		if (hb_client_send(&p->c, &req, &id, err, sizeof err) < 0)
			die(p->name, err);
	for (;;) {
		if (hb_client_recv(&p->c, &reply, 5000, err, sizeof err) < 0)
			die(p->name, err);
		hb_env_free(&reply);
		inflight--;
		done++;
		if (bench_now_us() >= end)
			break;
		if (hb_client_send(&p->c, &req, &id, err, sizeof err) < 0)
			die(p->name, err);
		inflight++;
	}
	t1 = bench_now_us();
	for (int left = inflight; left > 0; left--) {
		if (hb_client_recv(&p->c, &reply, 5000, err, sizeof err) < 0)
			die(p->name, err);
		hb_env_free(&reply);
	}
	for (int i = 0; i < 3; i++) {
		double now = cpu_us(pids[i]);
		p->cpu[i][p->trounds] = cpu0[i] < 0 || now < 0 ? -1 : (now - cpu0[i]) / (double)(done + inflight);
		now = switches(pids[i]);
		p->sw[i][p->trounds] = sw0[i] < 0 || now < 0 ? -1 : (now - sw0[i]) / (double)(done + inflight);
	}
	p->rate[p->trounds++] = (double)done / ((t1 - t0) / 1e6);
}

/* The broker's status, parsed; NULL on failure. */
static json_t *status(struct hb_client *c)
{
	struct hb_env req, reply;
	char err[256];
	json_t *st = NULL;

	hb_env_init(&req);
	hb_env_set_str(&req, "op", "status");
	if (hb_client_request(c, &req, &reply, err, sizeof err) == 0) {
		const char *json = hb_env_str(&reply, "json");
		st = json ? json_loads(json, 0, NULL) : NULL;
		hb_env_free(&reply);
	}
	return st;
}

static json_t *service_of(json_t *st, const char *name)
{
	json_t *s;
	size_t i;

	json_array_foreach(json_object_get(st, "services"), i, s)
		if (strcmp(json_string_value(json_object_get(s, "name")), name) == 0)
			return s;
	return NULL;
}

/* Wait until every service is up; 0, or -1 after timeout_ms. */
static int wait_all_up(struct hb_client *c, int timeout_ms)
{
	double deadline = bench_now_us() + timeout_ms * 1000.0;

	while (bench_now_us() < deadline) {
		json_t *st = status(c), *s;
		size_t i;
		int up = st != NULL;

		if (st)
			json_array_foreach(json_object_get(st, "services"), i, s)
				if (strcmp(json_string_value(json_object_get(s, "state")), "up") != 0)
					up = 0;
		json_decref(st);
		if (up)
			return 0;
		sleep_ms(10);
	}
	return -1;
}

static pid_t service_pid(struct hb_client *c, const char *name)
{
	json_t *st = status(c), *s = st ? service_of(st, name) : NULL;
	pid_t pid = s ? (pid_t)json_integer_value(json_object_get(s, "pid")) : 0;

	json_decref(st);
	return pid;
}

static long long broker_calls(struct hb_client *c)
{
	json_t *st = status(c);
	long long n = st ? json_integer_value(json_object_get(json_object_get(st, "broker"), "callsInFlight")) : -1;

	json_decref(st);
	return n;
}

/* VmRSS of pid in KiB, or -1. */
static long rss_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *in;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	if (!(in = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof line, in))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(in);
	return kib;
}

/* SIGKILL svc-echo, then call echo until a call succeeds; ms from the kill
 * to that answer, or -1.  *tries: calls it took. */
static double kill_and_recover(struct hb_client *c, int *tries)
{
	pid_t pid = service_pid(c, "echo");
	char err[256];
	double t0;

	*tries = 0;
	if (pid <= 0)
		return -1;
	t0 = bench_now_us();
	if (kill(pid, SIGKILL) < 0)
		return -1;
	while (bench_now_us() - t0 < 10e6) {
		(*tries)++;
		if (one_call(c, "echo", ARGS, 0, err, sizeof err) == 0)
			return (bench_now_us() - t0) / 1000.0;
	}
	return -1;
}

static void open_client(struct hb_client *c, const char *ep, int timeout_ms)
{
	char err[256];

	if (hb_client_open(c, ep, timeout_ms, err, sizeof err) < 0)
		die(ep, err);
}

/* The table. */
static void row(const char *measure, const char *value, const char *target, int verdict)
{
	printf("  %-46s %16s  %-10s %s\n", measure, value, target,
	       verdict < 0 ? "" : verdict ? "PASS" : "MISS");
}

/* client / middle / service figures per call in run (CPU in us, or task
 * switches), "?" where unknown. */
static void per_call_row(const char *measure, const double fig[3][RUNS_MAX], int run, const char *fmt,
			 const char *unit)
{
	char v[64], part[3][16];

	for (int k = 0; k < 3; k++) {
		if (fig[k][run] < 0)
			snprintf(part[k], sizeof part[k], "?");
		else
			snprintf(part[k], sizeof part[k], fmt, fig[k][run]);
	}
	snprintf(v, sizeof v, "%s / %s / %s%s", part[0], part[1], part[2], unit);
	row(measure, v, "", -1);
}

static void cpu_row(const char *measure, const struct path *p, int run)
{
	per_call_row(measure, p->run_cpu, run, "%.0f", " us");
}

static void switch_row(const char *measure, const struct path *p, int run)
{
	per_call_row(measure, p->run_sw, run, "%.1f", "");
}

int main(int argc, char **argv)
{
	int ncalls = (int)env_num("HB_BENCH_CALLS", 20000), warmup = (int)env_num("HB_BENCH_WARMUP", 2000);
	int rounds = (int)env_num("HB_BENCH_ROUNDS", 5), seconds = (int)env_num("HB_BENCH_SECONDS", 3);
	int kills = (int)env_num("HB_BENCH_KILLS", 10), nflight = (int)env_num("HB_BENCH_INFLIGHT", 10000);
	int settle = (int)env_num("HB_BENCH_SETTLE_MS", 600), runs = (int)env_num("HB_BENCH_RUNS", 3);
	struct path paths[3] = {
		{ .name = "broker", .tool = "echo" },
		{ .name = "broker-min", .tool = "becho" },
		{ .name = "bare", .tool = "echo" },
	};
	struct hb_client admin;
	double *samples, kill_ms[64];
	long rss_idle, rss_after, rss_flight;
	long long flight;
	int per_round, nk = 0, max_tries = 0;
	char v[64], err[256];
	pid_t broker;

	if (argc != 4) {
		fprintf(stderr, "usage: bench-broker FRONT_EP BARE_EP BROKER_PID\n");
		return 2;
	}
	broker = (pid_t)atol(argv[3]);
	if (rounds > 64)
		rounds = 64;
	if (runs > RUNS_MAX)
		runs = RUNS_MAX;
	if (kills > 64)
		kills = 64;
	paths[0].endpoint = paths[1].endpoint = argv[1];
	paths[2].endpoint = argv[2];
	per_round = ncalls / rounds > 0 ? ncalls / rounds : 1;
	if (!(samples = malloc((size_t)(per_round > warmup ? per_round : warmup) * sizeof *samples)))
		die("malloc", "out of memory");

	open_client(&admin, argv[1], 5000);
	if (wait_all_up(&admin, 15000) < 0)
		die("broker", "its services did not come up within 15 s");
	for (int i = 0; i < 3; i++)
		open_client(&paths[i].c, paths[i].endpoint, 5000);
	paths[0].cpu_pid[0] = paths[1].cpu_pid[0] = broker;
	paths[0].cpu_pid[1] = service_pid(&admin, "echo");
	paths[1].cpu_pid[1] = service_pid(&admin, "bare-echo");
	if (getenv("HB_BENCH_BARE_PIDS")) {
		long relay = 0, worker = 0;
		if (sscanf(getenv("HB_BENCH_BARE_PIDS"), "%ld %ld", &relay, &worker) == 2) {
			paths[2].cpu_pid[0] = (pid_t)relay;
			paths[2].cpu_pid[1] = (pid_t)worker;
		}
	}
	/* The bare relay may still be binding: retry its first call. */
	for (int i = 0;; i++) {
		if (one_call(&paths[2].c, "echo", ARGS, 1, err, sizeof err) == 0)
			break;
		if (i == 50)
			die("bare relay", err);
		hb_client_close(&paths[2].c);
		sleep_ms(100);
		open_client(&paths[2].c, paths[2].endpoint, 200);
	}
	paths[2].c.timeout_ms = 5000;
	sleep_ms(200);
	rss_idle = rss_kib(broker);

	for (int run = 0; run < runs; run++) {
		fprintf(stderr, "bench: run %d of %d: latency, %d rounds x %d calls per path...\n", run + 1, runs,
			rounds, per_round);
		for (int i = 0; i < 3; i++) {
			latency_round(&paths[i], warmup, samples);
			paths[i].rounds = paths[i].trounds = 0;
		}
		/* Rotate the order each round so no path always runs first. */
		for (int r = 0; r < rounds; r++)
			for (int k = 0; k < 3; k++)
				latency_round(&paths[(r + k) % 3], per_round, samples);

		fprintf(stderr, "bench: run %d of %d: pipelined, %d in flight, %d s per path...\n", run + 1, runs,
			PIPELINE_DEPTH, seconds);
		for (int r = 0; r < 3; r++)
			for (int k = 0; k < 3; k++)
				throughput_round(&paths[(r + k) % 3], seconds * 1000 / 3);
		for (int i = 0; i < 3; i++) {
			struct path *p = &paths[i];

			p->run_p50[run] = bench_median(p->p50, (size_t)p->rounds);
			p->run_p99[run] = bench_median(p->p99, (size_t)p->rounds);
			p->run_mean[run] = bench_median(p->mean, (size_t)p->rounds);
			p->run_rate[run] = bench_median(p->rate, (size_t)p->trounds);
			for (int k = 0; k < 3; k++) {
				p->run_cpu[k][run] = bench_median(p->cpu[k], (size_t)p->trounds);
				p->run_sw[k][run] = bench_median(p->sw[k], (size_t)p->trounds);
			}
		}
	}
	sleep_ms(200);
	rss_after = rss_kib(broker);

	fprintf(stderr, "bench: SIGKILL of svc-echo, %d times...\n", kills);
	for (int k = 0; k < kills; k++) {
		int tries;
		if (wait_all_up(&admin, 15000) < 0)
			die("broker", "svc-echo did not come back");
		sleep_ms(settle);
		if (one_call(&admin, "echo", ARGS, 0, err, sizeof err) < 0)
			die("echo before kill", err);
		kill_ms[nk] = kill_and_recover(&admin, &tries);
		if (kill_ms[nk] < 0)
			die("kill", "no call served within 10 s of the kill");
		if (tries > max_tries)
			max_tries = tries;
		nk++;
	}
	wait_all_up(&admin, 15000);

	fprintf(stderr, "bench: %d sleep calls in flight...\n", nflight);
	{
		struct hb_client c;
		struct hb_env req;
		int64_t id;

		open_client(&c, argv[1], 30000);
		build_call(&req, "sleep", "{\"ms\":60000}");
		for (int i = 0; i < nflight; i++)
			if (hb_client_send(&c, &req, &id, err, sizeof err) < 0)
				die("sleep calls", err);
		/* The status answer comes after the broker took every call above. */
		flight = broker_calls(&c);
		sleep_ms(200);
		rss_flight = rss_kib(broker);
		hb_client_close(&c);
	}

	for (int i = 0; i < 3; i++)
		hb_client_close(&paths[i].c);
	hb_client_close(&admin);

	{
		struct path *b = &paths[0], *m = &paths[1], *r = &paths[2];
		double kmed = bench_median(kill_ms, (size_t)nk), kmax = 0;
		int met50 = 1, met99 = 1, metrate = 1;

		for (int i = 0; i < nk; i++)
			if (kill_ms[i] > kmax)
				kmax = kill_ms[i];
		printf("\nhb-broker benchmark: %d runs; in each, %d calls per path in %d interleaved rounds (median\n"
		       "of rounds), %d B of json per call; pipelined: %d in flight, %d s per path.\n"
		       "broker = client -> hb-broker -> svc-echo (concurrency 4);\n"
		       "broker-min = the same broker -> bare-relay svc (one thread, no pool);\n"
		       "bare = client -> bare-relay relay (ROUTER/ROUTER) -> bare-relay worker.\n"
		       "CPU per pipelined call: client / hb-broker or the relay / the service, all\n"
		       "threads (/proc/PID/stat; \"?\": not readable); task switches the same way\n"
		       "(voluntary and not, /proc/PID/task/*/status).\n"
		       "A ratio target is met when every run meets it.\n\n",
		       runs, rounds * per_round, rounds, (int)strlen(ARGS), PIPELINE_DEPTH, seconds);
		printf("  %-46s %16s  %-10s %s\n", "measure", "value", "target", "");
		for (int run = 0; run < runs; run++) {
			double b50 = b->run_p50[run], b99 = b->run_p99[run], m50 = m->run_p50[run], m99 = m->run_p99[run];
			double r50 = r->run_p50[run], r99 = r->run_p99[run];
			double brate = b->run_rate[run], mrate = m->run_rate[run], rrate = r->run_rate[run];
			char what[80];

			printf("  run %d\n", run + 1);
			snprintf(v, sizeof v, "%.0f / %.0f us", b50, b99);
			row("round trip p50 / p99, broker", v, "", -1);
			snprintf(v, sizeof v, "%.0f / %.0f us", m50, m99);
			row("round trip p50 / p99, broker-min", v, "", -1);
			snprintf(v, sizeof v, "%.0f / %.0f us", r50, r99);
			row("round trip p50 / p99, bare relay", v, "", -1);
			snprintf(v, sizeof v, "%.0f / %.0f / %.0f us", b->run_mean[run], m->run_mean[run],
				 r->run_mean[run]);
			row("round trip mean, broker / broker-min / bare", v, "", -1);
			snprintf(v, sizeof v, "%.2f", b50 / r50);
			snprintf(what, sizeof what, "<= %.2f", TARGET_P50);
			row("ratio p50, broker / bare", v, what, b50 / r50 <= TARGET_P50);
			snprintf(v, sizeof v, "%.2f", b99 / r99);
			snprintf(what, sizeof what, "<= %.2f", TARGET_P99);
			row("ratio p99, broker / bare", v, what, b99 / r99 <= TARGET_P99);
			snprintf(v, sizeof v, "%.2f / %.2f", m50 / r50, m99 / r99);
			row("ratio p50 / p99, broker-min / bare", v, "", -1);
			snprintf(v, sizeof v, "%.0f / %.0f / %.0f", brate, mrate, rrate);
			row("pipelined calls/s, broker / broker-min / bare", v, "", -1);
			snprintf(v, sizeof v, "%.2f", brate / rrate);
			snprintf(what, sizeof what, ">= %.2f", TARGET_PIPELINED);
			row("ratio pipelined, broker / bare", v, what, brate / rrate >= TARGET_PIPELINED);
			snprintf(v, sizeof v, "%.2f", mrate / rrate);
			row("ratio pipelined, broker-min / bare", v, "", -1);
			cpu_row("CPU per pipelined call, broker", b, run);
			cpu_row("CPU per pipelined call, broker-min", m, run);
			cpu_row("CPU per pipelined call, bare", r, run);
			switch_row("task switches per pipelined call, broker", b, run);
			switch_row("task switches per pipelined call, broker-min", m, run);
			switch_row("task switches per pipelined call, bare", r, run);
			met50 &= b50 / r50 <= TARGET_P50;
			met99 &= b99 / r99 <= TARGET_P99;
			metrate &= brate / rrate >= TARGET_PIPELINED;
		}
		printf("  all runs\n");
		snprintf(v, sizeof v, "%d runs", runs);
		row("ratio p50 met in every run", v, "", met50);
		row("ratio p99 met in every run", v, "", met99);
		row("ratio pipelined met in every run", v, "", metrate);
		snprintf(v, sizeof v, "%.1f ms", kmed);
		row("SIGKILL -> next call served, median", v, "<= 50 ms", kmed <= 50);
		snprintf(v, sizeof v, "%.1f ms", kmax);
		row("SIGKILL -> next call served, max", v, "<= 50 ms", kmax <= 50);
		snprintf(v, sizeof v, "%d kills, <= %d", nk, max_tries);
		row("  (calls tried per recovery)", v, "", -1);
		snprintf(v, sizeof v, "%.1f MiB", rss_idle / 1024.0);
		row("broker RSS idle (after start)", v, "<= 8 MiB", rss_idle >= 0 && rss_idle <= 8 * 1024);
		snprintf(v, sizeof v, "%.1f MiB", rss_after / 1024.0);
		row("broker RSS idle (after the load above)", v, "", -1);
		snprintf(v, sizeof v, "%.1f MiB", rss_flight / 1024.0);
		snprintf(err, sizeof err, "broker RSS, %lld calls in flight", flight);
		row(err, v, "", -1);
	}
	free(samples);
	return 0;
}
