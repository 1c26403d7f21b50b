/*
 * messages_rig - see messages_rig.h.
 */
#include "messages_rig.h"

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

struct fixture F;

struct hb_client desk;           /* the desktop's connection */
void *zctx, *events;             /* timeline events */
char failpoints[300];

char A[64], B[64], C[64], D[64], E[64], G[64], H[64], K[64], M[64], N[64];

int64_t checked(int64_t id)
{
	if (id < 0)
		fail_msg("a request could not be sent");
	return id;
}

/* The reply to request id on c; unsolicited `deliver`s are skipped. */
void reply_to(struct hb_client *c, int64_t id, struct hb_env *reply)
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

void op_ok(struct hb_client *c, struct hb_env *reply, int64_t id)
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

void open_run(const char *run, const char *session, const char *project, const char *access)
{
	assert_int_equal(fx_open_run(&desk, run, session, project, "codex", access), 0);
}

/* send_session_message from run-a with call id; returns ok, *text set. */
int send_msg(const char *call_id, const char *to, const char *message, char **text)
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

void expect_refused(const char *call_id, const char *to, const char *message, const char *words)
{
	char *text = NULL;

	if (send_msg(call_id, to, message, &text))
		fail_msg("accepted: %s", text);
	if (!strstr(text, words))
		fail_msg("\"%s\" does not say \"%s\"", text, words);
	free(text);
}

/* The receipt's first word; the op id (session-message-N) into op. */
void expect_receipt(const char *call_id, const char *to, const char *message, const char *status, char op[48])
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
json_t *queue_of(const char *session)
{
	struct hb_env r;
	json_t *list;

	op_ok(&desk, &r, checked(fx_send_op(&desk, "messages.list", "session", session, (char *)NULL)));
	list = json_loads(hb_env_str_or(&r, "json", ""), 0, NULL);
	hb_env_free(&r);
	assert_non_null(list);
	return list;
}

const char *status_in_queue(json_t *list, const char *op)
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
json_t *next_event(char t[64], int poll_ms)
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

int is_row(const char *t, const json_t *body, const char *topic, const char *row)
{
	return body && strcmp(t, topic) == 0 && strcmp(json_string_value(json_object_get(body, "row")), row) == 0;
}

json_t *event_for(const char *topic, const char *row)
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
void bridge_attach(struct hb_client *br, const char *session, const char *agent)
{
	struct hb_env r;

	assert_int_equal(fx_client(&F, br, 15000), 0);
	op_ok(br, &r, checked(fx_send_op(br, "session.attach", "session", session, "agent", agent, (char *)NULL)));
	hb_env_free(&r);
}

/* The next `deliver` the bridge gets (replies are skipped). */
void next_delivery(struct hb_client *br, struct hb_env *d)
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

int64_t bridge_report_send(struct hb_client *br, const char *op, int ok, const char *status, const char *turn,
			   const char *text)
{
	struct hb_env req;
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
	return id;
}

/* bridge_report_send, and the broker took it. */
static void bridge_report(struct hb_client *br, const char *op, int ok, const char *status, const char *turn,
			  const char *text)
{
	struct hb_env r;

	op_ok(br, &r, bridge_report_send(br, op, ok, status, turn, text));
	hb_env_free(&r);
}

void bridge_done(struct hb_client *br, const char *op, const char *turn)
{
	bridge_report(br, op, 1, NULL, turn, NULL);
}

/* deliver.done with status "unconfirmed": it went in, no read found it. */
void bridge_unconfirmed(struct hb_client *br, const char *op, const char *why)
{
	bridge_report(br, op, 0, "unconfirmed", "", why);
}

/* The broker on conf (freed here), the sessions and the desktop's run. */
static int setup_on(char *conf)
{
	static const char *env[3];
	char ep[HB_PATH_MAX + 8], err[256], attach_ttl[] = "HB_ATTACH_TTL_MS=600000";
	static char fp_env[320];
	struct hb_paths p;
	int rc;

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

int messages_setup(void **state)
{
	(void)state;
	/* The two services exactly as deploy/services.conf runs them. */
	return setup_on(fx_deployed_config(NULL, "svc-sessions", "svc-messages", (char *)NULL));
}

int messages_setup_idling(void **state)
{
	char line[64];

	(void)state;
	snprintf(line, sizeof line, "idle = %dms\n", MESSAGES_IDLE_MS);
	return setup_on(fx_config_add_lines(fx_deployed_config(NULL, "svc-sessions", "svc-messages", (char *)NULL),
					    "svc-messages", line));
}

int messages_teardown(void **state)
{
	(void)state;
	zmq_close(events);
	zmq_ctx_term(zctx);
	hb_client_close(&desk);
	rmdir(failpoints);
	return fx_stop_clean(&F);
}
