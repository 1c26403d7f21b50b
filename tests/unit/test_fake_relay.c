/*
 * test_fake_relay - the tests' fake regional relay (tests/fake-relay/
 * relay.mjs) over the real wire, driven by the project's own client: the
 * WebSocket link of ws/ws.h over TLS with a throwaway certificate, the
 * messages of svc-alerts/relay_proto.h.  Shows each mode the svc-alerts tests
 * rely on: accept (hello -> ready, an event -> its ack, recorded without
 * the credential), refuse (error bad-credential, close 1008), stall (no
 * ready, proved by a pong that came after the hello was read) and
 * --cut-after 1 (the second event recorded, its link cut without an ack
 * or a close frame; resent on a new link with the same id, acknowledged
 * and recorded as a duplicate), hold (ready, the event recorded, no ack:
 * proved by a pong that came after the event was read), and a restart as
 * svc-alerts' tests do it: the same --port (the same URL), and with the
 * same --record the ids received before the restart are duplicates.
 *
 * The relay is started by tests/harness/fake_relay with the certificates
 * of tests/harness/tls_fixture (a throwaway CA, a server certificate for
 * localhost).  It listens on 127.0.0.1 only.
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
#include <jansson.h>

#include "clock.h"
#include "../../svc-alerts/relay_proto.h"
#include "ws.h"
#include "../harness/fake_relay.h"
#include "../harness/group.h"
#include "../harness/tls_fixture.h"
#include "../harness/ws_pump.h"

/* A bound on waiting for what a test expects, so that a broken relay
 * fails the test instead of hanging it; never a measure of speed. */
#define PATIENCE_MS 20000

/* The device credential of these tests: it must reach the relay (accept
 * says so) and appear in no record. */
#define CREDENTIAL "dev.T3st-credential_0193a7c2"

struct relay {
	struct fake_relay fake;
	char record[120];
};

static struct tls_fixture tls; /* the certificates, and the folder of the records */
static int records;            /* one record file per relay started afresh */

static int make_certs(void **state)
{
	(void)state;
	return tls_make(&tls, "test_fake_relay", NULL);
}

static int remove_dir(void **state)
{
	(void)state;
	return tls_remove(&tls);
}

/* relay.mjs with mode, on port (0: any), the record file of r, the
 * certificates, CREDENTIAL and --cut-after cut_after (NULL: none). */
static void start_on(struct relay *r, const char *mode, const char *cut_after, int port)
{
	struct fake_relay_opts o = { .mode = mode, .credential = CREDENTIAL, .record = r->record, .port = port,
				     .tls = &tls, .cut_after = cut_after };

	assert_int_equal(fake_relay_start(&r->fake, &o), 0);
}

/* A relay with a record file of its own. */
static void start_relay(struct relay *r, const char *mode, const char *cut_after)
{
	snprintf(r->record, sizeof r->record, "%s/record-%d.jsonl", tls.dir, ++records);
	start_on(r, mode, cut_after, 0);
}

static void stop_relay(struct relay *r)
{
	assert_int_equal(fake_relay_stop(&r->fake), 0);
}

/* Stopped and started again in mode, on the same port and record file. */
static void restart_relay(struct relay *r, const char *mode)
{
	int port = r->fake.node.port;

	stop_relay(r);
	start_on(r, mode, NULL, port);
	assert_int_equal(r->fake.node.port, port);
}

static struct ws *link_up(const struct relay *r)
{
	struct ws_opts opts = { .ca_file = tls.ca };
	struct ws *ws;
	char err[WS_ERROR_MAX];

	if (ws_connect(r->fake.url, &opts, &ws, err, sizeof err) != 0)
		fail_msg("connecting to the fake relay: %s", err);
	assert_int_equal(ws_state(ws), WS_OPEN);
	return ws;
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
		ws_pump(ws, 50);
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
		ws_pump(ws, 50);
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
	char *text = slurp(r->record);
	json_t *all;

	/* The credential is in no record, whole or in a line. */
	assert_null(strstr(text, CREDENTIAL));
	free(text);
	assert_non_null(all = fake_relay_records(r->record));
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
	assert_int_equal(ws_pump_ping(ws, PATIENCE_MS), 0);
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
	 * (ws_pump_ping puts the hello on the wire before the ping.) */
	assert_int_equal(ws_pump_ping(ws, PATIENCE_MS), 0);
	assert_false(ws_want_write(ws));
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

static void test_hold(void **state)
{
	struct hb_relay_msg m;
	struct relay r;
	struct ws *ws;
	json_t *all, *rec;

	(void)state;
	start_relay(&r, "hold", NULL);
	ws = link_up(&r);
	send_hello(ws);
	expect_message(ws, &m);
	assert_int_equal(m.type, HB_RELAY_READY);
	send_event(ws, "alert-h1");
	/* As in test_stall: the pong to a ping sent after the event comes
	 * after any ack of it, so none came. */
	assert_int_equal(ws_pump_ping(ws, PATIENCE_MS), 0);
	assert_null(ws_next_message(ws, NULL));
	assert_int_equal(ws_state(ws), WS_OPEN);

	/* Received all the same. */
	all = records_of(&r);
	rec = record_of(all, "event", 0);
	expect_field(rec, "id", "alert-h1");
	assert_true(json_is_false(json_object_get(rec, "duplicate")));
	json_decref(all);
	ws_free(ws);
	stop_relay(&r);
}

static void test_same_port(void **state)
{
	struct hb_relay_msg m;
	struct relay r;
	struct ws *ws;
	char url[sizeof r.fake.url];
	int port;

	(void)state;
	start_relay(&r, "accept", NULL);
	port = r.fake.node.port;
	snprintf(url, sizeof url, "%s", r.fake.url);
	ws = link_up(&r);
	send_hello(ws);
	expect_message(ws, &m);
	assert_int_equal(m.type, HB_RELAY_READY);
	/* The relay goes away under an open link, as a real one restarting. */
	stop_relay(&r);
	assert_int_equal(until_over(ws), 0);
	ws_free(ws);

	/* Back at the same URL, and a new link to it works. */
	start_on(&r, "accept", NULL, port);
	assert_string_equal(r.fake.url, url);
	ws = link_up(&r);
	send_hello(ws);
	expect_message(ws, &m);
	assert_int_equal(m.type, HB_RELAY_READY);
	send_event(ws, "alert-p1");
	expect_message(ws, &m);
	assert_int_equal(m.type, HB_RELAY_ACK);
	assert_string_equal(m.id, "alert-p1");
	ws_free(ws);
	stop_relay(&r);
}

static void test_restart_keeps_ids(void **state)
{
	struct hb_relay_msg m;
	struct relay r;
	struct ws *ws;
	json_t *all, *rec;

	(void)state;
	/* An alert held, never acknowledged, ... */
	start_relay(&r, "hold", NULL);
	ws = link_up(&r);
	send_hello(ws);
	expect_message(ws, &m);
	assert_int_equal(m.type, HB_RELAY_READY);
	send_event(ws, "alert-k1");
	assert_int_equal(ws_pump_ping(ws, PATIENCE_MS), 0);
	assert_null(ws_next_message(ws, NULL));
	ws_free(ws);

	/* ... is sent again to the relay restarted in accept mode on the same
	 * record: acknowledged, and recorded as the duplicate it is. */
	restart_relay(&r, "accept");
	ws = link_up(&r);
	send_hello(ws);
	expect_message(ws, &m);
	assert_int_equal(m.type, HB_RELAY_READY);
	send_event(ws, "alert-k1");
	expect_message(ws, &m);
	assert_int_equal(m.type, HB_RELAY_ACK);
	assert_string_equal(m.id, "alert-k1");
	send_event(ws, "alert-k2");
	expect_message(ws, &m);
	assert_int_equal(m.type, HB_RELAY_ACK);
	assert_string_equal(m.id, "alert-k2");

	all = records_of(&r);
	rec = record_of(all, "event", 0);
	expect_field(rec, "id", "alert-k1");
	assert_int_equal(json_integer_value(json_object_get(rec, "n")), 1);
	assert_true(json_is_false(json_object_get(rec, "duplicate")));
	rec = record_of(all, "event", 1);
	expect_field(rec, "id", "alert-k1");
	/* Connections go on numbering across the restart. */
	assert_int_equal(json_integer_value(json_object_get(rec, "n")), 2);
	assert_true(json_is_true(json_object_get(rec, "duplicate")));
	rec = record_of(all, "event", 2);
	expect_field(rec, "id", "alert-k2");
	assert_true(json_is_false(json_object_get(rec, "duplicate")));
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
		cmocka_unit_test(test_hold),
		cmocka_unit_test(test_same_port),
		cmocka_unit_test(test_restart_keeps_ids),
	};

	/* Over TLS OpenSSL writes to the socket itself: a peer gone must be
	 * an error, not a SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	return ck_run_group_tests(tests, make_certs, remove_dir);
}
