/*
 * broker_ops - the one list of what the broker sends, and the fields of
 * each: to a service on back.sock (broker_ops[]), and to a client on
 * front.sock and events.sock (client_ops[]).  The service's loop, its
 * workers and its task check a frame against the first before acting on
 * it, a client (common/client.c, hbctl watch) against the second
 * (opfields.h); what peers send the broker is in broker/front.c's and
 * broker/back.c's tables.
 */
#include "opfields.h"
#include "protocol.h"

#include <string.h>

struct op_row {
	const char *op;
	struct hb_field_rule fields[HB_OP_MAX_FIELDS];
};

static const struct op_row broker_ops[] = {
	/* A call for a worker (or the loop's overflow queue); the context is
	 * the broker's, and empty when the call has none. */
	{ HB_OP_CALL,
	  { HB_REQ_STR("key"), HB_REQ_STR("tool"), HB_REQ_STR("json"), HB_OPT_STR("session"), HB_OPT_STR("run"),
	    HB_OPT_STR("project"), HB_OPT_STR("agent"), HB_OPT_STR("access"), HB_OPT_STR("call_id"),
	    HB_OPT_STR("model") } },
	{ HB_OP_CANCEL, { HB_REQ_STR("key") } },
	/* The answer to a subcall: key is the calling call's, sub its number. */
	{ HB_OP_SUBCALL_RESULT, { HB_REQ_STR("key"), HB_REQ_STR("sub"), HB_REQ_BOOL("ok"), HB_REQ_STR("text") } },
	/* To a service's task: what became of a delivery (id echoes the
	 * request's; turn and text come from the bridge's deliver.done). */
	{ HB_OP_DELIVER_RESULT,
	  { HB_REQ_STR("opId"), HB_REQ_STR("status"), HB_OPT_INT("id"), HB_OPT_STR("reason"), HB_OPT_STR("turn"),
	    HB_OPT_STR("text") } },
	/* To the task that carries session messages: a bridge attached for
	 * session, whose outbox may go now.  It comes on the task's own
	 * socket, not as an event: a service reaches no socket but its own
	 * to the broker (confine.h). */
	{ HB_OP_SESSION_ATTACHED, { HB_REQ_STR("session"), HB_OPT_STR("agent") } },
	/* To the approvalTask: a card opened (event "approval.requested";
	 * json: the card as approval.list shows it) or settled
	 * ("approval.resolved", "approval.cancelled"). */
	{ HB_OP_APPROVAL_CARD, { HB_REQ_STR("event"), HB_REQ_STR("json") } },
	/* To the approvalTask, the answer to its approval.sync: json is every
	 * open card, as approval.list shows them. */
	{ HB_OP_APPROVAL_CARDS, { HB_REQ_STR("json") } },
	/* To the approvalTask: the outcome of its run.chatResolveApproval,
	 * relayId echoed; text: the refusal's sentence when not ok. */
	{ HB_OP_APPROVAL_ANSWERED, { HB_REQ_STR("relayId"), HB_REQ_BOOL("ok"), HB_OPT_STR("text") } },
	/* To the idleTask, before an idle stop: does the service hold work
	 * no call will bring back?  ask comes back in its idle.answer. */
	{ HB_OP_IDLE_ASK, { HB_REQ_INT("ask") } },
};

/* To a client (the broker's own builders: broker/reply.c, call.c,
 * deliver.c; common/sock.c's hb_publish). */
static const struct op_row client_ops[] = {
	/* The answer to a request: id echoes the request's (none for a frame
	 * the broker could not read); ok:false with err {code, msg}.  key:
	 * the call's; text: a tool's answer; json: an op's answer, or the
	 * agent's own for the agents' ops; images: a plain call's answer's
	 * images (images.h); attachEveryMs: session.attach's, how often to
	 * repeat it. */
	{ HB_OP_REPLY,
	  { { "id", HB_FT_STR | HB_FT_INT, HB_OPTIONAL }, HB_REQ_BOOL("ok"), HB_OPT_MAP("err"), HB_OPT_STR("key"),
	    HB_OPT_STR("text"), HB_OPT_STR("json"), HB_OPT_STR("images"), HB_OPT_INT("attachEveryMs") } },
	/* Unasked, to the bridge attached for session: a session message to
	 * hand to its agent, at the access the hold rules approved; handed:
	 * an agent process the broker started carried it in. */
	{ HB_OP_DELIVER,
	  { HB_REQ_STR("opId"), HB_REQ_STR("session"), HB_REQ_STR("text"), HB_REQ_STR("access"),
	    HB_REQ_STR("project"), HB_REQ_BOOL("handed") } },
	/* On events.sock, after its topic frame: json is the event's object. */
	{ HB_OP_EVENT, { HB_REQ_STR("topic"), HB_REQ_STR("json") } },
};

static int check_in(const struct op_row *rows, size_t n, const struct hb_env *e, char *err, size_t errlen)
{
	const char *op = hb_env_str(e, "op");

	for (size_t i = 0; op && i < n; i++)
		if (strcmp(rows[i].op, op) == 0)
			return hb_fields_check(e, rows[i].op, rows[i].fields, HB_OP_MAX_FIELDS, err, errlen);
	return 0;
}

int hb_broker_op_check(const struct hb_env *e, char *err, size_t errlen)
{
	return check_in(broker_ops, sizeof broker_ops / sizeof broker_ops[0], e, err, errlen);
}

int hb_client_op_check(const struct hb_env *e, char *err, size_t errlen)
{
	return check_in(client_ops, sizeof client_ops / sizeof client_ops[0], e, err, errlen);
}
