/*
 * ws - a WebSocket client (RFC 6455) for poll()-driven loops: ws:// and
 * wss:// (TLS with certificate and host name checks), text messages.
 *
 * For svc-alerts' long-lived link to the relay (wss) and later the browser
 * service's talk with Chromium's DevTools (ws on 127.0.0.1).  libcurl 7.88
 * has no WebSocket support; wslay does the framing (masking, fragments,
 * ping/pong, close) and has no event loop of its own, so the socket stays
 * ours and goes into the caller's poll set.  OpenSSL does TLS.
 *
 * ws_connect blocks, at most opts->timeout_ms, for the TCP connection, the
 * TLS handshake and the HTTP Upgrade; after that nothing blocks: poll
 * ws_fd(ws) for POLLIN, and POLLOUT too while ws_want_write(ws), and call
 * ws_on_readable / ws_on_writable.  Received text messages wait in a queue
 * (ws_next_message).  The state says whether the link is open, closing
 * (a close frame was sent or received, the other one is awaited) or over:
 * closed (both close frames went; the peer's code and reason are kept) or
 * failed (a sentence says why).  A link that is over stays over: the
 * caller frees it and connects again.
 *
 * Messages sent and received are logged nowhere, and neither are the
 * extra request headers (an Authorization header carries a credential).
 * Over TLS OpenSSL writes to the socket itself: the process must ignore
 * SIGPIPE (the broker and the shared service loop do).  Not thread-safe:
 * one link is used by one thread.
 */
#ifndef HB_WS_H
#define HB_WS_H

#include <stddef.h>

#define WS_ERROR_MAX 256
#define WS_DEFAULT_TIMEOUT_MS 10000
#define WS_DEFAULT_MAX_MESSAGE (1024 * 1024)
#define WS_REASON_MAX 123
#define WS_DROPPED_HEAD 256  /* what is kept of a message dropped for its size */  /* a close frame carries at most 125 bytes, 2 of them the code */

struct ws;

/* Why ws_connect failed, as a code for a caller that acts on the kind of
 * failure: never the words of the sentence in err. */
enum ws_connect_fail {
	WS_CONNECT_FAILED,     /* anything else: err says what */
	WS_CONNECT_TIMED_OUT,  /* the time limit passed: connecting, TLS, or waiting for the Upgrade's answer */
	WS_CONNECT_REFUSED,    /* the server answered the Upgrade with an HTTP status other than 101 */
};

struct ws_connect_failure {
	enum ws_connect_fail kind;
	int http_status;              /* with WS_CONNECT_REFUSED: the status (403...) */
};

struct ws_opts {
	int timeout_ms;              /* connect, TLS and Upgrade together; 0: WS_DEFAULT_TIMEOUT_MS */
	const char *ca_file;         /* PEM file of trusted CAs for wss; NULL: the system's store */
	const char *const *headers;  /* extra "Name: value" request lines, NULL-terminated; may be
				      * NULL; read during ws_connect only, copied nowhere */
	size_t max_message;          /* a longer received message fails the link (but see
				      * drop_oversized); 0: 1 MiB */
	int drop_oversized;          /* a longer text message is dropped and the link goes on:
				      * ws_next_message_whole hands its first WS_DROPPED_HEAD
				      * bytes and its real length */
	struct ws_connect_failure *failure;  /* may be NULL: where a failed ws_connect puts its code */
};

enum ws_state {
	WS_OPEN,
	WS_CLOSING,
	WS_CLOSED,  /* the close handshake ended: ws_close_code / ws_close_reason */
	WS_FAILED,  /* ws_error says why */
};

/* Connect to url (ws://host[:port][/path][?query] or wss://...).  opts may
 * be NULL.  0 with *out a new link that the caller frees with ws_free;
 * frames that came with the 101 are read already, so the link may be
 * over at once (a server that closed straight away): check ws_state.
 * -1 with a sentence in err (which names the HTTP status when the server
 * answered the Upgrade with anything but 101); WS_CERT_REFUSED when the
 * server was reached but its TLS certificate was refused (err: whose, and
 * the verify error), which no network fix can help.  The name is resolved
 * with getaddrinfo, which the timeout does not bound. */
#define WS_CERT_REFUSED (-2)
int ws_connect(const char *url, const struct ws_opts *opts, struct ws **out, char *err, size_t errlen);
/* Close the socket and free everything, the queued messages too.  NULL is
 * fine.  No close frame is sent: call ws_close and poll first for that. */
void ws_free(struct ws *ws);

/* The socket to poll; -1 once the link is over. */
int ws_fd(const struct ws *ws);
/* Nonzero when frames wait to be sent: poll for POLLOUT as well. */
int ws_want_write(const struct ws *ws);
/* Read what arrived (messages go to the queue, pings are answered) and
 * send what can be sent; call on POLLIN, POLLHUP or POLLERR.  Then on
 * POLLOUT.  Both return the state afterwards. */
enum ws_state ws_on_readable(struct ws *ws);
enum ws_state ws_on_writable(struct ws *ws);

/* Queue a text message (len bytes of UTF-8, copied), a ping, a close frame
 * (code 1000 or 3000-4999, reason at most WS_REASON_MAX bytes, may be
 * NULL; a peer that never answers it leaves the link closing: the caller
 * bounds that wait and frees the link).
 * 0, or -1 when the link is not open (or a close was already queued), the
 * arguments are wrong or memory ran out; nothing is sent before the next
 * ws_on_writable. */
int ws_send_text(struct ws *ws, const char *text, size_t len);
int ws_ping(struct ws *ws);
int ws_close(struct ws *ws, int code, const char *reason);

/* The oldest received text message, NUL-terminated, that the caller now
 * owns and frees (*len its length, without the NUL; len may be NULL);
 * NULL when none waits. */
char *ws_next_message(struct ws *ws, size_t *len);
/* The same, with *whole the message's real length: more than *len when
 * the message was past max_message under drop_oversized (only its first
 * WS_DROPPED_HEAD bytes were kept; the caller says which message failed,
 * and the link goes on). */
char *ws_next_message_whole(struct ws *ws, size_t *len, size_t *whole);
/* How many pongs arrived so far (answers to ws_ping: the keep-alive). */
unsigned long ws_pongs(const struct ws *ws);

enum ws_state ws_state(const struct ws *ws);
/* The peer's close code (1005 when its close frame had none) and reason
 * (printable, escaped); 0 and "" until a close frame arrived. */
int ws_close_code(const struct ws *ws);
const char *ws_close_reason(const struct ws *ws);
/* Why the link failed; "" unless the state is WS_FAILED. */
const char *ws_error(const struct ws *ws);

#endif
