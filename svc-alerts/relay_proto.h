/*
 * relay_proto - the messages of the device link between the desktop and
 * the regional relay (docs/relay-protocol.md): JSON text messages over a
 * WebSocket, built and read here and nowhere else, so that when the real
 * relay's format is known only this file (and its test) changes.
 *
 * The device sends hello (with the device credential) and
 * agent-notification-requested events; the relay answers ready or error,
 * acknowledges each event by id, and may report a silent drop.  The
 * device also shows the phone each open approval card
 * (approval-requested); the phone's answer comes back as
 * approval-resolve, and the device says what became of it
 * (approval-result).  Reading
 * is strict about what it uses (types, lengths, the id's alphabet, the
 * limits in characters) and refuses an unknown type or a message of the
 * other side with a sentence; fields it does not know are ignored, so a
 * relay may add some.
 */
#ifndef HB_RELAY_PROTO_H
#define HB_RELAY_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define HB_RELAY_PROTOCOL 1             /* the version hello names */
#define HB_RELAY_ID_MAX 64              /* bytes of [A-Za-z0-9._:-] */
#define HB_RELAY_REF_MAX 128            /* sessionId, runId: bytes */
#define HB_RELAY_SESSION_TITLE_MAX 200  /* characters */
#define HB_RELAY_TITLE_MAX 60           /* characters, as the page says */
#define HB_RELAY_BODY_MAX 180           /* characters, as the page says */
#define HB_RELAY_CODE_MAX 32            /* error codes, [a-z-] */
#define HB_RELAY_TEXT_MAX 200           /* an error's message, a drop's reason: characters */
#define HB_RELAY_CREDENTIAL_MAX 4096    /* bytes, as settings.h keeps it */
#define HB_RELAY_ASK_MAX 500            /* an approval's text (command line, path, input): characters */
#define HB_RELAY_KIND_MAX 16            /* an approval's kind: command, file or tool */

enum hb_relay_type {
	HB_RELAY_HELLO,         /* device → relay, first message */
	HB_RELAY_READY,         /* relay → device: the link is ready */
	HB_RELAY_ERROR,         /* relay → device, then the relay closes */
	HB_RELAY_EVENT,         /* device → relay: agent-notification-requested */
	HB_RELAY_ACK,           /* relay → device: the event with this id is received */
	HB_RELAY_DROPPED,       /* relay → device: the event went nowhere (a log line) */
	HB_RELAY_APPROVAL,      /* device → relay: approval-requested, an open card */
	HB_RELAY_RESOLVE,       /* relay → device: approval-resolve, the phone's answer */
	HB_RELAY_RESULT,        /* device → relay: approval-result, what became of it */
};

enum hb_relay_side { HB_RELAY_FROM_DEVICE, HB_RELAY_FROM_RELAY };

/* An alert as it travels; every string is UTF-8, NUL-terminated. */
struct hb_relay_event {
	char id[HB_RELAY_ID_MAX + 1];
	char session_id[HB_RELAY_REF_MAX + 1];
	char run_id[HB_RELAY_REF_MAX + 1];
	char session_title[HB_RELAY_SESSION_TITLE_MAX * 4 + 1];
	char title[HB_RELAY_TITLE_MAX * 4 + 1];
	char body[HB_RELAY_BODY_MAX * 4 + 1];
	int64_t created_at_ms;  /* Unix time in milliseconds, UTC */
};

/* An open approval card as the phone sees it. */
struct hb_relay_approval {
	char approval_id[HB_RELAY_ID_MAX + 1];                 /* the broker's card id */
	char session_id[HB_RELAY_REF_MAX + 1];
	char run_id[HB_RELAY_REF_MAX + 1];
	char kind[HB_RELAY_KIND_MAX + 1];                      /* command | file | tool */
	char tool[HB_RELAY_REF_MAX + 1];
	char text[HB_RELAY_ASK_MAX * 4 + 1];                   /* the command line, the path, the input */
	char cwd[HB_RELAY_ASK_MAX * 4 + 1];                    /* a command's folder, or "" */
	char subagent[HB_RELAY_SESSION_TITLE_MAX * 4 + 1];     /* the subagent that asks, or "" */
	char reason[HB_RELAY_TEXT_MAX * 4 + 1];                /* the agent's reason, or "" */
};

/* One message read.  Only the fields of its type are filled.  It may hold
 * the credential (a hello): hb_relay_msg_wipe when done. */
struct hb_relay_msg {
	enum hb_relay_type type;
	int protocol;                                   /* hello, ready */
	char credential[HB_RELAY_CREDENTIAL_MAX + 1];   /* hello */
	char id[HB_RELAY_ID_MAX + 1];                   /* ack, dropped */
	char code[HB_RELAY_CODE_MAX + 1];               /* error */
	char text[HB_RELAY_TEXT_MAX * 4 + 1];           /* error's message, dropped's reason */
	struct hb_relay_event event;                    /* agent-notification-requested */
	struct hb_relay_approval approval;              /* approval-requested; approval-resolve's
							   approval_id and run_id */
	int allow;                                      /* approval-resolve's decision */
	int ok;                                         /* approval-result; its id and text (the
							   refusal, or "") above */
};

/* The message's name on the wire ("hello", "agent-notification-requested"). */
const char *hb_relay_type_name(enum hb_relay_type type);

/* Building: a malloc'd JSON text (the caller frees it; a hello's text holds
 * the credential: wipe it before free), or NULL with a sentence in err when
 * a field breaks the rules above (the sentence never holds the credential). */
char *hb_relay_hello(const char *credential, char *err, size_t errlen);
char *hb_relay_ready(char *err, size_t errlen);
char *hb_relay_error(const char *code, const char *message, char *err, size_t errlen);
char *hb_relay_event(const struct hb_relay_event *ev, char *err, size_t errlen);
char *hb_relay_ack(const char *id, char *err, size_t errlen);
char *hb_relay_dropped(const char *id, const char *reason, char *err, size_t errlen);

/* The approval messages: a card (approval-requested), the phone's answer
 * to approval_id of run_id (approval-resolve, id its own), and what came
 * of answer id (approval-result: ok, or refused with text). */
char *hb_relay_approval(const struct hb_relay_approval *a, char *err, size_t errlen);
char *hb_relay_resolve(const char *id, const char *approval_id, const char *run_id, int allow, char *err,
		       size_t errlen);
char *hb_relay_result(const char *id, int ok, const char *text, char *err, size_t errlen);

/* Checks an event before it is spooled or sent: 0, or -1 with err. */
int hb_relay_check_event(const struct hb_relay_event *ev, char *err, size_t errlen);

/* Reads one text message of len bytes sent by from (a device reads what
 * the relay sends, the fake relay the other way).  0, or -1 with err:
 * not JSON, not an object, no or an unknown type, a message of the other
 * side, a field missing, of the wrong type or out of its limits. */
int hb_relay_parse(const char *text, size_t len, enum hb_relay_side from, struct hb_relay_msg *out, char *err,
		   size_t errlen);

/* The characters of a UTF-8 string as the protocol counts them (code
 * points; RFC 3629: no overlong forms or surrogates), or -1 when it is not
 * UTF-8: the tool refuses what the relay would. */
long hb_relay_chars(const char *s);

/* Zeroes m, the credential first. */
void hb_relay_msg_wipe(struct hb_relay_msg *m);

#endif
