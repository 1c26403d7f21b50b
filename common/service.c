/*
 * service - hb_service_run, the loop thread of every svc-* process.
 *
 * The loop owns the DEALER to the broker.  It announces `ready`, sends a
 * heartbeat every HB_HEARTBEAT_MS while calls are in flight (with how long
 * the longest has held its worker, so that a worker stuck in a handler
 * shows to the broker although the loop beats on), and none while it has
 * no call: an idle service sleeps until the broker writes (a dead one is
 * seen by the broker's SIGCHLD, a hung one matters only while it holds
 * calls; issue 38).  It delivers `cancel` and subcall
 * answers to the workers, which take calls from the broker and answer on
 * their own sockets (service_pool.c).  It exits on SIGTERM after the calls in
 * flight have answered (they are cancelled first), and when the broker
 * that started it is gone.
 */
#include "service.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "clock.h"
#include "confine.h"
#include "confine_probe.h"
#include "envvar.h"
#include "log.h"
#include "opfields.h"
#include "paths.h"
#include "pdeath.h"
#include "service_pool.h"
#include "service_task.h"
#include "sock.h"
#include "tunables.h"
#include "protocol.h"

#define HB_VERSION "0.1.0"
/* Calls the broker may queue in a busy service, per worker: enough to
 * keep workers fed between broker round trips, few enough that a replace
 * moves most waiting calls to the new generation. */
#define HB_OVERFLOW_PER_WORKER 8

struct service_loop {
	const char *name;
	const struct hb_service_tool *tools;
	char endpoint[HB_PATH_MAX + 8];
	char identity[128];
	int concurrency;
	int heartbeat_ms;
	int stop_ms;            /* calls get this long at SIGTERM (3/5 of the broker's grace) */
	pid_t broker_pid;       /* exit when our parent is no longer this */
	int parent_signals;     /* the system signals the broker's death: no need to look */
	void *zctx, *back;
	struct hb_pool pool;
	hb_task_fn task_fn;
	void *task_arg;
	int task_delivers;
	int task_approvals;
	int task_idles;
	int sigpipe[2];
	int stopping;
	struct hb_service_tool *with_probe; /* the tools and the test-only probe (HB_CONFINE_PROBE) */
	char probe_name[96];
};

static int stop_pipe_fd = -1; /* written by the signal handler only */

static void on_stop_signal(int sig)
{
	int saved = errno;
	char c = (char)sig;

	(void)!write(stop_pipe_fd, &c, 1);
	errno = saved;
}

static int parse_settings(struct service_loop *s, int argc, char **argv)
{
	const char *id = getenv("HB_SERVICE_ID"), *ep = getenv("HB_BACK_ENDPOINT");
	char err[HB_PATH_MAX + 256];

	s->concurrency = hb_tunable(HB_T_CONCURRENCY);
	s->heartbeat_ms = hb_tunable(HB_T_HEARTBEAT_MS);
	/* Inside the broker's TERM-to-KILL grace, so that the calls' answers
	 * and our own exit come before its KILL. */
	s->stop_ms = hb_tunable(HB_T_STOP_GRACE_MS) * 3 / 5;
	s->broker_pid = (pid_t)hb_getenv_int("HB_BROKER_PID", 0, 0, 0x7fffffff);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--concurrency") == 0 && i + 1 < argc) {
			s->concurrency = atoi(argv[++i]);
			if (s->concurrency < 1 || s->concurrency > 256) {
				fprintf(stderr, "%s: --concurrency must be 1..256\n", s->name);
				return -1;
			}
		} else if (strcmp(argv[i], "--endpoint") == 0 && i + 1 < argc) {
			ep = argv[++i];
		} else {
			fprintf(stderr, "usage: %s [--concurrency N] [--endpoint ipc://PATH]\n", s->name);
			return -1;
		}
	}
	snprintf(s->identity, sizeof s->identity, "%s#%s", s->name, "0");
	if (id && *id)
		snprintf(s->identity, sizeof s->identity, "%s", id);
	if (ep && *ep) {
		snprintf(s->endpoint, sizeof s->endpoint, "%s", ep);
		return 0;
	}
	if (hb_runtime_endpoint("back.sock", s->endpoint, sizeof s->endpoint, err, sizeof err) < 0) {
		fprintf(stderr, "%s: %s\n", s->name, err);
		return -1;
	}
	return 0;
}

static void send_simple(struct service_loop *s, const char *op)
{
	struct hb_env e;
	char tools[1024] = "", key[64]; /* the envelope borrows them until it is sent */
	size_t n = 0;

	hb_env_init(&e);
	hb_env_set_str(&e, "op", op);
	if (strcmp(op, HB_OP_READY) == 0) {
		for (const struct hb_service_tool *t = s->tools; t->name && n < sizeof tools; t++)
			n += (size_t)snprintf(tools + n, sizeof tools - n, "%s%s", n ? "," : "", t->name);
		hb_env_set_str(&e, "service", s->name);
		hb_env_set_int(&e, "pid", getpid());
		hb_env_set_str(&e, "version", HB_VERSION);
		hb_env_set_str(&e, "tools", tools);
		hb_env_set_int(&e, "concurrency", s->concurrency);
		hb_env_set_int(&e, "overflow", (int64_t)s->concurrency * HB_OVERFLOW_PER_WORKER);
		if (s->task_delivers && s->pool.task)
			hb_env_set_str(&e, "deliveryTask", hb_task_id(s->pool.task));
		if (s->task_approvals && s->pool.task)
			hb_env_set_str(&e, "approvalTask", hb_task_id(s->pool.task));
		if (s->task_idles && s->pool.task)
			hb_env_set_str(&e, "idleTask", hb_task_id(s->pool.task));
	} else {
		long long held = hb_pool_longest_held(&s->pool, key, sizeof key);

		hb_env_set_int(&e, "inflight", (int64_t)hb_pool_inflight(&s->pool));
		/* A worker stuck in a call beats nothing itself: the loop says
		 * how long the longest call has held one, and the broker judges
		 * it against the family's call-limit. */
		if (held > 0) {
			hb_env_set_int(&e, "heldMs", held);
			hb_env_set_str(&e, "heldKey", key);
		}
	}
	if (hb_send_env(s->back, NULL, &e) < 0)
		log_warn(NULL, "cannot send %s: %s", op, zmq_strerror(errno));
}

static void answer_now(struct service_loop *s, const char *key, const char *text)
{
	struct hb_env e;

	hb_env_init(&e);
	hb_env_set_str(&e, "op", HB_OP_RESULT);
	hb_env_set_str(&e, "key", key);
	hb_env_set_bool(&e, "ok", 0);
	hb_env_set_str(&e, "text", text);
	hb_env_set_bool(&e, "queued", 1); /* only overflow calls reach the loop */
	if (hb_send_env(s->back, NULL, &e) < 0)
		log_warn(key, "cannot answer: %s", zmq_strerror(errno));
}

static void handle_back(struct service_loop *s)
{
	for (;;) {
		struct hb_env e;
		char err[256];
		int rc = hb_recv_env(s->back, &e, err, sizeof err);
		const char *op, *key;

		if (rc < 0)
			return;
		if (rc == 0 || hb_broker_op_check(&e, err, sizeof err) < 0) {
			log_warn(NULL, "bad frame from the broker: %s", err);
			hb_env_free(&e);
			continue;
		}
		op = hb_env_str(&e, "op");
		key = hb_env_str_or(&e, "key", "");
		if (strcmp(op, HB_OP_CALL) == 0) {
			char why[256];
			if (hb_pool_enqueue(&s->pool, &e, why, sizeof why) < 0)
				answer_now(s, key, why);
		} else if (strcmp(op, HB_OP_CANCEL) == 0) {
			hb_pool_cancel(&s->pool, key);
		} else if (strcmp(op, HB_OP_SUBCALL_RESULT) == 0) {
			const char *sub = hb_env_str_or(&e, "sub", "0");
			hb_pool_subcall_answer(&s->pool, key, strtoull(sub, NULL, 10), hb_env_bool(&e, "ok", 0),
					       hb_env_str(&e, "text"));
		} else if (strcmp(op, HB_OP_HEARTBEAT) != 0) {
			log_warn(NULL, "unknown op \"%s\" from the broker ignored", op);
		}
		hb_env_free(&e);
	}
}

static int setup(struct service_loop *s)
{
	struct sigaction sa;
	int linger = HB_ANSWER_LINGER_MS; /* it answers the queue of a stopping service */

	if (pipe(s->sigpipe) < 0 || fcntl(s->sigpipe[0], F_SETFL, O_NONBLOCK) < 0 ||
	    fcntl(s->sigpipe[1], F_SETFL, O_NONBLOCK) < 0)
		return -1;
	stop_pipe_fd = s->sigpipe[1];
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) < 0 || sigaction(SIGINT, &sa, NULL) < 0)
		return -1;
	signal(SIGPIPE, SIG_IGN);
	if (!(s->zctx = zmq_ctx_new()))
		return -1;
	s->back = hb_sock_dealer(s->zctx, s->identity, 0, -1);
	if (!s->back || zmq_setsockopt(s->back, ZMQ_LINGER, &linger, sizeof linger) < 0 ||
	    hb_sock_connect_confirmed(s->zctx, s->back, s->endpoint, HB_CONNECT_WAIT_MS) < 0)
		return -1;
	if (hb_pool_start(&s->pool, s->zctx, s->name, s->endpoint, s->identity, s->tools, s->concurrency,
			  s->task_arg) < 0)
		return -1;
	if (s->task_fn &&
	    !(s->pool.task = hb_task_start(s->zctx, s->endpoint, s->identity, s->task_fn, s->task_arg)))
		return -1;
	return 0;
}

static void teardown(struct service_loop *s)
{
	hb_task_stop(s->pool.task);
	s->pool.task = NULL;
	hb_pool_stop(&s->pool, s->back);
	zmq_close(s->back);
	zmq_ctx_term(s->zctx);
	close(s->sigpipe[0]);
	close(s->sigpipe[1]);
}

/* The test-only confine_probe_<service> beside the service's tools, when
 * the broker's environment asks for it (confine_probe.h). */
static int add_probe(struct service_loop *s)
{
	const char *on = getenv("HB_CONFINE_PROBE");
	size_t n = 0;

	if (!on || strcmp(on, "1") != 0)
		return 0;
	while (s->tools[n].name)
		n++;
	if (!(s->with_probe = calloc(n + 2, sizeof *s->with_probe)))
		return -1;
	memcpy(s->with_probe, s->tools, n * sizeof *s->tools);
	snprintf(s->probe_name, sizeof s->probe_name, "confine_probe_%s", s->name);
	for (char *p = s->probe_name; *p; p++)
		if (*p == '-')
			*p = '_';
	s->with_probe[n] = (struct hb_service_tool){ s->probe_name, hb_confine_probe };
	s->tools = s->with_probe;
	return 0;
}

/* How long the loop may sleep: until the next beat while calls are in
 * flight; with none, until the broker writes, or, where the system does
 * not signal the broker's death, until it is time to look for it; every
 * 10 ms while stopping, to see whether the calls are done. */
static long long idle_wait(const struct service_loop *s, long long next_beat)
{
	long long wait = -1;

	if (next_beat) {
		wait = next_beat - hb_monotonic_ms();
		wait = wait < 0 ? 0 : wait;
	} else if (!s->parent_signals && s->broker_pid) {
		wait = s->heartbeat_ms;
	}
	if (s->stopping && (wait < 0 || wait > 10))
		wait = 10;
	return wait;
}

static int serve(const struct hb_service_spec *spec, int argc, char **argv)
{
	struct service_loop s;
	long long next_beat, stop_deadline = 0;
	char err[256];

	memset(&s, 0, sizeof s);
	s.name = spec->name;
	s.tools = spec->tools;
	s.task_fn = spec->task;
	s.task_arg = spec->task_arg;
	s.task_delivers = spec->task_delivers;
	s.task_approvals = spec->task_approvals;
	s.task_idles = spec->task_idles;
	if (parse_settings(&s, argc, argv) < 0)
		return 100;
	if (add_probe(&s) < 0)
		return 111;
	if (setup(&s) < 0) {
		log_error(NULL, "cannot start: %s", zmq_strerror(errno));
		return 111;
	}
	/* every socket to the broker is connected: a confined service makes
	 * no Unix socket from here on (confine.h) */
	if (getenv("HB_CONFINE") && *getenv("HB_CONFINE") && hb_confine_seal(err, sizeof err) < 0) {
		log_error(NULL, "cannot start: not confined as deployed: %s", err);
		teardown(&s);
		return 111;
	}
	/* SIGTERM when the broker dies, a stop like any other: an idle loop
	 * then never wakes to look for it.  Asked before the look at our
	 * parent, which catches a broker already gone. */
	if (s.broker_pid)
		s.parent_signals = hb_pdeath_signal(SIGTERM) == 1;
	send_simple(&s, "ready");
	log_info(NULL, "ready as %s on %s with %d workers", s.identity, s.endpoint, s.concurrency);
	next_beat = 0; /* no call: no beat */
	while (!s.stopping || (hb_pool_inflight(&s.pool) && hb_monotonic_ms() < stop_deadline)) {
		zmq_pollitem_t items[3] = {
			{ s.back, 0, ZMQ_POLLIN, 0 },
			{ NULL, s.sigpipe[0], ZMQ_POLLIN, 0 },
			{ NULL, hb_pool_busy_fd(&s.pool), ZMQ_POLLIN, 0 },
		};
		long long wait = idle_wait(&s, next_beat);

		if (s.broker_pid && getppid() != s.broker_pid) {
			log_warn(NULL, "the broker (pid %ld) is gone; exiting", (long)s.broker_pid);
			break;
		}
		if (zmq_poll(items, 3, wait) < 0 && errno != EINTR)
			break;
		if (items[1].revents & ZMQ_POLLIN) {
			char buf[16];
			while (read(s.sigpipe[0], buf, sizeof buf) > 0)
				;
			if (!s.stopping) {
				log_info(NULL, "stopping: cancelling %zu calls in flight", hb_pool_inflight(&s.pool));
				s.stopping = 1;
				stop_deadline = hb_monotonic_ms() + s.stop_ms;
				hb_pool_cancel_all(&s.pool);
				hb_pool_answer_queued(&s.pool, s.back);
			}
		}
		if (items[0].revents & ZMQ_POLLIN)
			handle_back(&s);
		if (items[2].revents & ZMQ_POLLIN)
			hb_pool_busy_drain(&s.pool);
		/* The first call after a quiet time (a worker took it, or the
		 * loop queued it) starts the beats. */
		if (!next_beat && hb_pool_inflight(&s.pool))
			next_beat = hb_monotonic_ms() + s.heartbeat_ms;
		if (next_beat && hb_monotonic_ms() >= next_beat) {
			send_simple(&s, "heartbeat");
			/* One beat more after the last call: it says nothing is held. */
			next_beat = hb_pool_inflight(&s.pool) ? hb_monotonic_ms() + s.heartbeat_ms : 0;
		}
	}
	if (s.stopping && hb_pool_inflight(&s.pool)) {
		/* A handler ignored its cancel: leave without waiting for it. */
		log_warn(NULL, "%zu calls did not stop in time; exiting anyway", hb_pool_inflight(&s.pool));
		_exit(0);
	}
	hb_pool_cancel_all(&s.pool);
	log_info(NULL, "stopped after %lu calls", hb_pool_served(&s.pool));
	teardown(&s);
	free(s.with_probe);
	return 0;
}

int hb_service_run(int argc, char **argv, const struct hb_service_spec *spec)
{
	int rc;

	char err[HB_PATH_MAX + 256];

	hb_log_init(spec->name);
	/* before any thread: Landlock binds the thread that asks and what it
	 * starts, and the pre-init's libraries run confined too */
	if (hb_confine_from_env(err, sizeof err) < 0) {
		log_error(NULL, "cannot start: not confined as deployed: %s", err);
		return 111;
	}
	if (spec->pre_init && spec->pre_init() < 0) {
		log_error(NULL, "cannot start: its set-up before the first thread failed");
		return 111;
	}
	rc = serve(spec, argc, argv);
	if (spec->at_exit)
		spec->at_exit();
	return rc;
}
