/*
 * deliver - see deliver.h.  Attachments are the only state here; a
 * bridge that ends drops its own with session.detach, and they expire
 * when a bridge stops repeating session.attach without one (killed: a
 * ROUTER gets no notice that a connection is gone), and a send that fails
 * drops one at once.
 */
#include "deliver.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "events.h"
#include "failpoint.h"
#include "launch.h"
#include "launch_argv.h"
#include "log.h"
#include "reply.h"
#include "runs.h"
#include "services.h"
#include "session_message.h"
#include "protocol.h"
#include "opfields.h"

struct attachment {
	char session[128];
	char agent[16];
	struct hb_peer peer;
	long long seen_ms;
	/* When it stopped attaching, 0 while it attaches: a lapsed bridge
	 * carries nothing new, but its outcomes still count (below). */
	long long lapsed_ms;
	/* A closing bridge (session.detach with outcomesWithinMs): until
	 * then its outcomes count, and its session gets no other bridge, 0
	 * for any other. */
	long long closing_until_ms;
	struct attachment *next;
};

/* How long the outcome of a bridge whose attach lapsed is still taken: a
 * live bridge on a busy machine can miss the expiry by a little, and its
 * deliver.done must not be refused for that. */
#define LAPSED_OUTCOMES_MS 60000
/* The most a closing bridge may ask for: its own limits (a transcript
 * read by the live host, the host's close, a read by a new host) are
 * tunables of at most an hour each. */
#define CLOSING_MAX_MS (3600LL * 1000)

static int same_peer(const struct hb_peer *a, const struct hb_peer *b)
{
	return a->len == b->len && memcmp(a->id, b->id, a->len) == 0;
}

/* The attachment of peer (for session, or any), lapsed ones only when
 * asked for. */
static struct attachment *find_peer(struct broker *b, const struct hb_peer *peer, const char *session, int lapsed)
{
	for (struct attachment *a = b->attachments; a; a = a->next)
		if (same_peer(&a->peer, peer) && (!session || strcmp(a->session, session) == 0) &&
		    (lapsed || !a->lapsed_ms))
			return a;
	return NULL;
}

/* The bridge that attached last for session, or NULL. */
static struct attachment *find_session(struct broker *b, const char *session)
{
	struct attachment *best = NULL;

	for (struct attachment *a = b->attachments; a; a = a->next)
		if (!a->lapsed_ms && strcmp(a->session, session) == 0 && (!best || a->seen_ms > best->seen_ms))
			best = a;
	return best;
}

static int send_to_messages_task(struct broker *b, const struct hb_env *m);

static void said_detached(struct broker *b, const struct attachment *gone, const char *why)
{
	log_info(NULL, "session %s: its bridge is detached (%s)", gone->session, why);
	events_publish(b, "session.detached", json_pack("{s:s, s:s}", "session", gone->session, "reason", why));
}

static void forget(struct broker *b, struct attachment *gone)
{
	for (struct attachment **pp = &b->attachments; *pp; pp = &(*pp)->next)
		if (*pp == gone) {
			*pp = gone->next;
			free(gone);
			return;
		}
}

static void drop(struct broker *b, struct attachment *gone, const char *why)
{
	if (!gone->lapsed_ms)
		said_detached(b, gone, why);
	forget(b, gone);
}

/* The answer to session.attach names how often to repeat it: three times
 * within the expiry, so one lost or late attach never drops a bridge. */
static void attach_ok(struct broker *b, const struct hb_peer *peer, const struct reqid *id)
{
	struct hb_env e;

	hb_env_init(&e);
	hb_env_set_str(&e, "op", HB_OP_REPLY);
	reqid_put(&e, id);
	hb_env_set_bool(&e, "ok", 1);
	hb_env_set_int(&e, "attachEveryMs", b->set.attach_ttl_ms / 3 > 10 ? b->set.attach_ttl_ms / 3 : 10);
	if (broker_send(b, b->front, peer, &e) < 0)
		log_debug(NULL, "attach answer dropped");
}

/* The session's outbox may go now.  Lost when svc-messages is down: its
 * outbox looks at every entry after a restart anyway. */
static void tell_messages_task(struct broker *b, const char *session, const char *agent)
{
	struct hb_env m;

	hb_env_init(&m);
	hb_env_set_str(&m, "op", HB_OP_SESSION_ATTACHED);
	hb_env_set_str(&m, "session", session);
	hb_env_set_str(&m, "agent", agent);
	if (send_to_messages_task(b, &m) < 0)
		log_debug(NULL, "session %s: the service that carries session messages is not there to hear of it",
			  session);
}

void deliver_attach(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *session = hb_req_str(e, "session"), *agent = hb_req_str(e, "agent");
	struct attachment *a;
	struct reqid id;

	reqid_from_env(&id, e);
	if (!*session || strlen(session) >= sizeof a->session ||
	    (strcmp(agent, "codex") != 0 && strcmp(agent, "claude") != 0)) {
		front_reply_err(b, peer, &id, "bad-request",
				"session.attach needs \"session\" (at most 127 bytes) and \"agent\" (codex or claude)");
		return;
	}
	runs_note_attach(b, peer, session, broker_now_ms());
	launch_attached(b, session, peer->pid);
	if ((a = find_peer(b, peer, session, 1)) && a->lapsed_ms) {
		forget(b, a); /* attached again: as new, so its outbox may go */
		a = NULL;
	}
	if (a) {
		a->seen_ms = broker_now_ms();
		attach_ok(b, peer, &id);
		return;
	}
	if (!(a = calloc(1, sizeof *a))) {
		front_reply_err(b, peer, &id, "internal", "hb-broker is out of memory");
		return;
	}
	snprintf(a->session, sizeof a->session, "%s", session);
	snprintf(a->agent, sizeof a->agent, "%s", agent);
	a->peer = *peer;
	a->seen_ms = broker_now_ms();
	a->next = b->attachments;
	b->attachments = a;
	log_info(NULL, "session %s: a %s bridge is attached", session, agent);
	events_publish(b, "session.attached", json_pack("{s:s, s:s}", "session", session, "agent", agent));
	tell_messages_task(b, session, agent);
	attach_ok(b, peer, &id);
}

/* A bridge that closes while it still owes an outcome (a Claude message
 * waiting for its final transcript read) carries nothing new, but its
 * report must still count, and its session must get no second bridge
 * meanwhile: one the broker started would carry the same message into the
 * same conversation while the first may still prove it went in. */
static void closing(struct broker *b, struct attachment *a, int64_t within_ms)
{
	long long now = broker_now_ms();

	if (!a->lapsed_ms) {
		said_detached(b, a, "the bridge is closing");
		a->lapsed_ms = now;
	}
	a->closing_until_ms = now + (within_ms < CLOSING_MAX_MS ? within_ms : CLOSING_MAX_MS);
	log_info(NULL, "session %s: its bridge is closing; its outcomes count for %lld ms more", a->session,
		 a->closing_until_ms - now);
}

void deliver_detach(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	struct attachment *a = find_peer(b, peer, hb_req_str(e, "session"), 1);
	struct reqid id;
	int64_t within = 0;

	reqid_from_env(&id, e);
	runs_note_attach(b, peer, hb_req_str(e, "session"), 0);
	if (hb_env_int(e, "outcomesWithinMs", &within) == 0 && within > 0) {
		if (a)
			closing(b, a, within);
	} else if (a) {
		drop(b, a, "the bridge said so");
	}
	front_reply_ok(b, peer, &id, NULL);
}

/* The closing bridge of session, or NULL. */
static const struct attachment *find_closing(const struct broker *b, const char *session)
{
	for (const struct attachment *a = b->attachments; a; a = a->next)
		if (a->closing_until_ms && strcmp(a->session, session) == 0)
			return a;
	return NULL;
}

const char *deliver_attached_session(struct broker *b, const struct hb_peer *peer, const char **agent)
{
	struct attachment *a = find_peer(b, peer, NULL, 0);

	if (!a)
		return NULL;
	*agent = a->agent;
	return a->session;
}

/* Outcomes go to the task the carrying service named in its ready. */
static int send_to_messages_task(struct broker *b, const struct hb_env *m)
{
	struct instance *inst = broker_delivery_instance(b);
	struct hb_peer to;

	if (!inst)
		return -1;
	to.len = (size_t)snprintf((char *)to.id, sizeof to.id, "%s", inst->delivery_task);
	to.pid = 0;
	return broker_send(b, b->back, &to, m);
}

void deliver_done(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *op_id = hb_req_str(e, "opId");
	struct hb_env m;
	struct reqid id;

	reqid_from_env(&id, e);
	if (!hb_is_session_message_id(op_id) || !find_peer(b, peer, NULL, 1)) {
		front_reply_err(b, peer, &id, "bad-request",
				"deliver.done needs the \"opId\" of a session message, from an attached bridge");
		return;
	}
	hb_env_init(&m);
	hb_env_set_str(&m, "op", HB_OP_DELIVER_RESULT);
	hb_env_set_str(&m, "opId", op_id);
	/* unconfirmed: it went in, but nothing showed the agent has it; it
	 * is the user's to send again, never tried again automatically. */
	hb_env_set_str(&m, "status", hb_req_bool(e, "ok") ? "delivered"
				     : strcmp(hb_env_str_or(e, "status", ""), "unconfirmed") == 0 ? "unconfirmed"
												     : "failed");
	hb_env_set_str(&m, "turn", hb_env_str_or(e, "turn", ""));
	hb_env_set_str(&m, "text", hb_env_str_or(e, "text", ""));
	/* Lost when svc-messages is down: it asks again after its restart. */
	if (send_to_messages_task(b, &m) < 0)
		log_warn(NULL, "%s: the outcome could not reach the service that carries session messages; it asks again", op_id);
	front_reply_ok(b, peer, &id, NULL);
}

static void answer_task(struct broker *b, const struct hb_peer *peer, const struct hb_env *e, const char *status,
			const char *reason)
{
	struct hb_env m;
	int64_t id = 0;

	hb_env_int(e, "id", &id);
	hb_env_init(&m);
	hb_env_set_str(&m, "op", HB_OP_DELIVER_RESULT);
	hb_env_set_int(&m, "id", id);
	hb_env_set_str(&m, "opId", hb_req_str(e, "opId"));
	hb_env_set_str(&m, "status", status);
	if (reason)
		hb_env_set_str(&m, "reason", reason);
	if (broker_send(b, b->back, peer, &m) < 0)
		log_warn(NULL, "deliver: cannot answer the carrying service: %s", zmq_strerror(errno));
}

void deliver_request(struct broker *b, struct instance *from, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *op_id = hb_req_str(e, "opId"), *session = hb_req_str(e, "session");
	struct attachment *a = find_session(b, session);
	const struct attachment *ending;
	struct run *live = runs_active(b, session);
	struct hb_message_end sender = { "", hb_env_str_or(e, "senderAccess", ""),
					  hb_env_str_or(e, "senderProject", "") };
	struct hb_message_end recipient = { hb_env_str_or(e, "recipientTitle", ""),
					     live ? live->access : hb_env_str_or(e, "recipientAccess", ""),
					     hb_env_str_or(e, "recipientProject", "") };
	char reason[768];
	struct hb_env m;

	/* Only the task that carries session messages may have them carried
	 * into an agent. */
	if (from != broker_delivery_instance(b) || peer->len != strlen(from->delivery_task) ||
	    memcmp(peer->id, from->delivery_task, peer->len) != 0 || !hb_is_session_message_id(op_id) || !*session) {
		log_warn(from->id, "deliver dropped: not from the task that carries session messages, or without a "
			 "message id or session");
		return;
	}
	/* Again just before delivery: the recipient's access may have changed,
	 * and only the broker knows the access of its running turn.  Before
	 * a start too: no agent is started for a message the user must see
	 * first. */
	if (!hb_env_bool(e, "approved", 0) && hb_message_hold(&sender, &recipient, reason, sizeof reason)) {
		answer_task(b, peer, e, "held", reason);
		return;
	}
	if (!a && (ending = find_closing(b, session))) {
		snprintf(reason, sizeof reason, "its %s bridge is closing; the message goes once it has ended",
			 hb_agent_display_name(ending->agent));
		answer_task(b, peer, e, "offline", reason);
		return;
	}
	if (!a) {
		/* Its agent runs at the level the rules just approved. */
		struct launch_request r = { session, hb_req_str(e, "recipientAgent"),
					    hb_req_str(e, "recipientLink"), recipient.access, recipient.project,
					    hb_env_str_or(e, "recipientModel", ""),
					    hb_env_str_or(e, "recipientEffort", "") };
		launch_for_delivery(b, &r, reason, sizeof reason);
		answer_task(b, peer, e, "offline", reason);
		return;
	}
	hb_failpoint("broker.before-forward");
	hb_env_init(&m);
	hb_env_set_str(&m, "op", HB_OP_DELIVER);
	hb_env_set_str(&m, "opId", op_id);
	hb_env_set_str(&m, "session", session);
	hb_env_set_str(&m, "text", hb_req_str(e, "text"));
	hb_env_set_str(&m, "access", recipient.access);
	hb_env_set_str(&m, "project", recipient.project);
	hb_env_set_bool(&m, "handed", hb_env_bool(e, "handed", 0));
	if (broker_send(b, b->front, &a->peer, &m) < 0) {
		drop(b, a, "a delivery could not reach it");
		answer_task(b, peer, e, "offline", "the session's bridge is gone");
		return;
	}
	hb_failpoint("broker.after-forward");
	/* For observers; the bridge got it addressed to it, which a PUB
	 * event (dropped for a slow or late subscriber) could not promise. */
	events_publish(b, "message.delivery", json_pack("{s:s, s:s, s:s}", "session", session, "opId", op_id,
							  "access", recipient.access));
	answer_task(b, peer, e, "accepted", NULL);
}

void deliver_event(struct broker *b, struct instance *from, const struct hb_env *e)
{
	const char *topic = hb_req_str(e, "topic");
	json_t *body = json_loads(hb_req_str(e, "json"), 0, NULL);

	/* Services publish timeline rows only; the kernel's own topics stay
	 * the kernel's. */
	if (strncmp(topic, "timeline.", 9) != 0 || !json_is_object(body)) {
		log_warn(from->id, "event \"%.48s\" dropped: services publish timeline.* objects only", topic);
		json_decref(body);
		return;
	}
	events_publish(b, topic, body);
}

void deliver_tick(struct broker *b, long long now)
{
	for (struct attachment *a = b->attachments, *next; a; a = next) {
		next = a->next;
		if (a->closing_until_ms ? now > a->closing_until_ms
					: a->lapsed_ms && now - a->lapsed_ms > LAPSED_OUTCOMES_MS) {
			forget(b, a);
		} else if (!a->lapsed_ms && now - a->seen_ms > b->set.attach_ttl_ms) {
			said_detached(b, a, "it stopped attaching");
			a->lapsed_ms = now;
		}
	}
}

long long deliver_next_deadline(const struct broker *b)
{
	long long d = 0;

	for (const struct attachment *a = b->attachments; a; a = a->next) {
		long long due = a->closing_until_ms ? a->closing_until_ms + 1
				: a->lapsed_ms     ? a->lapsed_ms + LAPSED_OUTCOMES_MS + 1
						   : a->seen_ms + b->set.attach_ttl_ms + 1;

		if (!d || due < d)
			d = due;
	}
	return d;
}

void deliver_free(struct broker *b)
{
	while (b->attachments) {
		struct attachment *a = b->attachments;
		b->attachments = a->next;
		free(a);
	}
}
