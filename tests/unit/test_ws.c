/*
 * test_ws - the WebSocket client (ws/ws.h) against tests/ws/server.mjs,
 * a server with hand-written framing on 127.0.0.1: echo over ws and wss
 * (fragments, multibyte text, a message larger than a socket buffer, an
 * extra header arriving), TLS refused (WS_CERT_REFUSED, told apart from a
 * network failure) for a host name the certificate does
 * not name and for an unknown CA, a 403 named in the error, a wrong
 * Sec-WebSocket-Accept refused, the server's
 * close code and reason, a server ping answered, the size limit at and
 * past its bound, and an Upgrade never answered ending at the timeout.
 *
 * The certificates are made in a temporary folder by tests/harness/
 * tls_fixture: a throwaway CA, a server certificate for "localhost" only,
 * and a second CA that signed nothing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "clock.h"
#include "ws.h"
#include "../harness/group.h"
#include "../harness/node_server.h"
#include "../harness/tls_fixture.h"
#include "../harness/ws_pump.h"

/* A bound on waiting for what a test expects, so that a broken client
 * fails the test instead of hanging it; never a measure of speed. */
#define PATIENCE_MS 20000

static struct tls_fixture certs;

static int make_certs(void **state)
{
	(void)state;
	return tls_make(&certs, "test_ws", "DNS:localhost");
}

static int remove_certs(void **state)
{
	(void)state;
	return tls_remove(&certs);
}

/* node server.mjs --mode mode [--size size] [--cert --key] */
static void start_server(struct node_server *s, const char *mode, int tls, const char *size)
{
	const char *argv[12] = { "--mode", mode };
	int n = 2;

	if (size) {
		argv[n++] = "--size";
		argv[n++] = size;
	}
	if (tls) {
		argv[n++] = "--cert";
		argv[n++] = certs.cert;
		argv[n++] = "--key";
		argv[n++] = certs.key;
	}
	argv[n] = NULL;
	assert_int_equal(node_server_start(s, "tests/ws/server.mjs", argv), 0);
}

static void stop_server(struct node_server *s)
{
	assert_int_equal(node_server_stop(s), 0);
}

static void url_of(char *out, size_t outlen, const char *scheme, const char *host, const struct node_server *s,
		   const char *path)
{
	snprintf(out, outlen, "%s://%s:%d%s", scheme, host, s->port, path);
}

static char *wait_message(struct ws *ws, size_t *len)
{
	long long deadline = hb_monotonic_ms() + PATIENCE_MS;
	char *m;

	while (!(m = ws_next_message(ws, len)) && ws_fd(ws) >= 0 && hb_monotonic_ms() < deadline)
		ws_pump(ws, 50);
	return m;
}

static enum ws_state wait_over(struct ws *ws)
{
	long long deadline = hb_monotonic_ms() + PATIENCE_MS;

	while (ws_fd(ws) >= 0 && hb_monotonic_ms() < deadline)
		ws_pump(ws, 50);
	return ws_state(ws);
}

static void expect_echo(struct ws *ws, const char *text, size_t len)
{
	size_t got;
	char *m;

	assert_int_equal(ws_send_text(ws, text, len), 0);
	assert_non_null(m = wait_message(ws, &got));
	assert_int_equal(got, len);
	assert_memory_equal(m, text, len);
	assert_int_equal(m[len], '\0');
	free(m);
}

static void close_cleanly(struct ws *ws)
{
	assert_int_equal(ws_close(ws, 4002, "done here"), 0);
	assert_int_equal(ws_state(ws), WS_CLOSING);
	assert_int_equal(ws_send_text(ws, "late", 4), -1);
	assert_int_equal(wait_over(ws), WS_CLOSED);
	/* The echo server answers with our own code and reason. */
	assert_int_equal(ws_close_code(ws), 4002);
	assert_string_equal(ws_close_reason(ws), "done here");
	assert_string_equal(ws_error(ws), "");
	assert_int_equal(ws_fd(ws), -1);
}

static void test_echo_plain(void **state)
{
	static const char *const headers[] = { "Authorization: Bearer s3cret-token", NULL };
	struct ws_opts opts = { .headers = headers };
	struct node_server s;
	struct ws *ws;
	char url[200], err[WS_ERROR_MAX], *big, *m;
	const char *multi = "h\xc3\xa9llo, w\xc3\xb6rld \xe2\x9c\x93"; /* split mid-character by the fragments */
	size_t n = 300000;

	(void)state;
	start_server(&s, "echo", 0, NULL);
	url_of(url, sizeof url, "ws", "127.0.0.1", &s, "/relay?device=1");
	assert_int_equal(ws_connect(url, &opts, &ws, err, sizeof err), 0);
	assert_int_equal(ws_state(ws), WS_OPEN);
	assert_true(ws_fd(ws) >= 0);
	expect_echo(ws, multi, strlen(multi));
	expect_echo(ws, "", 0);
	/* Larger than a socket buffer: written over several rounds. */
	assert_non_null(big = malloc(n));
	for (size_t i = 0; i < n; i++)
		big[i] = (char)('a' + i % 26);
	expect_echo(ws, big, n);
	free(big);
	assert_int_equal(ws_send_text(ws, "?header authorization", 21), 0);
	assert_non_null(m = wait_message(ws, NULL));
	assert_string_equal(m, "Bearer s3cret-token");
	free(m);
	/* A ping of ours, the server's pong counted. */
	assert_int_equal(ws_pongs(ws), 0);
	assert_int_equal(ws_pump_ping(ws, PATIENCE_MS), 0);
	assert_int_equal(ws_pongs(ws), 1);
	close_cleanly(ws);
	ws_free(ws);
	stop_server(&s);
}

static void test_echo_tls(void **state)
{
	struct ws_opts opts = { 0 };
	struct node_server s;
	struct ws *ws;
	char url[200], err[WS_ERROR_MAX];

	(void)state;
	opts.ca_file = certs.ca;
	start_server(&s, "echo", 1, NULL);
	url_of(url, sizeof url, "wss", "localhost", &s, "/");
	assert_int_equal(ws_connect(url, &opts, &ws, err, sizeof err), 0);
	expect_echo(ws, "over TLS", 8);
	expect_echo(ws, "a second one, after the first", 29);
	close_cleanly(ws);
	ws_free(ws);
	stop_server(&s);
}

static void test_tls_refused(void **state)
{
	struct ws_opts opts = { 0 };
	struct node_server s;
	struct ws *ws = (struct ws *)&opts;
	char url[200], err[WS_ERROR_MAX];

	(void)state;
	start_server(&s, "echo", 1, NULL);
	/* The certificate names localhost, not the address. */
	opts.ca_file = certs.ca;
	url_of(url, sizeof url, "wss", "127.0.0.1", &s, "/");
	assert_int_equal(ws_connect(url, &opts, &ws, err, sizeof err), WS_CERT_REFUSED);
	assert_null(ws);
	assert_non_null(strstr(err, "the certificate of 127.0.0.1 was refused: "));
	assert_non_null(strstr(err, "mismatch"));
	/* Signed by a CA we were not told to trust, ... */
	opts.ca_file = certs.other_ca;
	url_of(url, sizeof url, "wss", "localhost", &s, "/");
	assert_int_equal(ws_connect(url, &opts, &ws, err, sizeof err), WS_CERT_REFUSED);
	assert_non_null(strstr(err, "the certificate of localhost was refused: "));
	assert_non_null(strstr(err, "local issuer"));
	/* ... nor found in the system's store. */
	opts.ca_file = NULL;
	assert_int_equal(ws_connect(url, &opts, &ws, err, sizeof err), WS_CERT_REFUSED);
	assert_non_null(strstr(err, "the certificate of localhost was refused: "));
	/* And plain ws to a TLS server is no WebSocket either. */
	url_of(url, sizeof url, "ws", "localhost", &s, "/");
	assert_int_equal(ws_connect(url, NULL, &ws, err, sizeof err), -1);
	stop_server(&s);
}

static void test_upgrade_refused(void **state)
{
	struct ws_connect_failure why = { WS_CONNECT_TIMED_OUT, -1 };
	struct ws_opts opts = { .failure = &why };
	struct node_server s;
	struct ws *ws;
	char url[200], err[WS_ERROR_MAX];

	(void)state;
	start_server(&s, "refuse", 0, NULL);
	url_of(url, sizeof url, "ws", "127.0.0.1", &s, "/");
	assert_int_equal(ws_connect(url, &opts, &ws, err, sizeof err), -1);
	assert_null(ws);
	assert_string_equal(err, "the server refused the WebSocket Upgrade with HTTP status 403 "
				 "(HTTP/1.1 403 Forbidden)");
	/* the status as a code, for a caller that acts on it */
	assert_int_equal(why.kind, WS_CONNECT_REFUSED);
	assert_int_equal(why.http_status, 403);
	stop_server(&s);
	/* A 101 that does not answer our key is no WebSocket server's. */
	start_server(&s, "badaccept", 0, NULL);
	url_of(url, sizeof url, "ws", "127.0.0.1", &s, "/");
	assert_int_equal(ws_connect(url, &opts, &ws, err, sizeof err), -1);
	assert_string_equal(err, "the 101 answer has a wrong or no Sec-WebSocket-Accept");
	assert_int_equal(why.kind, WS_CONNECT_FAILED);
	assert_int_equal(why.http_status, 0);
	stop_server(&s);
}

static void test_server_closes(void **state)
{
	struct node_server s;
	struct ws *ws;
	char url[200], err[WS_ERROR_MAX];

	(void)state;
	start_server(&s, "close", 0, NULL);
	url_of(url, sizeof url, "ws", "127.0.0.1", &s, "/");
	assert_int_equal(ws_connect(url, NULL, &ws, err, sizeof err), 0);
	assert_int_equal(wait_over(ws), WS_CLOSED);
	assert_int_equal(ws_close_code(ws), 4001);
	assert_string_equal(ws_close_reason(ws), "bye for now");
	assert_int_equal(ws_close(ws, 1000, NULL), -1);
	assert_null(ws_next_message(ws, NULL));
	ws_free(ws);
	stop_server(&s);
}

static void test_server_ping(void **state)
{
	struct node_server s;
	struct ws *ws;
	char url[200], err[WS_ERROR_MAX], *m;

	(void)state;
	start_server(&s, "ping", 0, NULL);
	url_of(url, sizeof url, "ws", "127.0.0.1", &s, "/");
	assert_int_equal(ws_connect(url, NULL, &ws, err, sizeof err), 0);
	/* The server reports the pong it got back. */
	assert_non_null(m = wait_message(ws, NULL));
	assert_string_equal(m, "pong-seen:are-you-there");
	free(m);
	assert_int_equal(ws_state(ws), WS_OPEN);
	ws_free(ws);
	stop_server(&s);
}

static void test_size_limit(void **state)
{
	struct ws_opts opts = { .max_message = 100000 };
	struct node_server s;
	struct ws *ws;
	char url[200], err[WS_ERROR_MAX], *m;
	size_t len;

	(void)state;
	/* At the limit: taken. */
	start_server(&s, "big", 0, "100000");
	url_of(url, sizeof url, "ws", "127.0.0.1", &s, "/");
	assert_int_equal(ws_connect(url, &opts, &ws, err, sizeof err), 0);
	assert_non_null(m = wait_message(ws, &len));
	assert_int_equal(len, 100000);
	free(m);
	ws_free(ws);
	stop_server(&s);
	/* One byte over (in fragments each under it): the link fails. */
	start_server(&s, "big", 0, "100001");
	url_of(url, sizeof url, "ws", "127.0.0.1", &s, "/");
	assert_int_equal(ws_connect(url, &opts, &ws, err, sizeof err), 0);
	assert_int_equal(wait_over(ws), WS_FAILED);
	assert_string_equal(ws_error(ws), "the server sent a message longer than the limit of 100000 bytes");
	assert_null(ws_next_message(ws, NULL));
	ws_free(ws);
	stop_server(&s);
	/* The default limit is 1 MiB. */
	start_server(&s, "big", 0, "1048577");
	url_of(url, sizeof url, "ws", "127.0.0.1", &s, "/");
	assert_int_equal(ws_connect(url, NULL, &ws, err, sizeof err), 0);
	assert_int_equal(wait_over(ws), WS_FAILED);
	assert_string_equal(ws_error(ws), "the server sent a message longer than the limit of 1048576 bytes");
	ws_free(ws);
	stop_server(&s);
}

/* drop_oversized: a message past the limit is dropped, its head and
 * length told, and the link goes on (svc-browser: one page's huge answer
 * must not end every other call's connection). */
static void test_size_dropped(void **state)
{
	struct ws_opts opts = { .max_message = 100000, .drop_oversized = 1 };
	long long deadline;
	struct node_server s;
	struct ws *ws;
	char url[200], err[WS_ERROR_MAX], *m = NULL;
	size_t len, whole;

	(void)state;
	/* At the limit: whole, as without the option. */
	start_server(&s, "big", 0, "100000");
	url_of(url, sizeof url, "ws", "127.0.0.1", &s, "/");
	assert_int_equal(ws_connect(url, &opts, &ws, err, sizeof err), 0);
	deadline = hb_monotonic_ms() + PATIENCE_MS;
	while (!(m = ws_next_message_whole(ws, &len, &whole)) && ws_fd(ws) >= 0 && hb_monotonic_ms() < deadline)
		ws_pump(ws, 50);
	assert_non_null(m);
	assert_int_equal(len, 100000);
	assert_int_equal(whole, 100000);
	assert_int_equal(m[0], 'x');
	free(m);
	expect_echo(ws, "after", 5);
	ws_free(ws);
	stop_server(&s);
	/* One byte over: dropped, its head kept, the link open. */
	start_server(&s, "big", 0, "100001");
	url_of(url, sizeof url, "ws", "127.0.0.1", &s, "/");
	assert_int_equal(ws_connect(url, &opts, &ws, err, sizeof err), 0);
	deadline = hb_monotonic_ms() + PATIENCE_MS;
	while (!(m = ws_next_message_whole(ws, &len, &whole)) && ws_fd(ws) >= 0 && hb_monotonic_ms() < deadline)
		ws_pump(ws, 50);
	assert_non_null(m);
	assert_int_equal(len, WS_DROPPED_HEAD);
	assert_int_equal(whole, 100001);
	assert_int_equal(strspn(m, "x"), WS_DROPPED_HEAD);
	free(m);
	assert_int_equal(ws_state(ws), WS_OPEN);
	/* and messages after it, in fragments, come whole */
	expect_echo(ws, "after the big one", 17);
	close_cleanly(ws);
	ws_free(ws);
	stop_server(&s);
}

static void test_upgrade_timeout(void **state)
{
	struct ws_connect_failure why = { WS_CONNECT_FAILED, -1 };
	struct ws_opts opts = { .timeout_ms = 300, .failure = &why };
	struct node_server s;
	struct ws *ws;
	char url[200], err[WS_ERROR_MAX];

	(void)state;
	start_server(&s, "silent", 0, NULL);
	url_of(url, sizeof url, "ws", "127.0.0.1", &s, "/");
	assert_int_equal(ws_connect(url, &opts, &ws, err, sizeof err), -1);
	assert_null(ws);
	assert_string_equal(err, "no answer to the Upgrade request in time");
	assert_int_equal(why.kind, WS_CONNECT_TIMED_OUT);
	assert_int_equal(why.http_status, 0);
	stop_server(&s);
}

static void test_bad_arguments(void **state)
{
	static const char *const smuggled[] = { "Authorization: Bearer s3cret\r\nX-Evil: 1", NULL };
	static const char *const ours[] = { "Sec-WebSocket-Key: abc", NULL };
	struct ws_opts opts = { .headers = smuggled };
	struct node_server s;
	struct ws *ws;
	char url[200], err[WS_ERROR_MAX];

	(void)state;
	assert_int_equal(ws_connect("http://127.0.0.1:1/", NULL, &ws, err, sizeof err), -1);
	assert_string_equal(err, "not a ws:// or wss:// URL without user name or fragment");
	assert_int_equal(ws_connect("ws://user@127.0.0.1:1/", NULL, &ws, err, sizeof err), -1);
	assert_int_equal(ws_connect("ws://127.0.0.1:1/#x", NULL, &ws, err, sizeof err), -1);
	start_server(&s, "echo", 0, NULL);
	url_of(url, sizeof url, "ws", "127.0.0.1", &s, "/");
	assert_int_equal(ws_connect(url, &opts, &ws, err, sizeof err), -1);
	assert_string_equal(err, "extra request header 1 is not a \"Name: value\" line of its own");
	assert_null(strstr(err, "s3cret"));
	opts.headers = ours;
	assert_int_equal(ws_connect(url, &opts, &ws, err, sizeof err), -1);
	/* Close codes a client may not send, a reason too long. */
	assert_int_equal(ws_connect(url, NULL, &ws, err, sizeof err), 0);
	assert_int_equal(ws_close(ws, 1006, NULL), -1);
	assert_int_equal(ws_close(ws, 2999, NULL), -1);
	assert_int_equal(ws_close(ws, 5000, NULL), -1);
	char reason[WS_REASON_MAX + 2];
	memset(reason, 'r', sizeof reason - 1);
	reason[sizeof reason - 1] = '\0';
	assert_int_equal(ws_close(ws, 1000, reason), -1);
	reason[WS_REASON_MAX] = '\0';
	assert_int_equal(ws_close(ws, 1000, reason), 0);
	assert_int_equal(wait_over(ws), WS_CLOSED);
	assert_int_equal(ws_close_code(ws), 1000);
	assert_string_equal(ws_close_reason(ws), reason);
	ws_free(ws);
	stop_server(&s);
	/* Nobody listening. */
	assert_int_equal(ws_connect(url, NULL, &ws, err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot connect to 127.0.0.1 port "));
	assert_non_null(strstr(err, "Connection refused"));
	ws_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_echo_plain),
		cmocka_unit_test(test_echo_tls),
		cmocka_unit_test(test_tls_refused),
		cmocka_unit_test(test_upgrade_refused),
		cmocka_unit_test(test_server_closes),
		cmocka_unit_test(test_server_ping),
		cmocka_unit_test(test_size_limit),
		cmocka_unit_test(test_size_dropped),
		cmocka_unit_test(test_upgrade_timeout),
		cmocka_unit_test(test_bad_arguments),
	};

	/* Over TLS OpenSSL writes to the socket itself: a peer gone must be
	 * an error, as in the services, not a SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	return ck_run_group_tests(tests, make_certs, remove_certs);
}
