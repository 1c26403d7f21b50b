/*
 * service_call - the hb_call_* API that tool handlers use: who is calling,
 * whether the call was cancelled, the answer, progress lines and subcalls.
 *
 * A handler runs on a worker thread; everything it sends goes out on that
 * worker's own socket (call->sock), which only that thread touches.
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
#include "fail_codes.h"
#include "log.h"
#include "service_task.h"
#include "sock.h"
#include "utf8.h"
#include "protocol.h"
void hb_call_free(struct hb_call *call)
{
	if (!call)
		return;
	free(call->text);
	free(call->images);
	free(call->sub_text);
	free(call->strings);
	free(call);
}

const struct hb_call_context *hb_call_context(const struct hb_call *call)
{
	return &call->ctx;
}

void hb_call_wake_task(struct hb_call *call)
{
	if (call->pool->task)
		hb_task_wake(call->pool->task);
}

void *hb_call_service_arg(const struct hb_call *call)
{
	return call->pool->service_arg;
}

int hb_call_publish(struct hb_call *call, const char *topic, const char *json)
{
	return hb_service_send_event(call->sock, topic, json);
}

int hb_call_cancelled(const struct hb_call *call)
{
	return atomic_load(&((struct hb_call *)call)->cancelled);
}

const atomic_int *hb_call_cancel_flag(const struct hb_call *call)
{
	return &call->cancelled;
}

/* text (owned) becomes the answer.  It goes to a model as a JSON string:
 * a byte that is not UTF-8 (a %.Ns that cut a character, a caller's
 * bytes quoted) becomes U+FFFD here, once for every handler. */
static int set_result(struct hb_call *call, int ok, char *text)
{
	if (text && !hb_utf8_valid(text, strlen(text))) {
		char *fixed = hb_utf8_repair(text);

		free(text);
		text = fixed;
	}
	free(call->text);
	free(call->images);
	call->images = NULL;
	call->text = text;
	call->ok = ok;
	call->code = NULL;
	call->answered = 1;
	return ok ? 0 : -1;
}

int hb_call_succeed(struct hb_call *call, const char *text)
{
	return set_result(call, 1, strdup(text));
}

int hb_call_succeed_with_images(struct hb_call *call, const char *text, const struct hb_image *images, size_t n)
{
	/* Measured before anything is encoded: megabytes too many are
	 * refused without copying them first. */
	size_t size = strlen(text) + hb_images_wire_size(images, n);
	char err[256], *wire;

	if (n == 0)
		return hb_call_succeed(call, text);
	if (size > HB_MAX_PAYLOAD)
		return hb_call_failf(call, "%s answered %zu bytes with its %zu image%s as base64, more than the %u "
				     "bytes an answer can carry", call->ctx.tool, size, n, n == 1 ? "" : "s",
				     HB_MAX_PAYLOAD);
	if (!(wire = hb_images_encode(images, n, err, sizeof err)))
		return hb_call_failf(call, "%s could not answer with its images: %s", call->ctx.tool, err);
	set_result(call, 1, strdup(text));
	call->images = wire;
	return 0;
}

int hb_call_fail(struct hb_call *call, const char *text)
{
	return set_result(call, 0, strdup(text));
}

int hb_call_fail_code(struct hb_call *call, const char *code, const char *text)
{
	int rc = set_result(call, 0, strdup(text));

	call->code = code;
	return rc;
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
	hb_env_set_str(&e, "op", HB_OP_PROGRESS);
	hb_env_set_str(&e, "key", call->ctx.key);
	hb_env_set_str(&e, "text", text);
	return send_env(call, &e);
}

int hb_call_renew(struct hb_call *call, const char *why, const char *text)
{
	struct hb_env e;
	int rc;

	/* on this worker's socket, so the broker has the new generation on
	 * its way before the answer that names it */
	hb_env_init(&e);
	hb_env_set_str(&e, "op", HB_OP_RENEW);
	hb_env_set_str(&e, "why", why);
	rc = send_env(call, &e);
	if (rc < 0)
		log_warn(call->ctx.key, "cannot ask the broker to start this service anew: %s", zmq_strerror(errno));
	return hb_call_fail_code(call, HB_FAIL_RENEW, text);
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
	hb_env_set_str(&e, "op", HB_OP_SUBCALL);
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

