/*
 * timeline - the JSON of a message's two timeline rows (see timeline.h).
 * The rows are built in one place so the receipt, the delivery loop and
 * the user's send or discard all show the same row.
 */
#include "timeline.h"

#include <jansson.h>
#include <stdlib.h>

char *timeline_sender_row(const struct timeline_message *m)
{
	json_t *row = json_pack("{s:s, s:s, s:s, s:s+, s:s, s:{s:s, s:s}}", "session", m->sender, "row",
				m->call_id, "messageId", m->op_id, "title", "Message to ", m->to_title, "signal",
				m->signal, "recipient", "session", m->to_session, "title", m->to_title);
	char *text;

	if (row && m->reason)
		json_object_set_new(row, "reason", json_string(m->reason));
	if (row && m->delivered)
		json_object_set_new(row, "link", json_pack("{s:s, s:s}", "session", m->to_session, "row", m->op_id));
	text = row ? json_dumps(row, JSON_COMPACT) : NULL;
	json_decref(row);
	return text;
}

char *timeline_user_row(const char *recipient, const char *op_id, const char *text, const char *turn,
			const char *sender, const char *call_id)
{
	json_t *row = json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:s}}", "session", recipient, "row", op_id, "text",
				text, "turn", turn, "link", "session", sender, "row", call_id);
	char *out = row ? json_dumps(row, JSON_COMPACT) : NULL;

	json_decref(row);
	return out;
}
