/*
 * send - see send.h.  Who sends, from which run and with which call id is
 * the broker's binding (hb_call_context), never the arguments: a message
 * may start work only with the access its sender had, so nothing the
 * model writes may choose the sender.
 */
#include "send.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appdata.h"
#include "failpoint.h"
#include "json.h"
#include "message_store.h"
#include "session_message.h"
#include "timeline.h"

#define NO_POLL                                                                                          \
	" Do not wait or poll for an answer: the other session's answer arrives later as a new message in " \
	"this session."

static int blank(const char *s)
{
	for (; *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			return 0;
	return 1;
}

int send_check_call(const struct hb_call_context *ctx, const json_t *args, const char **recipient,
		      const char **message, char *err, size_t errlen)
{
	static const char *const fields[] = { "recipientSessionId", "message", NULL };

	if (hb_json_only_fields(args, fields, err, errlen) < 0 ||
	    hb_json_req_string(args, "recipientSessionId", 127, recipient, err, errlen) < 0 ||
	    hb_json_opt_string(args, "message", MESSAGE_MAX_BYTES, 0, message, err, errlen) < 0)
		return -1;
	if (!*message || blank(*message)) {
		snprintf(err, errlen, "The message is empty. Write what the other session should read.");
		return -1;
	}
	if (!*ctx->session || !*ctx->run) {
		snprintf(err, errlen, "This session has no active run, so it cannot send a message to another "
				      "session. Nothing was sent.");
		return -1;
	}
	if (!*ctx->call_id) {
		snprintf(err, errlen, "This call carries no call id, so a repeated attempt could not be recognized. "
				      "Nothing was sent.");
		return -1;
	}
	if (strcmp(*recipient, ctx->session) == 0) {
		snprintf(err, errlen, "A session cannot send a message to itself. Find the other session's id with "
				      "maintain_sessions (action listSessions).");
		return -1;
	}
	return 0;
}

static void publish_row(struct hb_call *call, const char *op_id, const struct msg_session *to, int held,
			const char *reason)
{
	const struct hb_call_context *ctx = hb_call_context(call);
	struct timeline_message row = { ctx->session, ctx->call_id, op_id, to->id, to->title,
					held ? TIMELINE_NEEDS_APPROVAL : TIMELINE_SENT, held ? reason : NULL, 0 };
	char *json = timeline_sender_row(&row);

	if (json)
		hb_call_publish(call, "timeline.message", json);
	free(json);
}

static int receipt(struct hb_call *call, const char *op_id, const struct msg_session *to, int held,
		   const char *reason)
{
	if (held)
		return hb_call_succeedf(call,
					"waiting-for-approval: the message %s to \"%s\" (%s) waits in that session's "
					"queue for the user's approval, because %s. Tell the user that it waits there "
					"and that they can send it from that session." NO_POLL,
					op_id, to->title, to->id, reason);
	return hb_call_succeedf(call,
				"queued: the message %s is in the outbox of \"%s\" (%s) and goes out without you: "
				"that session gets it in its running turn after the current step, or starts a turn "
				"for it." NO_POLL,
				op_id, to->title, to->id);
}

static int already_sent(struct hb_call *call, const struct msg_existing *old, const char *recipient)
{
	char op_id[48];

	store_op_id(old->id, op_id, sizeof op_id);
	if (strcmp(old->recipient, recipient) != 0)
		return hb_call_failf(call,
				     "This tool call already sent its message (%s) to session %s; one call cannot name "
				     "a second recipient. Nothing more was sent.",
				     op_id, old->recipient);
	return hb_call_succeedf(call,
				"already-sent: an earlier attempt of this tool call stored the message %s (now %s); "
				"it is not sent twice." NO_POLL,
				op_id, strcmp(old->state, "held") == 0 ? "waiting-for-approval" : old->state);
}

int handle_send_session_message(struct hb_call *call, const json_t *args)
{
	const struct hb_call_context *ctx = hb_call_context(call);
	const char *recipient, *message;
	struct msg_session from, to;
	struct hb_message_end sender_end, recipient_end;
	struct msg_existing old;
	char err[1024], path[4096], reason[768] = "", op_id[48];
	sqlite3 *db;
	long long id = 0;
	int held, rc;

	if (send_check_call(ctx, args, &recipient, &message, err, sizeof err) < 0)
		return hb_call_fail(call, err);
	if (appdata_default_path(path, sizeof path, err, sizeof err) < 0 || !(db = appdata_open_rw(path, err, sizeof err)))
		return hb_call_fail(call, err);
	if ((rc = store_session(db, ctx->session, &from, err, sizeof err)) == 0)
		snprintf(err, sizeof err, "The calling session %s does not exist. Nothing was sent.", ctx->session);
	else if (rc > 0 && (rc = store_session(db, recipient, &to, err, sizeof err)) == 0)
		snprintf(err, sizeof err,
			 "There is no session \"%s\". Find the recipient's id with maintain_sessions (action "
			 "listSessions). Nothing was sent.",
			 recipient);
	if (rc <= 0) {
		appdata_close(db);
		return hb_call_fail(call, err);
	}
	/* The recipient's stored level here; the broker checks again with
	 * the access of its running turn just before delivery. */
	sender_end = (struct hb_message_end){ from.title, ctx->access, from.project };
	recipient_end = (struct hb_message_end){ to.title, to.access, to.project };
	held = hb_message_hold(&sender_end, &recipient_end, reason, sizeof reason);
	{
		struct msg_new m = { ctx->session, ctx->call_id, recipient, ctx->run, ctx->access, message, held, reason };
		rc = store_insert(db, &m, &id, &old, err, sizeof err);
	}
	appdata_close(db);
	if (rc < 0)
		return hb_call_failf(call, "The message could not be stored, so nothing was sent: %s", err);
	if (rc == 0)
		return already_sent(call, &old, recipient);
	hb_failpoint("messages.after-commit");
	store_op_id(id, op_id, sizeof op_id);
	/* The receipt's row before the outbox may deliver it: its own row
	 * (held at delivery, or sent with the link) goes out on another
	 * socket, and a desktop keeps the last row it gets. */
	publish_row(call, op_id, &to, held, reason);
	if (!held)
		hb_call_wake_task(call);
	hb_holdpoint("messages.before-receipt", NULL); /* the outbox runs meanwhile */
	return receipt(call, op_id, &to, held, reason);
}
