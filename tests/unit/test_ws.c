/*
 * test_ws - the WebSocket client (common/ws.h) against tests/ws/server.mjs,
 * a server with hand-written framing on 127.0.0.1: echo over ws and wss
 * (fragments, multibyte text, a message larger than a socket buffer, an
 * extra header arriving), TLS refused for a host name the certificate does
 * not name and for an unknown CA, a 403 named in the error, a wrong
 * Sec-WebSocket-Accept refused, the server's
 * close code and reason, a server ping answered, the size limit at and
 * past its bound, and an Upgrade never answered ending at the timeout.
 *
 * The certificates are made here, in a temporary folder, by the openssl
 * command: a throwaway CA, a server certificate for "localhost" only, and
 * a second CA that signed nothing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "clock.h"
#include "ws.h"

/* A bound on waiting for what a test expects, so that a broken client
 * fails the test instead of hanging it; never a measure of speed. */
#define PATIENCE_MS 20000

struct server {
	pid_t pid;
	int in_fd, out_fd;
	int port;
};

static char certs[64];

static int run(const char *cmd)
{
	char line[1200];

	snprintf(line, sizeof line, "cd %s && %s >/dev/null 2>&1", certs, cmd);
	return system(line);
}

static int make_certs(void **state)
{
	(void)state;
	snprintf(certs, sizeof certs, "/tmp/test_ws.XXXXXX");
	if (!mkdtemp(certs))
		return -1;
	if (run("printf 'subjectAltName=DNS:localhost\\nbasicConstraints=CA:FALSE\\n' > ext.cnf") != 0 ||
	    run("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key "
		"-out ca.pem -days 2 -subj /CN=hbcode-test-ca") != 0 ||
	    run("openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout server.key "
		"-out server.csr -subj /CN=localhost") != 0 ||
	    run("openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
		"-extfile ext.cnf -out server.pem") != 0 ||
	    run("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout other.key "
		"-out other.pem -days 2 -subj /CN=another-ca") != 0) {
		fprintf(stderr, "test_ws: openssl could not make the test certificates in %s\n", certs);
		return -1;
	}
	return 0;
}

static int remove_certs(void **state)
{
	char cmd[100];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf %s", certs);
	return system(cmd) == 0 ? 0 : -1;
}

static void cert_path(char *out, size_t outlen, const char *name)
{
	snprintf(out, outlen, "%s/%s", certs, name);
}

static int find_script(char *out, size_t outlen)
{
	const char *build = getenv("HB_BUILD");

	snprintf(out, outlen, "%s/../tests/ws/server.mjs", build ? build : "build");
	if (access(out, R_OK) == 0)
		return 0;
	snprintf(out, outlen, "tests/ws/server.mjs");
	return access(out, R_OK);
}

static int read_port(struct server *s)
{
	char line[64];
	size_t n = 0;
	long long deadline = hb_monotonic_ms() + PATIENCE_MS;

	while (n + 1 < sizeof line && hb_monotonic_ms() < deadline) {
		struct pollfd p = { s->out_fd, POLLIN, 0 };

		if (poll(&p, 1, 100) <= 0)
			continue;
		if (read(s->out_fd, line + n, 1) != 1)
			return -1;
		if (line[n] == '\n') {
			line[n] = '\0';
			return sscanf(line, "PORT %d", &s->port) == 1 ? 0 : -1;
		}
		n++;
	}
	return -1;
}

/* node server.mjs --mode mode [--size size] [--cert --key] */
static void start_server(struct server *s, const char *mode, int tls, const char *size)
{
	char script[600], cert[120], key[120];
	const char *argv[12] = { "node", script, "--mode", mode };
	int in[2], out[2], n = 4;

	assert_int_equal(find_script(script, sizeof script), 0);
	cert_path(cert, sizeof cert, "server.pem");
	cert_path(key, sizeof key, "server.key");
	if (size) {
		argv[n++] = "--size";
		argv[n++] = size;
	}
	if (tls) {
		argv[n++] = "--cert";
		argv[n++] = cert;
		argv[n++] = "--key";
		argv[n++] = key;
	}
	argv[n] = NULL;
	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	s->pid = fork();
	assert_true(s->pid >= 0);
	if (s->pid == 0) {
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
			_exit(127);
		close(in[1]);
		close(out[0]);
		execvp("node", (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	s->in_fd = in[1];
	s->out_fd = out[0];
	assert_int_equal(read_port(s), 0);
}

static void stop_server(struct server *s)
{
	int status;

	close(s->in_fd); /* it exits when its stdin ends */
	close(s->out_fd);
	while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
		;
}

static void url_of(char *out, size_t outlen, const char *scheme, const char *host, const struct server *s,
		   const char *path)
{
	snprintf(out, outlen, "%s://%s:%d%s", scheme, host, s->port, path);
}

/* One round of the poll loop a caller runs. */
static void pump(struct ws *ws, int ms)
{
	struct pollfd p = { ws_fd(ws), POLLIN, 0 };

	if (p.fd < 0)
		return;
	if (ws_want_write(ws))
		p.events |= POLLOUT;
	if (poll(&p, 1, ms) <= 0)
		return;
	if (p.revents & (POLLIN | POLLHUP | POLLERR))
		ws_on_readable(ws);
	if ((p.revents & POLLOUT) && ws_fd(ws) >= 0)
		ws_on_writable(ws);
}

static char *wait_message(struct ws *ws, size_t *len)
{
	long long deadline = hb_monotonic_ms() + PATIENCE_MS;
	char *m;

	while (!(m = ws_next_message(ws, len)) && ws_fd(ws) >= 0 && hb_monotonic_ms() < deadline)
		pump(ws, 50);
	return m;
}

static enum ws_state wait_over(struct ws *ws)
{
	long long deadline = hb_monotonic_ms() + PATIENCE_MS;

	while (ws_fd(ws) >= 0 && hb_monotonic_ms() < deadline)
		pump(ws, 50);
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
	struct server s;
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
	assert_int_equal(ws_ping(ws), 0);
	for (long long deadline = hb_monotonic_ms() + PATIENCE_MS; !ws_pongs(ws) && hb_monotonic_ms() < deadline;)
		pump(ws, 50);
	assert_int_equal(ws_pongs(ws), 1);
	close_cleanly(ws);
	ws_free(ws);
	stop_server(&s);
}

static void test_echo_tls(void **state)
{
	struct ws_opts opts = { 0 };
	struct server s;
	struct ws *ws;
	char url[200], ca[120], err[WS_ERROR_MAX];

	(void)state;
	cert_path(ca, sizeof ca, "ca.pem");
	opts.ca_file = ca;
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
	struct server s;
	struct ws *ws = (struct ws *)&opts;
	char url[200], ca[120], err[WS_ERROR_MAX];

	(void)state;
	start_server(&s, "echo", 1, NULL);
	/* The certificate names localhost, not the address. */
	cert_path(ca, sizeof ca, "ca.pem");
	opts.ca_file = ca;
	url_of(url, sizeof url, "wss", "127.0.0.1", &s, "/");
	assert_int_equal(ws_connect(url, &opts, &ws, err, sizeof err), -1);
	assert_null(ws);
	assert_non_null(strstr(err, "the certificate of 127.0.0.1 was refused: "));
	assert_non_null(strstr(err, "mismatch"));
	/* Signed by a CA we were not told to trust, ... */
	cert_path(ca, sizeof ca, "other.pem");
	url_of(url, sizeof url, "wss", "localhost", &s, "/");
	assert_int_equal(ws_connect(url, &opts, &ws, err, sizeof err), -1);
	assert_non_null(strstr(err, "the certificate of localhost was refused: "));
	assert_non_null(strstr(err, "local issuer"));
	/* ... nor found in the system's store. */
	opts.ca_file = NULL;
	assert_int_equal(ws_connect(url, &opts, &ws, err, sizeof err), -1);
	assert_non_null(strstr(err, "the certificate of localhost was refused: "));
	/* And plain ws to a TLS server is no WebSocket either. */
	url_of(url, sizeof url, "ws", "localhost", &s, "/");
	assert_int_equal(ws_connect(url, NULL, &ws, err, sizeof err), -1);
	stop_server(&s);
}

static void test_upgrade_refused(void **state)
{
	struct server s;
	struct ws *ws;
	char url[200], err[WS_ERROR_MAX];

	(void)state;
	start_server(&s, "refuse", 0, NULL);
	url_of(url, sizeof url, "ws", "127.0.0.1", &s, "/");
	assert_int_equal(ws_connect(url, NULL, &ws, err, sizeof err), -1);
	assert_null(ws);
	assert_string_equal(err, "the server refused the WebSocket Upgrade with HTTP status 403 "
				 "(HTTP/1.1 403 Forbidden)");
	stop_server(&s);
	/* A 101 that does not answer our key is no WebSocket server's. */
	start_server(&s, "badaccept", 0, NULL);
	url_of(url, sizeof url, "ws", "127.0.0.1", &s, "/");
	assert_int_equal(ws_connect(url, NULL, &ws, err, sizeof err), -1);
	assert_string_equal(err, "the 101 answer has a wrong or no Sec-WebSocket-Accept");
	stop_server(&s);
}

static void test_server_closes(void **state)
{
	struct server s;
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
	struct server s;
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
	struct server s;
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

static void test_upgrade_timeout(void **state)
{
	struct ws_opts opts = { .timeout_ms = 300 };
	struct server s;
	struct ws *ws;
	char url[200], err[WS_ERROR_MAX];

	(void)state;
	start_server(&s, "silent", 0, NULL);
	url_of(url, sizeof url, "ws", "127.0.0.1", &s, "/");
	assert_int_equal(ws_connect(url, &opts, &ws, err, sizeof err), -1);
	assert_null(ws);
	assert_string_equal(err, "no answer to the Upgrade request in time");
	stop_server(&s);
}

static void test_bad_arguments(void **state)
{
	static const char *const smuggled[] = { "Authorization: Bearer s3cret\r\nX-Evil: 1", NULL };
	static const char *const ours[] = { "Sec-WebSocket-Key: abc", NULL };
	struct ws_opts opts = { .headers = smuggled };
	struct server s;
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
		cmocka_unit_test(test_upgrade_timeout),
		cmocka_unit_test(test_bad_arguments),
	};

	/* Over TLS OpenSSL writes to the socket itself: a peer gone must be
	 * an error, as in the services, not a SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, make_certs, remove_certs);
}
