/*
 * ws_io - the byte stream under a WebSocket (private to ws*.c): a
 * non-blocking TCP socket, or a TLS session over one, behind one
 * read/write pair so that the framing never asks which.
 *
 * Opening (TCP connect, TLS handshake) and the Upgrade exchange wait with
 * poll() up to a deadline; afterwards reads and writes never wait.
 */
#ifndef HB_WS_IO_H
#define HB_WS_IO_H

#include <stddef.h>
#include <sys/types.h>

#include <openssl/ssl.h>

#include "url.h"
#include "ws.h"

struct ws_io {
	int fd;
	SSL_CTX *ctx;
	SSL *ssl;
	/* Bytes that came after the Upgrade answer: the first frames, read
	 * before anything from the socket. */
	unsigned char *early;
	size_t early_len, early_off;
	/* TLS may need the other direction to go on (a read that must write,
	 * a write that must read): the poll set follows. */
	int read_wants_write, write_wants_read;
	char err[WS_ERROR_MAX];  /* why the last read or write failed */
	/* How opening or the Upgrade failed, for ws_connect's failure code */
	int timed_out;
	int http_status;         /* a status other than 101 answered the Upgrade */
};

/* The default port of ws/wss, or the URL's own. */
int ws_io_port(const struct hb_url *u, int tls);
/* Connect to u's host (each address in turn) and, with tls, do the TLS
 * handshake checking the certificate against ca_file (NULL: the system's
 * store) and u's host.  0, or -1 with a sentence in err;
 * WS_IO_CERT_REFUSED (with the verify error in err) when the connection
 * worked but the server's certificate was refused. */
#define WS_IO_CERT_REFUSED (-2)
int ws_io_open(struct ws_io *io, const struct hb_url *u, int tls, const char *ca_file, long long deadline,
	       char *err, size_t errlen);
/* > 0 bytes moved; 0 the peer ended the stream (reads only); -1 with errno
 * EAGAIN (nothing now) or EIO (io->err says why). */
ssize_t ws_io_read(struct ws_io *io, void *buf, size_t len);
ssize_t ws_io_write(struct ws_io *io, const void *buf, size_t len);
/* Wait until events (POLLIN/POLLOUT) may go on, at most until deadline
 * (hb_monotonic_ms).  0, or -1 when the time is up or poll failed. */
int ws_io_wait(struct ws_io *io, short events, long long deadline);
/* Everything freed, the socket closed; again is harmless. */
void ws_io_close(struct ws_io *io);

/* The Upgrade exchange on an open io, waiting up to deadline; bytes read
 * past the answer go to io->early.  0, or -1 with a sentence in err. */
int ws_handshake(struct ws_io *io, const struct hb_url *u, const char *const *headers, long long deadline,
		 char *err, size_t errlen);
/* The server's answer head (through its blank line, NUL-terminated) to
 * the Upgrade sent with key: 0 when it opens the WebSocket, or -1 with a
 * sentence in err and, when the answer is HTTP with a status other than
 * 101, that status in *status (0 otherwise; status may be NULL).
 * Exported for the fuzz target. */
int ws_handshake_check_answer(const char *head, const char *key, int *status, char *err, size_t errlen);

#endif
