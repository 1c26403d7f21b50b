/*
 * intake - the three doors of a call.
 *
 * Arguments never choose the session or the run.  Codex: the thread's
 * durable link (svc-sessions, through the parent for a forked sub-agent)
 * names the session, and the session's active run is used; sessionId,
 * runId and projectDirectory that older threads put into arguments are
 * dropped.  Claude: the run is the one its bridge opened on this
 * connection, and an event that names any of the three is refused.
 * Identity: Codex callId, Claude toolUseId (or the requestId's bare text,
 * dialect_claude_call_id); a duplicate of a call in flight joins it.  A plain front call is bound by the run it
 * names, and without one it is the user's: no agent, no access, no model.
 * The model is the run's (run.open), or for Codex the one hb-codex-bridge
 * saw the thread get from its server (codex.call's `model`): never the
 * arguments'.
 */
#include "intake.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "approvals.h"
#include "call.h"
#include "dialect.h"
#include "fail_codes.h"
#include "front.h"
#include "log.h"
#include "reply.h"
#include "route.h"
#include "runs.h"
#include "services.h"
#include "tools.h"
#include "protocol.h"
#include "opfields.h"

#define NOT_LINKED "is not linked to a HB Code session yet. Try the call again."

/* Why nobody serves tool: a tool of the catalog whose service is not
 * here yet gets an honest sentence, anything else is unknown. */
static void unserved_tool_text(const char *tool, char *out, size_t outlen)
{
	const struct hb_tool_def *t = tool[0] == '_' ? NULL : hb_tool_find(tool);

	if (t && strcmp(t->name, "use_user_browser") == 0)
		snprintf(out, outlen, "The browser bridge is off: use_user_browser cannot reach your browser "
			 "in this HB Code yet.");
	else if (t)
		snprintf(out, outlen, "%s is not available: its service (%s) does not run in this HB Code yet.",
			 t->name, t->family);
	else {
		/* Escaped: the name is whatever the caller sent, not always
		 * UTF-8, and the answer goes to a model as JSON text. */
		char shown[160];

		hb_escape(tool, strlen(tool), 64, shown, sizeof shown);
		snprintf(out, outlen, "unknown tool \"%s\": no service of this broker serves it", shown);
	}
}

static int check_sizes(const char *args, const char *const ctx[CALL_CONTEXT_FIELDS], char *err, size_t errlen)
{
	if (strlen(args) > HB_MAX_PAYLOAD) {
		snprintf(err, errlen, "the arguments are %zu bytes; at most %u are accepted", strlen(args),
			 HB_MAX_PAYLOAD);
		return -1;
	}
	for (int i = 0; i < CALL_CONTEXT_FIELDS; i++)
		if (ctx[i] && strlen(ctx[i]) > HB_MAX_CONTEXT) {
			snprintf(err, errlen, "a context string is %zu bytes; at most %d are accepted",
				 strlen(ctx[i]), HB_MAX_CONTEXT);
			return -1;
		}
	return 0;
}

static void front_waiter(struct waiter *w, const struct hb_peer *peer, const struct hb_env *e,
			 enum answer_form form)
{
	memset(w, 0, sizeof *w);
	w->origin = FROM_FRONT;
	w->peer = *peer;
	reqid_from_env(&w->id, e);
	w->form = form;
}

/* The service that serves tool, for a call whose args and context are
 * within their limits; NULL with why set (the agent doors' check: the
 * front door answers each refusal with its own error code). */
static struct service *service_for_call(struct broker *b, const char *tool, const char *args,
					const char *const ctx[CALL_CONTEXT_FIELDS], char *why, size_t whylen)
{
	struct service *s = broker_service_for_caller(b, tool);

	if (!s) {
		unserved_tool_text(tool, why, whylen);
		return NULL;
	}
	return check_sizes(args, ctx, why, whylen) < 0 ? NULL : s;
}

/* A call of s for tool with context ctx (both checked), answered to w;
 * identity may be NULL. */
static void start_call(struct broker *b, const struct waiter *w, struct service *s, const char *tool,
		       const char *args, const char *const ctx[CALL_CONTEXT_FIELDS], const char *identity)
{
	struct call *c;

	if (!(c = call_new(b, s, tool, args)) || call_set_context(c, ctx) < 0 || call_add_waiter(c, w) < 0 ||
	    (identity && !(c->identity = strdup(identity)))) {
		if (c)
			call_free(c);
		call_answer_waiter(b, w, NULL, 0, "hb-broker is out of memory");
		return;
	}
	route_submit(b, c);
}

/* Whether a call of run r for tool waits for an approval card: an
 * external run's (hb-mcp: an MCP client, which could skip a card of its
 * own) agent-class call, unless the run is unrestricted, where the Claude
 * runs ask nothing either (bypassPermissions). */
static int needs_card(const struct run *r, const char *tool)
{
	const struct hb_tool_def *t = hb_tool_find(tool);

	return strcmp(r->agent, RUN_AGENT_EXTERNAL) == 0 && t && t->approval == HB_CLASS_AGENT &&
	       strcmp(r->access, "unrestricted") != 0;
}

/* start_call's twin for a call that waits for its card (approvals.c). */
static void hold_call(struct broker *b, const struct waiter *w, struct service *s, const char *tool,
		      const char *args, const char *const ctx[CALL_CONTEXT_FIELDS], const struct run *r)
{
	struct call *c;

	if (!(c = call_new(b, s, tool, args)) || call_set_context(c, ctx) < 0 || call_add_waiter(c, w) < 0) {
		if (c)
			call_free(c);
		call_answer_waiter(b, w, NULL, 0, "hb-broker is out of memory");
		return;
	}
	approvals_hold_call(b, c, r);
}

void intake_call(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *tool = hb_req_str(e, "tool"), *ctx[CALL_CONTEXT_FIELDS];
	struct service *s;
	struct waiter w;
	int held = 0;

	front_waiter(&w, peer, e, FORM_PLAIN);
	if (!tool || !*tool) {
		front_reply_err(b, peer, &w.id, "bad-request", "a call needs a \"tool\" string");
		return;
	}
	if (b->stopping) {
		front_reply_err(b, peer, &w.id, "stopping", "hb-broker is shutting down; try the call again when it is back");
		return;
	}
	if (!(s = broker_service_for_caller(b, tool))) {
		char text[256];
		unserved_tool_text(tool, text, sizeof text);
		front_reply_err(b, peer, &w.id, "unknown-tool", text);
		return;
	}
	/* The context in CALL_CONTEXT_FIELDS' order.  Agent, access and
	 * model come only from a run (below): without one the call is the
	 * user's own (hbctl, the desktop), and services see the user. */
	ctx[0] = hb_env_str_or(e, "session", "");
	ctx[1] = hb_env_str_or(e, "run", "");
	ctx[2] = hb_env_str_or(e, "project", "");
	ctx[3] = ctx[4] = ctx[6] = "";
	ctx[5] = hb_env_str_or(e, "call_id", "");
	if (*ctx[1]) {
		/* A named run binds the call: its session, project, agent,
		 * access and model are the run's, never the client's word. */
		struct run *r = runs_find(b, ctx[1]);
		char text[512];
		if (!r || r->stopped || (*ctx[0] && strcmp(ctx[0], r->session) != 0)) {
			snprintf(text, sizeof text, "run \"%.128s\" is not an open run%s", ctx[1],
				 r && !r->stopped ? " of this session" : "");
			front_reply_err(b, peer, &w.id, "no-run", text);
			return;
		}
		ctx[0] = r->session;
		ctx[2] = r->project;
		ctx[3] = r->agent;
		ctx[4] = r->access;
		ctx[6] = r->model;
		held = needs_card(r, tool);
	}
	{
		char text[256];
		if (check_sizes(hb_env_str_or(e, "json", "{}"), ctx, text, sizeof text) < 0) {
			front_reply_err(b, peer, &w.id, "too-large", text);
			return;
		}
	}
	if (held)
		hold_call(b, &w, s, tool, hb_env_str_or(e, "json", "{}"), ctx, runs_find(b, ctx[1]));
	else
		start_call(b, &w, s, tool, hb_env_str_or(e, "json", "{}"), ctx, NULL);
}

/* ---- Codex ------------------------------------------------------------- */

/* The JSON text of v (malloc'd). */
static char *dump(const json_t *v)
{
	return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

/* Durable links never change (a thread cannot be linked to another
 * session), so the broker keeps what it resolved: a Codex call then costs
 * no lookup in svc-sessions.  Bounded: past the cap it starts afresh. */
#define THREAD_CACHE_MAX 10000

struct thread_session {
	char *thread;                   /* the map's key */
	char *session;
};

static void forget_thread(void *value, void *arg)
{
	struct thread_session *ts = value;

	(void)arg;
	free(ts->thread);
	free(ts->session);
	free(ts);
}

void intake_free(struct broker *b)
{
	hb_map_each(&b->thread_sessions, forget_thread, NULL);
	hb_map_clear(&b->thread_sessions);
}

static void remember_thread(struct broker *b, const char *thread, const char *session)
{
	struct thread_session *ts;

	if (hb_map_get(&b->thread_sessions, thread))
		return;
	if (b->thread_sessions.count >= THREAD_CACHE_MAX)
		intake_free(b);
	if (!(ts = calloc(1, sizeof *ts)) || !(ts->thread = strdup(thread)) || !(ts->session = strdup(session)) ||
	    hb_map_put(&b->thread_sessions, ts->thread, ts) < 0) {
		if (ts)
			forget_thread(ts, NULL);
	}
}

/* Bind c to the session's active run and send it on.  The model the
 * bridge saw its thread get (a sub-agent's may differ from the run's)
 * wins over the run's. */
static void bind_codex_call(struct broker *b, struct call *c, const char *session)
{
	struct run *r = runs_active(b, session);
	const char *ctx[CALL_CONTEXT_FIELDS] = { session, r ? r->id : "", r ? r->project : "", "codex",
						 r ? r->access : "", c->call_id,
						 *c->model ? c->model : r ? r->model : "" };

	if (call_set_context(c, ctx) < 0) {
		route_finish(b, c, 0, "hb-broker is out of memory");
		return;
	}
	route_dispatch(b, c);
}

struct codex_lookup {
	char key[24];                   /* the waiting call */
	char *thread;
};

/* The thread's session is known (or not): finish the binding and go. */
static void codex_resolved(struct broker *b, void *arg, int ok, const char *code, const char *text)
{
	struct codex_lookup *lk = arg;
	struct call *c = hb_map_get(&b->calls, lk->key);
	json_t *res = ok ? json_loads(text, 0, NULL) : NULL;
	const char *session = json_string_value(json_object_get(res, "sessionId"));

	if (session)
		remember_thread(b, lk->thread, session);
	if (!c)
		; /* cancelled while the link was looked up */
	else if (!ok)
		route_finish(b, c, 0, code && strcmp(code, HB_FAIL_NOT_LINKED) == 0 ? NOT_LINKED : text);
	else if (!session)
		route_finish(b, c, 0, NOT_LINKED);
	else
		bind_codex_call(b, c, session);
	json_decref(res);
	free(lk->thread);
	free(lk);
}

void intake_codex_call(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *line = hb_req_str(e, "json");
	struct codex_tool_call tc;
	char identity[600], lookup[700], err[256];
	struct service *s;
	struct waiter w;
	struct call *c = NULL, *running;
	int rc = dialect_codex_parse(line, strlen(line), &tc, err, sizeof err);

	front_waiter(&w, peer, e, FORM_CODEX);
	if (rc == -1) {
		front_reply_err(b, peer, &w.id, "bad-request", "codex.call carries an item/tool/call JSON-RPC request");
		return;
	}
	w.native_id = tc.rpcid;
	if (rc < 0) {
		call_answer_waiter(b, &w, NULL, 0, err);
		goto out;
	}
	if (b->stopping) {
		call_answer_waiter(b, &w, NULL, 0, "HB Code is restarting its tools; try the call again.");
		goto out;
	}
	dialect_identity(identity, sizeof identity, "codex", tc.thread, tc.call_id);
	if ((running = route_find_identity(b, identity))) {
		if (call_add_waiter(running, &w) < 0)
			call_answer_waiter(b, &w, NULL, 0, "hb-broker is out of memory");
		goto out;
	}
	{
		const char *ctx[CALL_CONTEXT_FIELDS] = { "", "", "", "codex", "", tc.call_id,
							 hb_env_str_or(e, "model", "") };
		if (!(s = service_for_call(b, tc.tool, tc.args, ctx, err, sizeof err))) {
			call_answer_waiter(b, &w, NULL, 0, err);
			goto out;
		}
		if (!(c = call_new(b, s, tc.tool, tc.args)) || call_set_context(c, ctx) < 0 ||
		    call_add_waiter(c, &w) < 0 || !(c->identity = strdup(identity)) || route_register(b, c) < 0) {
			if (c)
				call_free(c);
			call_answer_waiter(b, &w, NULL, 0, "hb-broker is out of memory");
			goto out;
		}
	}
	{
		/* The session comes from the thread's durable link. */
		struct thread_session *known = hb_map_get(&b->thread_sessions, tc.thread);
		struct codex_lookup *lk;
		json_t *q;
		char *qtext;

		if (known) {
			bind_codex_call(b, c, known->session);
			goto out;
		}
		q = json_pack("{s:s}", "threadId", tc.thread);
		qtext = q ? dump(q) : NULL;
		json_decref(q);
		snprintf(lookup, sizeof lookup, "%s", qtext ? qtext : "");
		free(qtext);
		lk = calloc(1, sizeof *lk);
		if (lk) {
			snprintf(lk->key, sizeof lk->key, "%s", c->key);
			lk->thread = strdup(tc.thread);
		}
		if (!lk || !lk->thread || !lookup[0] ||
		    route_internal(b, HB_TOOL_RESOLVE_THREAD, lookup, codex_resolved, lk) < 0) {
			if (lk)
				free(lk->thread);
			free(lk);
			route_finish(b, c, 0, "the session service is not running; try the call again");
		}
	}
out:
	dialect_codex_free(&tc);
}

void intake_codex_cancel(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *thread = hb_req_str(e, "threadId"), *callid = hb_req_str(e, "callId");
	char identity[600];
	struct call *c = NULL;
	struct reqid id;

	reqid_from_env(&id, e);
	if (dialect_identity(identity, sizeof identity, "codex", thread, callid) == 0 &&
	    (c = route_find_identity(b, identity)))
		route_cancel(b, c, "Run stopped.");
	front_reply_ok(b, peer, &id, c ? "{\"cancelled\":true}" : "{\"cancelled\":false}");
}

/* ---- Claude ------------------------------------------------------------ */

void intake_claude_call(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *line = hb_req_str(e, "json");
	struct claude_tool_call tc;
	struct run *r = runs_of_peer(b, peer);
	char identity[400], text[512];
	struct service *s;
	struct waiter w;

	front_waiter(&w, peer, e, FORM_CLAUDE);
	if (dialect_claude_parse(line, strlen(line), &tc, text, sizeof text) < 0) {
		front_reply_err(b, peer, &w.id, "bad-request", text);
		return;
	}
	w.native_id = tc.request_id;
	if (!r || r->stopped) {
		call_answer_waiter(b, &w, NULL, 0, r ? "Run stopped." : "This connection has no open run: open one first.");
	} else if (tc.binding) {
		snprintf(text, sizeof text, "The call was refused: it names %s, which the run decides, not the call.",
			 tc.binding);
		call_answer_waiter(b, &w, NULL, 0, text);
	} else {
		const char *ctx[CALL_CONTEXT_FIELDS] = { r->session, r->id, r->project, "claude", r->access, tc.call_id,
							 r->model };
		if (dialect_identity(identity, sizeof identity, "claude", r->id, tc.call_id) < 0)
			call_answer_waiter(b, &w, NULL, 0, "The call was refused: its toolUseId or requestId is too long.");
		else if (!(s = service_for_call(b, tc.tool, tc.args, ctx, text, sizeof text)))
			call_answer_waiter(b, &w, NULL, 0, text);
		else
			start_call(b, &w, s, tc.tool, tc.args, ctx, identity);
	}
	dialect_claude_free(&tc);
}

void intake_claude_cancel(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *line = hb_req_str(e, "json");
	char identity[400], *who = dialect_claude_call_id(line, strlen(line));
	struct run *r = runs_of_peer(b, peer);
	struct call *c = NULL;
	struct reqid id;

	reqid_from_env(&id, e);
	if (r && who && dialect_identity(identity, sizeof identity, "claude", r->id, who) == 0)
		c = route_find_identity(b, identity);
	if (c)
		route_cancel(b, c, "Run stopped.");
	/* Cancelling what already ended is not an error: the host raced us. */
	front_reply_ok(b, peer, &id, c ? "{\"cancelled\":true}" : "{\"cancelled\":false}");
	free(who);
}

/* ---- thread links (hb-codex-bridge records them) ------------------------ */

void intake_thread_link(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *thread = hb_req_str(e, "threadId"), *session = hb_env_str(e, "sessionId");
	const char *parent = hb_env_str(e, "parentThreadId");
	json_t *q = NULL;
	char *text = NULL;
	struct reqid id;

	reqid_from_env(&id, e);
	if (thread && session && !parent)
		q = json_pack("{s:s, s:s}", "threadId", thread, "sessionId", session);
	else if (thread && parent && !session)
		q = json_pack("{s:s, s:s}", "threadId", thread, "parentThreadId", parent);
	if (!q || !(text = dump(q)) || front_relay_internal(b, peer, &id, HB_TOOL_LINK_THREAD, text, "link") < 0)
		front_reply_err(b, peer, &id, q ? "link" : "bad-request",
				q ? "the session service is not running" : "thread.link needs threadId and one of sessionId, parentThreadId");
	free(text);
	json_decref(q);
}
