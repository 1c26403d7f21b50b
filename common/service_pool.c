/*
 * service_pool - the worker threads of a service, and the hb_call_* API
 * that handlers use.
 *
 * A worker owns one PUSH socket to the loop thread; results, progress and
 * subcall requests travel over it as ready-made envelopes, so the loop
 * thread only forwards bytes.  A handler may block (a Gemini request, a
 * render): other calls go on on other workers, and heartbeats go on in the
 * loop thread.
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

/* Send an envelope to the loop thread; kind says whether the call is done. */
static int push_env(void *push, char kind, const struct hb_call *call, const struct hb_env *e)
{
	char head[1 + sizeof call];
	char *buf;
	size_t len;
	int rc;

	head[0] = kind;
	memcpy(head + 1, &call, sizeof call);
	if (hb_env_encode(e, &buf, &len) < 0)
		return -1;
	if (zmq_send(push, head, sizeof head, ZMQ_SNDMORE) < 0) {
		free(buf);
		return -1;
	}
	rc = zmq_send(push, buf, len, 0);
	free(buf);
	return rc < 0 ? -1 : 0;
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
	return push_env(call->push, HB_POOL_FWD, call, &e);
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
	if (push_env(call->push, HB_POOL_FWD, call, &e) < 0) {
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

void hb_pool_subcall_answer(struct hb_pool *pool, struct hb_call *call, uint64_t seq, int ok,
			    const char *text)
{
	pthread_mutex_lock(&pool->lock);
	if (call->sub_waiting && call->sub_seq == seq && !call->sub_answered) {
		call->sub_ok = ok;
		call->sub_text = strdup(text ? text : "");
		call->sub_answered = 1;
		pthread_cond_broadcast(&pool->sub);
	}
	pthread_mutex_unlock(&pool->lock);
}

void hb_pool_cancel(struct hb_pool *pool, struct hb_call *call)
{
	atomic_store(&call->cancelled, 1);
	pthread_mutex_lock(&pool->lock);
	pthread_cond_broadcast(&pool->sub);
	pthread_mutex_unlock(&pool->lock);
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

static void send_result(void *push, struct hb_call *call)
{
	struct hb_env e;

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "result");
	hb_env_set_str(&e, "key", call->ctx.key);
	hb_env_set_bool(&e, "ok", call->ok);
	hb_env_set_str(&e, "text", call->text ? call->text : "");
	if (push_env(push, HB_POOL_DONE, call, &e) < 0)
		log_error(call->ctx.key, "cannot hand the result to the loop thread: %s", zmq_strerror(errno));
}

static void *worker_main(void *arg)
{
	struct hb_pool *pool = arg;
	void *push = zmq_socket(pool->zctx, ZMQ_PUSH);
	int zero = 0;

	if (!push || zmq_setsockopt(push, ZMQ_LINGER, &zero, sizeof zero) < 0 ||
	    zmq_connect(push, HB_POOL_INBOX) < 0)
		hb_fatal("worker cannot reach the loop thread: %s", zmq_strerror(errno));
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

		call->push = push;
		run_call(call);
		send_result(push, call); /* the loop thread frees the call */
	}
	zmq_close(push);
	return NULL;
}

int hb_pool_start(struct hb_pool *pool, void *zctx, int nthreads)
{
	memset(pool, 0, sizeof *pool);
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->work, NULL);
	pthread_cond_init(&pool->sub, NULL);
	pool->zctx = zctx;
	pool->threads = calloc((size_t)nthreads, sizeof *pool->threads);
	if (!pool->threads)
		return -1;
	for (int i = 0; i < nthreads; i++) {
		if (pthread_create(&pool->threads[i], NULL, worker_main, pool) != 0)
			return -1;
		pool->nthreads++;
	}
	return 0;
}

void hb_pool_submit(struct hb_pool *pool, struct hb_call *call)
{
	call->pool = pool;
	call->next = NULL;
	pthread_mutex_lock(&pool->lock);
	if (pool->tail)
		pool->tail->next = call;
	else
		pool->head = call;
	pool->tail = call;
	pthread_cond_signal(&pool->work);
	pthread_mutex_unlock(&pool->lock);
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
	pthread_mutex_destroy(&pool->lock);
	pthread_cond_destroy(&pool->work);
	pthread_cond_destroy(&pool->sub);
}
