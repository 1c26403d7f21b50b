/*
 * deliveries - what both bridges do for messages between sessions: say
 * to the broker which session's agent they carry (session.attach, every
 * second, and session.detach when they end), remember each operation id the broker handed them, so that a
 * message asked for again (svc-messages or the broker restarted) goes into
 * the agent once and the repeat gets the first outcome, and report the
 * outcome (deliver.done).  Also: a client's own request may not use a
 * session message's operation id.
 */
#ifndef HB_DELIVERIES_H
#define HB_DELIVERIES_H

#include <jansson.h>

#include "client.h"
#include "map.h"

/* session.attach this often until the broker's answer names its own
 * interval (a third of its expiry, HB_ATTACH_TTL_MS). */
#define DELIVERY_ATTACH_EVERY_MS 1000

enum delivery_state { DELIVERY_WAITING, DELIVERY_WORKING, DELIVERY_DONE };

struct delivery {
	char op_id[64];
	enum delivery_state state;
	char turn[200];                 /* DONE: the turn (Codex) or message uuid (Claude) */
	char *text;                     /* the envelope, until done */
	char access[16];
	char project[1024];
	int tried_steer;                /* Codex: a steer failed, start a turn */
	int check_history;              /* an earlier bridge may have carried it in */
	struct delivery *next;          /* the bridge's queue of waiting ones */
};

struct deliveries {
	struct hb_client *broker;
	const char *session, *agent;
	struct hb_map by_op;            /* op id -> struct delivery */
	struct delivery *queue, **queue_tail;
	long long next_attach_ms;
	int attach_every_ms;
	int attached;                   /* session.attach was sent */
	int closing;                    /* deliveries_closing: attach no more */
	int detached;                   /* session.detach was sent: attach no more */
};

void deliveries_init(struct deliveries *d, struct hb_client *broker, const char *session, const char *agent);
void deliveries_free(struct deliveries *d);

/* Take the attach interval from a broker answer that names one. */
void deliveries_note_reply(struct deliveries *d, const struct hb_env *reply);
/* Read every message waiting on the broker socket sock (the client's):
 * each one's attach interval noted, a delivery ("deliver") handed to
 * deliver, any other to answer with its request id (-1 when it names
 * none).  Each message is freed after its call. */
void deliveries_drain(struct deliveries *d, void *sock, void (*deliver)(void *ctx, const struct hb_env *msg),
		      void (*answer)(void *ctx, int64_t id, const struct hb_env *reply), void *ctx);
/* Repeat session.attach when it is due; returns ms until the next one
 * (-1 without a session, or once closing or detached). */
long long deliveries_attach(struct deliveries *d);
/* The bridge closes but still owes an outcome (a message waiting for its
 * last transcript read): session.detach with outcomesWithinMs, so the
 * broker hands it nothing new and starts no other bridge for the session,
 * yet takes its deliver.done for within_ms from now (said again to
 * extend it).  It attaches no more; deliveries_detach ends it. */
void deliveries_closing(struct deliveries *d, int within_ms);
/* The bridge ends: session.detach (when it ever attached), so the broker
 * hands the session's messages to nobody instead of to a bridge that is
 * gone until the attachment expires.  wait: until the broker answered
 * (at exit, where a message still queued on the socket would be lost);
 * otherwise sent on, and a later call with wait sends it again. */
void deliveries_detach(struct deliveries *d, int wait);

/* The broker's `deliver`: a new delivery (WAITING, appended to the queue)
 * or NULL when it is a repeat (answered here when it is done) or bad. */
struct delivery *deliveries_take(struct deliveries *d, const struct hb_env *e);
/* The first waiting delivery, taken off the queue; NULL when none. */
struct delivery *deliveries_next(struct deliveries *d);
/* Put x back at the head of the queue (the agent was busy). */
void deliveries_requeue(struct deliveries *d, struct delivery *x);
/* Find by op id. */
struct delivery *deliveries_find(struct deliveries *d, const char *op_id);
/* Report the outcome.  ok: x is DONE with turn (kept for repeats);
 * otherwise x is forgotten, so the next ask tries again. */
void deliveries_finish(struct deliveries *d, struct delivery *x, int ok, const char *turn, const char *why);
/* It went into the agent, but nothing showed afterwards that the agent
 * has it (Claude: no transcript read found it): deliver.done with status
 * "unconfirmed", which is never tried again automatically (svc-messages
 * holds it for the user); x is forgotten. */
void deliveries_unconfirmed(struct deliveries *d, struct delivery *x, const char *why);

/* Nonzero when v is a string id reserved for session messages. */
int deliveries_reserved(const json_t *v);
/* The error line for a client that used one (malloc'd); code (taken) is
 * the pipe's own kind of error code. */
char *deliveries_refusal(const json_t *id, json_t *code);

#endif
