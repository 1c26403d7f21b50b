/*
 * killstorm_rig - see killstorm_rig.h.
 */
#include "killstorm_rig.h"

#include "../harness/checks.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <time.h>
#include <unistd.h>

/* A heartbeat every 100 ms and a hang after 1.5 s without one, so that a
 * SIGSTOP longer than that is found and killed by the broker while
 * shorter ones pass unnoticed: both happen in the storm.  Restarts are
 * quick (20 ms doubling to 200 ms at most) so the storm keeps hitting
 * live copies.  HB_CRASHLOOP_AFTER keeps its default: many quick kills do
 * put a service into crash-loop, a state the storm must be able to reach;
 * with the small cap a service in crash-loop still restarts every 200 ms
 * at most and is "up" again as soon as its new copy is ready, so no
 * `hbctl start` is needed (its calls meanwhile get the "did not come
 * back" sentence, which is one of the allowed ones). */
const char *const storm_env[] = {
	"HB_HEARTBEAT_MS=100", "HB_HANG_MS=" HANG_MS, "HB_CALL_WAIT_MS=" CALL_WAIT_MS,
	"HB_BACKOFF_BASE_MS=20", "HB_BACKOFF_CAP_MS=200", NULL,
};

const char storm_conf[] =
	"[service echo-a]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 4\n"
	"tools = echo subcall\n"
	"[service echo-b]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 4\n"
	"tools = sleep whoami\n";

const char *const services[NSERVICES] = { "echo-a", "echo-b", "svc-sessions" };

#define CLIENTS 6
/* A call not answered within a minute is taken as never answered: the
 * longest legitimate wait is a hang found (1.5 s) plus a restart waited
 * for (5 s, again after each death of the copy it waits for). */
#define CALL_LIMIT_MS 60000

/* ---- what the clients saw ------------------------------------------------ */

void tally_reset(struct tally *t)
{
	t->nerrors = t->nproblems = 0;
	t->other_errors = t->more_problems = 0;
	t->calls = t->ok = t->failed = 0;
	t->slowest_ms = 0;
}

static void note_error(struct tally *t, const char *tool, const char *text)
{
	pthread_mutex_lock(&t->lock);
	t->failed++;
	for (int i = 0; i < t->nerrors; i++)
		if (strcmp(t->errors[i].tool, tool) == 0 && strcmp(t->errors[i].text, text) == 0) {
			t->errors[i].count++;
			pthread_mutex_unlock(&t->lock);
			return;
		}
	if (t->nerrors < MAX_OUTCOMES) {
		snprintf(t->errors[t->nerrors].tool, sizeof t->errors[0].tool, "%s", tool);
		snprintf(t->errors[t->nerrors].text, sizeof t->errors[0].text, "%s", text);
		t->errors[t->nerrors++].count = 1;
	} else {
		t->other_errors++;
	}
	pthread_mutex_unlock(&t->lock);
}

static void note_problem(struct tally *t, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&t->lock);
	if (t->nproblems < MAX_PROBLEMS) {
		va_start(ap, fmt);
		vsnprintf(t->problems[t->nproblems++], sizeof t->problems[0], fmt, ap);
		va_end(ap);
	} else {
		t->more_problems++;
	}
	pthread_mutex_unlock(&t->lock);
}

static void note_done(struct tally *t, int ok, long long ms)
{
	pthread_mutex_lock(&t->lock);
	t->calls++;
	if (ok)
		t->ok++;
	if (ms > t->slowest_ms)
		t->slowest_ms = ms;
	pthread_mutex_unlock(&t->lock);
}

/* ---- the clients ----------------------------------------------------------- */

struct client_arg {
	struct storm *st;
	int n;
	unsigned seed;
	pthread_t thread;
	int started;
};

/* One call: its tool, arguments and the answer it must have when it
 * succeeds (want_json: the answer is JSON equal to want, or has want as
 * its "args" member for whoami). */
struct call_plan {
	char tool[32];
	char json[256];
	char want[256];
	int want_kind;                  /* 0 text, 1 JSON, 2 whoami's args, 3 the guide */
};

static void plan_call(struct call_plan *p, int client, long seq, unsigned *seed)
{
	int ms = 10 + (int)(rand_r(seed) % 290);

	memset(p, 0, sizeof *p);
	switch (rand_r(seed) % 5) {
	case 0:
		snprintf(p->tool, sizeof p->tool, "echo");
		snprintf(p->json, sizeof p->json, "{\"client\":%d,\"seq\":%ld}", client, seq);
		snprintf(p->want, sizeof p->want, "%s", p->json);
		p->want_kind = 1;
		break;
	case 1:
		snprintf(p->tool, sizeof p->tool, "sleep");
		snprintf(p->json, sizeof p->json, "{\"ms\":%d}", ms);
		snprintf(p->want, sizeof p->want, "slept %d ms", ms);
		break;
	case 2:
		snprintf(p->tool, sizeof p->tool, "whoami");
		snprintf(p->json, sizeof p->json, "{\"client\":%d,\"seq\":%ld}", client, seq);
		snprintf(p->want, sizeof p->want, "%s", p->json);
		p->want_kind = 2;
		break;
	case 3:
		snprintf(p->tool, sizeof p->tool, "subcall");
		snprintf(p->json, sizeof p->json, "{\"tool\":\"sleep\",\"json\":\"{\\\"ms\\\":%d}\"}", ms);
		snprintf(p->want, sizeof p->want, "subcall answered: slept %d ms", ms);
		break;
	default:
		snprintf(p->tool, sizeof p->tool, "maintain_sessions");
		snprintf(p->json, sizeof p->json, "{\"action\":\"guide\"}");
		p->want_kind = 3;
		break;
	}
}

static int json_text_equal(const char *a, const char *b)
{
	json_t *ja = json_loads(a, 0, NULL), *jb = json_loads(b, 0, NULL);
	int eq = ja && jb && json_equal(ja, jb);

	json_decref(ja);
	json_decref(jb);
	return eq;
}

static int right_answer(const struct storm *st, const struct call_plan *p, const char *text)
{
	json_t *who, *want;
	int eq;

	switch (p->want_kind) {
	case 1:
		return json_text_equal(p->want, text);
	case 2:
		who = json_loads(text, 0, NULL);
		want = json_loads(p->want, 0, NULL);
		eq = who && want && json_equal(json_object_get(who, "args"), want);
		json_decref(who);
		json_decref(want);
		return eq;
	case 3:
		return strcmp(text, st->guide) == 0;
	default:
		return strcmp(text, p->want) == 0;
	}
}

static void one_call(struct storm *st, struct hb_client *c, int client, long seq, unsigned *seed)
{
	struct call_plan p;
	struct hb_env req, reply;
	char err[256];
	long long t0 = fx_now_ms(), ms;
	const char *text;
	int ok;

	plan_call(&p, client, seq, seed);
	hb_env_init(&req);
	hb_env_set_str(&req, "op", "call");
	hb_env_set_str(&req, "tool", p.tool);
	hb_env_set_str(&req, "json", p.json);
	if (hb_client_request(c, &req, &reply, err, sizeof err) < 0) {
		ms = fx_now_ms() - t0;
		note_done(&st->tally, 0, ms);
		note_problem(&st->tally, "client %d call %ld: %s %s got no answer after %lld ms: %s", client, seq,
			     p.tool, p.json, ms, err);
		return;
	}
	ms = fx_now_ms() - t0;
	ok = hb_env_bool(&reply, "ok", 0);
	text = hb_env_str_or(&reply, "text", hb_env_str_or(&reply, "err.msg", ""));
	note_done(&st->tally, ok, ms);
	if (ok && !right_answer(st, &p, text))
		note_problem(&st->tally, "client %d call %ld: %s %s answered \"%.300s\", not its answer", client, seq,
			     p.tool, p.json, text);
	else if (!ok)
		note_error(&st->tally, p.tool, text);
	hb_env_free(&reply);
}

static void *client_main(void *arg)
{
	struct client_arg *a = arg;
	struct storm *st = a->st;
	struct hb_client c;
	long seq = 0;

	if (fx_client(st->f, &c, CALL_LIMIT_MS) < 0) {
		note_problem(&st->tally, "client %d could not open its connection", a->n);
		return NULL;
	}
	while (!atomic_load(&st->stop))
		one_call(st, &c, a->n, seq++, &a->seed);
	hb_client_close(&c);
	return NULL;
}

/* ---- the storm ------------------------------------------------------------- */

/* The parent of pid from /proc (after the last ')', which ends the
 * command name), or -1. */
static pid_t parent_of(pid_t pid)
{
	char path[64], *text, *p;
	long ppid = -1;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	text = fx_read_text(path);
	p = strrchr(text, ')');
	if (p && sscanf(p + 1, " %*c %ld", &ppid) != 1)
		ppid = -1;
	free(text);
	return (pid_t)ppid;
}

/* A pidfd for pid when it is a child of the broker: signals sent through
 * it reach that process or none, never a later one given the same pid. */
static int service_pidfd(pid_t pid, pid_t broker)
{
	int fd = pid > 0 ? pidfd_open(pid, 0) : -1;

	if (fd >= 0 && parent_of(pid) != broker) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* SIGCONT the stopped copies that are due (all when all is set).  A copy
 * the broker killed meanwhile is simply gone (ESRCH). */
static void continue_due(struct storm_count *sc, int all)
{
	long long now = fx_now_ms();

	for (int i = 0; i < sc->nstopped;) {
		if (!all && sc->stopped[i].cont_at_ms > now) {
			i++;
			continue;
		}
		if (pidfd_send_signal(sc->stopped[i].pidfd, SIGCONT, NULL, 0) == 0)
			sc->conts++;
		close(sc->stopped[i].pidfd);
		sc->stopped[i] = sc->stopped[--sc->nstopped];
	}
}

static int is_stopped(const struct storm_count *sc, pid_t pid)
{
	for (int i = 0; i < sc->nstopped; i++)
		if (sc->stopped[i].pid == pid)
			return 1;
	return 0;
}

/* The pid of a random service's serving copy (for a stop, only one that
 * is up: a copy stopped before it is ready waits out the start timeout,
 * not the hang check), never one the storm has stopped: that is left to
 * the broker's hang check or to its SIGCONT, else the storm's next
 * SIGKILL would nearly always end it first.  0 when there is none. */
static pid_t pick_target(struct fixture *f, const struct storm_count *sc, int for_stop, unsigned *seed)
{
	json_t *st = fx_status(f);
	int first = (int)(rand_r(seed) % NSERVICES);
	pid_t pid = 0;

	for (int i = 0; st && i < NSERVICES && !pid; i++) {
		json_t *s = fx_find_service(st, services[(first + i) % NSERVICES]);
		pid = (pid_t)json_integer_value(json_object_get(s, "pid"));
		if (is_stopped(sc, pid) || (for_stop && strcmp(fx_jstr(s, "state"), "up") != 0))
			pid = 0;
	}
	json_decref(st);
	return pid;
}

/* One action on a random service's copy: SIGKILL, or SIGSTOP with its
 * SIGCONT due 50 ms to 2.5 s later (past the hang limit about half the
 * time).  One copy at most is stopped at a time: with more, the clients
 * spend the storm waiting on hung copies and few calls are made.  1 when
 * a signal was sent. */
static int storm_action(struct fixture *f, struct storm_count *sc, unsigned *seed)
{
	int stop = rand_r(seed) % 6 == 0 && sc->nstopped == 0;
	pid_t pid = pick_target(f, sc, stop, seed);
	int fd = service_pidfd(pid, f->broker);

	if (fd < 0) {
		sc->misses++; /* between copies, or status not answered */
		return 0;
	}
	if (pidfd_send_signal(fd, stop ? SIGSTOP : SIGKILL, NULL, 0) < 0) {
		close(fd);
		sc->misses++;
		return 0;
	}
	if (!stop) {
		sc->kills++;
		close(fd);
		return 1;
	}
	sc->stops++;
	sc->stopped[sc->nstopped].pidfd = fd;
	sc->stopped[sc->nstopped].pid = pid;
	sc->stopped[sc->nstopped++].cont_at_ms = fx_now_ms() + 50 + rand_r(seed) % 2450;
	return 1;
}

/* See killstorm_rig.h. */
void run_storm(struct storm *st, long n, long limit_s, unsigned seed, struct storm_count *sc)
{
	struct client_arg clients[CLIENTS];
	long long end = fx_now_ms() + limit_s * 1000;
	long sent = 0;

	memset(sc, 0, sizeof *sc);
	atomic_store(&st->stop, 0);
	for (int i = 0; i < CLIENTS; i++) {
		clients[i].st = st;
		clients[i].n = i;
		clients[i].seed = seed + 1000u * (unsigned)(i + 1);
		clients[i].started = pthread_create(&clients[i].thread, NULL, client_main, &clients[i]) == 0;
	}
	while (sent < n && fx_now_ms() < end) {
		struct timespec gap = { 0, (20 + (long)(rand_r(&seed) % 140)) * 1000000L };

		continue_due(sc, 0);
		sent += storm_action(st->f, sc, &seed);
		nanosleep(&gap, NULL);
	}
	continue_due(sc, 1);
	atomic_store(&st->stop, 1);
	for (int i = 0; i < CLIENTS; i++)
		if (clients[i].started)
			pthread_join(clients[i].thread, NULL);
	for (int i = 0; i < CLIENTS; i++)
		if (!clients[i].started)
			fail_msg("client thread %d could not be started", i);
}
