/*
 * ws_io - TCP connect with a deadline, the TLS handshake with its checks,
 * and non-blocking reads and writes over either.
 *
 * The certificate is checked against the host of the URL: a name by
 * SSL_set1_host (and sent as SNI), an address literal by its IP SAN (and
 * no SNI, which RFC 6066 allows for names only).  TLS 1.2 at least.
 */
#include "ws_io.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "clock.h"

int ws_io_port(const struct hb_url *u, int tls)
{
	return u->port > 0 ? (int)u->port : tls ? 443 : 80;
}

int ws_io_wait(struct ws_io *io, short events, long long deadline)
{
	for (;;) {
		long long left = deadline - hb_monotonic_ms();
		struct pollfd p = { io->fd, events, 0 };
		int r;

		if (left <= 0)
			return -1;
		r = poll(&p, 1, left > 1000000 ? 1000000 : (int)left);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

/* One address: 0 with io->fd connected, or -1 with errno. */
static int connect_one(struct ws_io *io, const struct addrinfo *ai, long long deadline)
{
	int fd, one = 1, soerr = 0;
	socklen_t len = sizeof soerr;

	if ((fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol)) < 0)
		return -1;
	io->fd = fd;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
		goto connected;
	if (errno != EINPROGRESS)
		goto fail;
	if (ws_io_wait(io, POLLOUT, deadline) < 0) {
		errno = ETIMEDOUT;
		goto fail;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
		goto fail;
	if (soerr != 0) {
		errno = soerr;
		goto fail;
	}
connected:
	/* Small frames (pings, acknowledgements) should not wait for Nagle. */
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0)
		goto fail;
	return 0;
fail:
	soerr = errno;
	close(fd);
	io->fd = -1;
	errno = soerr;
	return -1;
}

static int tcp_connect(struct ws_io *io, const struct hb_url *u, int tls, long long deadline, char *err,
		       size_t errlen)
{
	struct addrinfo hints = { 0 }, *res, *ai;
	char host[256], port[8];
	const char *h = u->host;
	size_t hl = u->host_len;
	int r, saved = 0;

	if (hl >= 2 && h[0] == '[') { /* an IPv6 literal loses its brackets */
		h++;
		hl -= 2;
	}
	if (hl >= sizeof host) {
		snprintf(err, errlen, "the host name is too long");
		return -1;
	}
	memcpy(host, h, hl);
	host[hl] = '\0';
	snprintf(port, sizeof port, "%d", ws_io_port(u, tls));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_ADDRCONFIG;
	if ((r = getaddrinfo(host, port, &hints, &res)) != 0) {
		snprintf(err, errlen, "cannot resolve %s: %s", host, gai_strerror(r));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		if (connect_one(io, ai, deadline) == 0)
			break;
		saved = errno;
		if (saved == ETIMEDOUT)
			break;
	}
	freeaddrinfo(res);
	if (io->fd < 0) {
		io->timed_out = saved == ETIMEDOUT;
		snprintf(err, errlen, "cannot connect to %s port %s: %s", host, port,
			 saved == ETIMEDOUT ? "timed out" : strerror(saved));
		return -1;
	}
	return 0;
}

/* The first error OpenSSL queued, or what; the queue emptied. */
static void tls_reason(const char *what, char *out, size_t outlen)
{
	unsigned long e = ERR_get_error();
	char buf[200];

	if (e == 0) {
		snprintf(out, outlen, "%s", what);
	} else {
		ERR_error_string_n(e, buf, sizeof buf);
		snprintf(out, outlen, "%s (%s)", what, buf);
	}
	ERR_clear_error();
}

static int tls_setup(struct ws_io *io, const struct hb_url *u, const char *ca_file, char *err, size_t errlen)
{
	char host[256];
	size_t hl = u->host_len;
	int literal = u->host[0] == '[';
	struct in_addr a4;

	if (!(io->ctx = SSL_CTX_new(TLS_client_method())) ||
	    !SSL_CTX_set_min_proto_version(io->ctx, TLS1_2_VERSION)) {
		tls_reason("cannot set up TLS", err, errlen);
		return -1;
	}
	SSL_CTX_set_verify(io->ctx, SSL_VERIFY_PEER, NULL);
	/* A WebSocket ends with its own close frames: a missing close_notify
	 * is an end of stream, not a TLS error. */
	SSL_CTX_set_options(io->ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
	/* wslay offers the rest of a frame again from where it keeps it. */
	SSL_CTX_set_mode(io->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	if (ca_file ? !SSL_CTX_load_verify_locations(io->ctx, ca_file, NULL)
		    : !SSL_CTX_set_default_verify_paths(io->ctx)) {
		snprintf(host, sizeof host, "cannot load the trusted certificates%s%s", ca_file ? " of " : "",
			 ca_file ? ca_file : "");
		tls_reason(host, err, errlen);
		return -1;
	}
	if (literal)
		hl -= 2;
	memcpy(host, u->host + literal, hl); /* tcp_connect checked the length */
	host[hl] = '\0';
	if (!(io->ssl = SSL_new(io->ctx)) || !SSL_set_fd(io->ssl, io->fd)) {
		tls_reason("cannot set up TLS", err, errlen);
		return -1;
	}
	if (literal || inet_pton(AF_INET, host, &a4) == 1) {
		if (!X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(io->ssl), host)) {
			tls_reason("cannot set the address to check the certificate against", err, errlen);
			return -1;
		}
	} else if (!SSL_set_tlsext_host_name(io->ssl, host) || !SSL_set1_host(io->ssl, host)) {
		tls_reason("cannot set the host name to check the certificate against", err, errlen);
		return -1;
	}
	return 0;
}

static int tls_handshake(struct ws_io *io, const struct hb_url *u, long long deadline, char *err, size_t errlen)
{
	for (;;) {
		int r, e;
		long v;

		ERR_clear_error();
		if ((r = SSL_connect(io->ssl)) == 1)
			return 0;
		e = SSL_get_error(io->ssl, r);
		if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
			if (ws_io_wait(io, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline) < 0) {
				io->timed_out = 1;
				snprintf(err, errlen, "the TLS handshake with %.*s timed out", (int)u->host_len,
					 u->host);
				return -1;
			}
			continue;
		}
		if ((v = SSL_get_verify_result(io->ssl)) != X509_V_OK) {
			snprintf(err, errlen, "the certificate of %.*s was refused: %s", (int)u->host_len, u->host,
				 X509_verify_cert_error_string(v));
			ERR_clear_error();
			return WS_IO_CERT_REFUSED;
		}
		tls_reason("the TLS handshake failed", err, errlen);
		return -1;
	}
}

int ws_io_open(struct ws_io *io, const struct hb_url *u, int tls, const char *ca_file, long long deadline,
	       char *err, size_t errlen)
{
	int rc = 0;

	memset(io, 0, sizeof *io);
	io->fd = -1;
	if (tcp_connect(io, u, tls, deadline, err, errlen) < 0)
		return -1;
	if (tls && (tls_setup(io, u, ca_file, err, errlen) < 0 || (rc = tls_handshake(io, u, deadline, err, errlen)) < 0)) {
		ws_io_close(io);
		return rc == WS_IO_CERT_REFUSED ? rc : -1;
	}
	return 0;
}

/* After SSL_read/SSL_write gave r: the ws_io_read/write answer. */
static ssize_t tls_result(struct ws_io *io, int r, int reading)
{
	int e = SSL_get_error(io->ssl, r);

	if (reading)
		io->read_wants_write = e == SSL_ERROR_WANT_WRITE;
	else
		io->write_wants_read = e == SSL_ERROR_WANT_READ;
	switch (e) {
	case SSL_ERROR_WANT_READ:
	case SSL_ERROR_WANT_WRITE:
		errno = EAGAIN;
		return -1;
	case SSL_ERROR_ZERO_RETURN:
		return 0;
	case SSL_ERROR_SYSCALL:
		snprintf(io->err, sizeof io->err, "%s", errno ? strerror(errno) : "the connection broke");
		break;
	default:
		tls_reason("TLS failed", io->err, sizeof io->err);
		break;
	}
	ERR_clear_error();
	errno = EIO;
	return -1;
}

ssize_t ws_io_read(struct ws_io *io, void *buf, size_t len)
{
	ssize_t n;

	if (io->early_off < io->early_len) {
		n = (ssize_t)(io->early_len - io->early_off < len ? io->early_len - io->early_off : len);
		memcpy(buf, io->early + io->early_off, (size_t)n);
		io->early_off += (size_t)n;
		return n;
	}
	if (io->ssl) {
		int r;

		ERR_clear_error();
		if ((r = SSL_read(io->ssl, buf, len > 1 << 30 ? 1 << 30 : (int)len)) > 0) {
			io->read_wants_write = 0;
			return r;
		}
		return tls_result(io, r, 1);
	}
	while ((n = recv(io->fd, buf, len, 0)) < 0 && errno == EINTR)
		;
	if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
		snprintf(io->err, sizeof io->err, "%s", strerror(errno));
		errno = EIO;
	} else if (n < 0) {
		errno = EAGAIN;
	}
	return n;
}

ssize_t ws_io_write(struct ws_io *io, const void *buf, size_t len)
{
	ssize_t n;

	if (io->ssl) {
		int r;

		ERR_clear_error();
		if ((r = SSL_write(io->ssl, buf, len > 1 << 30 ? 1 << 30 : (int)len)) > 0) {
			io->write_wants_read = 0;
			return r;
		}
		return tls_result(io, r, 0);
	}
	/* MSG_NOSIGNAL: a peer gone is an error here, not a SIGPIPE.  (Over
	 * TLS OpenSSL writes by itself: our processes ignore SIGPIPE.) */
	while ((n = send(io->fd, buf, len, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
		snprintf(io->err, sizeof io->err, "%s", strerror(errno));
		errno = EIO;
	} else if (n < 0) {
		errno = EAGAIN;
	}
	return n;
}

void ws_io_close(struct ws_io *io)
{
	SSL_free(io->ssl);
	SSL_CTX_free(io->ctx);
	if (io->fd >= 0)
		close(io->fd);
	free(io->early);
	io->ssl = NULL;
	io->ctx = NULL;
	io->fd = -1;
	io->early = NULL;
	io->early_len = io->early_off = 0;
}
