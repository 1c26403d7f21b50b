/*
 * messages - see messages.h.  The broker only carries these: the queue is
 * svc-messages' (in appdata.db), and so are the rules of what may change.
 */
#include "messages.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "front.h"
#include "reply.h"
#include "protocol.h"
#include "opfields.h"

void messages_admin(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	static const struct {
		const char *op, *tool, *field;
	} ops[] = {
		{ HB_OP_MESSAGES_LIST, HB_TOOL_MESSAGES_LIST, "session" },
		{ HB_OP_MESSAGES_SEND, HB_TOOL_MESSAGES_SEND, "message" },
		{ HB_OP_MESSAGES_DISCARD, HB_TOOL_MESSAGES_DISCARD, "message" },
	};
	const char *op = hb_env_str_or(e, "op", ""), *v;
	struct reqid id;
	char *args = NULL;
	json_t *a;
	size_t i;

	reqid_from_env(&id, e);
	for (i = 0; i < sizeof ops / sizeof ops[0] && strcmp(ops[i].op, op) != 0; i++)
		;
	if (i == sizeof ops / sizeof ops[0] || b->stopping) {
		front_reply_err(b, peer, &id, "stopping", "hb-broker is shutting down");
		return;
	}
	/* messages.list's session may be absent (all of them); the message
	 * of send and discard is required by their rows. */
	v = strcmp(ops[i].field, "session") == 0 ? hb_env_str(e, "session") : hb_req_str(e, "message");
	if ((a = json_object()) && v)
		json_object_set_new(a, ops[i].field, json_string(v));
	args = a ? json_dumps(a, JSON_COMPACT) : NULL;
	json_decref(a);
	if (!args || front_relay_internal(b, peer, &id, ops[i].tool, args, "messages") < 0)
		front_reply_err(b, peer, &id, "unavailable",
				args ? "session messages are not available: svc-messages does not run in this HB Code"
				     : "hb-broker is out of memory");
	free(args);
}
