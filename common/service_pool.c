/*
 * service_pool - the worker threads of a service.
 *
 * Each worker owns a DEALER to the broker (routing id "<id>.wN"), says
 * `worker` once connected, and from then on the broker sends it one call
 * at a time: the broker knows which workers are free, queues the rest,
 * and so can move waiting calls to a new generation on replace.  A call
 * goes from the socket to the handler and back on one thread, with no
 * handoff inside the service.  A handler may block (a Gemini request, a
 * render): other calls go on on other workers, and heartbeats go on in
 * the loop thread.  When every worker is busy the broker sends calls to
 * the loop, which queues them here for whichever worker is free first; a
 * worker takes from that queue before it waits, and only an idle one is
 * woken for a queued call (its own pipe), so under load the queue costs
 * no system call and no thread is woken for nothing.  A worker that finds
 * nothing yields the CPU once before it sleeps: on a busy machine the
 * loop or the broker runs meanwhile and usually hands it the next call,
 * and a sleep and a wake-up cost a context switch and about ten system
 * calls (svc-echo's CPU per pipelined call fell from 23-25 to 18-22 us).
 */
#include "service_pool.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "clock.h"
#include "envelope.h"
#include "json.h"
#include "log.h"
#include "opfields.h"
#include "sock.h"
#include "protocol.h"

void hb_pool_subcall_answer(struct hb_pool *pool, const char *key, uint64_t seq, int ok,
			    const char *text)
{
	struct hb_call *call;

	pthread_mutex_lock(&pool->lock);
	call = hb_map_get(&pool->calls, key);
	if (call && call->sub_waiting && call->sub_seq == seq && !call->sub_answered) {
		call->sub_ok = ok;
		call->sub_text = strdup(text ? text : "");
		call->sub_answered = 1;
		pthread_cond_broadcast(&pool->sub);
	}
	pthread_mutex_unlock(&pool->lock);
}

void hb_pool_cancel(struct hb_pool *pool, const char *key)
{
	struct hb_call *call;

	pthread_mutex_lock(&pool->lock);
	if ((call = hb_map_get(&pool->calls, key)))
		atomic_store(&call->cancelled, 1);
	pthread_cond_broadcast(&pool->sub);
	pthread_mutex_unlock(&pool->lock);
}

static void cancel_one(void *value, void *arg)
{
	(void)arg;
	atomic_store(&((struct hb_call *)value)->cancelled, 1);
}

void hb_pool_cancel_all(struct hb_pool *pool)
{
	pthread_mutex_lock(&pool->lock);
	pool->stopping = 1;
	hb_map_each(&pool->calls, cancel_one, NULL);
	pthread_cond_broadcast(&pool->sub);
	pthread_mutex_unlock(&pool->lock);
}

struct longest {
	long long started_ms;
	const char *key;
};

static void find_longest(void *value, void *arg)
{
	const struct hb_call *c = value;
	struct longest *l = arg;

	if (c->started_ms && (!l->started_ms || c->started_ms < l->started_ms)) {
		l->started_ms = c->started_ms;
		l->key = c->ctx.key;
	}
}

long long hb_pool_longest_held(struct hb_pool *pool, char *key, size_t keylen)
{
	struct longest l = { 0, NULL };
	long long ms = 0;

	pthread_mutex_lock(&pool->lock);
	hb_map_each(&pool->calls, find_longest, &l);
	snprintf(key, keylen, "%s", l.key ? l.key : "");
	pthread_mutex_unlock(&pool->lock);
	if (l.started_ms)
		ms = hb_monotonic_ms() - l.started_ms;
	return ms > 0 ? ms : (l.started_ms ? 1 : 0);
}

int hb_pool_busy_fd(const struct hb_pool *pool)
{
	return pool->busy[0];
}

void hb_pool_busy_drain(struct hb_pool *pool)
{
	char buf[64];

	while (read(pool->busy[0], buf, sizeof buf) > 0)
		;
}

size_t hb_pool_inflight(struct hb_pool *pool)
{
	size_t n;

	pthread_mutex_lock(&pool->lock);
	n = pool->calls.count;
	pthread_mutex_unlock(&pool->lock);
	return n;
}

unsigned long hb_pool_served(struct hb_pool *pool)
{
	unsigned long n;

	pthread_mutex_lock(&pool->lock);
	n = pool->served;
	pthread_mutex_unlock(&pool->lock);
	return n;
}

static hb_tool_fn find_tool(const struct hb_pool *pool, const char *name)
{
	for (const struct hb_service_tool *t = pool->tools; t->name; t++)
		if (strcmp(t->name, name) == 0)
			return t->fn;
	return NULL;
}

/* A call that owns copies of the envelope's strings. */
static struct hb_call *call_from_env(const struct hb_env *e, hb_tool_fn fn)
{
	static const char *const names[] = { "key", "tool", "session", "run", "project",
					     "agent", "access", "call_id", "model", "json" };
	enum { NFIELDS = sizeof names / sizeof names[0] };
	const char *vals[NFIELDS];
	size_t lens[NFIELDS], total = 0;
	struct hb_call *c = calloc(1, sizeof *c);
	char *p;

	if (!c)
		return NULL;
	for (int i = 0; i < NFIELDS; i++) {
		const struct hb_field *f = hb_env_get(e, names[i]);
		vals[i] = f && f->type == HB_VAL_STR ? f->s : "";
		lens[i] = f && f->type == HB_VAL_STR ? f->len : 0;
		total += lens[i] + 1;
	}
	if (!(c->strings = p = malloc(total))) {
		free(c);
		return NULL;
	}
	const char **slots[NFIELDS] = { &c->ctx.key, &c->ctx.tool, &c->ctx.session, &c->ctx.run,
					&c->ctx.project, &c->ctx.agent, &c->ctx.access, &c->ctx.call_id,
					&c->ctx.model, &c->args };
	for (int i = 0; i < NFIELDS; i++) {
		memcpy(p, vals[i], lens[i]);
		p[lens[i]] = '\0';
		*slots[i] = p;
		p += lens[i] + 1;
	}
	c->args_len = lens[NFIELDS - 1];
	c->fn = fn;
	atomic_init(&c->cancelled, 0);
	return c;
}

static void run_call(struct hb_call *call)
{
	char err[512];
	json_t *args;

	if (hb_call_cancelled(call)) {
		hb_call_fail(call, "Run stopped.");
		return;
	}
	args = hb_json_parse_object(call->args, call->args_len, err, sizeof err);
	if (!args) {
		hb_call_failf(call, "%s: %s", call->ctx.tool, err);
		return;
	}
	call->fn(call, args);
	json_decref(args);
	if (!call->answered)
		hb_call_failf(call, "%s ended without an answer (a bug in the service)", call->ctx.tool);
	else if (!call->text)
		hb_call_fail(call, "out of memory while answering");
	else if (strlen(call->text) + (call->images ? strlen(call->images) : 0) > HB_MAX_PAYLOAD)
		hb_call_failf(call, "%s answered %zu bytes%s, more than the %u bytes an answer can carry",
			      call->ctx.tool, strlen(call->text) + (call->images ? strlen(call->images) : 0),
			      call->images ? " with its images as base64" : "", HB_MAX_PAYLOAD);
}

/* queued: the call came through the loop's overflow queue, which the
 * broker counts apart from the workers' own calls.  images: the wire
 * form of images.h, or NULL. */
static void answer(void *sock, const char *key, int queued, int ok, const char *text, const char *images,
		   const char *code)
{
	struct hb_env e;

	hb_env_init(&e);
	hb_env_set_str(&e, "op", HB_OP_RESULT);
	hb_env_set_str(&e, "key", key);
	hb_env_set_bool(&e, "ok", ok);
	hb_env_set_str(&e, "text", text);
	if (images)
		hb_env_set_str(&e, "images", images);
	if (code)
		hb_env_set_str(&e, "code", code);
	if (queued)
		hb_env_set_bool(&e, "queued", 1);
	if (hb_send_env(sock, NULL, &e) < 0)
		log_error(key, "cannot send the result: %s", zmq_strerror(errno));
}

/* The answer to a call that a stopping service will not start. */
static void not_started(const struct hb_pool *pool, char *text, size_t len)
{
	snprintf(text, len, "%s stopped before this call started; try the call again", pool->service);
}

/* A tracked call for envelope e, or NULL with *why set (answer it). */
static struct hb_call *make_call(struct hb_pool *pool, const struct hb_env *e, char *why, size_t whylen)
{
	const char *tool = hb_env_str(e, "tool");
	hb_tool_fn fn = find_tool(pool, tool);
	struct hb_call *c;
	int tracked, stopping;

	if (!fn) {
		snprintf(why, whylen, "%s does not serve the tool \"%.64s\"", pool->service, tool);
		return NULL;
	}
	if (!(c = call_from_env(e, fn))) {
		snprintf(why, whylen, "the service is out of memory");
		return NULL;
	}
	c->pool = pool;
	pthread_mutex_lock(&pool->lock);
	/* No call starts once the stop began: its caller hears so at once. */
	stopping = pool->stopping;
	/* A call sent to a worker is held by it from here; a queued one
	 * from when a worker takes it (hb_pool_enqueue, take_queued_locked). */
	c->started_ms = hb_monotonic_ms();
	tracked = !stopping && !hb_map_get(&pool->calls, c->ctx.key) &&
		  hb_map_put(&pool->calls, c->ctx.key, c) == 0;
	if (tracked && pool->calls.count == 1)
		(void)!write(pool->busy[1], "b", 1); /* non-blocking: a full pipe has woken it already */
	pthread_mutex_unlock(&pool->lock);
	if (!tracked) {
		if (stopping)
			not_started(pool, why, whylen);
		else
			snprintf(why, whylen, "this call key is already in flight");
		hb_call_free(c);
		return NULL;
	}
	return c;
}

/* Run c on this worker, answer on its socket, forget it. */
static void run_and_answer(struct hb_pool *pool, void *sock, struct hb_call *c)
{
	c->sock = sock;
	log_debug(c->ctx.key, "call %s%s", c->ctx.tool, c->queued ? " (queued)" : "");
	run_call(c);
	answer(sock, c->ctx.key, c->queued, c->ok, c->text ? c->text : "", c->ok ? c->images : NULL,
	       c->ok ? NULL : c->code);
	log_debug(c->ctx.key, "done %s ok=%d", c->ctx.tool, c->ok);
	pthread_mutex_lock(&pool->lock);
	hb_map_del(&pool->calls, c->ctx.key);
	pool->served++;
	pthread_mutex_unlock(&pool->lock);
	hb_call_free(c);
}

/* A call the broker sent to this worker's own socket. */
static void serve(struct hb_pool *pool, void *sock, const struct hb_env *e)
{
	const char *key = hb_env_str(e, "key");
	struct hb_call *c;
	char why[256];

	if (!*key) {
		log_warn(NULL, "a call without a key was ignored");
		return;
	}
	if (!(c = make_call(pool, e, why, sizeof why))) {
		answer(sock, key, 0, 0, why, NULL, NULL);
		return;
	}
	run_and_answer(pool, sock, c);
}

/* With the lock held: take an idle worker off the stack; its index (the
 * caller wakes it after unlocking), or -1 when none is idle. */
static int pop_idle(struct hb_pool *pool)
{
	int w;

	if (!pool->nidle)
		return -1;
	w = pool->idle[--pool->nidle];
	pool->is_idle[w] = 0;
	return w;
}

/* With the lock held: worker w is no longer waiting. */
static void leave_idle(struct hb_pool *pool, int w)
{
	if (!pool->is_idle[w])
		return;
	for (int i = 0; i < pool->nidle; i++)
		if (pool->idle[i] == w) {
			pool->idle[i] = pool->idle[--pool->nidle];
			break;
		}
	pool->is_idle[w] = 0;
}

static void wake_worker(struct hb_pool *pool, int w)
{
	char byte = 1;

	/* A full pipe already holds a wake-up. */
	if (w >= 0)
		(void)!write(pool->wake[w][1], &byte, 1);
}

int hb_pool_enqueue(struct hb_pool *pool, const struct hb_env *e, char *why, size_t whylen)
{
	struct hb_call *c = make_call(pool, e, why, whylen);
	int w;

	if (!c)
		return -1;
	c->queued = 1;
	pthread_mutex_lock(&pool->lock);
	c->started_ms = 0; /* no worker holds it yet */
	if (pool->qtail)
		pool->qtail->next = c;
	else
		pool->qhead = c;
	pool->qtail = c;
	w = pop_idle(pool);
	pthread_mutex_unlock(&pool->lock);
	wake_worker(pool, w);
	return 0;
}

/* With the lock held. */
static struct hb_call *take_queued_locked(struct hb_pool *pool)
{
	struct hb_call *c;

	if ((c = pool->qhead) && !(pool->qhead = c->next))
		pool->qtail = NULL;
	if (c)
		c->started_ms = hb_monotonic_ms();
	return c;
}

/* The next queued call, or NULL with worker w put on the idle stack
 * (w < 0: a first look, which leaves it off; stopping: NULL, *stop set). */
static struct hb_call *next_or_idle(struct hb_pool *pool, int w, int *stop)
{
	struct hb_call *c = NULL;

	pthread_mutex_lock(&pool->lock);
	if (!(*stop = pool->stopping) && !(c = take_queued_locked(pool)) && w >= 0 && !pool->is_idle[w]) {
		pool->idle[pool->nidle++] = w;
		pool->is_idle[w] = 1;
	}
	pthread_mutex_unlock(&pool->lock);
	return c;
}

/* A worker's socket is made and connected by hb_pool_start, before the
 * service seals itself against new sockets (confine.h); the thread owns
 * it from then on (pthread_create is the barrier libzmq asks for). */
struct worker_start {
	struct hb_pool *pool;
	int index;
	void *sock;
};

static void *worker_main(void *arg)
{
	struct worker_start *ws = arg;
	struct hb_pool *pool = ws->pool;
	int me = ws->index;
	char identity[160];
	struct hb_env hello;
	void *sock = ws->sock;

	snprintf(identity, sizeof identity, "%s.w%d", pool->identity, ws->index);
	free(ws);
	hb_env_init(&hello);
	hb_env_set_str(&hello, "op", HB_OP_WORKER);
	if (hb_send_env(sock, NULL, &hello) < 0)
		log_warn(identity, "cannot announce the worker: %s", zmq_strerror(errno));
	/* Queued calls first; then block until a call or a wake-up comes
	 * (hb_pool_stop wakes every worker with ETERM). */
	for (;;) {
		struct hb_call *queued;
		struct hb_env e;
		char err[256], bytes[64];
		int rc, stop, pass = -1;

		if ((queued = next_or_idle(pool, -1, &stop))) {
			run_and_answer(pool, sock, queued);
			continue;
		}
		if (stop)
			break;
		/* Nothing queued: let the threads that feed this one run
		 * before it sleeps.  Under load a call comes meanwhile, and
		 * taking it costs far less than a sleep and a wake-up.  The
		 * socket comes first: a call of our own sent meanwhile is
		 * older than one queued after it. */
		sched_yield();
		if ((rc = hb_sock_readable(sock)) == 0) {
			if ((queued = next_or_idle(pool, me, &stop))) {
				run_and_answer(pool, sock, queued);
				continue;
			}
			if (stop)
				break;
			rc = hb_wait_sock_or_fd(sock, pool->wake[me][0]);
			pthread_mutex_lock(&pool->lock);
			leave_idle(pool, me);
			/* A wake-up meant for a queued call, while a call of our own
			 * came too: another idle worker takes the queued one. */
			if (rc == 1 && pool->qhead)
				pass = pop_idle(pool);
			pthread_mutex_unlock(&pool->lock);
			wake_worker(pool, pass);
		}
		if (rc < 0) {
			if (errno == ETERM)
				break;
			continue;
		}
		if (rc == 2)
			(void)!read(pool->wake[me][0], bytes, sizeof bytes);
		if (rc != 1)
			continue;
		rc = hb_recv_env(sock, &e, err, sizeof err);
		if (rc == 1 && hb_broker_op_check(&e, err, sizeof err) < 0) {
			hb_env_free(&e);
			rc = 0;
		}
		if (rc == 0)
			log_warn(identity, "bad frame from the broker: %s", err);
		if (rc <= 0)
			continue;
		if (strcmp(hb_env_str(&e, "op"), HB_OP_CALL) == 0)
			serve(pool, sock, &e);
		else
			log_warn(identity, "unknown op \"%.32s\" from the broker ignored", hb_env_str(&e, "op"));
		hb_env_free(&e);
	}
	zmq_close(sock);
	return NULL;
}

int hb_pool_start(struct hb_pool *pool, void *zctx, const char *service, const char *endpoint,
		  const char *identity, const struct hb_service_tool *tools, int nthreads, void *service_arg)
{

	memset(pool, 0, sizeof *pool);
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->sub, NULL);
	hb_map_init(&pool->calls);
	pool->zctx = zctx;
	pool->service = service;
	pool->endpoint = endpoint;
	pool->identity = identity;
	pool->tools = tools;
	pool->service_arg = service_arg;
	pool->threads = calloc((size_t)nthreads, sizeof *pool->threads);
	pool->wake = calloc((size_t)nthreads, sizeof *pool->wake);
	pool->idle = calloc((size_t)nthreads, sizeof *pool->idle);
	pool->is_idle = calloc((size_t)nthreads, sizeof *pool->is_idle);
	if (!pool->threads || !pool->wake || !pool->idle || !pool->is_idle)
		return -1;
	pool->nwake = nthreads;
	for (int i = 0; i < nthreads; i++)
		pool->wake[i][0] = pool->wake[i][1] = -1;
	pool->busy[0] = pool->busy[1] = -1;
	if (pipe(pool->busy) < 0 || fcntl(pool->busy[0], F_SETFL, O_NONBLOCK) < 0 ||
	    fcntl(pool->busy[1], F_SETFL, O_NONBLOCK) < 0)
		return -1;
	for (int i = 0; i < nthreads; i++)
		if (pipe(pool->wake[i]) < 0 || fcntl(pool->wake[i][0], F_SETFL, O_NONBLOCK) < 0 ||
		    fcntl(pool->wake[i][1], F_SETFL, O_NONBLOCK) < 0)
			return -1;
	for (int i = 0; i < nthreads; i++) {
		struct worker_start *ws = malloc(sizeof *ws);
		char wid[160];
		int linger = HB_ANSWER_LINGER_MS;

		if (!ws)
			return -1;
		ws->pool = pool;
		ws->index = i;
		snprintf(wid, sizeof wid, "%s.w%d", identity, i);
		if (!(ws->sock = hb_sock_dealer(zctx, wid, 0, -1)) ||
		    zmq_setsockopt(ws->sock, ZMQ_LINGER, &linger, sizeof linger) < 0 ||
		    hb_sock_connect_confirmed(zctx, ws->sock, endpoint, HB_CONNECT_WAIT_MS) < 0) {
			log_error(NULL, "worker %d cannot reach the broker at %s: %s", i, endpoint, zmq_strerror(errno));
			if (ws->sock)
				zmq_close(ws->sock);
			free(ws);
			return -1;
		}
		if (pthread_create(&pool->threads[i], NULL, worker_main, ws) != 0) {
			zmq_close(ws->sock);
			free(ws);
			return -1;
		}
		pool->nthreads++;
	}
	return 0;
}

void hb_pool_answer_queued(struct hb_pool *pool, void *loop_sock)
{
	struct hb_call *c, *next;
	char text[256];

	/* Out of the queue and the table in one pass; sent outside the lock. */
	pthread_mutex_lock(&pool->lock);
	c = pool->qhead;
	pool->qhead = pool->qtail = NULL;
	for (next = c; next; next = next->next)
		hb_map_del(&pool->calls, next->ctx.key);
	pthread_mutex_unlock(&pool->lock);
	not_started(pool, text, sizeof text);
	for (; c; c = next) {
		next = c->next;
		answer(loop_sock, c->ctx.key, 1, 0, text, NULL, NULL);
		hb_call_free(c);
	}
}

void hb_pool_stop(struct hb_pool *pool, void *stop_sock)
{
	hb_pool_cancel_all(pool);
	/* Before the shutdown: the loop's socket can still send then. */
	hb_pool_answer_queued(pool, stop_sock);
	/* Every blocking ZeroMQ call of the workers now returns ETERM. */
	zmq_ctx_shutdown(pool->zctx);
	for (int i = 0; i < pool->nthreads; i++)
		pthread_join(pool->threads[i], NULL);
	free(pool->threads);
	hb_map_clear(&pool->calls); /* each worker took out its own calls */
	for (int i = 0; pool->wake && i < pool->nwake; i++)
		for (int end = 0; end < 2; end++)
			if (pool->wake[i][end] >= 0)
				close(pool->wake[i][end]);
	free(pool->wake);
	for (int end = 0; end < 2; end++)
		if (pool->busy[end] >= 0)
			close(pool->busy[end]);
	free(pool->idle);
	free(pool->is_idle);
	pthread_mutex_destroy(&pool->lock);
	pthread_cond_destroy(&pool->sub);
}
