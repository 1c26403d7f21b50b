/*
 * worker_codex - the desktop side of the Codex app-server protocol for
 * svc-explainer's worker (see worker_codex.h); the process itself is
 * worker_proc.c's.  The requests go out one after the other as their
 * answers come back, so that nothing blocks outside worker_codex_wait,
 * whose deadline and cancel then cover the whole start-up too.
 */
#include "worker_codex.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialect.h"
#include "worker_proc.h"

/* Our JSON-RPC request ids: one request each. */
enum { ID_INITIALIZE = 1, ID_THREAD_START, ID_TURN_START, ID_TURN_INTERRUPT };

struct worker_codex {
	struct worker_proc proc;
	worker_tool_fn tool;
	void *tool_arg;
	json_t *thread_params;   /* thread/start's, sent once initialize is answered */
	char *brief;
	char *thread_id, *turn_id;
	char *early_turn;        /* turn/completed before turn/start's answer: its id */
	char early_status[32];
};

static void send_request(struct worker_codex *w, int id, const char *method, json_t *params)
{
	worker_proc_send(&w->proc, params ? json_pack("{s:i, s:s, s:o}", "id", id, "method", method, "params", params)
					  : NULL);
}

static void start_turn(struct worker_codex *w)
{
	json_t *input = json_pack("[{s:s, s:s, s:[]}]", "type", "text", "text", w->brief, "text_elements");

	send_request(w, ID_TURN_START, "turn/start",
		     input ? json_pack("{s:s, s:o}", "threadId", w->thread_id, "input", input) : NULL);
}

static void on_response(struct worker_codex *w, json_int_t id, json_t *msg)
{
	json_t *error = json_object_get(msg, "error"), *result = json_object_get(msg, "result");
	const char *text;

	if (id == ID_TURN_INTERRUPT)
		return; /* the turn's end is what counts, and the deadline covers it */
	if (error) {
		const char *what = id == ID_INITIALIZE     ? "initialize"
				   : id == ID_THREAD_START ? "thread/start" : "turn/start";
		const char *why = json_string_value(json_object_get(error, "message"));
		char line[300];
		snprintf(line, sizeof line, "Codex refused %s: %s", what, why ? why : "no reason given");
		worker_proc_fail(&w->proc, "%s", line);
		return;
	}
	if (id == ID_INITIALIZE) {
		worker_proc_send(&w->proc, json_pack("{s:s}", "method", "initialized"));
		send_request(w, ID_THREAD_START, "thread/start", json_incref(w->thread_params));
	} else if (id == ID_THREAD_START) {
		text = json_string_value(json_object_get(json_object_get(result, "thread"), "id"));
		if (!text || !(w->thread_id = strdup(text)))
			worker_proc_fail(&w->proc, "Codex answered thread/start without a thread id%s", NULL);
		else
			start_turn(w);
	} else if (id == ID_TURN_START) {
		text = json_string_value(json_object_get(json_object_get(result, "turn"), "id"));
		if (!text || !(w->turn_id = strdup(text)))
			worker_proc_fail(&w->proc, "Codex answered turn/start without a turn id%s", NULL);
		else if (w->early_turn && strcmp(w->early_turn, text) == 0)
			worker_proc_turn_ended(&w->proc, w->early_status);
	}
}

/* A tool call of the worker: ours answered through the callback, any
 * other refused in Codex's own form (a failed result the model reads). */
static void on_tool_call(struct worker_codex *w, const char *line, size_t len)
{
	struct codex_tool_call tc;
	char err[256];
	int rc = dialect_codex_parse_ns(line, len, WORKER_NAMESPACE, &tc, err, sizeof err);

	if (rc == -1) {
		dialect_codex_free(&tc);
		return; /* nothing to answer */
	}
	if (rc == 0)
		worker_proc_send_text(&w->proc, worker_proc_answer(&w->proc, w->tool, w->tool_arg, tc.tool, tc.args,
								   tc.rpcid, dialect_codex_answer));
	else
		worker_proc_send_text(&w->proc, tc.rpcid ? dialect_codex_answer(tc.rpcid, 0, err, NULL) : NULL);
	dialect_codex_free(&tc);
}

/* Approvals should not come with approvalPolicy "never"; if one does, the
 * worker is told no.  Anything else we cannot answer gets an error. */
static void on_server_request(struct worker_codex *w, json_t *id, const char *method, const char *line, size_t len)
{
	const char *decision = NULL;

	if (strcmp(method, "item/tool/call") == 0) {
		on_tool_call(w, line, len);
		return;
	}
	if (strcmp(method, "item/commandExecution/requestApproval") == 0 ||
	    strcmp(method, "item/fileChange/requestApproval") == 0)
		decision = "decline";
	else if (strcmp(method, "execCommandApproval") == 0 || strcmp(method, "applyPatchApproval") == 0)
		decision = "denied";
	if (decision)
		worker_proc_send(&w->proc, json_pack("{s:O, s:{s:s}}", "id", id, "result", "decision", decision));
	else
		worker_proc_send(&w->proc, json_pack("{s:O, s:{s:i, s:s}}", "id", id, "error", "code", -32601,
						     "message", "svc-explainer's worker does not answer this request"));
}

static void on_notification(struct worker_codex *w, const char *method, json_t *params)
{
	json_t *turn = json_object_get(params, "turn");
	const char *id = json_string_value(json_object_get(turn, "id"));
	const char *status = json_string_value(json_object_get(turn, "status"));

	if (strcmp(method, "turn/completed") != 0 || !id)
		return;
	if (w->turn_id) {
		if (strcmp(w->turn_id, id) == 0)
			worker_proc_turn_ended(&w->proc, status);
	} else if (!w->early_turn && (w->early_turn = strdup(id))) {
		snprintf(w->early_status, sizeof w->early_status, "%s", status ? status : "unknown");
	}
}

static void on_line(void *ctx, const char *line, size_t len)
{
	struct worker_codex *w = ctx;
	json_t *msg = json_loadb(line, len, 0, NULL), *id;
	const char *method;

	if (!json_is_object(msg)) {
		json_decref(msg);
		return; /* not a frame: codex's own business */
	}
	id = json_object_get(msg, "id");
	method = json_string_value(json_object_get(msg, "method"));
	if (method && id)
		on_server_request(w, id, method, line, len);
	else if (method)
		on_notification(w, method, json_object_get(msg, "params"));
	else if (json_is_integer(id))
		on_response(w, json_integer_value(id), msg);
	json_decref(msg);
}

static int interrupt(void *ctx)
{
	struct worker_codex *w = ctx;

	if (!w->turn_id)
		return -1; /* nothing to interrupt yet */
	send_request(w, ID_TURN_INTERRUPT, "turn/interrupt",
		     json_pack("{s:s, s:s}", "threadId", w->thread_id, "turnId", w->turn_id));
	return 0;
}

static const struct worker_proc_ops codex_ops = { on_line, interrupt };

static void free_worker(struct worker_codex *w)
{
	json_decref(w->thread_params);
	free(w->brief);
	free(w->thread_id);
	free(w->turn_id);
	free(w->early_turn);
	free(w);
}

int worker_codex_start(const struct worker_codex_opts *o, struct worker_codex **out, char *err, size_t errlen)
{
	char *argv[] = { (char *)o->codex, "app-server", NULL };
	struct worker_codex *w;
	json_t *tools;
	json_error_t jerr;

	*out = NULL;
	if (!o->codex || !o->cwd || !o->dynamic_tools || !o->brief || !o->tool) {
		snprintf(err, errlen, "the Codex worker needs codex, a work folder, its tools, a brief and a "
				      "tool callback");
		return -1;
	}
	if (!(tools = json_loads(o->dynamic_tools, 0, &jerr)) || !json_is_array(tools)) {
		snprintf(err, errlen, "the Codex worker's tools are not a JSON array: %s",
			 tools ? "another JSON value" : jerr.text);
		json_decref(tools);
		return -1;
	}
	/* workspace-write lets the worker write in cwd; the overrides take
	 * away the temporary folders it would also get.  ephemeral: the
	 * worker is private, so its thread is never saved in the user's
	 * Codex history (no rollout, no thread row, nothing for memories). */
	if (!(w = calloc(1, sizeof *w)) || !(w->brief = strdup(o->brief)) ||
	    !(w->thread_params = json_pack("{s:s, s:o, s:s, s:s, s:b, s:{s:{s:b, s:b, s:b}}}", "cwd", o->cwd,
					   "dynamicTools", tools, "approvalPolicy", "never", "sandbox",
					   "workspace-write", "ephemeral", 1, "config", "sandbox_workspace_write",
					   "exclude_slash_tmp", 1, "exclude_tmpdir_env_var", 1, "network_access", 0)) ||
	    (o->model && json_object_set_new(w->thread_params, "model", json_string(o->model)) < 0)) {
		if (!w || !w->brief)
			json_decref(tools); /* a failed json_pack consumed it (jansson >= 2.11) */
		if (w)
			free_worker(w);
		snprintf(err, errlen, "out of memory starting the Codex worker");
		return -1;
	}
	w->tool = o->tool;
	w->tool_arg = o->tool_arg;
	if (worker_proc_start(&w->proc, "the Codex app-server", argv, o->envp, err, errlen) < 0) {
		free_worker(w);
		return -1;
	}
	send_request(w, ID_INITIALIZE, "initialize",
		     json_pack("{s:{s:s, s:s, s:s}, s:{s:b}}", "clientInfo", "name", "hbcode_explainer", "title",
			       "HB Code explainer worker", "version", "1", "capabilities", "experimentalApi", 1));
	*out = w;
	return 0;
}

enum worker_end worker_codex_wait(struct worker_codex *w, long long deadline_ms,
				  int (*stop)(void *arg), void *stop_arg, char *err, size_t errlen)
{
	return worker_proc_wait(&w->proc, &codex_ops, w, deadline_ms, stop, stop_arg, err, errlen);
}

const char *worker_codex_turn_status(const struct worker_codex *w)
{
	return w->proc.status[0] ? w->proc.status : NULL;
}

unsigned worker_codex_tool_calls(const struct worker_codex *w)
{
	return w->proc.tool_calls;
}

int worker_codex_pgid(const struct worker_codex *w)
{
	return (int)w->proc.child.pid;
}

void worker_codex_stop(struct worker_codex *w)
{
	if (!w)
		return;
	worker_proc_stop(&w->proc);
	free_worker(w);
}
