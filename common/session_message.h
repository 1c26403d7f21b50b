/*
 * session_message - the rules of a message between two HB Code sessions
 * that more than one process applies: the two hold
 * rules (svc-messages when the call arrives, the broker just before
 * delivery), the envelope the recipient's agent reads, and the prefix of
 * a session message's operation id (the bridges refuse it from a client).
 */
#ifndef HB_SESSION_MESSAGE_H
#define HB_SESSION_MESSAGE_H

#include <stddef.h>

#define HB_SESSION_MESSAGE_PREFIX "session-message-"

/* The first line of the envelope, exactly as the page writes it. */
#define HB_SESSION_MESSAGE_FIRST_LINE                                                                  \
	"Message from another HB Code session. Answer this message in one of three ways: do it, ask one " \
	"question, or object with the reason."

/* The one rule Claude gets appended to its system prompt (page 000):
 * Claude's own messaging tools cannot reach HB Code sessions. */
#define HB_SESSION_MESSAGE_CLAUDE_RULE                                                                   \
	"To write to another HB Code session, use the hbcode tool send_session_message (find the "     \
	"session's id with maintain_sessions). Claude's own SendMessage and ListAgents cannot reach HB " \
	"Code sessions."

/* One end of a message, as the hold rules see it. */
struct hb_message_end {
	const char *title;
	const char *access;   /* the access level that counts now */
	const char *project;  /* canonical project directory */
};

/* 1 when the message must wait for the user (reason says why, in a
 * sentence naming the recipient), 0 when it may go out; an unknown
 * access level holds it too (never guess access upward). */
int hb_message_hold(const struct hb_message_end *sender, const struct hb_message_end *recipient,
		    char *reason, size_t reasonlen);

/* The envelope the recipient's agent gets as its user message (malloc'd,
 * NULL when out of memory).  Attribute values are escaped for XML. */
char *hb_message_envelope(const char *from_session, const char *from_title, const char *from_agent,
			  const char *message);

/* Nonzero when id is a session message's operation id. */
int hb_is_session_message_id(const char *id);

#endif
