/*
 * broker_ops - the one list of what the broker sends a service on
 * back.sock, and the fields of each.  The service's loop, its workers and
 * its task each check a frame here before acting on it (opfields.h); the
 * broker's side of the same socket is broker/back.c's table.
 */
#include "opfields.h"
#include "protocol.h"

#include <string.h>

static const struct {
	const char *op;
	struct hb_field_rule fields[HB_OP_MAX_FIELDS];
} broker_ops[] = {
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
};

int hb_broker_op_check(const struct hb_env *e, char *err, size_t errlen)
{
	const char *op = hb_env_str(e, "op");

	for (size_t i = 0; op && i < sizeof broker_ops / sizeof broker_ops[0]; i++)
		if (strcmp(broker_ops[i].op, op) == 0)
			return hb_fields_check(e, broker_ops[i].op, broker_ops[i].fields, HB_OP_MAX_FIELDS, err,
					       errlen);
	return 0;
}
