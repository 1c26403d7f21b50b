/*
 * cdp - the DevTools protocol over one WebSocket, for many calls at once.
 *
 * The WebSocket (ws/ws.h) is not thread-safe, so every use of it is
 * under the connection's lock: the reader thread polls without the lock
 * and takes it to read; a call takes it to send and then waits on the
 * condition variable, which the reader broadcasts after every batch of
 * messages.  Waiting is in short slices so that a cancel flag, which
 * nothing signals, is seen within one of them.
 *
 * An answer past CDP_MAX_ANSWER is dropped as it comes (ws/ws.h's
 * drop_oversized) and fails its own call: one page's huge tree must not
 * end the connection that every session's calls share.
 *
 * Events are kept in a ring of the last EVENTS_MAX, each with its number;
 * waiters look at the ones numbered from their mark on.  A busy page can
 * outrun the ring only by thousands of events during one wait, and then
 * the oldest are the ones lost; of the Network domain (on for
 * act_settle.c) only a request's start and end are kept, small.  The
 * console's messages are not kept there at all: every event goes to the
 * connection's pagelog too, which keeps each tab's console and requests
 * for as long as its page (pagelog.h says why apart).
 */
#include "cdp.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "netaddr.h"
#include "pagelog.h"
#include "ws.h"

#define EVENTS_MAX 2048
#define SLICE_MS 50
#define SESSION_MAX 64
#define METHOD_MAX 64

struct pending {
	long id;
	int done;
	size_t too_big;  /* the size of an answer dropped for it */
	json_t *result;
	char error[512];
	struct pending *next;
};

struct event {
	unsigned long num;
	char session[SESSION_MAX];
	char method[METHOD_MAX];
	json_t *params;
};

struct cdp {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	pthread_t reader;
	int reader_started;
	struct ws *ws;
	int wake[2];
	int stop, refs, closed;
	char closed_why[256];
	long next_id;
	struct pending *pending;
	struct event events[EVENTS_MAX];
	unsigned long next_event;
	struct pagelog *log;
};

static void wake_reader(struct cdp *c)
{
	char b = 1;

	if (write(c->wake[1], &b, 1) < 0 && errno != EAGAIN)
		log_debug(NULL, "cdp: waking the reader: %s", strerror(errno));
}

/* Under the lock: the connection is over; every waiting call fails. */
static void mark_closed(struct cdp *c, const char *why)
{
	if (c->closed)
		return;
	c->closed = 1;
	snprintf(c->closed_why, sizeof c->closed_why, "%s", why);
	pthread_cond_broadcast(&c->changed);
}

/* Of the Network domain only the starts and ends of requests are kept,
 * each with its request's id alone (what act_settle.c counts): a page's
 * hundreds of requests, each with several events and large params, must
 * not push the events a wait looks for out of the ring. */
static int kept_network_event(const char *method)
{
	return strcmp(method, "Network.requestWillBeSent") == 0 || strcmp(method, "Network.loadingFinished") == 0 ||
	       strcmp(method, "Network.loadingFailed") == 0;
}

static void keep_event(struct cdp *c, const char *session, const char *method, json_t *params)
{
	struct event *e = &c->events[c->next_event % EVENTS_MAX];
	json_t *kept;

	if (pagelog_only(method))
		return;
	if (strncmp(method, "Network.", 8) != 0)
		kept = json_incref(params);
	else if (kept_network_event(method))
		kept = json_pack("{s:O*}", "requestId", json_object_get(params, "requestId"));
	else
		return;
	json_decref(e->params);
	e->num = c->next_event++;
	snprintf(e->session, sizeof e->session, "%s", session);
	snprintf(e->method, sizeof e->method, "%s", method);
	e->params = kept;
}

/* Under the lock: a message past CDP_MAX_ANSWER, of which only the head
 * came.  An answer says its id first ({"id":N,...}, as Chrome writes
 * them): that call fails, and no other.  An event is only logged. */
static void dropped(struct cdp *c, const char *head, size_t whole)
{
	char *end;
	long id;

	if (strncmp(head, "{\"id\":", 6) == 0 && (id = strtol(head + 6, &end, 10)) > 0 && end != head + 6) {
		for (struct pending *p = c->pending; p; p = p->next)
			if (p->id == id) {
				p->too_big = whole;
				p->done = 1;
				log_warn(NULL, "cdp: the answer to command %ld was %zu bytes, past the limit: dropped", id,
					 whole);
				return;
			}
	}
	log_warn(NULL, "cdp: the browser sent %zu bytes in one message, past the limit: dropped (%.60s...)", whole,
		 head);
}

/* Under the lock: one message from the browser. */
static void dispatch(struct cdp *c, const char *text, size_t len)
{
	json_t *m = json_loadb(text, len, 0, NULL), *id;
	const char *method, *session;

	if (!json_is_object(m)) {
		log_warn(NULL, "cdp: the browser sent %zu bytes that are not a JSON object", len);
		json_decref(m);
		return;
	}
	id = json_object_get(m, "id");
	if (json_is_integer(id)) {
		for (struct pending *p = c->pending; p; p = p->next) {
			json_t *e;

			if (p->id != json_integer_value(id))
				continue;
			if ((e = json_object_get(m, "error")))
				snprintf(p->error, sizeof p->error, "%s",
					 json_string_value(json_object_get(e, "message"))
						 ? json_string_value(json_object_get(e, "message"))
						 : "an error without a message");
			else
				p->result = json_incref(json_object_get(m, "result"));
			p->done = 1;
			break;
		}
	} else if ((method = json_string_value(json_object_get(m, "method")))) {
		session = json_string_value(json_object_get(m, "sessionId"));
		pagelog_event(c->log, session ? session : "", method, json_object_get(m, "params"));
		keep_event(c, session ? session : "", method, json_object_get(m, "params"));
	}
	json_decref(m);
}

static void *reader_main(void *arg)
{
	struct cdp *c = arg;

	for (;;) {
		struct pollfd fds[2] = { { -1, POLLIN, 0 }, { c->wake[0], POLLIN, 0 } };
		enum ws_state st;
		char *msg, buf[64];
		size_t len, whole;

		pthread_mutex_lock(&c->lock);
		if (c->stop || c->closed) {
			pthread_mutex_unlock(&c->lock);
			break;
		}
		fds[0].fd = ws_fd(c->ws);
		if (ws_want_write(c->ws))
			fds[0].events |= POLLOUT;
		pthread_mutex_unlock(&c->lock);

		if (poll(fds, 2, -1) < 0 && errno != EINTR) {
			pthread_mutex_lock(&c->lock);
			mark_closed(c, "the connection's poll failed");
			pthread_mutex_unlock(&c->lock);
			break;
		}
		if (fds[1].revents)
			while (read(c->wake[0], buf, sizeof buf) > 0)
				;
		pthread_mutex_lock(&c->lock);
		st = ws_state(c->ws);
		if (fds[0].revents & (POLLIN | POLLHUP | POLLERR))
			st = ws_on_readable(c->ws);
		if ((fds[0].revents & POLLOUT) && (st == WS_OPEN || st == WS_CLOSING))
			st = ws_on_writable(c->ws);
		while ((msg = ws_next_message_whole(c->ws, &len, &whole))) {
			if (whole > len)
				dropped(c, msg, whole);
			else
				dispatch(c, msg, len);
			free(msg);
		}
		if (st == WS_CLOSED)
			mark_closed(c, "Chrome closed the connection");
		else if (st == WS_FAILED || fds[0].fd < 0)
			mark_closed(c, ws_error(c->ws)[0] ? ws_error(c->ws) : "the connection to Chrome broke");
		pthread_cond_broadcast(&c->changed);
		pthread_mutex_unlock(&c->lock);
	}
	return NULL;
}

static int peer_is_loopback(struct ws *ws)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;

	return getpeername(ws_fd(ws), (struct sockaddr *)&ss, &len) == 0 &&
	       hb_netaddr_classify((struct sockaddr *)&ss, len) == HB_NETADDR_LOOPBACK;
}

int cdp_open(const char *ws_url, int connect_ms, struct cdp **out, struct ws_connect_failure *why, char *err,
	     size_t errlen)
{
	/* an answer past the limit fails its call, not the connection every
	 * session's calls share */
	struct ws_opts opts = { .timeout_ms = connect_ms, .max_message = CDP_MAX_ANSWER, .drop_oversized = 1,
				.failure = why };
	struct cdp *c = calloc(1, sizeof *c);

	*out = NULL;
	*why = (struct ws_connect_failure){ WS_CONNECT_FAILED, 0 };
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c->wake[0] = c->wake[1] = -1;
	if (!(c->log = pagelog_new())) {
		free(c);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (ws_connect(ws_url, &opts, &c->ws, err, errlen) < 0) {
		pagelog_free(c->log);
		free(c);
		return -1;
	}
	if (ws_state(c->ws) != WS_OPEN || !peer_is_loopback(c->ws)) {
		snprintf(err, errlen, ws_state(c->ws) != WS_OPEN ? "Chrome ended the connection at once"
								  : "the browser's address is not on this machine");
		ws_free(c->ws);
		pagelog_free(c->log);
		free(c);
		return -1;
	}
	if (pipe(c->wake) < 0 || fcntl(c->wake[0], F_SETFL, O_NONBLOCK) < 0 ||
	    fcntl(c->wake[1], F_SETFL, O_NONBLOCK) < 0 || fcntl(c->wake[0], F_SETFD, FD_CLOEXEC) < 0 ||
	    fcntl(c->wake[1], F_SETFD, FD_CLOEXEC) < 0 || pthread_mutex_init(&c->lock, NULL) != 0) {
		snprintf(err, errlen, "cannot set up the connection: %s", strerror(errno));
		goto fail;
	}
	if (pthread_cond_init(&c->changed, NULL) != 0) {
		pthread_mutex_destroy(&c->lock);
		snprintf(err, errlen, "cannot set up the connection's condition");
		goto fail;
	}
	c->refs = 1;
	if (pthread_create(&c->reader, NULL, reader_main, c) != 0) {
		pthread_cond_destroy(&c->changed);
		pthread_mutex_destroy(&c->lock);
		snprintf(err, errlen, "cannot start the connection's reader");
		goto fail;
	}
	c->reader_started = 1;
	*out = c;
	return 0;
fail:
	if (c->wake[0] >= 0)
		close(c->wake[0]);
	if (c->wake[1] >= 0)
		close(c->wake[1]);
	ws_free(c->ws);
	pagelog_free(c->log);
	free(c);
	return -1;
}

struct cdp *cdp_ref(struct cdp *c)
{
	pthread_mutex_lock(&c->lock);
	c->refs++;
	pthread_mutex_unlock(&c->lock);
	return c;
}

void cdp_unref(struct cdp *c)
{
	int last;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	last = --c->refs == 0;
	if (last)
		c->stop = 1;
	pthread_mutex_unlock(&c->lock);
	if (!last)
		return;
	wake_reader(c);
	if (c->reader_started)
		pthread_join(c->reader, NULL);
	for (int i = 0; i < EVENTS_MAX; i++)
		json_decref(c->events[i].params);
	/* no call waits any more: each held a reference */
	ws_free(c->ws);
	close(c->wake[0]);
	close(c->wake[1]);
	pthread_cond_destroy(&c->changed);
	pthread_mutex_destroy(&c->lock);
	pagelog_free(c->log);
	free(c);
}

struct pagelog *cdp_pagelog(struct cdp *c)
{
	return c->log;
}

int cdp_alive(struct cdp *c)
{
	int alive;

	pthread_mutex_lock(&c->lock);
	alive = !c->closed;
	pthread_mutex_unlock(&c->lock);
	return alive;
}

/* Under the lock: wait one slice. */
static void wait_slice(struct cdp *c, long long deadline)
{
	long long left = deadline - hb_monotonic_ms();
	struct timespec ts;

	if (left > SLICE_MS)
		left = SLICE_MS;
	if (left < 1)
		left = 1;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += (long)(left % 1000) * 1000000L;
	ts.tv_sec += (time_t)(left / 1000) + ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	pthread_cond_timedwait(&c->changed, &c->lock, &ts);
}

/* Under the lock: the event numbered num, or NULL when the ring lost it. */
static const struct event *event_at(const struct cdp *c, unsigned long num)
{
	const struct event *e = &c->events[num % EVENTS_MAX];

	return e->num == num && e->params ? e : NULL;
}

static unsigned long first_kept(const struct cdp *c, unsigned long mark)
{
	unsigned long oldest = c->next_event > EVENTS_MAX ? c->next_event - EVENTS_MAX : 0;

	return mark < oldest ? oldest : mark;
}

/* Under the lock: an event since mark that ends every wait on session:
 * its kind with a sentence, or CDP_OK. */
static enum cdp_fail session_trouble(const struct cdp *c, const char *session, unsigned long mark, char *err,
				     size_t errlen)
{
	if (!session || !*session)
		return CDP_OK;
	for (unsigned long n = first_kept(c, mark); n < c->next_event; n++) {
		const struct event *e = event_at(c, n);
		const char *detached;

		if (!e)
			continue;
		if (strcmp(e->session, session) == 0 && strcmp(e->method, "Page.javascriptDialogOpening") == 0) {
			snprintf(err, errlen, "%s: \"%.300s\"", json_string_value(json_object_get(e->params, "type"))
								       ? json_string_value(json_object_get(e->params, "type"))
								       : "dialog",
				 json_string_value(json_object_get(e->params, "message"))
					 ? json_string_value(json_object_get(e->params, "message"))
					 : "");
			return CDP_DIALOG;
		}
		if (strcmp(e->session, session) == 0 && strcmp(e->method, "Inspector.targetCrashed") == 0) {
			snprintf(err, errlen, "the tab's page crashed");
			return CDP_CRASHED;
		}
		detached = json_string_value(json_object_get(e->params, "sessionId"));
		if ((strcmp(e->method, "Target.detachedFromTarget") == 0 && detached && strcmp(detached, session) == 0) ||
		    (strcmp(e->session, session) == 0 && strcmp(e->method, "Inspector.detached") == 0)) {
			snprintf(err, errlen, "the tab was closed");
			return CDP_GONE;
		}
	}
	return CDP_OK;
}

/* Under the lock: the common ends of a wait. */
static enum cdp_fail wait_over(const struct cdp *c, const char *session, unsigned long mark, long long deadline,
			       const atomic_int *cancel, char *err, size_t errlen)
{
	enum cdp_fail f;

	if (c->closed) {
		snprintf(err, errlen, "%s", c->closed_why);
		return CDP_CLOSED;
	}
	if ((f = session_trouble(c, session, mark, err, errlen)) != CDP_OK)
		return f;
	if (cancel && atomic_load(cancel)) {
		snprintf(err, errlen, "cancelled");
		return CDP_CANCELLED;
	}
	if (hb_monotonic_ms() >= deadline) {
		snprintf(err, errlen, "no answer in time");
		return CDP_TIMEOUT;
	}
	return CDP_OK;
}

enum cdp_fail cdp_call(struct cdp *c, const char *session, const char *method, json_t *params, int timeout_ms,
		       const atomic_int *cancel, json_t **result, char *err, size_t errlen)
{
	long long deadline = hb_monotonic_ms() + timeout_ms;
	struct pending p = { 0 }, **pp;
	enum cdp_fail f = CDP_OK;
	unsigned long mark;
	json_t *msg;
	char *text;

	*result = NULL;
	msg = json_pack("{s:s}", "method", method);
	if (msg && params)
		json_object_set(msg, "params", params);
	if (msg && session && *session)
		json_object_set_new(msg, "sessionId", json_string(session));
	json_decref(params);
	pthread_mutex_lock(&c->lock);
	if (c->closed) {
		snprintf(err, errlen, "%s", c->closed_why);
		pthread_mutex_unlock(&c->lock);
		json_decref(msg);
		return CDP_CLOSED;
	}
	p.id = ++c->next_id;
	mark = c->next_event;
	if (!msg || json_object_set_new(msg, "id", json_integer(p.id)) < 0 ||
	    !(text = json_dumps(msg, JSON_COMPACT))) {
		pthread_mutex_unlock(&c->lock);
		json_decref(msg);
		snprintf(err, errlen, "out of memory");
		return CDP_CLOSED;
	}
	json_decref(msg);
	p.next = c->pending;
	c->pending = &p;
	if (ws_send_text(c->ws, text, strlen(text)) < 0) {
		mark_closed(c, "the connection to Chrome is closing");
	} else {
		(void)ws_on_writable(c->ws);
		wake_reader(c);
	}
	free(text);
	while (!p.done && (f = wait_over(c, session, mark, deadline, cancel, err, errlen)) == CDP_OK)
		wait_slice(c, deadline);
	for (pp = &c->pending; *pp; pp = &(*pp)->next)
		if (*pp == &p) {
			*pp = p.next;
			break;
		}
	pthread_mutex_unlock(&c->lock);
	if (!p.done) {
		json_decref(p.result);
		return f;
	}
	if (p.too_big) {
		snprintf(err, errlen, "%zu", p.too_big);
		return CDP_TOO_BIG;
	}
	if (p.error[0]) {
		snprintf(err, errlen, "%s", p.error);
		json_decref(p.result);
		return CDP_PROTOCOL;
	}
	*result = p.result;
	return CDP_OK;
}

unsigned long cdp_event_mark(struct cdp *c)
{
	unsigned long n;

	pthread_mutex_lock(&c->lock);
	n = c->next_event;
	pthread_mutex_unlock(&c->lock);
	return n;
}

/* Under the lock: the first event since mark of method on session. */
static const struct event *find_locked(const struct cdp *c, const char *session, const char *method,
				       unsigned long mark)
{
	for (unsigned long n = first_kept(c, mark); n < c->next_event; n++) {
		const struct event *e = event_at(c, n);

		if (e && strcmp(e->method, method) == 0 && (!session || strcmp(e->session, session) == 0))
			return e;
	}
	return NULL;
}

int cdp_find_event(struct cdp *c, const char *session, const char *method, unsigned long mark, json_t **params,
		   unsigned long *next)
{
	const struct event *e;

	pthread_mutex_lock(&c->lock);
	if ((e = find_locked(c, session, method, mark))) {
		*params = json_incref(e->params);
		*next = e->num + 1;
	}
	pthread_mutex_unlock(&c->lock);
	return e != NULL;
}

enum cdp_fail cdp_wait_event(struct cdp *c, const char *session, const char *method, unsigned long mark,
			     int timeout_ms, const atomic_int *cancel, json_t **params, unsigned long *next, char *err,
			     size_t errlen)
{
	long long deadline = hb_monotonic_ms() + timeout_ms;
	enum cdp_fail f;
	const struct event *e;

	*params = NULL;
	pthread_mutex_lock(&c->lock);
	while (!(e = find_locked(c, session, method, mark)) &&
	       (f = wait_over(c, session, mark, deadline, cancel, err, errlen)) == CDP_OK)
		wait_slice(c, deadline);
	if (e) {
		*params = json_incref(e->params);
		*next = e->num + 1;
		f = CDP_OK;
	}
	pthread_mutex_unlock(&c->lock);
	return f;
}
