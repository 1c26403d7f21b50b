/*
 * deliveries - see deliveries.h.  The table of operation ids lives as
 * long as the bridge, which is as long as the agent it carries: a new
 * agent process means a new bridge, and then svc-messages' outbox (which
 * only forgets a message once its delivery is recorded) is the record.
 */
#include "deliveries.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "failpoint.h"
#include "log.h"
#include "session_message.h"
#include "sock.h"
#include "protocol.h"

void deliveries_init(struct deliveries *d, struct hb_client *broker, const char *session, const char *agent)
{
	memset(d, 0, sizeof *d);
	d->broker = broker;
	d->session = session;
	d->agent = agent;
	d->attach_every_ms = DELIVERY_ATTACH_EVERY_MS;
	hb_map_init(&d->by_op);
	d->queue_tail = &d->queue;
}

static void free_one(void *value, void *arg)
{
	struct delivery *x = value;

	(void)arg;
	free(x->text);
	free(x);
}

void deliveries_free(struct deliveries *d)
{
	hb_map_each(&d->by_op, free_one, NULL);
	hb_map_clear(&d->by_op);
}

/* Fire and forget: the broker's reply is read and dropped by the bridge. */
static void send_broker(struct deliveries *d, struct hb_env *e)
{
	char err[256];
	int64_t id;

	if (d->broker && hb_client_send(d->broker, e, &id, err, sizeof err) < 0)
		log_debug(NULL, "broker: %s", err);
}

void deliveries_drain(struct deliveries *d, void *sock, void (*deliver)(void *ctx, const struct hb_env *msg),
		      void (*answer)(void *ctx, int64_t id, const struct hb_env *reply), void *ctx)
{
	for (;;) {
		struct hb_env msg;
		char err[256];
		int64_t id = -1;

		if (hb_recv_env(sock, &msg, err, sizeof err) != 1)
			return;
		deliveries_note_reply(d, &msg);
		if (strcmp(hb_env_str_or(&msg, "op", ""), HB_OP_DELIVER) == 0) {
			deliver(ctx, &msg);
		} else {
			hb_env_int(&msg, "id", &id);
			answer(ctx, id, &msg);
		}
		hb_env_free(&msg);
	}
}

void deliveries_note_reply(struct deliveries *d, const struct hb_env *reply)
{
	int64_t every;

	if (hb_env_int(reply, "attachEveryMs", &every) == 0 && every >= 10 && every <= 3600000 &&
	    every != d->attach_every_ms) {
		/* Sooner than planned when the broker's expiry is shorter. */
		if (d->next_attach_ms > hb_monotonic_ms() + every)
			d->next_attach_ms = hb_monotonic_ms() + every;
		d->attach_every_ms = (int)every;
	}
}

long long deliveries_attach(struct deliveries *d)
{
	long long now = hb_monotonic_ms();
	struct hb_env e;

	if (!d->session || !*d->session || d->detached || d->closing)
		return -1;
	if (now >= d->next_attach_ms) {
		hb_env_init(&e);
		hb_env_set_str(&e, "op", HB_OP_SESSION_ATTACH);
		hb_env_set_str(&e, "session", d->session);
		hb_env_set_str(&e, "agent", d->agent);
		send_broker(d, &e);
		d->attached = 1;
		d->next_attach_ms = now + d->attach_every_ms;
	}
	return d->next_attach_ms - now;
}

void deliveries_closing(struct deliveries *d, int within_ms)
{
	struct hb_env e;

	if (!d->attached || d->detached)
		return;
	d->closing = 1;
	hb_env_init(&e);
	hb_env_set_str(&e, "op", HB_OP_SESSION_DETACH);
	hb_env_set_str(&e, "session", d->session);
	hb_env_set_int(&e, "outcomesWithinMs", within_ms > 0 ? within_ms : 1);
	send_broker(d, &e);
}

void deliveries_detach(struct deliveries *d, int wait)
{
	struct hb_env e, reply;
	char err[256];

	if (!d->attached || !d->broker || (d->detached && !wait))
		return;
	d->detached = 1;
	hb_env_init(&e);
	hb_env_set_str(&e, "op", HB_OP_SESSION_DETACH);
	hb_env_set_str(&e, "session", d->session);
	if (!wait) {
		send_broker(d, &e);
		return;
	}
	if (hb_client_request(d->broker, &e, &reply, err, sizeof err) < 0) {
		log_warn(NULL, "session.detach: %s", err);
		return;
	}
	hb_env_free(&reply);
}

/* status: NULL, or "unconfirmed" (not ok, and not to be tried again). */
static void report(struct deliveries *d, const char *op_id, int ok, const char *status, const char *turn,
		   const char *why)
{
	struct hb_env e;

	hb_env_init(&e);
	hb_env_set_str(&e, "op", HB_OP_DELIVER_DONE);
	hb_env_set_str(&e, "opId", op_id);
	hb_env_set_bool(&e, "ok", ok);
	if (status)
		hb_env_set_str(&e, "status", status);
	hb_env_set_str(&e, "turn", turn ? turn : "");
	if (why)
		hb_env_set_str(&e, "text", why);
	send_broker(d, &e);
}

struct delivery *deliveries_find(struct deliveries *d, const char *op_id)
{
	return hb_map_get(&d->by_op, op_id);
}

struct delivery *deliveries_take(struct deliveries *d, const struct hb_env *e)
{
	const char *op_id = hb_env_str_or(e, "opId", ""), *text = hb_env_str(e, "text");
	struct delivery *x;

	if (!hb_is_session_message_id(op_id) || strlen(op_id) >= sizeof x->op_id || !text ||
	    strcmp(hb_env_str_or(e, "session", ""), d->session ? d->session : "") != 0) {
		log_warn(NULL, "a delivery for another session or without an operation id ignored");
		return NULL;
	}
	if ((x = deliveries_find(d, op_id))) {
		if (x->state == DELIVERY_DONE)
			report(d, x->op_id, 1, NULL, x->turn, NULL);
		return NULL; /* done (answered again) or on its way */
	}
	if (!(x = calloc(1, sizeof *x)) || !(x->text = strdup(text))) {
		free(x);
		return NULL;
	}
	snprintf(x->op_id, sizeof x->op_id, "%s", op_id);
	snprintf(x->access, sizeof x->access, "%s", hb_env_str_or(e, "access", ""));
	snprintf(x->project, sizeof x->project, "%s", hb_env_str_or(e, "project", ""));
	x->check_history = hb_env_bool(e, "handed", 0);
	if (hb_map_put(&d->by_op, x->op_id, x) < 0) {
		free_one(x, NULL);
		return NULL;
	}
	*d->queue_tail = x;
	d->queue_tail = &x->next;
	return x;
}

struct delivery *deliveries_next(struct deliveries *d)
{
	struct delivery *x = d->queue;

	if (x) {
		d->queue = x->next;
		if (!d->queue)
			d->queue_tail = &d->queue;
		x->next = NULL;
	}
	return x;
}

void deliveries_requeue(struct deliveries *d, struct delivery *x)
{
	x->state = DELIVERY_WAITING;
	x->next = d->queue;
	d->queue = x;
	if (!x->next)
		d->queue_tail = &x->next;
}

void deliveries_finish(struct deliveries *d, struct delivery *x, int ok, const char *turn, const char *why)
{
	if (ok)
		hb_failpoint("bridge.before-report");
	report(d, x->op_id, ok, NULL, turn, why);
	if (ok) {
		x->state = DELIVERY_DONE;
		snprintf(x->turn, sizeof x->turn, "%s", turn ? turn : "");
		free(x->text);
		x->text = NULL;
		return;
	}
	log_warn(x->op_id, "not delivered: %s", why ? why : "the agent refused it");
	hb_map_del(&d->by_op, x->op_id);
	free_one(x, NULL);
}

int deliveries_reserved(const json_t *v)
{
	return json_is_string(v) && hb_is_session_message_id(json_string_value(v));
}

char *deliveries_refusal(const json_t *id, json_t *code)
{
	json_t *err = json_pack("{s:O, s:{s:o, s:s}}", "id", id ? (json_t *)id : json_null(), "error", "code", code,
				"message",
				"ids that start with " HB_SESSION_MESSAGE_PREFIX " belong to messages between HB Code "
				"sessions; a client cannot use them");
	char *text = err ? json_dumps(err, JSON_COMPACT) : NULL;

	json_decref(err);
	return text;
}

void deliveries_unconfirmed(struct deliveries *d, struct delivery *x, const char *why)
{
	hb_failpoint("bridge.before-report");
	report(d, x->op_id, 0, "unconfirmed", NULL, why);
	log_warn(x->op_id, "unconfirmed, left to the user: %s", why);
	/* Forgotten like a refused one, but svc-messages holds it: only the
	 * user's `hbctl messages send` asks again (and this bridge looks in
	 * the transcript first, as for any handed one). */
	hb_map_del(&d->by_op, x->op_id);
	free_one(x, NULL);
}
