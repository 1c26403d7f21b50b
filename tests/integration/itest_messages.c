/*
 * itest_messages - send_session_message through the real hb-broker,
 * svc-sessions and svc-messages, with appdata.db in a temporary HB_HOME.
 *
 * Sessions of different access levels and projects; the test plays the
 * desktop (runs, hbctl's front ops) and, for delivery, a bridge: it
 * attaches for a session on the front socket as hb-codex-bridge and
 * hb-claude-bridge do and answers `deliver` with `deliver.done` (the real
 * bridges with the real agents are tests/e2e/messages-*.sh).  Covers the
 * refusals, the receipts, one row per call, the hold rules at arrival and
 * again at delivery (with the access of the recipient's running turn),
 * the envelope byte for byte, the user's send and discard, the timeline
 * events of both ends, a SIGKILL of svc-messages after the broker
 * handed a message to the bridge (asked again, marked sent once), and an
 * `unconfirmed` outcome (held for the user, never asked again without
 * them, carried in again after hbctl messages send), and the order of a
 * row's events when the outbox runs while the handler still answers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include "../harness/group.h"
#include "../harness/harness.h"
#include "client.h"
#include "envelope.h"
#include "paths.h"
#include "sock.h"

#define FIRST_LINE                                                                                        \
	"Message from another HB Code session. Answer this message in one of three ways: do it, ask one " \
	"question, or object with the reason."

static struct fixture F;
static struct hb_client desk;           /* the desktop's connection */
static void *zctx, *events;             /* timeline events */
static char failpoints[300];
/* Sessions: A sends (codex, /pa, full-auto, run "run-a"); the others
 * receive. */
static char A[64], B[64], C[64], D[64], E[64], G[64], H[64], K[64], M[64], N[64];

static int64_t checked(int64_t id)
{
	if (id < 0)
		fail_msg("a request could not be sent");
	return id;
}

/* The reply to request id on c; unsolicited `deliver`s are skipped. */
static void reply_to(struct hb_client *c, int64_t id, struct hb_env *reply)
{
	char err[256];

	for (;;) {
		int64_t got = -1;
		if (hb_client_recv(c, reply, 15000, err, sizeof err) < 0)
			fail_msg("no reply: %s", err);
		hb_env_int(reply, "id", &got);
		if (got == id && strcmp(hb_env_str_or(reply, "op", ""), "reply") == 0)
			return;
		hb_env_free(reply);
	}
}

static void op_ok(struct hb_client *c, struct hb_env *reply, int64_t id)
{
	reply_to(c, id, reply);
	if (!hb_env_bool(reply, "ok", 0))
		fail_msg("refused: %s", hb_env_str_or(reply, "err.msg", "?"));
}

static void create_session(char *out, const char *title, const char *agent, const char *project, const char *access)
{
	char json[512], *text = NULL;
	int ok = 0;
	json_t *row;

	snprintf(json, sizeof json,
		 "{\"action\":\"create\",\"title\":\"%s\",\"agent\":\"%s\",\"projectPath\":\"%s\",\"accessLevel\":\"%s\"}",
		 title, agent, project, access);
	assert_int_equal(fx_call(&F, "manage_sessions", json, &ok, &text), 0);
	if (!ok)
		fail_msg("create: %s", text);
	row = json_loads(text, 0, NULL);
	snprintf(out, 64, "%s", json_string_value(json_object_get(row, "id")));
	json_decref(row);
	free(text);
}

static void open_run(const char *run, const char *session, const char *project, const char *access)
{
	assert_int_equal(fx_open_run(&desk, run, session, project, "codex", access), 0);
}

/* send_session_message from run-a with call id; returns ok, *text set. */
static int send_msg(const char *call_id, const char *to, const char *message, char **text)
{
	json_t *args = json_pack("{s:s, s:s}", "recipientSessionId", to, "message", message);
	char *json = json_dumps(args, JSON_COMPACT);
	struct hb_env r;
	int ok;

	json_decref(args);
	reply_to(&desk, checked(fx_send_op(&desk, "call", "tool", "send_session_message", "json", json, "run", "run-a",
					   "call_id", call_id, (char *)NULL)),
		 &r);
	free(json);
	ok = hb_env_bool(&r, "ok", 0);
	*text = strdup(hb_env_str_or(&r, "text", hb_env_str_or(&r, "err.msg", "")));
	hb_env_free(&r);
	return ok;
}

static void expect_refused(const char *call_id, const char *to, const char *message, const char *words)
{
	char *text = NULL;

	if (send_msg(call_id, to, message, &text))
		fail_msg("accepted: %s", text);
	if (!strstr(text, words))
		fail_msg("\"%s\" does not say \"%s\"", text, words);
	free(text);
}

/* The receipt's first word; the op id (session-message-N) into op. */
static void expect_receipt(const char *call_id, const char *to, const char *message, const char *status, char op[48])
{
	char *text = NULL;
	const char *p;

	if (!send_msg(call_id, to, message, &text))
		fail_msg("refused: %s", text);
	if (strncmp(text, status, strlen(status)) != 0 || text[strlen(status)] != ':')
		fail_msg("receipt \"%s\" is not %s", text, status);
	assert_non_null(strstr(text, "Do not wait or poll for an answer"));
	if (op) {
		assert_non_null(p = strstr(text, "session-message-"));
		snprintf(op, 48, "%.*s", (int)strspn(p, "session-mag0123456789"), p);
	}
	free(text);
}

/* The messages.list answer for session ("" for all). */
static json_t *queue_of(const char *session)
{
	struct hb_env r;
	json_t *list;

	op_ok(&desk, &r, checked(fx_send_op(&desk, "messages.list", "session", session, (char *)NULL)));
	list = json_loads(hb_env_str_or(&r, "json", ""), 0, NULL);
	hb_env_free(&r);
	assert_non_null(list);
	return list;
}

static const char *status_in_queue(json_t *list, const char *op)
{
	size_t i;
	json_t *m;

	json_array_foreach(json_object_get(list, "messages"), i, m)
		if (strcmp(json_string_value(json_object_get(m, "id")), op) == 0)
			return json_string_value(json_object_get(m, "status"));
	return NULL;
}

/* The next timeline event whose row is row (others are skipped). */
/* The next event within poll_ms (its topic in t), or NULL. */
static json_t *next_event(char t[64], int poll_ms)
{
	zmq_pollitem_t it = { events, 0, ZMQ_POLLIN, 0 };
	char err[256];
	struct hb_env e;
	json_t *body;
	int n;

	if (zmq_poll(&it, 1, poll_ms) <= 0)
		return NULL;
	if ((n = zmq_recv(events, t, 63, 0)) < 0 || hb_recv_env(events, &e, err, sizeof err) != 1)
		return NULL;
	t[n < 63 ? n : 63] = '\0';
	body = json_loads(hb_env_str_or(&e, "json", ""), 0, NULL);
	hb_env_free(&e);
	return body;
}

static int is_row(const char *t, const json_t *body, const char *topic, const char *row)
{
	return body && strcmp(t, topic) == 0 && strcmp(json_string_value(json_object_get(body, "row")), row) == 0;
}

static json_t *event_for(const char *topic, const char *row)
{
	long long end = fx_now_ms() + 15000;

	while (fx_now_ms() < end) {
		char t[64];
		json_t *body = next_event(t, 200);

		if (is_row(t, body, topic, row))
			return body;
		json_decref(body);
	}
	fail_msg("no %s event for row %s", topic, row);
	return NULL;
}

/* A bridge: attach for session on its own connection. */
static void bridge_attach(struct hb_client *br, const char *session, const char *agent)
{
	struct hb_env r;

	assert_int_equal(fx_client(&F, br, 15000), 0);
	op_ok(br, &r, checked(fx_send_op(br, "session.attach", "session", session, "agent", agent, (char *)NULL)));
	hb_env_free(&r);
}

/* The next `deliver` the bridge gets (replies are skipped). */
static void next_delivery(struct hb_client *br, struct hb_env *d)
{
	char err[256];

	for (;;) {
		if (hb_client_recv(br, d, 15000, err, sizeof err) < 0)
			fail_msg("no delivery: %s", err);
		if (strcmp(hb_env_str_or(d, "op", ""), "deliver") == 0)
			return;
		hb_env_free(d);
	}
}

/* deliver.done for op: ok, or else with status and text; turn as it
 * came (a bridge that proved nothing names none). */
static void bridge_report(struct hb_client *br, const char *op, int ok, const char *status, const char *turn,
			  const char *text)
{
	struct hb_env req, r;
	char err[256];
	int64_t id;

	hb_env_init(&req);
	hb_env_set_str(&req, "op", "deliver.done");
	hb_env_set_str(&req, "opId", op);
	hb_env_set_bool(&req, "ok", ok);
	if (status)
		hb_env_set_str(&req, "status", status);
	hb_env_set_str(&req, "turn", turn);
	if (text)
		hb_env_set_str(&req, "text", text);
	if (hb_client_send(br, &req, &id, err, sizeof err) < 0)
		fail_msg("deliver.done: %s", err);
	op_ok(br, &r, id);
	hb_env_free(&r);
}

static void bridge_done(struct hb_client *br, const char *op, const char *turn)
{
	bridge_report(br, op, 1, NULL, turn, NULL);
}

/* deliver.done with status "unconfirmed": it went in, no read found it. */
static void bridge_unconfirmed(struct hb_client *br, const char *op, const char *why)
{
	bridge_report(br, op, 0, "unconfirmed", "", why);
}

static int setup(void **state)
{
	static const char *env[3];
	char ep[HB_PATH_MAX + 8], err[256], attach_ttl[] = "HB_ATTACH_TTL_MS=600000";
	static char fp_env[320];
	/* The two services exactly as deploy/services.conf runs them. */
	char *conf = fx_deployed_config(NULL, "svc-sessions", "svc-messages", (char *)NULL);
	struct hb_paths p;
	int rc;

	(void)state;
	snprintf(failpoints, sizeof failpoints, "/tmp/itest_messages_fp.%ld", (long)getpid());
	mkdir(failpoints, 0700);
	snprintf(fp_env, sizeof fp_env, "HB_FAILPOINTS=%s", failpoints);
	env[0] = strdup(attach_ttl); /* the test's bridges attach once */
	env[1] = fp_env;
	env[2] = NULL;
	rc = conf ? fx_start(&F, conf, env) : -1;
	free(conf);
	free((char *)env[0]);
	if (rc < 0)
		return -1;
	fx_use_env(&F);
	if (fx_client(&F, &desk, 15000) < 0 || hb_paths_resolve(&p, err, sizeof err) < 0 ||
	    hb_ipc_endpoint(ep, sizeof ep, &p, "events.sock") < 0)
		return -1;
	zctx = zmq_ctx_new();
	events = hb_sock_sub(zctx, "timeline.");
	if (!events || zmq_connect(events, ep) < 0)
		return -1;
	fx_sleep_ms(200); /* the subscription reaches the broker */
	create_session(A, "Alpha", "codex", "/tmp/pa", "full-auto");
	create_session(B, "Be \\\"ta\\\" & <co>", "claude", "/tmp/pa", "read-only");
	create_session(C, "Gamma", "codex", "/tmp/pb", "full-auto");
	create_session(D, "Delta", "codex", "/tmp/pa", "unrestricted");
	create_session(E, "Epsilon", "codex", "/tmp/pa", "full-auto");
	create_session(G, "Eta", "codex", "/tmp/pb", "read-only");
	create_session(H, "Theta", "codex", "/tmp/pa", "full-auto");
	create_session(K, "Kappa", "claude", "/tmp/pa", "full-auto");
	create_session(M, "Mu", "codex", "/tmp/pa", "full-auto");
	create_session(N, "Nu", "codex", "/tmp/pa", "full-auto");
	open_run("run-a", A, "/tmp/pa", "full-auto");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	zmq_close(events);
	zmq_ctx_term(zctx);
	hb_client_close(&desk);
	rmdir(failpoints);
	return fx_stop_clean(&F);
}

/* ---- tests ----------------------------------------------------------------- */

static void test_refused_before_anything_is_queued(void **state)
{
	char *text = NULL;
	int ok = 1;
	json_t *before, *after;

	(void)state;
	before = queue_of("");
	expect_refused("r1", B, "", "The message is empty");
	expect_refused("r2", B, " \n\t", "The message is empty");
	expect_refused("r3", A, "hi", "cannot send a message to itself");
	expect_refused("r4", "s-0000000000000000", "hi", "There is no session \"s-0000000000000000\"");
	/* not through its run: no active run */
	assert_int_equal(fx_call(&F, "send_session_message", "{\"recipientSessionId\":\"s-x\",\"message\":\"hi\"}", &ok,
				 &text),
			 0);
	assert_false(ok);
	assert_non_null(strstr(text, "has no active run"));
	free(text);
	/* unknown fields are refused, sessionId too */
	{
		struct hb_env r;
		reply_to(&desk,
			 checked(fx_send_op(&desk, "call", "tool", "send_session_message", "json",
					    "{\"recipientSessionId\":\"x\",\"message\":\"m\",\"sessionId\":\"y\"}", "run", "run-a",
					    "call_id", "r5", (char *)NULL)),
			 &r);
		assert_false(hb_env_bool(&r, "ok", 1));
		assert_non_null(strstr(hb_env_str_or(&r, "text", ""), "unknown field \"sessionId\""));
		hb_env_free(&r);
		/* a run that is not open binds nothing */
		reply_to(&desk,
			 checked(fx_send_op(&desk, "call", "tool", "send_session_message", "json",
					    "{\"recipientSessionId\":\"x\",\"message\":\"m\"}", "run", "run-none", "call_id", "r6",
					    (char *)NULL)),
			 &r);
		assert_false(hb_env_bool(&r, "ok", 1));
		assert_non_null(strstr(hb_env_str_or(&r, "err.msg", ""), "\"run-none\" is not an open run"));
		hb_env_free(&r);
	}
	/* a client request id may not be a session message's operation id */
	{
		char ep[HB_PATH_MAX + 8], err[256];
		struct hb_paths p;
		struct hb_env req, r;
		void *raw = hb_sock_dealer(zctx, NULL, 0, 5000);
		assert_int_equal(hb_paths_resolve(&p, err, sizeof err), 0);
		assert_int_equal(hb_ipc_endpoint(ep, sizeof ep, &p, "front.sock"), 0);
		assert_int_equal(zmq_connect(raw, ep), 0);
		hb_env_init(&req);
		hb_env_set_str(&req, "op", "hello");
		hb_env_set_str(&req, "id", "session-message-9");
		zmq_pollitem_t it = { raw, 0, ZMQ_POLLIN, 0 };
		int got;
		assert_int_equal(hb_send_env(raw, NULL, &req), 0);
		got = zmq_poll(&it, 1, 15000) == 1 && hb_recv_env(raw, &r, err, sizeof err) == 1;
		zmq_close(raw);
		assert_true(got);
		assert_false(hb_env_bool(&r, "ok", 1));
		assert_non_null(strstr(hb_env_str_or(&r, "err.msg", ""), "are reserved"));
		hb_env_free(&r);
	}
	after = queue_of("");
	assert_int_equal(json_array_size(json_object_get(after, "messages")),
			 json_array_size(json_object_get(before, "messages")));
	json_decref(before);
	json_decref(after);
}

static void test_receipts_and_one_row_per_call(void **state)
{
	char op[48], op2[48], op3[48];
	json_t *q, *ev;

	(void)state;
	expect_receipt("q1", B, "read this", "queued", op);
	ev = event_for("timeline.message", "q1");
	assert_string_equal(json_string_value(json_object_get(ev, "session")), A);
	assert_string_equal(json_string_value(json_object_get(ev, "title")), "Message to Be \"ta\" & <co>");
	assert_string_equal(json_string_value(json_object_get(ev, "signal")), "Sent");
	assert_null(json_object_get(ev, "link")); /* not delivered yet */
	json_decref(ev);
	/* the same call again: already-sent, and still one message */
	expect_receipt("q1", B, "read this", "already-sent", op2);
	assert_string_equal(op, op2);
	/* the same call id naming a second recipient */
	expect_refused("q1", E, "read this", "one call cannot name a second recipient");
	q = queue_of(B);
	assert_string_equal(status_in_queue(q, op), "queued");
	assert_int_equal(json_array_size(json_object_get(q, "messages")), 1);
	json_decref(q);
	/* hold: more access (D unrestricted > full auto), another project (C) */
	expect_receipt("h1", D, "more access", "waiting-for-approval", op2);
	expect_receipt("h2", C, "other project", "waiting-for-approval", op3);
	ev = event_for("timeline.message", "h2");
	assert_string_equal(json_string_value(json_object_get(ev, "signal")), "Needs approval");
	assert_non_null(strstr(json_string_value(json_object_get(ev, "reason")), "another project (/tmp/pb)"));
	json_decref(ev);
	/* a read-only recipient in another project may be written to */
	expect_receipt("h3", G, "read-only there", "queued", NULL);
	q = queue_of("");
	assert_string_equal(status_in_queue(q, op2), "waiting-for-approval");
	assert_string_equal(status_in_queue(q, op3), "waiting-for-approval");
	json_decref(q);
}

static void test_delivery_envelope_and_links(void **state)
{
	struct hb_client br;
	struct hb_env d;
	char op[48], expect[1024];
	json_t *q, *ev;

	(void)state;
	expect_receipt("d1", B, "Please check <this> & \"that\".", "queued", op);
	bridge_attach(&br, B, "claude");
	/* the earlier queued message to B comes first: the outbox is in order */
	for (;;) {
		next_delivery(&br, &d);
		if (strcmp(hb_env_str_or(&d, "opId", ""), op) == 0)
			break;
		bridge_done(&br, hb_env_str_or(&d, "opId", ""), "earlier");
		hb_env_free(&d);
	}
	snprintf(expect, sizeof expect,
		 FIRST_LINE "\n<session_message from_session_id=\"%s\" from_title=\"Alpha\" from_agent=\"codex\">\n"
			    "Please check <this> & \"that\".\n</session_message>",
		 A);
	assert_string_equal(hb_env_str_or(&d, "text", ""), expect);
	assert_string_equal(hb_env_str_or(&d, "session", ""), B);
	assert_string_equal(hb_env_str_or(&d, "access", ""), "read-only");
	hb_env_free(&d);
	bridge_done(&br, op, "turn-9");
	ev = event_for("timeline.user", op);
	assert_string_equal(json_string_value(json_object_get(ev, "session")), B);
	assert_string_equal(json_string_value(json_object_get(ev, "text")), expect);
	assert_string_equal(json_string_value(json_object_get(json_object_get(ev, "link"), "session")), A);
	assert_string_equal(json_string_value(json_object_get(json_object_get(ev, "link"), "row")), "d1");
	json_decref(ev);
	ev = event_for("timeline.message", "d1");
	assert_string_equal(json_string_value(json_object_get(ev, "signal")), "Sent");
	assert_string_equal(json_string_value(json_object_get(json_object_get(ev, "link"), "session")), B);
	assert_string_equal(json_string_value(json_object_get(json_object_get(ev, "link"), "row")), op);
	json_decref(ev);
	q = queue_of(B);
	assert_null(status_in_queue(q, op));
	json_decref(q);
	/* a repeat of that call now: already-sent, status sent */
	{
		char *text = NULL;
		assert_true(send_msg("d1", B, "again", &text));
		assert_non_null(strstr(text, "already-sent"));
		assert_non_null(strstr(text, "(now sent)"));
		free(text);
	}
	/* deliver.done from a connection that attached nothing is refused */
	{
		struct hb_env req, r;
		char err[256];
		int64_t id;
		hb_env_init(&req);
		hb_env_set_str(&req, "op", "deliver.done");
		hb_env_set_str(&req, "opId", op);
		hb_env_set_bool(&req, "ok", 1);
		if (hb_client_send(&desk, &req, &id, err, sizeof err) < 0)
			fail_msg("deliver.done: %s", err);
		reply_to(&desk, id, &r);
		assert_false(hb_env_bool(&r, "ok", 1));
		assert_string_equal(hb_env_str_or(&r, "err.code", ""), "bad-request");
		hb_env_free(&r);
	}
	hb_client_close(&br);
}

/* The rules again at delivery: E was full auto when the message arrived;
 * its running turn is unrestricted when the bridge is there. */
static void test_hold_again_at_delivery_then_user_sends(void **state)
{
	struct hb_client br;
	struct hb_env d, r;
	char op[48];
	json_t *q, *ev;

	(void)state;
	open_run("run-e", E, "/tmp/pa", "unrestricted");
	expect_receipt("e1", E, "for epsilon", "queued", op);
	bridge_attach(&br, E, "codex");
	ev = event_for("timeline.message", "e1"); /* the receipt's row */
	json_decref(ev);
	ev = event_for("timeline.message", "e1"); /* held at delivery */
	assert_string_equal(json_string_value(json_object_get(ev, "signal")), "Needs approval");
	assert_non_null(strstr(json_string_value(json_object_get(ev, "reason")), "unrestricted access, more than"));
	json_decref(ev);
	q = queue_of(E);
	assert_string_equal(status_in_queue(q, op), "waiting-for-approval");
	json_decref(q);
	/* the user sends it: delivered with the turn's access, despite the rule */
	op_ok(&desk, &r, checked(fx_send_op(&desk, "messages.send", "message", op, (char *)NULL)));
	hb_env_free(&r);
	next_delivery(&br, &d);
	assert_string_equal(hb_env_str_or(&d, "opId", ""), op);
	assert_string_equal(hb_env_str_or(&d, "access", ""), "unrestricted");
	hb_env_free(&d);
	bridge_done(&br, op, "turn-e");
	ev = event_for("timeline.message", "e1");
	while (strcmp(json_string_value(json_object_get(ev, "signal")), "Sent") != 0 || !json_object_get(ev, "link")) {
		json_decref(ev);
		ev = event_for("timeline.message", "e1");
	}
	json_decref(ev);
	/* sent twice by hand: refused */
	reply_to(&desk, checked(fx_send_op(&desk, "messages.send", "message", op, (char *)NULL)), &r);
	assert_false(hb_env_bool(&r, "ok", 1));
	assert_non_null(strstr(hb_env_str_or(&r, "err.msg", ""), "was sent already"));
	hb_env_free(&r);
	op_ok(&desk, &r, checked(fx_send_op(&desk, "run.close", "run", "run-e", (char *)NULL)));
	hb_env_free(&r);
	hb_client_close(&br);
}

static void test_discarded_is_never_sent(void **state)
{
	struct hb_client br;
	struct hb_env r, d;
	char op[48], err[256];
	json_t *ev;

	(void)state;
	expect_receipt("x1", D, "never", "waiting-for-approval", op);
	op_ok(&desk, &r, checked(fx_send_op(&desk, "messages.discard", "message", op, (char *)NULL)));
	assert_non_null(strstr(hb_env_str_or(&r, "json", ""), "\"status\":\"discarded\""));
	hb_env_free(&r);
	ev = event_for("timeline.message", "x1");
	while (strcmp(json_string_value(json_object_get(ev, "signal")), "Not sent") != 0) {
		json_decref(ev);
		ev = event_for("timeline.message", "x1");
	}
	json_decref(ev);
	/* D's bridge gets D's other held message only after the user sends it;
	 * the discarded one never: the first delivery is h1's. */
	bridge_attach(&br, D, "codex");
	{
		json_t *q = queue_of(D);
		json_t *m = json_array_get(json_object_get(q, "messages"), 0);
		assert_int_equal(json_array_size(json_object_get(q, "messages")), 1);
		op_ok(&desk, &r, checked(fx_send_op(&desk, "messages.send", "message",
						    json_string_value(json_object_get(m, "id")), (char *)NULL)));
		hb_env_free(&r);
		next_delivery(&br, &d);
		assert_string_equal(hb_env_str_or(&d, "opId", ""), json_string_value(json_object_get(m, "id")));
		hb_env_free(&d);
		json_decref(q);
	}
	/* and nothing else comes */
	assert_int_equal(hb_client_recv(&br, &d, 1500, err, sizeof err), -1);
	hb_client_close(&br);
}

/* SIGKILL of svc-messages right after the broker handed the message to
 * the bridge: the new svc-messages asks again (same operation id), the
 * bridge answers the repeat, and the message is sent once. */
static void test_killed_after_accept_asks_again(void **state)
{
	struct hb_client br;
	struct hb_env d;
	char op[48], fp[400];
	long long gen = fx_service_num(&F, "svc-messages", "generation");
	int fd, sent = 0;
	json_t *ev;

	(void)state;
	expect_receipt("k1", G, "survive", "queued", op);
	snprintf(fp, sizeof fp, "%s/messages.after-accept", failpoints);
	assert_true((fd = open(fp, O_CREAT | O_WRONLY, 0600)) >= 0);
	close(fd);
	bridge_attach(&br, G, "codex");
	next_delivery(&br, &d);
	/* h3 (queued earlier for G) may come first; find ours */
	while (strcmp(hb_env_str_or(&d, "opId", ""), op) != 0) {
		bridge_done(&br, hb_env_str_or(&d, "opId", ""), "t");
		hb_env_free(&d);
		next_delivery(&br, &d);
	}
	hb_env_free(&d);
	assert_int_equal(fx_wait_up(&F, "svc-messages", gen + 1, 15000), 0);
	assert_int_equal(access(fp, F_OK), -1); /* the failpoint fired */
	/* asked again by the new incarnation */
	next_delivery(&br, &d);
	while (strcmp(hb_env_str_or(&d, "opId", ""), op) != 0) {
		hb_env_free(&d);
		next_delivery(&br, &d);
	}
	hb_env_free(&d);
	bridge_done(&br, op, "turn-k");
	bridge_done(&br, op, "turn-k"); /* a bridge's repeat answer changes nothing */
	while (!sent) {
		ev = event_for("timeline.message", "k1");
		sent = json_object_get(ev, "link") != NULL;
		json_decref(ev);
	}
	{
		json_t *q = queue_of(G);
		assert_null(status_in_queue(q, op));
		json_decref(q);
	}
	hb_client_close(&br);
}

/* A bridge took a message but its outcome was lost; meanwhile the
 * recipient's turn got more access.  Asked again, the message is not held:
 * it passed the rules when the bridge took it, and may be in the agent. */
static void test_handed_message_is_not_held_again(void **state)
{
	struct hb_client br;
	struct hb_env d, r;
	char op[48];
	json_t *ev;
	int sent = 0;

	(void)state;
	bridge_attach(&br, H, "codex");
	expect_receipt("t1", H, "taken once", "queued", op);
	next_delivery(&br, &d);
	assert_string_equal(hb_env_str_or(&d, "opId", ""), op);
	hb_env_free(&d);
	/* no outcome; H's turn is now unrestricted, above the sender's */
	open_run("run-h", H, "/tmp/pa", "unrestricted");
	next_delivery(&br, &d); /* asked again, not held */
	assert_string_equal(hb_env_str_or(&d, "opId", ""), op);
	hb_env_free(&d);
	bridge_done(&br, op, "turn-t");
	while (!sent) {
		ev = event_for("timeline.message", "t1");
		sent = json_object_get(ev, "link") != NULL;
		json_decref(ev);
	}
	op_ok(&desk, &r, checked(fx_send_op(&desk, "run.close", "run", "run-h", (char *)NULL)));
	hb_env_free(&r);
	hb_client_close(&br);
}

/* Page 003: a message that no transcript read finds is never sent again
 * automatically.  The bridge reports it unconfirmed: svc-messages holds
 * it with a reason for the user (not asked for again: the bridge gets
 * nothing more), and the user's send hands it once more, as handed (the
 * bridge looks in the transcript first). */
static void test_unconfirmed_waits_for_the_user(void **state)
{
	struct hb_client br;
	struct hb_env d, r;
	char op[48], err[256];
	const char *reason;
	json_t *q, *ev, *m;
	size_t i;

	(void)state;
	bridge_attach(&br, K, "claude");
	expect_receipt("u1", K, "maybe lost", "queued", op);
	next_delivery(&br, &d);
	assert_string_equal(hb_env_str_or(&d, "opId", ""), op);
	assert_false(hb_env_bool(&d, "handed", 1));
	hb_env_free(&d);
	bridge_unconfirmed(&br, op, "the agent host ended before a read of the transcript");
	ev = event_for("timeline.message", "u1"); /* the receipt's row */
	while (strcmp(json_string_value(json_object_get(ev, "signal")), "Needs approval") != 0) {
		json_decref(ev);
		ev = event_for("timeline.message", "u1");
	}
	assert_non_null(strstr(json_string_value(json_object_get(ev, "reason")), "it may not have reached Claude"));
	assert_null(json_object_get(ev, "link"));
	json_decref(ev);
	q = queue_of(K);
	assert_string_equal(status_in_queue(q, op), "waiting-for-approval");
	json_array_foreach(json_object_get(q, "messages"), i, m)
		if (strcmp(json_string_value(json_object_get(m, "id")), op) == 0) {
			reason = json_string_value(json_object_get(m, "holdReason"));
			assert_non_null(strstr(reason, "no transcript read found it afterwards (the agent host ended"));
			assert_non_null(strstr(reason, "Send it again with hbctl messages send session-message-"));
		}
	json_decref(q);
	/* never asked for again on its own (the recheck is 5 s) */
	assert_int_equal(hb_client_recv(&br, &d, 7000, err, sizeof err), -1);
	/* the user sends it: handed to the bridge once more, as handed */
	op_ok(&desk, &r, checked(fx_send_op(&desk, "messages.send", "message", op, (char *)NULL)));
	hb_env_free(&r);
	next_delivery(&br, &d);
	assert_string_equal(hb_env_str_or(&d, "opId", ""), op);
	assert_true(hb_env_bool(&d, "handed", 0));
	hb_env_free(&d);
	bridge_done(&br, op, "5d0c0000-0000-8000-8000-000000000000");
	ev = event_for("timeline.message", "u1");
	while (strcmp(json_string_value(json_object_get(ev, "signal")), "Sent") != 0 || !json_object_get(ev, "link")) {
		json_decref(ev);
		ev = event_for("timeline.message", "u1");
	}
	json_decref(ev);
	q = queue_of(K);
	assert_null(status_in_queue(q, op));
	json_decref(q);
	hb_client_close(&br);
}

/* A holdpoint of svc-messages (hb_holdpoint): set, reached, let go. */
struct hold {
	char hold[400], reached[400];
};

static void hold_set(struct hold *h, const char *name)
{
	int fd;

	snprintf(h->hold, sizeof h->hold, "%s/%s.hold", failpoints, name);
	snprintf(h->reached, sizeof h->reached, "%s/%s.reached", failpoints, name);
	assert_true((fd = open(h->hold, O_CREAT | O_WRONLY, 0600)) >= 0);
	close(fd);
}

static void hold_wait(const struct hold *h)
{
	long long end = fx_now_ms() + 15000;

	while (access(h->reached, F_OK) < 0 && fx_now_ms() < end)
		fx_sleep_ms(20);
}

static void hold_release(const struct hold *h)
{
	unlink(h->hold);
}

static void hold_clear(const struct hold *h)
{
	unlink(h->hold);
	unlink(h->reached);
}

/* Fails if a timeline.message of row comes within ms: for a row the
 * broker published before an answer the test already has. */
static void no_more_rows(const char *row, int ms)
{
	long long end = fx_now_ms() + ms;

	while (fx_now_ms() < end) {
		char t[64];
		json_t *body = next_event(t, 50);

		if (is_row(t, body, "timeline.message", row))
			fail_msg("a later row for %s: %s", row, json_string_value(json_object_get(body, "signal")));
		json_decref(body);
	}
}

/* The next timeline.message signal of row, and whether it links. */
static void next_row(const char *row, char signal[32], int *linked)
{
	json_t *ev = event_for("timeline.message", row);

	snprintf(signal, 32, "%s", json_string_value(json_object_get(ev, "signal")));
	*linked = json_object_get(ev, "link") != NULL;
	json_decref(ev);
}

/* The receipt's row goes out before the outbox may deliver the message:
 * a desktop keeps the last row it gets, so the row of a message held at
 * delivery must not be overtaken by the receipt's "Sent".  The handler is
 * held after it woke the outbox, where a loaded machine may preempt it. */
static void test_receipt_row_comes_before_delivery_row(void **state)
{
	json_t *args = json_pack("{s:s, s:s}", "recipientSessionId", M, "message", "in order");
	char *json = json_dumps(args, JSON_COMPACT), first[32], second[32];
	struct hold h;
	struct hb_env r;
	int64_t id;
	int linked;

	(void)state;
	json_decref(args);
	open_run("run-m", M, "/tmp/pa", "unrestricted");
	hold_set(&h, "messages.before-receipt");
	id = checked(fx_send_op(&desk, "call", "tool", "send_session_message", "json", json, "run", "run-a",
				"call_id", "m1", (char *)NULL));
	free(json);
	hold_wait(&h);
	/* While the handler waits, the outbox holds the message at delivery
	 * (the recipient's turn is unrestricted). */
	next_row("m1", first, &linked);
	next_row("m1", second, &linked);
	hold_release(&h);
	reply_to(&desk, id, &r);
	hold_clear(&h);
	assert_true(hb_env_bool(&r, "ok", 0));
	assert_non_null(strstr(hb_env_str_or(&r, "text", ""), "queued:"));
	hb_env_free(&r);
	assert_string_equal(first, "Sent");            /* the receipt's row */
	assert_string_equal(second, "Needs approval"); /* then the outbox's */
	op_ok(&desk, &r, checked(fx_send_op(&desk, "run.close", "run", "run-m", (char *)NULL)));
	hb_env_free(&r);
}

/* The same for the user's send of a held message: its "Sent" goes out
 * before the outbox may deliver it and publish "Sent" with the link to
 * the user row, which must be the last row the desktop gets. */
static void test_user_send_row_comes_before_delivered_row(void **state)
{
	char signal[32], op[48];
	struct hb_client br;
	struct hold h;
	struct hb_env d, r;
	int64_t id;
	int linked;

	(void)state;
	open_run("run-n", N, "/tmp/pa", "unrestricted");
	expect_receipt("n1", N, "sent by the user", "queued", op);
	next_row("n1", signal, &linked);
	assert_string_equal(signal, "Sent"); /* the receipt's */
	next_row("n1", signal, &linked);
	assert_string_equal(signal, "Needs approval");
	bridge_attach(&br, N, "codex");
	hold_set(&h, "messages.before-send-answer");
	id = checked(fx_send_op(&desk, "messages.send", "message", op, (char *)NULL));
	hold_wait(&h);
	/* While the handler waits, the outbox delivers it. */
	next_delivery(&br, &d);
	assert_string_equal(hb_env_str_or(&d, "opId", ""), op);
	hb_env_free(&d);
	bridge_done(&br, op, "turn-n");
	do
		next_row("n1", signal, &linked);
	while (!linked);
	hold_release(&h);
	op_ok(&desk, &r, id);
	hb_env_free(&r);
	hold_clear(&h);
	assert_string_equal(signal, "Sent");
	/* Nothing comes after it: the handler's own row went out before. */
	no_more_rows("n1", 1000);
	op_ok(&desk, &r, checked(fx_send_op(&desk, "run.close", "run", "run-n", (char *)NULL)));
	hb_env_free(&r);
	hb_client_close(&br);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused_before_anything_is_queued),
		cmocka_unit_test(test_receipts_and_one_row_per_call),
		cmocka_unit_test(test_delivery_envelope_and_links),
		cmocka_unit_test(test_hold_again_at_delivery_then_user_sends),
		cmocka_unit_test(test_discarded_is_never_sent),
		cmocka_unit_test(test_killed_after_accept_asks_again),
		cmocka_unit_test(test_handed_message_is_not_held_again),
		cmocka_unit_test(test_unconfirmed_waits_for_the_user),
		cmocka_unit_test(test_receipt_row_comes_before_delivery_row),
		cmocka_unit_test(test_user_send_row_comes_before_delivered_row),
	};
	return ck_run_group_tests(tests, setup, teardown);
}
