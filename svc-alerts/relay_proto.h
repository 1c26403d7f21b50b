/*
 * relay_proto - the messages of the device link between the desktop and
 * the regional relay (docs/relay-protocol.md): JSON text messages over a
 * WebSocket, built and read here and nowhere else, so that when the real
 * relay's format is known only this file (and its test) changes.
 *
 * The device sends hello (with the device credential) and
 * agent-notification-requested events; the relay answers ready or error,
 * acknowledges each event by id, and may report a silent drop.  Reading
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

enum hb_relay_type {
	HB_RELAY_HELLO,         /* device → relay, first message */
	HB_RELAY_READY,         /* relay → device: the link is ready */
	HB_RELAY_ERROR,         /* relay → device, then the relay closes */
	HB_RELAY_EVENT,         /* device → relay: agent-notification-requested */
	HB_RELAY_ACK,           /* relay → device: the event with this id is received */
	HB_RELAY_DROPPED,       /* relay → device: the event went nowhere (a log line) */
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
