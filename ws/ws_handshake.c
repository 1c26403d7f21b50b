/*
 * ws_handshake - the HTTP/1.1 Upgrade that opens a WebSocket (RFC 6455
 * section 4): a fresh random Sec-WebSocket-Key, the caller's extra header
 * lines, and an answer that must be 101 with the Sec-WebSocket-Accept the
 * key calls for, so that a server (or a proxy) that is no WebSocket
 * server is never mistaken for one.
 *
 * The request holds the caller's headers (a credential): it is zeroed
 * once sent and never logged.
 */
#include "ws_io.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "base64.h"
#include "log.h"
#include "random.h"

#define ANSWER_MAX 8192
#define REQUEST_MAX 8192

static const char ws_guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/* The Sec-WebSocket-Accept a server must send for key (24 characters). */
static int expected_accept(const char *key, char out[29])
{
	char buf[64];
	unsigned char sha[SHA_DIGEST_LENGTH];
	char *b64;

	snprintf(buf, sizeof buf, "%s%s", key, ws_guid);
	if (!SHA1((const unsigned char *)buf, strlen(buf), sha) || !(b64 = hb_base64_encode(sha, sizeof sha)))
		return -1;
	snprintf(out, 29, "%s", b64);
	free(b64);
	return 0;
}

/* A header line of the caller: "Name: value", no CR or LF to smuggle in
 * lines of its own, and not one of those the handshake writes. */
static int header_ok(const char *h)
{
	static const char *const ours[] = { "host:", "upgrade:", "connection:", "sec-websocket-key:",
					    "sec-websocket-version:" };
	const char *colon = strchr(h, ':');

	if (!colon || colon == h || strpbrk(h, "\r\n"))
		return 0;
	for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
		if (strncasecmp(h, ours[i], strlen(ours[i])) == 0)
			return 0;
	return 1;
}

static int build_request(char *req, size_t cap, const struct hb_url *u, const char *key,
			 const char *const *headers, char *err, size_t errlen)
{
	char port[24] = "";
	size_t n;
	int r;

	if (u->port > 0) /* Host names the port when the URL did (RFC 7230 5.4) */
		snprintf(port, sizeof port, ":%ld", u->port);
	r = snprintf(req, cap,
		     "GET %.*s%s%s%.*s HTTP/1.1\r\nHost: %.*s%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
		     "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n",
		     (int)u->path_len, u->path, u->path_len ? "" : "/", u->has_query ? "?" : "",
		     (int)u->query_len, u->query, (int)u->host_len, u->host, port, key);
	if (r < 0 || (size_t)r >= cap)
		goto too_long;
	n = (size_t)r;
	for (size_t i = 0; headers && headers[i]; i++) {
		if (!header_ok(headers[i])) {
			/* The line may hold a credential: name its place, not its text. */
			snprintf(err, errlen, "extra request header %zu is not a \"Name: value\" line of its own", i + 1);
			return -1;
		}
		r = snprintf(req + n, cap - n, "%s\r\n", headers[i]);
		if (r < 0 || (size_t)r >= cap - n)
			goto too_long;
		n += (size_t)r;
	}
	if (n + 3 > cap)
		goto too_long;
	memcpy(req + n, "\r\n", 3);
	return 0;
too_long:
	snprintf(err, errlen, "the Upgrade request is longer than %d bytes", REQUEST_MAX);
	return -1;
}

static int send_all(struct ws_io *io, const char *buf, size_t len, long long deadline, char *err, size_t errlen)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = ws_io_write(io, buf + off, len - off);

		if (n > 0) {
			off += (size_t)n;
		} else if (n < 0 && errno == EAGAIN) {
			if (ws_io_wait(io, io->write_wants_read ? POLLIN : POLLOUT, deadline) < 0) {
				io->timed_out = 1;
				snprintf(err, errlen, "sending the Upgrade request timed out");
				return -1;
			}
		} else {
			snprintf(err, errlen, "cannot send the Upgrade request: %s", io->err);
			return -1;
		}
	}
	return 0;
}

/* Read up to the blank line that ends the answer's head; the bytes after
 * it go to io->early.  The head, NUL-terminated, is in buf. */
static int read_head(struct ws_io *io, char *buf, size_t cap, long long deadline, char *err, size_t errlen)
{
	size_t len = 0;
	char *end;

	for (;;) {
		ssize_t n = ws_io_read(io, buf + len, cap - 1 - len);

		if (n > 0) {
			len += (size_t)n;
			buf[len] = '\0';
			if ((end = strstr(buf, "\r\n\r\n")))
				break;
			if (len + 1 >= cap) {
				snprintf(err, errlen, "the answer to the Upgrade has a head longer than %zu bytes", cap);
				return -1;
			}
		} else if (n < 0 && errno == EAGAIN) {
			if (ws_io_wait(io, io->read_wants_write ? POLLOUT : POLLIN, deadline) < 0) {
				io->timed_out = 1;
				snprintf(err, errlen, "no answer to the Upgrade request in time");
				return -1;
			}
		} else {
			snprintf(err, errlen, "the server closed the connection before answering the Upgrade%s%s",
				 n < 0 ? ": " : "", n < 0 ? io->err : "");
			return -1;
		}
	}
	end += 4;
	if ((size_t)(end - buf) < len) {
		io->early_len = len - (size_t)(end - buf);
		if (!(io->early = malloc(io->early_len))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		memcpy(io->early, end, io->early_len);
	}
	*end = '\0';
	return 0;
}

/* The value of header name in head, trimmed, into out ("" when absent). */
static void header_value(const char *head, const char *name, char *out, size_t outlen)
{
	size_t k = strlen(name);

	out[0] = '\0';
	for (const char *line = strstr(head, "\r\n"); line && line[2]; line = strstr(line + 2, "\r\n")) {
		const char *v = line + 2, *e;

		if (strncasecmp(v, name, k) != 0 || v[k] != ':')
			continue;
		for (v += k + 1; *v == ' ' || *v == '\t'; v++)
			;
		for (e = strstr(v, "\r\n"); e > v && (e[-1] == ' ' || e[-1] == '\t'); e--)
			;
		snprintf(out, outlen, "%.*s", (int)(e - v), v);
		return;
	}
}

/* Whether a comma-separated header value lists token. */
static int lists_token(const char *value, const char *token)
{
	size_t k = strlen(token);

	for (const char *p = value; *p;) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (strncasecmp(p, token, k) == 0 && (p[k] == '\0' || p[k] == ',' || p[k] == ' ' || p[k] == '\t'))
			return 1;
		p += strcspn(p, ",");
	}
	return 0;
}

int ws_handshake_check_answer(const char *head, const char *key, int *status_out, char *err, size_t errlen)
{
	char accept[29], value[256], line[120];
	int status = 0;

	if (status_out)
		*status_out = 0;
	if (sscanf(head, "HTTP/1.%*1[01] %3d", &status) != 1) {
		hb_escape(head, strcspn(head, "\r\n"), 80, line, sizeof line);
		snprintf(err, errlen, "the answer to the Upgrade is not HTTP: %s", line);
		return -1;
	}
	if (status != 101) {
		if (status_out)
			*status_out = status;
		hb_escape(head, strcspn(head, "\r\n"), 100, line, sizeof line);
		snprintf(err, errlen, "the server refused the WebSocket Upgrade with HTTP status %d (%s)", status,
			 line);
		return -1;
	}
	header_value(head, "Upgrade", value, sizeof value);
	if (strcasecmp(value, "websocket") != 0) {
		snprintf(err, errlen, "the 101 answer does not upgrade to websocket");
		return -1;
	}
	header_value(head, "Connection", value, sizeof value);
	if (!lists_token(value, "upgrade")) {
		snprintf(err, errlen, "the 101 answer has no \"Connection: Upgrade\"");
		return -1;
	}
	if (expected_accept(key, accept) < 0) {
		snprintf(err, errlen, "cannot compute the expected Sec-WebSocket-Accept");
		return -1;
	}
	header_value(head, "Sec-WebSocket-Accept", value, sizeof value);
	if (strcmp(value, accept) != 0) {
		snprintf(err, errlen, "the 101 answer has a wrong or no Sec-WebSocket-Accept");
		return -1;
	}
	/* We asked for no extension or subprotocol: one answered is a server
	 * that would frame differently from what we read. */
	header_value(head, "Sec-WebSocket-Extensions", value, sizeof value);
	if (value[0]) {
		snprintf(err, errlen, "the server chose a WebSocket extension that was not asked for");
		return -1;
	}
	return 0;
}

int ws_handshake(struct ws_io *io, const struct hb_url *u, const char *const *headers, long long deadline,
		 char *err, size_t errlen)
{
	unsigned char nonce[16];
	char *key, *req, head[ANSWER_MAX];
	int r = -1;

	if (hb_random_bytes(nonce, sizeof nonce, err, errlen) < 0)
		return -1;
	if (!(key = hb_base64_encode(nonce, sizeof nonce)) || !(req = malloc(REQUEST_MAX))) {
		free(key);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (build_request(req, REQUEST_MAX, u, key, headers, err, errlen) == 0 &&
	    send_all(io, req, strlen(req), deadline, err, errlen) == 0 &&
	    read_head(io, head, sizeof head, deadline, err, errlen) == 0)
		r = ws_handshake_check_answer(head, key, &io->http_status, err, errlen);
	OPENSSL_cleanse(req, REQUEST_MAX);
	free(req);
	free(key);
	return r;
}
