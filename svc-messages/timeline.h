/*
 * timeline - the two rows a session message shows (page: "Message rows
 * and their links"), as the JSON of the broker's timeline events:
 *
 * timeline.message, in the sender's session, the row of the tool call:
 *   {"session","row":callId,"messageId","title":"Message to <title>",
 *    "signal":"Sent"|"Needs approval"|"Not sent","reason"?,
 *    "recipient":{"session","title"},"link"?:{"session","row"}}
 *   The link (to the recipient's user row) is there while the delivery
 *   is Sent and the user row exists.
 * timeline.user, in the recipient's session, the message's user row:
 *   {"session","row":messageId,"text":<the envelope>,"turn",
 *    "link":{"session":<sender>,"row":<callId>}}
 */
#ifndef MESSAGES_TIMELINE_H
#define MESSAGES_TIMELINE_H

struct timeline_message {
	const char *sender, *call_id, *op_id;
	const char *to_session, *to_title;
	const char *signal;             /* Sent | Needs approval | Not sent */
	const char *reason;             /* or NULL */
	int delivered;                  /* the user row exists: link to it */
};

#define TIMELINE_SENT "Sent"
#define TIMELINE_NEEDS_APPROVAL "Needs approval"
#define TIMELINE_NOT_SENT "Not sent"

/* JSON text (malloc'd) or NULL when out of memory. */
char *timeline_sender_row(const struct timeline_message *m);
char *timeline_user_row(const char *recipient, const char *op_id, const char *text, const char *turn,
			const char *sender, const char *call_id);

#endif
