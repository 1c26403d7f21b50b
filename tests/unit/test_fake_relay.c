/*
 * test_fake_relay - the tests' fake regional relay (tests/fake-relay/
 * relay.mjs) over the real wire, driven by the project's own client: the
 * WebSocket link of common/ws.h over TLS with a throwaway certificate, the
 * messages of common/relay_proto.h.  Shows each mode the svc-alerts tests
 * rely on: accept (hello -> ready, an event -> its ack, recorded without
 * the credential), refuse (error bad-credential, close 1008), stall (no
 * ready, proved by a pong that came after the hello was read) and
 * --cut-after 1 (the second event recorded, its link cut without an ack
 * or a close frame; resent on a new link with the same id, acknowledged
 * and recorded as a duplicate).
 *
 * The certificates are made here, in a temporary folder, by the openssl
 * command (as test_ws does): a CA and a server certificate for localhost.
 * The relay listens on 127.0.0.1 only.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "clock.h"
#include "relay_proto.h"
#include "ws.h"

/* A bound on waiting for what a test expects, so that a broken relay
 * fails the test instead of hanging it; never a measure of speed. */
#define PATIENCE_MS 20000

/* The device credential of these tests: it must reach the relay (accept
 * says so) and appear in no record. */
#define CREDENTIAL "dev.T3st-credential_0193a7c2"

struct relay {
	pid_t pid;
	int in_fd, out_fd;
	int port;
	char record[120];
};

static char dir[64];
static int records; /* one record file per relay started */

static int run(const char *cmd)
{
	char line[1200];

	snprintf(line, sizeof line, "cd %s && %s >/dev/null 2>&1", dir, cmd);
	return system(line);
}

static int make_certs(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/test_fake_relay.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	if (run("printf 'subjectAltName=DNS:localhost\\nbasicConstraints=CA:FALSE\\n' > ext.cnf") != 0 ||
	    run("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key "
		"-out ca.pem -days 2 -subj /CN=hbcode-test-ca") != 0 ||
	    run("openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout server.key "
		"-out server.csr -subj /CN=localhost") != 0 ||
	    run("openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
		"-extfile ext.cnf -out server.pem") != 0) {
		fprintf(stderr, "test_fake_relay: openssl could not make the test certificates in %s\n", dir);
		return -1;
	}
	return 0;
}

static int remove_dir(void **state)
{
	char cmd[100];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int find_script(char *out, size_t outlen)
{
	const char *build = getenv("HB_BUILD");

	snprintf(out, outlen, "%s/../tests/fake-relay/relay.mjs", build ? build : "build");
	if (access(out, R_OK) == 0)
		return 0;
	snprintf(out, outlen, "tests/fake-relay/relay.mjs");
	return access(out, R_OK);
}

static int read_port(struct relay *r)
{
	char line[64];
	size_t n = 0;
	long long deadline = hb_monotonic_ms() + PATIENCE_MS;

	while (n + 1 < sizeof line && hb_monotonic_ms() < deadline) {
		struct pollfd p = { r->out_fd, POLLIN, 0 };

		if (poll(&p, 1, 100) <= 0)
			continue;
		if (read(r->out_fd, line + n, 1) != 1)
			return -1;
		if (line[n] == '\n') {
			line[n] = '\0';
			return sscanf(line, "PORT %d", &r->port) == 1 ? 0 : -1;
		}
		n++;
	}
	return -1;
}

/* node relay.mjs --mode mode --credential CREDENTIAL --record FILE
 * --cert --key [--cut-after cut_after] */
static void start_relay(struct relay *r, const char *mode, const char *cut_after)
{
	char script[600], cert[120], key[120];
	const char *argv[16] = { "node", script, "--mode", mode, "--credential", CREDENTIAL, "--record", r->record,
				 "--cert", cert, "--key", key };
	int in[2], out[2], n = 12;

	assert_int_equal(find_script(script, sizeof script), 0);
	snprintf(cert, sizeof cert, "%s/server.pem", dir);
	snprintf(key, sizeof key, "%s/server.key", dir);
	snprintf(r->record, sizeof r->record, "%s/record-%d.jsonl", dir, ++records);
	if (cut_after) {
		argv[n++] = "--cut-after";
		argv[n++] = cut_after;
	}
	argv[n] = NULL;
	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	r->pid = fork();
	assert_true(r->pid >= 0);
	if (r->pid == 0) {
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
			_exit(127);
		close(in[1]);
		close(out[0]);
		execvp("node", (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	r->in_fd = in[1];
	r->out_fd = out[0];
	assert_int_equal(read_port(r), 0);
}

static void stop_relay(struct relay *r)
{
	int status;

	close(r->in_fd); /* it exits when its stdin ends */
	close(r->out_fd);
	while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR)
		;
}

static struct ws *link_up(const struct relay *r)
{
	struct ws_opts opts = { 0 };
	struct ws *ws;
	char url[100], ca[120], err[WS_ERROR_MAX];

	snprintf(ca, sizeof ca, "%s/ca.pem", dir);
	opts.ca_file = ca;
	snprintf(url, sizeof url, "wss://localhost:%d/device", r->port);
	if (ws_connect(url, &opts, &ws, err, sizeof err) != 0)
		fail_msg("connecting to the fake relay: %s", err);
	assert_int_equal(ws_state(ws), WS_OPEN);
	return ws;
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

static void send_hello(struct ws *ws)
{
	char err[200], *text;

	assert_non_null(text = hb_relay_hello(CREDENTIAL, err, sizeof err));
	assert_int_equal(ws_send_text(ws, text, strlen(text)), 0);
	memset(text, 0, strlen(text));
	free(text);
}

static void send_event(struct ws *ws, const char *id)
{
	struct hb_relay_event ev = { .created_at_ms = 1796141753123LL }; /* 2026-12-01T16:15:53.123Z */
	char err[200], *text;

	snprintf(ev.id, sizeof ev.id, "%s", id);
	snprintf(ev.session_id, sizeof ev.session_id, "7f0c9a52-1b2d-4c3e-8f9a-0b1c2d3e4f5a");
	snprintf(ev.run_id, sizeof ev.run_id, "run-42");
	snprintf(ev.session_title, sizeof ev.session_title, "Fix the \"flaky\" build");
	snprintf(ev.title, sizeof ev.title, "Build fixed \xe2\x9c\x93");
	snprintf(ev.body, sizeof ev.body, "All 212 tests pass.\nThe flaky one was a race.");
	if (!(text = hb_relay_event(&ev, err, sizeof err)))
		fail_msg("building the event: %s", err);
	assert_int_equal(ws_send_text(ws, text, strlen(text)), 0);
	free(text);
}

/* The relay's next message, read by relay_proto; fails the test when the
 * link ends or nothing comes within the patience. */
static void expect_message(struct ws *ws, struct hb_relay_msg *m)
{
	long long deadline = hb_monotonic_ms() + PATIENCE_MS;
	char err[300], *text;
	size_t len;

	while (!(text = ws_next_message(ws, &len)) && ws_fd(ws) >= 0 && hb_monotonic_ms() < deadline)
		pump(ws, 50);
	if (!text)
		fail_msg("no message from the relay (link state %d: %s)", ws_state(ws), ws_error(ws));
	if (hb_relay_parse(text, len, HB_RELAY_FROM_RELAY, m, err, sizeof err) != 0)
		fail_msg("the relay sent what relay_proto refuses: %s", err);
	free(text);
}

/* Pumps until the link is over; how many messages came meanwhile. */
static int until_over(struct ws *ws)
{
	long long deadline = hb_monotonic_ms() + PATIENCE_MS;
	int messages = 0;
	char *text;

	while (ws_fd(ws) >= 0 && hb_monotonic_ms() < deadline)
		pump(ws, 50);
	while ((text = ws_next_message(ws, NULL))) {
		messages++;
		free(text);
	}
	assert_int_equal(ws_fd(ws), -1);
	return messages;
}

/* The whole record file, NUL-terminated. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	assert_non_null(f);
	assert_non_null(buf = malloc(65536));
	n = fread(buf, 1, 65535, f);
	assert_true(n < 65535);
	buf[n] = '\0';
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* The records of the file as a JSON array (each line must be JSON). */
static json_t *records_of(const struct relay *r)
{
	json_t *all = json_array();
	char *text = slurp(r->record), *line, *save = NULL;

	/* The credential is in no record, whole or in a line. */
	assert_null(strstr(text, CREDENTIAL));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_error_t jerr;
		json_t *rec = json_loads(line, 0, &jerr);

		if (!rec)
			fail_msg("a record line is not JSON: %s", jerr.text);
		assert_int_equal(json_array_append_new(all, rec), 0);
	}
	free(text);
	return all;
}

/* The nth (from 0) record of kind, or NULL. */
static json_t *record_of(json_t *all, const char *kind, int nth)
{
	size_t i;
	json_t *rec;

	json_array_foreach(all, i, rec) {
		const char *k = json_string_value(json_object_get(rec, "kind"));

		if (k && strcmp(k, kind) == 0 && nth-- == 0)
			return rec;
	}
	return NULL;
}

static void expect_field(json_t *rec, const char *name, const char *value)
{
	assert_non_null(rec);
	assert_string_equal(json_string_value(json_object_get(rec, name)), value);
}

static void test_accept(void **state)
{
	struct hb_relay_msg m;
	struct relay r;
	struct ws *ws;
	json_t *all, *rec;

	(void)state;
	start_relay(&r, "accept", NULL);
	ws = link_up(&r);
	send_hello(ws);
	expect_message(ws, &m);
	assert_int_equal(m.type, HB_RELAY_READY);
	assert_int_equal(m.protocol, HB_RELAY_PROTOCOL);
	send_event(ws, "alert-1");
	expect_message(ws, &m);
	assert_int_equal(m.type, HB_RELAY_ACK);
	assert_string_equal(m.id, "alert-1");
	/* A ping of the keep-alive gets its pong. */
	assert_int_equal(ws_ping(ws), 0);
	for (long long deadline = hb_monotonic_ms() + PATIENCE_MS; !ws_pongs(ws) && hb_monotonic_ms() < deadline;)
		pump(ws, 50);
	assert_int_equal(ws_pongs(ws), 1);

	/* The relay records before it answers: the ack means it is written. */
	all = records_of(&r);
	assert_non_null(rec = record_of(all, "hello", 0));
	assert_true(json_is_true(json_object_get(rec, "credentialOk")));
	rec = record_of(all, "event", 0);
	expect_field(rec, "id", "alert-1");
	expect_field(rec, "sessionId", "7f0c9a52-1b2d-4c3e-8f9a-0b1c2d3e4f5a");
	expect_field(rec, "runId", "run-42");
	expect_field(rec, "sessionTitle", "Fix the \"flaky\" build");
	expect_field(rec, "title", "Build fixed \xe2\x9c\x93");
	expect_field(rec, "body", "All 212 tests pass.\nThe flaky one was a race.");
	expect_field(rec, "createdAt", "2026-12-01T16:15:53.123Z");
	assert_true(json_is_false(json_object_get(rec, "duplicate")));
	assert_null(record_of(all, "event", 1));
	json_decref(all);

	assert_int_equal(ws_close(ws, 1000, NULL), 0);
	assert_int_equal(until_over(ws), 0);
	assert_int_equal(ws_state(ws), WS_CLOSED);
	ws_free(ws);
	stop_relay(&r);
}

static void test_refuse(void **state)
{
	struct hb_relay_msg m;
	struct relay r;
	struct ws *ws;
	json_t *all;

	(void)state;
	start_relay(&r, "refuse", NULL);
	ws = link_up(&r);
	send_hello(ws);
	expect_message(ws, &m);
	assert_int_equal(m.type, HB_RELAY_ERROR);
	assert_string_equal(m.code, "bad-credential");
	assert_int_equal(until_over(ws), 0);
	assert_int_equal(ws_close_code(ws), 1008);
	assert_string_equal(ws_close_reason(ws), "bad-credential");
	ws_free(ws);

	all = records_of(&r);
	assert_true(json_is_false(json_object_get(record_of(all, "hello", 0), "credentialOk")));
	expect_field(record_of(all, "refused", 0), "code", "bad-credential");
	json_decref(all);
	stop_relay(&r);
}

static void test_stall(void **state)
{
	struct relay r;
	struct ws *ws;
	json_t *all;

	(void)state;
	start_relay(&r, "stall", NULL);
	ws = link_up(&r);
	send_hello(ws);
	/* The relay reads frames in order and answers each at once: the pong
	 * to a ping sent after the hello comes after any answer to the hello.
	 * So no message once the pong is in means no ready, with no timing.
	 * The hello must be on the wire first: wslay sends a queued ping
	 * ahead of queued messages. */
	for (long long deadline = hb_monotonic_ms() + PATIENCE_MS; ws_want_write(ws) && hb_monotonic_ms() < deadline;)
		pump(ws, 50);
	assert_false(ws_want_write(ws));
	assert_int_equal(ws_ping(ws), 0);
	for (long long deadline = hb_monotonic_ms() + PATIENCE_MS; !ws_pongs(ws) && hb_monotonic_ms() < deadline;)
		pump(ws, 50);
	assert_int_equal(ws_pongs(ws), 1);
	assert_null(ws_next_message(ws, NULL));
	assert_int_equal(ws_state(ws), WS_OPEN);

	/* And the hello did arrive, with the right credential. */
	all = records_of(&r);
	assert_true(json_is_true(json_object_get(record_of(all, "hello", 0), "credentialOk")));
	json_decref(all);
	ws_free(ws);
	stop_relay(&r);
}

static void test_cut_after(void **state)
{
	struct hb_relay_msg m;
	struct relay r;
	struct ws *ws;
	json_t *all, *rec;

	(void)state;
	start_relay(&r, "accept", "1");
	ws = link_up(&r);
	send_hello(ws);
	expect_message(ws, &m);
	assert_int_equal(m.type, HB_RELAY_READY);
	send_event(ws, "alert-1");
	expect_message(ws, &m);
	assert_int_equal(m.type, HB_RELAY_ACK);
	assert_string_equal(m.id, "alert-1");
	/* The second event: the link ends with no ack and no close frame. */
	send_event(ws, "alert-2");
	assert_int_equal(until_over(ws), 0);
	assert_int_equal(ws_state(ws), WS_FAILED);
	assert_int_equal(ws_close_code(ws), 0);
	ws_free(ws);

	/* It was received all the same; sent again on a new link with the
	 * same id it is acknowledged and recorded as a repeat. */
	ws = link_up(&r);
	send_hello(ws);
	expect_message(ws, &m);
	assert_int_equal(m.type, HB_RELAY_READY);
	send_event(ws, "alert-2");
	expect_message(ws, &m);
	assert_int_equal(m.type, HB_RELAY_ACK);
	assert_string_equal(m.id, "alert-2");

	all = records_of(&r);
	rec = record_of(all, "event", 1);
	expect_field(rec, "id", "alert-2");
	assert_int_equal(json_integer_value(json_object_get(rec, "n")), 1);
	assert_true(json_is_false(json_object_get(rec, "duplicate")));
	assert_non_null(record_of(all, "closed", 0)); /* the first link's end */
	rec = record_of(all, "event", 2);
	expect_field(rec, "id", "alert-2");
	assert_int_equal(json_integer_value(json_object_get(rec, "n")), 2);
	assert_true(json_is_true(json_object_get(rec, "duplicate")));
	json_decref(all);
	ws_free(ws);
	stop_relay(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accept),
		cmocka_unit_test(test_refuse),
		cmocka_unit_test(test_stall),
		cmocka_unit_test(test_cut_after),
	};

	/* Over TLS OpenSSL writes to the socket itself: a peer gone must be
	 * an error, not a SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, make_certs, remove_dir);
}
