/*
 * front - dispatch of front-socket operations.  Each op is one function;
 * the table below is the whole front protocol of the kernel: every op,
 * its handler and the fields it reads (opfields.h).  A frame whose fields
 * do not match its op's row is answered bad-frame, naming the field,
 * before any handler sees it.
 */
#include "front.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#include "approvals.h"
#include "catalog.h"
#include "deliver.h"
#include "intake.h"
#include "claude_link.h"
#include "messages.h"
#include "reply.h"
#include "run_ops.h"
#include "log.h"
#include "opfields.h"
#include "route.h"
#include "services.h"
#include "session_message.h"
#include "status.h"
#include "supervise.h"
#include "timeline_op.h"
#include "protocol.h"

typedef void (*front_op_fn)(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);

struct relay {
	struct hb_peer peer;
	struct reqid id;
	const char *err_code;           /* a literal */
};

static void relay_done(struct broker *b, void *arg, int ok, const char *code, const char *text)
{
	struct relay *r = arg;

	(void)code;

	if (ok)
		front_reply_ok(b, &r->peer, &r->id, text);
	else
		front_reply_err(b, &r->peer, &r->id, r->err_code, text);
	free(r);
}

int front_relay_internal(struct broker *b, const struct hb_peer *peer, const struct reqid *id, const char *tool,
			 const char *args, const char *err_code)
{
	struct relay *r = malloc(sizeof *r);

	if (!r)
		return -1;
	r->peer = *peer;
	r->id = *id;
	r->err_code = err_code;
	if (route_internal(b, tool, args, relay_done, r) < 0) {
		free(r);
		return -1;
	}
	return 0;
}

static void op_hello(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	char json[160];
	struct reqid id;

	reqid_from_env(&id, e);
	snprintf(json, sizeof json, "{\"broker\":\"hb-broker\",\"version\":\"%s\",\"protocol\":%d,\"pid\":%ld}",
		 BROKER_VERSION, HB_PROTO_VERSION, (long)getpid());
	front_reply_ok(b, peer, &id, json);
}

static void op_status(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	struct reqid id;
	char *json = status_json(b);

	reqid_from_env(&id, e);
	if (!json) {
		front_reply_err(b, peer, &id, "internal", "out of memory");
		return;
	}
	front_reply_ok(b, peer, &id, json);
	free(json);
}

/* service.restart/replace/stop/start share the lookup of "service". */
static void op_service(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *op = hb_env_str(e, "op"), *name = hb_req_str(e, "service");
	struct service *s = broker_service_by_name(b, name);
	char err[512], json[256];
	struct reqid id;
	int rc;

	reqid_from_env(&id, e);
	if (!s) {
		snprintf(err, sizeof err, "no service named \"%.64s\" in this broker's config", name);
		front_reply_err(b, peer, &id, "unknown-service", err);
		return;
	}
	if (b->stopping) {
		front_reply_err(b, peer, &id, "stopping", "hb-broker is shutting down");
		return;
	}
	if (strcmp(op, HB_OP_SERVICE_RESTART) == 0)
		rc = supervisor_replace(b, s, s->exec, "restart", peer, &id, err, sizeof err);
	else if (strcmp(op, HB_OP_SERVICE_REPLACE) == 0)
		rc = supervisor_replace(b, s, hb_req_str(e, "path"), "replace", peer, &id, err, sizeof err);
	else if (strcmp(op, HB_OP_SERVICE_STOP) == 0)
		rc = supervisor_stop(b, s, err, sizeof err);
	else
		rc = supervisor_start(b, s, err, sizeof err);
	if (rc < 0) {
		front_reply_err(b, peer, &id, "service", err);
		return;
	}
	/* restart and replace answer when the new incarnation is ready. */
	if (strcmp(op, HB_OP_SERVICE_STOP) == 0 || strcmp(op, HB_OP_SERVICE_START) == 0) {
		snprintf(json, sizeof json, "{\"service\":\"%s\",\"state\":\"%s\"}", s->cfg->name,
			 supervisor_state(s));
		front_reply_ok(b, peer, &id, json);
	}
}

static void op_catalog(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	struct reqid id;
	char err[256], *json;

	reqid_from_env(&id, e);
	if (!(json = catalog_build(&b->paths, hb_env_str_or(e, "for", ""), err, sizeof err))) {
		front_reply_err(b, peer, &id, "catalog", err);
		return;
	}
	front_reply_ok(b, peer, &id, json);
	free(json);
}

struct front_op {
	const char *op;
	front_op_fn fn;
	struct hb_field_rule fields[HB_OP_MAX_FIELDS];
};

/* Every op also takes "id", the request id echoed in its answer, which
 * dispatch checks for all of them. */
static const struct front_op front_ops[] = {
	{ HB_OP_CATALOG, op_catalog, { HB_OPT_STR("for") } },
	{ HB_OP_HELLO, op_hello, HB_NO_FIELDS },
	{ HB_OP_STATUS, op_status, HB_NO_FIELDS },
	/* The context of a call: a named run binds the session, project,
	 * agent, access and model; without one the call is the user's. */
	{ HB_OP_CALL, intake_call,
	  { HB_REQ_STR("tool"), HB_OPT_STR("json"), HB_OPT_STR("session"), HB_OPT_STR("run"), HB_OPT_STR("project"),
	    HB_OPT_STR("call_id") } },
	/* The agents' doors: json is the agent's own frame, as it sent it;
	 * model, the model hb-codex-bridge saw the thread get. */
	{ HB_OP_CODEX_CALL, intake_codex_call, { HB_REQ_STR("json"), HB_OPT_STR("model") } },
	{ HB_OP_CODEX_CANCEL, intake_codex_cancel, { HB_REQ_STR("threadId"), HB_REQ_STR("callId") } },
	{ HB_OP_CLAUDE_CALL, intake_claude_call, { HB_REQ_STR("json") } },
	{ HB_OP_CLAUDE_CANCEL, intake_claude_cancel, { HB_REQ_STR("json") } },
	/* Exactly one of sessionId and parentThreadId (the handler says so). */
	{ HB_OP_THREAD_LINK, intake_thread_link,
	  { HB_REQ_STR("threadId"), HB_OPT_STR("sessionId"), HB_OPT_STR("parentThreadId") } },
	{ HB_OP_CLAUDE_LINK, link_claude, { HB_REQ_STR("claudeSessionId") } },
	{ HB_OP_CLAUDE_PERMISSION, approvals_request, { HB_REQ_STR("json") } },
	{ HB_OP_CODEX_APPROVAL, approvals_request_codex, { HB_REQ_STR("json"), HB_OPT_STR("path") } },
	{ HB_OP_APPROVAL_LIST, approvals_list, HB_NO_FIELDS },
	{ HB_OP_APPROVAL_RESOLVE, approvals_resolve,
	  { HB_REQ_STR("approval"), HB_REQ_STR("decision"), HB_OPT_STR("message") } },
	/* requestId: the agent's own id of the request (the Claude host's
	 * perm-N), or the card's id; only an open card of run is answered. */
	{ HB_OP_RUN_CHAT_RESOLVE_APPROVAL, approvals_chat_resolve,
	  { HB_REQ_STR("run"), HB_REQ_STR("requestId"), HB_REQ_STR("decision"), HB_OPT_STR("message") } },
	/* model: the run's model id, when its opener knows it. */
	{ HB_OP_RUN_OPEN, run_op_open,
	  { HB_REQ_STR("run"), HB_REQ_STR("session"), HB_REQ_STR("project"), HB_REQ_STR("agent"),
	    HB_REQ_STR("access"), HB_OPT_STR("model") } },
	{ HB_OP_RUN_CLOSE, run_op_close, { HB_REQ_STR("run") } },
	{ HB_OP_RUN_STOP, run_op_stop, { HB_REQ_STR("run") } },
	{ HB_OP_CANCEL, route_front_cancel, { HB_REQ_STR("key") } },
	/* The bridges: where each session's agent runs, and what became of
	 * a session message handed to it (turn: the turn it started; status
	 * "unconfirmed" when not ok: it went in, but nothing showed the
	 * agent has it). */
	{ HB_OP_SESSION_ATTACH, deliver_attach, { HB_REQ_STR("session"), HB_REQ_STR("agent") } },
	/* outcomesWithinMs: a closing bridge that still owes outcomes. */
	{ HB_OP_SESSION_DETACH, deliver_detach, { HB_REQ_STR("session"), HB_OPT_INT("outcomesWithinMs") } },
	{ HB_OP_DELIVER_DONE, deliver_done,
	  { HB_REQ_STR("opId"), HB_REQ_BOOL("ok"), HB_OPT_STR("turn"), HB_OPT_STR("text"), HB_OPT_STR("status") } },
	/* Rows of the shared timeline (docs/timeline.md), for the caller's
	 * own session: json is a JSON array of rows. */
	{ HB_OP_TIMELINE_PUBLISH, timeline_op_publish, { HB_REQ_STR("json") } },
	{ HB_OP_MESSAGES_LIST, messages_admin, { HB_OPT_STR("session") } },
	{ HB_OP_MESSAGES_SEND, messages_admin, { HB_REQ_STR("message") } },
	{ HB_OP_MESSAGES_DISCARD, messages_admin, { HB_REQ_STR("message") } },
	{ HB_OP_SERVICE_RESTART, op_service, { HB_REQ_STR("service") } },
	{ HB_OP_SERVICE_REPLACE, op_service, { HB_REQ_STR("service"), HB_REQ_STR("path") } },
	{ HB_OP_SERVICE_STOP, op_service, { HB_REQ_STR("service") } },
	{ HB_OP_SERVICE_START, op_service, { HB_REQ_STR("service") } },
};

static const struct hb_field_rule request_id[] = { { "id", HB_FT_STR | HB_FT_INT, HB_OPTIONAL } };

static const struct front_op *find_op(const char *op)
{
	for (size_t i = 0; i < sizeof front_ops / sizeof front_ops[0]; i++)
		if (strcmp(front_ops[i].op, op) == 0)
			return &front_ops[i];
	return NULL;
}

/* 0 when e matches row, or -1 after answering bad-frame and logging. */
static int check_fields(struct broker *b, const struct hb_peer *peer, const struct front_op *row,
			const struct hb_env *e)
{
	char msg[320], name[64];
	struct reqid id;
	int id_ok = hb_fields_check(e, row->op, request_id, 1, msg, sizeof msg) == 0;

	if (id_ok && hb_fields_check(e, row->op, row->fields, HB_OP_MAX_FIELDS, msg, sizeof msg) == 0)
		return 0;
	hb_peer_name(peer, name, sizeof name);
	log_warn(NULL, "bad frame from client %s: %s", name, msg);
	reqid_from_env(&id, e);
	/* An id of the wrong type cannot be echoed. */
	front_reply_err(b, peer, id_ok ? &id : NULL, "bad-frame", msg);
	return -1;
}

static void dispatch(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *op = hb_env_str(e, "op"), *sid = hb_env_str(e, "id");
	const struct front_op *row;
	struct reqid id;
	char msg[320], shown[200];

	if (sid && strlen(sid) >= sizeof id.s) {
		snprintf(msg, sizeof msg, "a request id may have at most %zu bytes", sizeof id.s - 1);
		front_reply_err(b, peer, NULL, "bad-request", msg);
		return;
	}
	if (hb_is_session_message_id(sid)) {
		/* Those name a message between sessions; no client may use one. */
		front_reply_err(b, peer, NULL, "bad-request",
				"request ids that start with " HB_SESSION_MESSAGE_PREFIX " are reserved");
		return;
	}
	if ((row = find_op(op))) {
		if (check_fields(b, peer, row, e) == 0)
			row->fn(b, peer, e);
		return;
	}
	reqid_from_env(&id, e);
	/* Escaped: op is whatever the client sent, not always UTF-8. */
	hb_escape(op, strlen(op), 48, shown, sizeof shown);
	snprintf(msg, sizeof msg, "unknown op \"%s\"", shown);
	log_warn(NULL, "front: %s", msg);
	front_reply_err(b, peer, &id, "unknown-op", msg);
}

int front_handle(struct broker *b)
{
	/* Bounded, so a flood on the front never starves the services. */
	for (int n = 0; n < 256; n++) {
		struct hb_peer peer;
		struct hb_env e;
		char err[256], name[64];
		int rc = hb_recv_routed(b->front, &peer, &e, err, sizeof err);

		if (rc < 0)
			return errno != EAGAIN;
		if (rc == 0) {
			hb_peer_name(&peer, name, sizeof name);
			log_warn(NULL, "bad frame from client %s: %s", name, err);
			front_reply_err(b, &peer, NULL, "bad-frame", err);
			continue;
		}
		dispatch(b, &peer, &e);
		hb_env_free(&e);
	}
	return 1;
}
