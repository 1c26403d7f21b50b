/*
 * admin - see admin.h.  Sending a held message is the user's approval:
 * the delivery loop then skips the hold rules for it.  Discarding is only
 * for held messages (a queued one may already be in the other agent).
 */
#include "admin.h"

#include <stdlib.h>
#include <string.h>

#include "appdata.h"
#include "failpoint.h"
#include "json.h"
#include "message_store.h"
#include "timeline.h"

static sqlite3 *open_db(char *err, size_t errlen)
{
	char path[4096];

	if (appdata_default_path(path, sizeof path, err, errlen) < 0)
		return NULL;
	return appdata_open_rw(path, err, errlen);
}

static int answer_json(struct hb_call *call, json_t *v, const char *err)
{
	char *text = v ? json_dumps(v, JSON_COMPACT) : NULL;
	int rc = text ? hb_call_succeed(call, text) : hb_call_fail(call, err);

	free(text);
	json_decref(v);
	return rc;
}

int handle_messages_list(struct hb_call *call, const json_t *args)
{
	static const char *const fields[] = { "session", NULL };
	const char *session = NULL;
	char err[512] = "out of memory";
	sqlite3 *db;
	json_t *list;

	if (hb_json_only_fields(args, fields, err, sizeof err) < 0 ||
	    hb_json_opt_string(args, "session", 127, 0, &session, err, sizeof err) < 0 ||
	    !(db = open_db(err, sizeof err)))
		return hb_call_fail(call, err);
	list = store_list(db, session, err, sizeof err);
	appdata_close(db);
	return answer_json(call, list, err);
}

/* The sender's row after the user's answer. */
static void publish_answer(struct hb_call *call, const json_t *msg, const char *signal)
{
	struct timeline_message row = {
		json_string_value(json_object_get(msg, "fromSessionId")), json_string_value(json_object_get(msg, "callId")),
		json_string_value(json_object_get(msg, "id")), json_string_value(json_object_get(msg, "toSessionId")),
		json_string_value(json_object_get(msg, "toTitle")), signal, NULL, 0,
	};
	char *json;

	if (!row.sender || !row.call_id || !row.op_id || !row.to_session || !row.to_title)
		return;
	if ((json = timeline_sender_row(&row)))
		hb_call_publish(call, "timeline.message", json);
	free(json);
}

static int answer_held(struct hb_call *call, const json_t *args, int send)
{
	static const char *const fields[] = { "message", NULL };
	const char *which;
	char err[512] = "out of memory";
	long long id;
	sqlite3 *db;
	json_t *msg = NULL;
	int rc;

	if (hb_json_only_fields(args, fields, err, sizeof err) < 0 ||
	    hb_json_req_string(args, "message", 64, &which, err, sizeof err) < 0)
		return hb_call_fail(call, err);
	if (!(id = store_parse_op_id(which)))
		return hb_call_failf(call, "\"%s\" is not a session message id (session-message-N)", which);
	if (!(db = open_db(err, sizeof err)))
		return hb_call_fail(call, err);
	rc = send ? store_approve(db, id, err, sizeof err) : store_discard(db, id, err, sizeof err);
	if (rc == 0)
		msg = store_get(db, id, err, sizeof err);
	appdata_close(db);
	if (rc < 0)
		return hb_call_fail(call, err);
	/* The row first: once delivered, the outbox publishes it again with
	 * the link to the user row, on another socket (see send.c). */
	if (msg)
		publish_answer(call, msg, send ? TIMELINE_SENT : TIMELINE_NOT_SENT);
	if (send)
		hb_call_wake_task(call);
	hb_holdpoint("messages.before-send-answer", NULL); /* the outbox runs meanwhile */
	return answer_json(call, msg, err);
}

int handle_messages_send(struct hb_call *call, const json_t *args)
{
	return answer_held(call, args, 1);
}

int handle_messages_discard(struct hb_call *call, const json_t *args)
{
	return answer_held(call, args, 0);
}
