/*
 * worker_codex - the explainer's worker on `codex app-server` (worker.h),
 * the desktop side of the Codex app-server protocol (agents/
 * codex_client.h): initialize, initialized, thread/start (model, cwd,
 * dynamicTools, approvals never, writes only in cwd, ephemeral), turn/start
 * with the brief, and turn/interrupt on a deadline or a cancel.  The
 * requests go out one after the other as their answers come back.  The
 * worker's tool calls (item/tool/call in WORKER_NAMESPACE) are answered
 * through the caller's callback; a call for another namespace, or one
 * that cannot be read, is refused; approval requests are declined.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codex_client.h"
#include "dialect.h"
#include "rpc_frame.h"
#include "worker_agent.h"

/* Our JSON-RPC request ids: one request each. */
enum { ID_INITIALIZE = 1, ID_THREAD_START, ID_TURN_START, ID_TURN_INTERRUPT };

struct codex_worker {
	struct worker *w;
	struct worker_proc *proc;
	json_t *thread_params;   /* thread/start's, sent once initialize is answered */
	char *thread_id, *turn_id;
	char *early_turn;        /* turn/completed before turn/start's answer: its id */
	char early_status[32];
};

static void start_turn(struct codex_worker *c)
{
	worker_proc_send(c->proc, codex_turn_start(json_integer(ID_TURN_START), c->thread_id, c->w->brief));
}

static void on_response(struct codex_worker *c, json_int_t id, json_t *msg)
{
	const char *why = rpc_error_message(msg, "no reason given"), *text;

	if (id == ID_TURN_INTERRUPT)
		return; /* the turn's end is what counts, and the deadline covers it */
	if (why) {
		const char *what = id == ID_INITIALIZE     ? "initialize"
				   : id == ID_THREAD_START ? "thread/start" : "turn/start";
		char line[300];
		snprintf(line, sizeof line, "Codex refused %s: %s", what, why);
		worker_proc_fail(c->proc, "%s", line);
		return;
	}
	if (id == ID_INITIALIZE) {
		worker_proc_send(c->proc, codex_initialized());
		worker_proc_send(c->proc, codex_thread_start(json_integer(ID_THREAD_START), json_incref(c->thread_params)));
	} else if (id == ID_THREAD_START) {
		text = codex_answered_id(msg, "thread");
		if (!text || !(c->thread_id = strdup(text)))
			worker_proc_fail(c->proc, "Codex answered thread/start without a thread id%s", NULL);
		else
			start_turn(c);
	} else if (id == ID_TURN_START) {
		text = codex_answered_id(msg, "turn");
		if (!text || !(c->turn_id = strdup(text)))
			worker_proc_fail(c->proc, "Codex answered turn/start without a turn id%s", NULL);
		else if (c->early_turn && strcmp(c->early_turn, text) == 0)
			worker_proc_turn_ended(c->proc, c->early_status);
	}
}

/* A tool call of the worker: ours answered through the callback, any
 * other refused in Codex's own form (a failed result the model reads). */
static void on_tool_call(struct codex_worker *c, const char *line, size_t len)
{
	struct codex_tool_call tc;
	char err[256];
	int rc = dialect_codex_parse_ns(line, len, WORKER_NAMESPACE, &tc, err, sizeof err);

	if (rc == -1) {
		dialect_codex_free(&tc);
		return; /* nothing to answer */
	}
	if (rc == 0)
		worker_proc_send_text(c->proc, worker_proc_answer(c->proc, c->w->tool, c->w->tool_arg, tc.tool, tc.args,
								   tc.rpcid, dialect_codex_answer));
	else
		worker_proc_send_text(c->proc, tc.rpcid ? dialect_codex_answer(tc.rpcid, 0, err, NULL) : NULL);
	dialect_codex_free(&tc);
}

/* Approvals should not come with approvalPolicy "never"; if one does, the
 * worker is told no.  Anything else we cannot answer gets an error. */
static void on_server_request(struct codex_worker *c, json_t *id, const char *method, const char *line, size_t len)
{
	json_t *decline;

	if (strcmp(method, "item/tool/call") == 0) {
		on_tool_call(c, line, len);
		return;
	}
	if ((decline = codex_decline_approval(id, method)))
		worker_proc_send(c->proc, decline);
	else
		worker_proc_send(c->proc,
				 rpc_error_answer(id, -32601, "svc-explainer's worker does not answer this request"));
}

static void on_notification(struct codex_worker *c, const char *method, json_t *params)
{
	json_t *turn = json_object_get(params, "turn");
	const char *id = json_string_value(json_object_get(turn, "id"));
	const char *status = json_string_value(json_object_get(turn, "status"));

	if (strcmp(method, "turn/completed") != 0 || !id)
		return;
	if (c->turn_id) {
		if (strcmp(c->turn_id, id) == 0)
			worker_proc_turn_ended(c->proc, status);
	} else if (!c->early_turn && (c->early_turn = strdup(id))) {
		snprintf(c->early_status, sizeof c->early_status, "%s", status ? status : "unknown");
	}
}

static void on_line(void *state, json_t *msg, const char *line, size_t len)
{
	struct codex_worker *c = state;
	json_t *id = json_object_get(msg, "id");
	const char *method = json_string_value(json_object_get(msg, "method"));

	if (method && id)
		on_server_request(c, id, method, line, len);
	else if (method)
		on_notification(c, method, json_object_get(msg, "params"));
	else if (json_is_integer(id))
		on_response(c, json_integer_value(id), msg);
}

static int interrupt(void *state)
{
	struct codex_worker *c = state;

	if (!c->turn_id)
		return -1; /* nothing to interrupt yet */
	worker_proc_send(c->proc, codex_turn_interrupt(json_integer(ID_TURN_INTERRUPT), c->thread_id, c->turn_id));
	return 0;
}

static void begin(void *state)
{
	struct codex_worker *c = state;

	worker_proc_send(c->proc, codex_initialize(json_integer(ID_INITIALIZE), "hbcode_explainer",
						   "HB Code explainer worker", "1"));
}

static void destroy(void *state)
{
	struct codex_worker *c = state;

	json_decref(c->thread_params);
	free(c->thread_id);
	free(c->turn_id);
	free(c->early_turn);
	free(c);
}

static void *create(struct worker *w, const struct worker_opts *o, const json_t *tools, char *err, size_t errlen)
{
	struct codex_worker *c = calloc(1, sizeof *c);

	/* workspace-write lets the worker write in cwd; the overrides take
	 * away the temporary folders it would also get.  ephemeral: the
	 * worker is private, so its thread is never saved in the user's
	 * Codex history (no rollout, no thread row, nothing for memories). */
	if (!c ||
	    !(c->thread_params = json_pack("{s:s, s:O, s:s, s:s, s:b, s:{s:{s:b, s:b, s:b}}}", "cwd", o->cwd,
					   "dynamicTools", tools, "approvalPolicy", "never", "sandbox",
					   "workspace-write", "ephemeral", 1, "config", "sandbox_workspace_write",
					   "exclude_slash_tmp", 1, "exclude_tmpdir_env_var", 1, "network_access", 0)) ||
	    (o->model && json_object_set_new(c->thread_params, "model", json_string(o->model)) < 0)) {
		if (c)
			destroy(c);
		snprintf(err, errlen, "out of memory starting the Codex worker");
		return NULL;
	}
	c->w = w;
	c->proc = &w->proc;
	return c;
}

const struct worker_agent worker_codex = { .agent = "Codex", .program = "codex", .name = "the Codex app-server",
	.create = create, .begin = begin, .line = on_line, .interrupt = interrupt, .end = NULL, .destroy = destroy };
