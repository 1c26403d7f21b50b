/*
 * outbox - the delivery loop: every due outbox entry goes to the broker
 * (`deliver`), which checks the hold rules again and hands it to the
 * recipient's bridge; the outcome comes back as `deliver.result`.
 *
 * Nothing here is remembered outside appdata.db, so a SIGKILL at any
 * point loses nothing: an entry stays in the outbox until its outcome is
 * written, and is asked for again (after NO_ANSWER_MS without an answer,
 * RECHECK_MS after the bridge took it) until then.  Asking twice is safe:
 * the bridge carries one operation id into its agent once and answers a
 * repeat with the first outcome.  An `unconfirmed` outcome (it went in,
 * but no read of the agent's transcript found it) is held for the user
 * and never asked for again without them.  A bridge that attaches (the broker's
 * session.attached, sent to this task) makes its session's entries due at once.
 *
 * The task is the service's idleTask: the broker stops svc-messages for
 * want of calls only when this task answers its idle.ask that the outbox
 * holds no entry still to go (one held for the user waits for a call,
 * hbctl messages send, which starts the service again).
 */
#include "outbox.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "appdata.h"
#include "failpoint.h"
#include "log.h"
#include "message_store.h"
#include "opfields.h"
#include "paths.h"
#include "session_message.h"
#include "sock.h"
#include "timeline.h"
#include "protocol.h"

#define NO_ANSWER_MS 2000       /* the broker did not answer: ask again */
#define RECHECK_MS 5000         /* the bridge has it: ask for the outcome again */
#define OFFLINE_MS 5000         /* no bridge: try again (an attach comes sooner) */
#define FAILED_MS 10000         /* the agent refused it: try again */
#define DUE_BATCH 32
/* With nothing due the task sleeps: a row this process writes wakes it
 * (send.c, admin.c) and so does an attach; it looks once a minute for a
 * row an older generation wrote while it drained (issue 38: no timer
 * without work). */
#define QUIET_LOOK_MS 60000

struct outbox {
	struct hb_task *task;
	void *sock;
	sqlite3 *db;
	int64_t next_id;
};

static void deliver_one(struct outbox *ob, const struct msg_due *d, long long now)
{
	char op_id[48], err[512];
	char *text = hb_message_envelope(d->from.id, d->from.title, d->from.agent, d->body);
	struct hb_env e;

	if (!text)
		return;
	store_op_id(d->id, op_id, sizeof op_id);
	hb_env_init(&e);
	hb_env_set_str(&e, "op", HB_OP_DELIVER);
	hb_env_set_int(&e, "id", ++ob->next_id);
	hb_env_set_str(&e, "opId", op_id);
	hb_env_set_str(&e, "session", d->to.id);
	hb_env_set_str(&e, "text", text);
	hb_env_set_str(&e, "senderAccess", d->sender_access);
	hb_env_set_str(&e, "senderProject", d->from.project);
	hb_env_set_str(&e, "recipientTitle", d->to.title);
	hb_env_set_str(&e, "recipientAccess", d->to.access);
	hb_env_set_str(&e, "recipientProject", d->to.project);
	/* What the broker needs to start the recipient's agent when no
	 * bridge carries it (its launcher). */
	hb_env_set_str(&e, "recipientAgent", d->to.agent);
	hb_env_set_str(&e, "recipientLink", d->to_link);
	if (*d->to_model)
		hb_env_set_str(&e, "recipientModel", d->to_model);
	if (*d->to_effort)
		hb_env_set_str(&e, "recipientEffort", d->to_effort);
	hb_env_set_bool(&e, "approved", d->approved || d->handed);
	/* The bridge of a new agent process may not know it carried this one
	 * in: it looks in the agent's history first. */
	hb_env_set_bool(&e, "handed", d->handed);
	if (hb_send_env(ob->sock, NULL, &e) < 0)
		log_warn(op_id, "cannot ask the broker to deliver: %s", zmq_strerror(errno));
	free(text);
	if (store_reschedule(ob->db, d->id, now + NO_ANSWER_MS, 0, NULL, err, sizeof err) < 0)
		log_warn(op_id, "%s", err);
}

static void deliver_due(struct outbox *ob)
{
	struct msg_due due[DUE_BATCH];
	long long now = appdata_now_ms();
	char err[512];
	int n = store_due(ob->db, now, due, DUE_BATCH, err, sizeof err);

	if (n < 0)
		log_warn(NULL, "reading the outbox: %s", err);
	for (int i = 0; i < n; i++) {
		deliver_one(ob, &due[i], now);
		free(due[i].body);
	}
}

static void publish(struct outbox *ob, const char *topic, char *json)
{
	if (json && hb_task_publish(ob->task, topic, json) < 0)
		log_debug(NULL, "%s not published", topic);
	free(json);
}

/* The sender's row (and, once delivered, the recipient's user row). */
static void publish_outcome(struct outbox *ob, long long id, const char *signal, const char *reason, int delivered)
{
	char err[512];
	json_t *m = store_get(ob->db, id, err, sizeof err);
	const char *from = json_string_value(json_object_get(m, "fromSessionId"));
	const char *call_id = json_string_value(json_object_get(m, "callId"));
	const char *op_id = json_string_value(json_object_get(m, "id"));
	const char *to = json_string_value(json_object_get(m, "toSessionId"));
	const char *to_title = json_string_value(json_object_get(m, "toTitle"));

	if (from && call_id && op_id && to && to_title) {
		struct timeline_message row = { from, call_id, op_id, to, to_title, signal, reason, delivered };
		if (delivered) {
			/* The user row first: the sender's link points at it. */
			char *text = hb_message_envelope(from, json_string_value(json_object_get(m, "fromTitle")),
							 json_string_value(json_object_get(m, "fromAgent")),
							 json_string_value(json_object_get(m, "message")));
			const char *turn = json_string_value(json_object_get(m, "turnId"));
			if (text)
				publish(ob, "timeline.user",
					timeline_user_row(to, op_id, text, turn ? turn : "", from, call_id));
			free(text);
		}
		publish(ob, "timeline.message", timeline_sender_row(&row));
	}
	json_decref(m);
}

static void on_result(struct outbox *ob, const struct hb_env *e)
{
	const char *op_id = hb_env_str(e, "opId"), *status = hb_env_str(e, "status");
	const char *reason = hb_env_str_or(e, "reason", hb_env_str_or(e, "text", ""));
	long long id = store_parse_op_id(op_id), now = appdata_now_ms();
	char err[512] = "";
	int changed = 0, rc = 0;

	if (!id)
		return;
	if (strcmp(status, "delivered") == 0) {
		hb_failpoint("messages.before-mark-sent");
		if ((rc = store_mark_sent(ob->db, id, hb_env_str_or(e, "turn", ""), &changed, err, sizeof err)) == 0 &&
		    changed) {
			log_info(op_id, "delivered (turn %s)", hb_env_str_or(e, "turn", "?"));
			publish_outcome(ob, id, TIMELINE_SENT, NULL, 1);
		}
	} else if (strcmp(status, "held") == 0) {
		if ((rc = store_mark_held(ob->db, id, reason, &changed, err, sizeof err)) == 0 && changed) {
			log_info(op_id, "held for the user: %s", reason);
			publish_outcome(ob, id, TIMELINE_NEEDS_APPROVAL, reason, 0);
		}
	} else if (strcmp(status, "unconfirmed") == 0) {
		/* Page 003: a message that no read finds is never sent again
		 * automatically; it waits for the user like a held one. */
		char why[1024];
		snprintf(why, sizeof why,
			 "sent into the Claude conversation, but no transcript read found it afterwards (%s); it may "
			 "not have reached Claude. Send it again with hbctl messages send %s, or discard it with "
			 "hbctl messages discard %s.", *reason ? reason : "no detail", op_id, op_id);
		if ((rc = store_mark_held(ob->db, id, why, &changed, err, sizeof err)) == 0 && changed) {
			log_warn(op_id, "unconfirmed, held for the user: %s", reason);
			publish_outcome(ob, id, TIMELINE_NEEDS_APPROVAL, why, 0);
		}
	} else if (strcmp(status, "accepted") == 0) {
		hb_failpoint("messages.after-accept");
		rc = store_mark_handed(ob->db, id, now + RECHECK_MS, err, sizeof err);
	} else if (strcmp(status, "offline") == 0) {
		rc = store_reschedule(ob->db, id, now + OFFLINE_MS, 0, reason, err, sizeof err);
	} else if (strcmp(status, "failed") == 0) {
		log_warn(op_id, "the recipient's agent did not take it: %s", reason);
		rc = store_reschedule(ob->db, id, now + FAILED_MS, 1, reason, err, sizeof err);
	}
	if (rc < 0)
		log_warn(op_id, "%s", err);
}

/* idle.ask, from the broker: the outbox as it is now, after every call
 * answered before the ask committed its rows. */
static void on_idle_ask(struct outbox *ob, const struct hb_env *e)
{
	long long next = 0;
	int pending = ob->db ? store_pending(ob->db, &next) : -1;
	/* it may hold some when it cannot read: it stays, and is asked again */
	const char *why = pending > 0 ? "its outbox holds messages still to go"
			  : pending < 0 ? "its outbox cannot be read just now" : "";

	if (hb_task_answer_idle(ob->task, e, pending != 0, why) < 0)
		log_warn(NULL, "cannot answer the broker's idle.ask: %s", zmq_strerror(errno));
}

/* session.attached, from the broker: that session's entries are due now. */
static void on_attached(struct outbox *ob, const struct hb_env *e)
{
	char err[256];

	if (store_session_reachable(ob->db, hb_env_str(e, "session"), appdata_now_ms(), err, sizeof err) < 0)
		log_warn(NULL, "%s", err);
}

static void on_broker(struct outbox *ob)
{
	for (;;) {
		struct hb_env e;
		char err[256];
		int rc = hb_recv_env(ob->sock, &e, err, sizeof err);

		if (rc < 0)
			return;
		if (rc == 1 && hb_broker_op_check(&e, err, sizeof err) < 0) {
			hb_env_free(&e);
			rc = 0;
		}
		if (rc == 1 && strcmp(hb_env_str(&e, "op"), HB_OP_DELIVER_RESULT) == 0)
			on_result(ob, &e);
		else if (rc == 1 && strcmp(hb_env_str(&e, "op"), HB_OP_SESSION_ATTACHED) == 0)
			on_attached(ob, &e);
		else if (rc == 1 && strcmp(hb_env_str(&e, "op"), HB_OP_IDLE_ASK) == 0)
			on_idle_ask(ob, &e);
		else if (rc == 0)
			log_warn(NULL, "bad frame from the broker: %s", err);
		if (rc == 1)
			hb_env_free(&e);
	}
}

static int open_all(struct outbox *ob, char *err, size_t errlen)
{
	char path[4096];

	if (appdata_default_path(path, sizeof path, err, errlen) < 0 || !(ob->db = appdata_open_rw(path, err, errlen)))
		return -1;
	return 0;
}

static void close_all(struct outbox *ob)
{
	appdata_close(ob->db);
	ob->db = NULL;
}

void outbox_run(struct hb_task *task, void *arg)
{
	struct outbox ob = { task, hb_task_socket(task), NULL, 0 };
	char err[512];

	(void)arg;
	while (!hb_task_stopping(task)) {
		zmq_pollitem_t items[2] = {
			{ ob.sock, 0, ZMQ_POLLIN, 0 },
			{ NULL, hb_task_wake_fd(task), ZMQ_POLLIN, 0 },
		};
		long long next, wait = QUIET_LOOK_MS;

		if (!ob.db && open_all(&ob, err, sizeof err) < 0) {
			/* e.g. the data directory is not writable yet: try again */
			zmq_pollitem_t wake = { NULL, hb_task_wake_fd(task), ZMQ_POLLIN, 0 };
			log_warn(NULL, "outbox: %s", err);
			close_all(&ob);
			if (zmq_poll(&wake, 1, 1000) > 0)
				hb_task_drain_wake(task);
			continue;
		}
		deliver_due(&ob);
		if ((next = store_next_due(ob.db)))
			wait = next - appdata_now_ms();
		wait = wait < 10 ? 10 : wait > QUIET_LOOK_MS ? QUIET_LOOK_MS : wait;
		if (zmq_poll(items, 2, wait) < 0 && errno != EINTR)
			break;
		if (items[1].revents & ZMQ_POLLIN)
			hb_task_drain_wake(task);
		if (items[0].revents & ZMQ_POLLIN)
			on_broker(&ob);
	}
	close_all(&ob);
}
