/*
 * service_pool - the worker threads of a service, and the hb_call_* API
 * that handlers use.
 *
 * A worker owns one DEALER to the broker; results, progress and subcall
 * requests go out on it directly.  A handler may block (a Gemini request,
 * a render): other calls go on on other workers, and heartbeats go on in
 * the loop thread.
 */
#include "service_pool.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

#include "envelope.h"
#include "json.h"
#include "log.h"
#include "sock.h"

void hb_call_free(struct hb_call *call)
{
	if (!call)
		return;
	free(call->text);
	free(call->sub_text);
	free(call->strings);
	free(call);
}

const struct hb_call_context *hb_call_context(const struct hb_call *call)
{
	return &call->ctx;
}

int hb_call_cancelled(const struct hb_call *call)
{
	return atomic_load(&((struct hb_call *)call)->cancelled);
}

static int set_result(struct hb_call *call, int ok, char *text)
{
	free(call->text);
	call->text = text;
	call->ok = ok;
	call->answered = 1;
	return ok ? 0 : -1;
}

int hb_call_succeed(struct hb_call *call, const char *text)
{
	return set_result(call, 1, strdup(text));
}

int hb_call_fail(struct hb_call *call, const char *text)
{
	return set_result(call, 0, strdup(text));
}

static char *vformat(const char *fmt, va_list ap)
{
	char *s = NULL;
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n >= 0 && (s = malloc((size_t)n + 1)))
		vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

int hb_call_succeedf(struct hb_call *call, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vformat(fmt, ap);
	va_end(ap);
	return set_result(call, 1, s);
}

int hb_call_failf(struct hb_call *call, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vformat(fmt, ap);
	va_end(ap);
	return set_result(call, 0, s);
}

/* Send an envelope to the broker on the worker's own socket. */
static int send_env(const struct hb_call *call, const struct hb_env *e)
{
	return hb_send_env(call->sock, NULL, e);
}

int hb_call_progress(struct hb_call *call, const char *text)
{
	struct hb_env e;

	if (strlen(text) > HB_MAX_CONTEXT)
		return -1; /* a progress line, not a payload */
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "progress");
	hb_env_set_str(&e, "key", call->ctx.key);
	hb_env_set_str(&e, "text", text);
	return send_env(call, &e);
}

int hb_call_subcall(struct hb_call *call, const char *tool, const char *args_json,
		    int timeout_ms, int *ok, char **text)
{
	struct hb_pool *pool = call->pool;
	struct hb_env e;
	struct timespec deadline;
	char seqbuf[24];
	int rc = 0;

	*ok = 0;
	*text = NULL;
	if (strlen(args_json) > HB_MAX_PAYLOAD) {
		*text = strdup("the subcall's arguments are larger than a call can carry");
		return -1;
	}
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += timeout_ms / 1000;
	deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&pool->lock);
	call->sub_seq = ++pool->sub_seq;
	call->sub_waiting = 1;
	call->sub_answered = 0;
	pthread_mutex_unlock(&pool->lock);

	snprintf(seqbuf, sizeof seqbuf, "%llu", (unsigned long long)call->sub_seq);
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "subcall");
	hb_env_set_str(&e, "key", call->ctx.key);
	hb_env_set_str(&e, "sub", seqbuf);
	hb_env_set_str(&e, "tool", tool);
	hb_env_set_str(&e, "json", args_json);
	if (send_env(call, &e) < 0) {
		*text = strdup("the subcall could not be sent to the broker");
		return -1;
	}
	pthread_mutex_lock(&pool->lock);
	while (!call->sub_answered && !hb_call_cancelled(call) && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&pool->sub, &pool->lock, &deadline);
	call->sub_waiting = 0;
	if (call->sub_answered) {
		*ok = call->sub_ok;
		*text = call->sub_text;
		call->sub_text = NULL;
		rc = 0;
	} else {
		*text = strdup(hb_call_cancelled(call) ? "the call was cancelled" :
			       "the subcall got no answer in time");
		rc = -1;
	}
	pthread_mutex_unlock(&pool->lock);
	return rc;
}

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
	hb_map_each(&pool->calls, cancel_one, NULL);
	pthread_cond_broadcast(&pool->sub);
	pthread_mutex_unlock(&pool->lock);
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
	else if (strlen(call->text) > HB_MAX_PAYLOAD)
		hb_call_failf(call, "%s answered %zu bytes, more than the %u bytes an answer can carry",
			      call->ctx.tool, strlen(call->text), HB_MAX_PAYLOAD);
}

/* Answer the broker, then forget the call. */
static void finish_call(struct hb_pool *pool, struct hb_call *call)
{
	struct hb_env e;

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "result");
	hb_env_set_str(&e, "key", call->ctx.key);
	hb_env_set_bool(&e, "ok", call->ok);
	hb_env_set_str(&e, "text", call->text ? call->text : "");
	if (send_env(call, &e) < 0)
		log_error(call->ctx.key, "cannot send the result: %s", zmq_strerror(errno));
	log_debug(call->ctx.key, "done %s ok=%d", call->ctx.tool, call->ok);
	pthread_mutex_lock(&pool->lock);
	hb_map_del(&pool->calls, call->ctx.key);
	pool->served++;
	pthread_mutex_unlock(&pool->lock);
	hb_call_free(call);
}

struct worker_start {
	struct hb_pool *pool;
	int index;
};

static void *worker_main(void *arg)
{
	struct worker_start *ws = arg;
	struct hb_pool *pool = ws->pool;
	char identity[160];
	void *sock;

	snprintf(identity, sizeof identity, "%s.w%d", pool->identity, ws->index);
	free(ws);
	sock = hb_sock_dealer(pool->zctx, identity, 0, -1);
	if (!sock || zmq_connect(sock, pool->endpoint) < 0)
		hb_fatal("worker cannot reach the broker at %s: %s", pool->endpoint, zmq_strerror(errno));
	for (;;) {
		struct hb_call *call;

		pthread_mutex_lock(&pool->lock);
		while (!pool->head && !pool->stopping)
			pthread_cond_wait(&pool->work, &pool->lock);
		if (!pool->head) {
			pthread_mutex_unlock(&pool->lock);
			break;
		}
		call = pool->head;
		pool->head = call->next;
		if (!pool->head)
			pool->tail = NULL;
		pthread_mutex_unlock(&pool->lock);

		call->sock = sock;
		run_call(call);
		finish_call(pool, call);
	}
	zmq_close(sock);
	return NULL;
}

int hb_pool_start(struct hb_pool *pool, void *zctx, const char *endpoint, const char *identity,
		  int nthreads)
{
	memset(pool, 0, sizeof *pool);
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->work, NULL);
	pthread_cond_init(&pool->sub, NULL);
	hb_map_init(&pool->calls);
	pool->zctx = zctx;
	pool->endpoint = endpoint;
	pool->identity = identity;
	pool->threads = calloc((size_t)nthreads, sizeof *pool->threads);
	if (!pool->threads)
		return -1;
	for (int i = 0; i < nthreads; i++) {
		struct worker_start *ws = malloc(sizeof *ws);
		if (!ws)
			return -1;
		ws->pool = pool;
		ws->index = i;
		if (pthread_create(&pool->threads[i], NULL, worker_main, ws) != 0) {
			free(ws);
			return -1;
		}
		pool->nthreads++;
	}
	return 0;
}

int hb_pool_submit(struct hb_pool *pool, struct hb_call *call)
{
	call->pool = pool;
	call->next = NULL;
	pthread_mutex_lock(&pool->lock);
	if (hb_map_get(&pool->calls, call->ctx.key) || hb_map_put(&pool->calls, call->ctx.key, call) < 0) {
		pthread_mutex_unlock(&pool->lock);
		return -1;
	}
	if (pool->tail)
		pool->tail->next = call;
	else
		pool->head = call;
	pool->tail = call;
	pthread_cond_signal(&pool->work);
	pthread_mutex_unlock(&pool->lock);
	return 0;
}

void hb_pool_stop(struct hb_pool *pool)
{
	pthread_mutex_lock(&pool->lock);
	pool->stopping = 1;
	pthread_cond_broadcast(&pool->work);
	pthread_cond_broadcast(&pool->sub);
	pthread_mutex_unlock(&pool->lock);
	for (int i = 0; i < pool->nthreads; i++)
		pthread_join(pool->threads[i], NULL);
	free(pool->threads);
	/* The workers drained the queue before they ended; nothing should be
	 * left, but a call that is, is freed here. */
	while (pool->calls.count) {
		struct hb_call *c = hb_map_any(&pool->calls);
		hb_map_del(&pool->calls, c->ctx.key);
		hb_call_free(c);
	}
	hb_map_clear(&pool->calls);
	pthread_mutex_destroy(&pool->lock);
	pthread_cond_destroy(&pool->work);
	pthread_cond_destroy(&pool->sub);
}
