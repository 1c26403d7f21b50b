/*
 * ws - the WebSocket link after the Upgrade: wslay's event context driven
 * from the caller's poll loop over ws_io, received text messages in a
 * queue, and the state the close handshake (or a failure) leaves.
 *
 * wslay answers pings and close frames by itself and enforces the message
 * size limit before buffering a frame (it then queues close 1009); what
 * it did is read back after each round from its close status, so that
 * every end of a link has a sentence.
 */
#include "ws.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>
#include <wslay/wslay.h>

#include "clock.h"
#include "log.h"
#include "url.h"
#include "ws_io.h"

struct ws_msg {
	struct ws_msg *next;
	size_t len;
	size_t whole;    /* > len: dropped for its size, only its head kept */
	char text[];
};

/* A text message being put together from its frames, when messages past
 * the limit are dropped rather than fatal (wslay's own buffering knows
 * only the fatal way). */
struct ws_asm {
	int active;      /* inside a text message */
	int in_data;     /* the current frame is a text or continuation frame */
	char *buf;
	size_t len, cap;
	size_t whole;    /* bytes of the message so far, kept or not */
	char head[WS_DROPPED_HEAD];
	size_t head_len;
};

struct ws {
	struct ws_io io;
	wslay_event_context_ptr ctx;
	enum ws_state state;
	struct ws_msg *head, **tail;
	unsigned long pongs;
	size_t max_message;
	int drop_oversized;
	struct ws_asm as;
	int close_code;
	char close_reason[WS_REASON_MAX * 4 + 1];  /* escaped: \xNN at worst */
	int we_closed;    /* ws_close queued a close frame */
	int eof;          /* the stream ended under wslay */
	char err[WS_ERROR_MAX];  /* set before the state turns WS_FAILED */
};

static void set_err(struct ws *ws, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The first reason wins: later ones are consequences. */
static void set_err(struct ws *ws, const char *fmt, ...)
{
	va_list ap;

	if (ws->err[0])
		return;
	va_start(ap, fmt);
	vsnprintf(ws->err, sizeof ws->err, fmt, ap);
	va_end(ap);
}

static int over(const struct ws *ws)
{
	return ws->state == WS_CLOSED || ws->state == WS_FAILED;
}

static void finish(struct ws *ws, enum ws_state state)
{
	ws->state = state;
	ws_io_close(&ws->io);
}

static ssize_t on_recv(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags, void *arg)
{
	struct ws *ws = arg;
	ssize_t n = ws_io_read(&ws->io, buf, len);

	(void)flags;
	if (n > 0)
		return n;
	if (n < 0 && errno == EAGAIN) {
		wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
		return -1;
	}
	if (n == 0)
		ws->eof = 1;
	else
		set_err(ws, "reading from the server failed: %s", ws->io.err);
	wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
	return -1;
}

static ssize_t on_send(wslay_event_context_ptr ctx, const uint8_t *data, size_t len, int flags, void *arg)
{
	struct ws *ws = arg;
	ssize_t n = ws_io_write(&ws->io, data, len);

	(void)flags;
	if (n > 0)
		return n;
	if (n < 0 && errno == EAGAIN) {
		wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
		return -1;
	}
	set_err(ws, "sending to the server failed: %s", n < 0 ? ws->io.err : "nothing was written");
	wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
	return -1;
}

/* The masks of our frames (RFC 6455 5.3: unpredictable to the page, here
 * to anything between us and the server). */
static int on_genmask(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, void *arg)
{
	(void)arg;
	if (RAND_bytes(buf, (int)len) != 1) {
		wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
		return -1;
	}
	return 0;
}

static void queue_text(struct ws *ws, const uint8_t *text, size_t len, size_t whole)
{
	struct ws_msg *m = malloc(sizeof *m + len + 1);

	if (!m) {
		set_err(ws, "out of memory for a received message of %zu bytes", len);
		wslay_event_shutdown_read(ws->ctx);
		return;
	}
	m->next = NULL;
	m->len = len;
	m->whole = whole;
	if (len)
		memcpy(m->text, text, len);
	m->text[len] = '\0';
	*ws->tail = m;
	ws->tail = &m->next;
}

static void on_msg(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg *a, void *arg)
{
	struct ws *ws = arg;

	switch (a->opcode) {
	case WSLAY_TEXT_FRAME:
		if (!ws->drop_oversized) {
			queue_text(ws, a->msg, a->msg_length, a->msg_length);
		} else if (ws->as.whole > ws->max_message) {
			queue_text(ws, (const uint8_t *)ws->as.head, ws->as.head_len, ws->as.whole);
		} else {
			queue_text(ws, (const uint8_t *)(ws->as.buf ? ws->as.buf : ""), ws->as.len, ws->as.len);
		}
		if (ws->drop_oversized) {
			free(ws->as.buf);
			memset(&ws->as, 0, sizeof ws->as);
		}
		break;
	case WSLAY_BINARY_FRAME:
		/* Nothing we talk to sends binary: say so rather than drop it. */
		set_err(ws, "the server sent a binary message, which this client does not take");
		wslay_event_shutdown_read(ctx);
		if (wslay_event_queue_close(ctx, WSLAY_CODE_UNSUPPORTED_DATA, NULL, 0) != 0)
			wslay_event_shutdown_write(ctx);
		break;
	case WSLAY_PONG:
		ws->pongs++;
		break;
	case WSLAY_CONNECTION_CLOSE:
		ws->close_code = a->status_code ? a->status_code : WSLAY_CODE_NO_STATUS_RCVD;
		if (a->msg_length > 2)
			hb_escape(a->msg + 2, a->msg_length - 2, WS_REASON_MAX, ws->close_reason,
				  sizeof ws->close_reason);
		break;
	default: /* pings: wslay queued the pong */
		break;
	}
}

/* With drop_oversized (wslay not buffering): the frames of a text
 * message kept up to the limit; past it, only the head and the count. */
static void on_frame_start(wslay_event_context_ptr ctx, const struct wslay_event_on_frame_recv_start_arg *a, void *arg)
{
	struct ws *ws = arg;

	(void)ctx;
	ws->as.in_data = a->opcode == WSLAY_TEXT_FRAME || a->opcode == WSLAY_CONTINUATION_FRAME;
	if (a->opcode == WSLAY_TEXT_FRAME) {
		free(ws->as.buf);
		memset(&ws->as, 0, sizeof ws->as);
		ws->as.active = ws->as.in_data = 1;
	}
}

static void on_frame_chunk(wslay_event_context_ptr ctx, const struct wslay_event_on_frame_recv_chunk_arg *a,
			   void *arg)
{
	struct ws *ws = arg;
	struct ws_asm *m = &ws->as;
	size_t keep;

	(void)ctx;
	if (!m->in_data || !m->active)
		return;
	keep = m->head_len < sizeof m->head ? sizeof m->head - m->head_len : 0;
	keep = keep < a->data_length ? keep : a->data_length;
	memcpy(m->head + m->head_len, a->data, keep);
	m->head_len += keep;
	m->whole += a->data_length;
	if (m->whole > ws->max_message) {
		free(m->buf); /* dropped: the rest is only counted */
		m->buf = NULL;
		m->len = m->cap = 0;
		return;
	}
	if (m->len + a->data_length > m->cap) {
		size_t cap = m->cap ? m->cap : 4096;
		char *b;

		while (cap < m->len + a->data_length)
			cap *= 2;
		if (!(b = realloc(m->buf, cap))) {
			set_err(ws, "out of memory for a received message of %zu bytes", m->whole);
			wslay_event_shutdown_read(ws->ctx);
			return;
		}
		m->buf = b;
		m->cap = cap;
	}
	memcpy(m->buf + m->len, a->data, a->data_length);
	m->len += a->data_length;
}

/* Why wslay ended a link that the server did not close. */
static void explain_end(struct ws *ws)
{
	switch (wslay_event_get_close_sent(ws->ctx) ? wslay_event_get_status_code_sent(ws->ctx) : 0) {
	case WSLAY_CODE_MESSAGE_TOO_BIG:
		set_err(ws, "the server sent a message longer than the limit of %zu bytes", ws->max_message);
		break;
	case WSLAY_CODE_INVALID_FRAME_PAYLOAD_DATA:
		set_err(ws, "the server sent a text message that is not UTF-8");
		break;
	case WSLAY_CODE_PROTOCOL_ERROR:
		set_err(ws, "the server broke the WebSocket protocol");
		break;
	default:
		set_err(ws, "the link ended without the server's close frame");
		break;
	}
}

/* The state after a round of reading or writing. */
static enum ws_state settle(struct ws *ws)
{
	if (over(ws))
		return ws->state;
	if (ws->eof)
		set_err(ws, "the server closed the connection without a close frame");
	if (ws->err[0] && (ws->eof || !wslay_event_want_write(ws->ctx))) {
		finish(ws, WS_FAILED);
	} else if (!wslay_event_want_read(ws->ctx) && !wslay_event_want_write(ws->ctx)) {
		if (wslay_event_get_close_received(ws->ctx) && !ws->err[0]) {
			finish(ws, WS_CLOSED);
		} else {
			explain_end(ws);
			finish(ws, WS_FAILED);
		}
	} else if (ws->we_closed || wslay_event_get_close_received(ws->ctx) ||
		   !wslay_event_want_read(ws->ctx)) {
		ws->state = WS_CLOSING;
	}
	return ws->state;
}

static void pump_send(struct ws *ws)
{
	if (!over(ws) && !ws->eof && wslay_event_want_write(ws->ctx) && wslay_event_send(ws->ctx) != 0)
		set_err(ws, "sending to the server failed");
}

static void pump_recv(struct ws *ws)
{
	int r;

	if (over(ws) || !wslay_event_want_read(ws->ctx))
		return;
	if ((r = wslay_event_recv(ws->ctx)) != 0 && !ws->eof)
		set_err(ws, r == WSLAY_ERR_NOMEM ? "out of memory while reading from the server"
						 : "reading from the server failed");
}

enum ws_state ws_on_readable(struct ws *ws)
{
	pump_recv(ws);
	/* Answers (pongs, the close reply) go out at once when they can. */
	pump_send(ws);
	return settle(ws);
}

enum ws_state ws_on_writable(struct ws *ws)
{
	pump_send(ws);
	if (ws->io.read_wants_write)
		pump_recv(ws);
	return settle(ws);
}

int ws_fd(const struct ws *ws)
{
	return over(ws) ? -1 : ws->io.fd;
}

int ws_want_write(const struct ws *ws)
{
	if (over(ws))
		return 0;
	return (wslay_event_want_write(ws->ctx) && !ws->io.write_wants_read) || ws->io.read_wants_write;
}

static int queue(struct ws *ws, uint8_t opcode, const void *data, size_t len)
{
	struct wslay_event_msg m = { opcode, data, len };

	if (ws->state != WS_OPEN)
		return -1;
	return wslay_event_queue_msg(ws->ctx, &m) == 0 ? 0 : -1;
}

int ws_send_text(struct ws *ws, const char *text, size_t len)
{
	return queue(ws, WSLAY_TEXT_FRAME, text, len);
}

int ws_ping(struct ws *ws)
{
	return queue(ws, WSLAY_PING, "", 0);
}

int ws_close(struct ws *ws, int code, const char *reason)
{
	size_t rl = reason ? strlen(reason) : 0;

	if (ws->state != WS_OPEN || !(code == 1000 || (code >= 3000 && code <= 4999)) || rl > WS_REASON_MAX)
		return -1;
	if (wslay_event_queue_close(ws->ctx, (uint16_t)code, (const uint8_t *)reason, rl) != 0)
		return -1;
	ws->we_closed = 1;
	ws->state = WS_CLOSING;
	return 0;
}

char *ws_next_message(struct ws *ws, size_t *len)
{
	return ws_next_message_whole(ws, len, NULL);
}

char *ws_next_message_whole(struct ws *ws, size_t *len, size_t *whole)
{
	struct ws_msg *m = ws->head;
	char *text;

	if (!m)
		return NULL;
	if (!(ws->head = m->next))
		ws->tail = &ws->head;
	if (len)
		*len = m->len;
	if (whole)
		*whole = m->whole;
	/* Hand the text over in a block of its own, which free() takes. */
	memmove(m, m->text, m->len + 1);
	text = (char *)m;
	return text;
}

unsigned long ws_pongs(const struct ws *ws)
{
	return ws->pongs;
}

enum ws_state ws_state(const struct ws *ws)
{
	return ws->state;
}

int ws_close_code(const struct ws *ws)
{
	return ws->close_code;
}

const char *ws_close_reason(const struct ws *ws)
{
	return ws->close_reason;
}

const char *ws_error(const struct ws *ws)
{
	return ws->state == WS_FAILED ? ws->err : "";
}

static int start_framing(struct ws *ws, char *err, size_t errlen)
{
	static const struct wslay_event_callbacks cb = {
		.recv_callback = on_recv,
		.send_callback = on_send,
		.genmask_callback = on_genmask,
		.on_msg_recv_callback = on_msg,
	};
	static const struct wslay_event_callbacks cb_dropping = {
		.recv_callback = on_recv,
		.send_callback = on_send,
		.genmask_callback = on_genmask,
		.on_frame_recv_start_callback = on_frame_start,
		.on_frame_recv_chunk_callback = on_frame_chunk,
		.on_msg_recv_callback = on_msg,
	};

	if (wslay_event_context_client_init(&ws->ctx, ws->drop_oversized ? &cb_dropping : &cb, ws) != 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (ws->drop_oversized) {
		/* the frames come to on_frame_chunk, which keeps what fits;
		 * wslay's limit then bounds a single frame, not the message */
		wslay_event_config_set_no_buffering(ws->ctx, 1);
		wslay_event_config_set_max_recv_msg_length(ws->ctx, (1u << 31) - 1);
	} else {
		wslay_event_config_set_max_recv_msg_length(ws->ctx, ws->max_message);
	}
	return 0;
}

int ws_connect(const char *url, const struct ws_opts *opts, struct ws **out, char *err, size_t errlen)
{
	static const struct ws_opts defaults = { 0 };
	struct hb_url u;
	struct ws *ws;
	int tls, rc = 0;
	long long deadline;

	*out = NULL;
	if (!opts)
		opts = &defaults;
	if (opts->failure)
		*opts->failure = (struct ws_connect_failure){ WS_CONNECT_FAILED, 0 };
	if (hb_url_parse(url, &u) < 0 || u.userinfo || u.has_fragment ||
	    !(hb_url_scheme_is(&u, "ws") || hb_url_scheme_is(&u, "wss"))) {
		snprintf(err, errlen, "not a ws:// or wss:// URL without user name or fragment");
		return -1;
	}
	tls = hb_url_scheme_is(&u, "wss");
	if (!(ws = calloc(1, sizeof *ws))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	ws->io.fd = -1;
	ws->tail = &ws->head;
	ws->max_message = opts->max_message ? opts->max_message : WS_DEFAULT_MAX_MESSAGE;
	ws->drop_oversized = opts->drop_oversized;
	deadline = hb_monotonic_ms() + (opts->timeout_ms > 0 ? opts->timeout_ms : WS_DEFAULT_TIMEOUT_MS);
	if ((rc = ws_io_open(&ws->io, &u, tls, opts->ca_file, deadline, err, errlen)) < 0 ||
	    ws_handshake(&ws->io, &u, opts->headers, deadline, err, errlen) < 0 ||
	    start_framing(ws, err, errlen) < 0) {
		if (opts->failure)
			*opts->failure = (struct ws_connect_failure){
				ws->io.http_status ? WS_CONNECT_REFUSED
				: ws->io.timed_out ? WS_CONNECT_TIMED_OUT : WS_CONNECT_FAILED,
				ws->io.http_status };
		ws_free(ws);
		return rc == WS_IO_CERT_REFUSED ? WS_CERT_REFUSED : -1;
	}
	ws->state = WS_OPEN;
	/* Frames that came with the 101 answer (in io->early, or decrypted
	 * inside OpenSSL) are read now: poll would never wake for bytes
	 * already taken from the socket. */
	ws_on_readable(ws);
	*out = ws;
	return 0;
}

void ws_free(struct ws *ws)
{
	if (!ws)
		return;
	while (ws->head) {
		struct ws_msg *m = ws->head;
		ws->head = m->next;
		free(m);
	}
	free(ws->as.buf);
	if (ws->ctx)
		wslay_event_context_free(ws->ctx);
	ws_io_close(&ws->io);
	free(ws);
}
