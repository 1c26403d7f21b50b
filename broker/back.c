/*
 * back - dispatch of service messages.  The table below is the one list
 * of what a service may send on back.sock: each op, who may send it, its
 * handler and its fields (opfields.h).  A frame from an unknown identity,
 * with an unknown op, or with a field missing or of the wrong type is
 * logged and dropped: services are our children, so a wrong message is a
 * bug to see in the log, not a client to answer.
 */
#include "back.h"

#include <errno.h>
#include <string.h>

#include "approvals.h"
#include "deliver.h"
#include "held.h"
#include "log.h"
#include "opfields.h"
#include "report.h"
#include "route.h"
#include "supervise.h"
#include "protocol.h"

typedef void (*back_op_fn)(struct broker *b, struct instance *inst, const struct hb_peer *peer,
			   const struct hb_env *e);

/* Who may send an op. */
enum sender {
	ANYONE,  /* the handler itself tells our children from strangers */
	STARTED, /* a process the supervisor started, ready or not yet */
	READY,   /* a process the supervisor started that said ready */
};

struct back_op {
	const char *op;
	enum sender from;
	back_op_fn fn; /* NULL: nothing beyond the heartbeat every message is */
	struct hb_field_rule fields[HB_OP_MAX_FIELDS];
};

static void on_ready(struct broker *b, struct instance *inst, const struct hb_peer *peer, const struct hb_env *e)
{
	(void)inst;
	supervisor_on_ready(b, peer, e);
}

static void on_worker(struct broker *b, struct instance *inst, const struct hb_peer *peer, const struct hb_env *e)
{
	int64_t slots = 1;

	hb_env_int(e, "slots", &slots); /* optional: one slot when absent */
	route_worker(b, inst, peer, slots < 1 ? 1 : slots > 1024 ? 1024 : (int)slots);
}

static void on_heartbeat(struct broker *b, struct instance *inst, const struct hb_peer *peer,
			 const struct hb_env *e)
{
	(void)peer;
	supervisor_count_beat(inst);
	held_note(b, inst, e);
}

static void on_progress(struct broker *b, struct instance *inst, const struct hb_peer *peer, const struct hb_env *e)
{
	(void)peer;
	route_progress(b, inst, e);
}

static void on_subcall(struct broker *b, struct instance *inst, const struct hb_peer *peer, const struct hb_env *e)
{
	(void)peer;
	route_subcall(b, inst, e);
}

static void on_event(struct broker *b, struct instance *inst, const struct hb_peer *peer, const struct hb_env *e)
{
	(void)peer;
	deliver_event(b, inst, e);
}

static void on_report(struct broker *b, struct instance *inst, const struct hb_peer *peer, const struct hb_env *e)
{
	(void)peer;
	report_accept(b, inst, e);
}

static void on_renew(struct broker *b, struct instance *inst, const struct hb_peer *peer, const struct hb_env *e)
{
	(void)peer;
	supervisor_renew(b, inst, hb_env_str_or(e, "why", ""));
}

static const struct back_op back_ops[] = {
	/* The service's loop, once: what it is (service, pid and concurrency
	 * are for the log; the broker knows them from the peer), how many
	 * calls it may queue, and the routing id of its task that carries
	 * session messages, if it has one. */
	{ HB_OP_READY, ANYONE, on_ready,
	  { HB_OPT_STR("service"), HB_OPT_INT("pid"), HB_OPT_STR("version"), HB_OPT_STR("tools"),
	    HB_OPT_INT("concurrency"), HB_OPT_INT("overflow"), HB_OPT_STR("deliveryTask"),
	    HB_OPT_STR("approvalTask"), HB_OPT_STR("idleTask") } },
	/* Each worker thread's socket, which may come before the loop's ready. */
	{ HB_OP_WORKER, STARTED, on_worker, { HB_OPT_INT("slots") } },
	/* heldMs, heldKey: how long the call that has held a worker longest
	 * has run, and its key (absent: no call runs). */
	{ HB_OP_HEARTBEAT, READY, on_heartbeat, { HB_OPT_INT("inflight"), HB_OPT_INT("heldMs"), HB_OPT_STR("heldKey") } },
	/* code: a machine-readable reason beside the text of a failure;
	 * images: the answer's images beside its text (common/images.h). */
	{ HB_OP_RESULT, READY, route_result,
	  { HB_REQ_STR("key"), HB_REQ_BOOL("ok"), HB_REQ_STR("text"), HB_OPT_BOOL("queued"), HB_OPT_STR("code"),
	    HB_OPT_STR("images") } },
	{ HB_OP_PROGRESS, READY, on_progress, { HB_REQ_STR("key"), HB_REQ_STR("text") } },
	/* A call's own call to another tool: key is the calling call's, sub
	 * its number there; json (the arguments) is {} when absent. */
	{ HB_OP_SUBCALL, READY, on_subcall,
	  { HB_REQ_STR("key"), HB_REQ_STR("sub"), HB_REQ_STR("tool"), HB_OPT_STR("json") } },
	/* The declared deliveryTask: a session message to hand to the
	 * recipient's bridge; id comes back in the deliver.result.  With no
	 * bridge attached, recipientAgent (codex | claude) and recipientLink
	 * (its thread or conversation, or "") say which agent to start, and
	 * recipientModel and recipientEffort (absent: the agent's defaults)
	 * what it opens with. */
	{ HB_OP_DELIVER, READY, deliver_request,
	  { HB_REQ_STR("opId"), HB_REQ_STR("session"), HB_REQ_STR("text"), HB_OPT_INT("id"),
	    HB_OPT_STR("senderAccess"), HB_OPT_STR("senderProject"), HB_OPT_STR("recipientTitle"),
	    HB_OPT_STR("recipientAccess"), HB_OPT_STR("recipientProject"), HB_OPT_BOOL("approved"),
	    HB_OPT_BOOL("handed"), HB_REQ_STR("recipientAgent"), HB_REQ_STR("recipientLink"),
	    HB_OPT_STR("recipientModel"), HB_OPT_STR("recipientEffort") } },
	/* A timeline.* event for the broker to publish; json is its object. */
	{ HB_OP_EVENT, STARTED, on_event, { HB_REQ_STR("topic"), HB_REQ_STR("json") } },
	/* The service's own state for status and service.report; json is
	 * its object.  STARTED: a task runs before its loop says ready, and
	 * its first report (a link connecting) must not be lost to the race
	 * between the two sockets. */
	{ HB_OP_REPORT, STARTED, on_report, { HB_REQ_STR("json") } },
	/* The declared approvalTask's answer to an open card (a phone's,
	 * through the relay); relayId comes back in approval.answered. */
	{ HB_OP_RUN_CHAT_RESOLVE_APPROVAL, READY, approvals_task_answer,
	  { HB_REQ_STR("run"), HB_REQ_STR("requestId"), HB_REQ_STR("decision"), HB_REQ_STR("relayId"),
	    HB_OPT_STR("message") } },
	/* The approvalTask asks for every open card (its link is new: it may
	 * have missed some, or be a new incarnation): approval.cards. */
	{ HB_OP_APPROVAL_SYNC, READY, approvals_task_sync, HB_NO_FIELDS },
	/* Start me anew (supervisor_renew): what it must read came after its
	 * confinement was fixed (svc-browser: a new DevToolsActivePort). */
	{ HB_OP_RENEW, READY, on_renew, { HB_OPT_STR("why") } },
	/* The declared idleTask's answer to idle.ask (ask echoed): whether
	 * the service holds work no call would bring back, and why. */
	{ HB_OP_IDLE_ANSWER, READY, supervisor_on_idle_answer,
	  { HB_REQ_INT("ask"), HB_REQ_BOOL("holdsWork"), HB_OPT_STR("why") } },
};

static const struct back_op *find_op(const char *op)
{
	for (size_t i = 0; i < sizeof back_ops / sizeof back_ops[0]; i++)
		if (strcmp(back_ops[i].op, op) == 0)
			return &back_ops[i];
	return NULL;
}

/* Whether inst (the instance behind peer, or NULL) may send row's op; an
 * unknown op (row NULL) is judged as one a ready service sends. */
static int may_send(const struct back_op *row, const struct instance *inst, const struct hb_peer *peer)
{
	if (row && row->from == ANYONE)
		return 1;
	if (!inst || inst->pid != peer->pid)
		return 0;
	return (row && row->from == STARTED) || inst->ready;
}

static void dispatch(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *op = hb_env_str(e, "op");
	const struct back_op *row = find_op(op);
	struct instance *inst = supervisor_instance(b, peer);
	char name[128], err[320], shown[200];

	/* The sender and the op are named only for a log line: a frame that
	 * is served needs neither. */
	if (!may_send(row, inst, peer)) {
		incarnation_peer_name(inst, peer, name, sizeof name);
		hb_escape(op, strlen(op), 48, shown, sizeof shown); /* whatever the peer sent */
		log_warn(NULL, "back: %s from %s (pid %ld) dropped: not a ready service of this broker", shown, name,
			 (long)peer->pid);
		return;
	}
	if (!row) {
		hb_escape(op, strlen(op), 48, shown, sizeof shown);
		log_warn(inst->id, "back: unknown op \"%s\" dropped", shown);
		return;
	}
	if (hb_fields_check(e, row->op, row->fields, HB_OP_MAX_FIELDS, err, sizeof err) < 0) {
		incarnation_peer_name(inst, peer, name, sizeof name);
		log_warn(inst ? inst->id : NULL, "back: bad frame from %s: %s", name, err);
		return;
	}
	if (row->from == READY)
		supervisor_on_heartbeat(inst); /* any message shows it is alive */
	if (row->fn)
		row->fn(b, inst, peer, e);
}

int back_handle(struct broker *b)
{
	for (int n = 0; n < 256; n++) {
		struct hb_peer peer;
		struct hb_env e;
		char err[256], name[128];
		int rc = hb_recv_routed(b->back, &peer, &e, err, sizeof err);

		if (rc < 0)
			return errno != EAGAIN;
		if (rc == 0) {
			hb_peer_name(&peer, name, sizeof name);
			log_warn(NULL, "back: bad frame from %s: %s", name, err);
			continue;
		}
		dispatch(b, &peer, &e);
		hb_env_free(&e);
	}
	return 1;
}
