/*
 * worker_claude - the explainer's worker on the Claude agent host
 * (worker.h), the desktop side of the host's pipe (docs/agent-host-
 * pipe.md, agents/claude_host_client.h): open (a new conversation in the
 * work folder, the worker's tools as appCapabilities and allowed without
 * asking, nothing else allowed), send with the brief once open is
 * answered, interrupt on a deadline or a cancel, close at the stop.  The
 * turn runs from send's answer until the host reports the session idle,
 * as hb-claude-bridge sees it (bridge/claude_deliver.c): the idle state
 * is the only sign that the whole turn is over.  The worker's tool calls
 * (toolCall) are answered through the caller's callback.
 *
 * The permission mode is dontAsk: Claude Code then refuses every tool not
 * in allowedTools without asking, so the worker has its own tools and no
 * other.  A host that does not know dontAsk refuses the open as an invalid
 * request; the open is then sent again with "default", where a question
 * comes as a permission event, which is denied.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "claude_host_client.h"
#include "dialect.h"
#include "random.h"
#include "rpc_frame.h"
#include "tool_forms.h"
#include "worker_agent.h"

#define DENIED "The explainer worker may use only its own tools."

/* Our request ids; the answers to toolResult and permission (ids from
 * ID_ANSWERS on) change nothing. */
enum { ID_OPEN = 1, ID_SEND, ID_INTERRUPT, ID_CLOSE, ID_ANSWERS = 100 };

struct claude_worker {
	struct worker *w;
	struct worker_proc *proc;
	json_t *open_params;
	json_int_t next_id;
	int running;             /* send was answered: the turn runs until idle */
	int interrupted;         /* we asked the turn to stop */
	int result_error;        /* the turn's result message was an error */
};

static void fail_with(struct claude_worker *c, const char *what, json_t *why)
{
	const char *text = json_string_value(why);
	char line[300];

	snprintf(line, sizeof line, "%s: %s", what, text ? text : "no reason given");
	worker_proc_fail(c->proc, "%s", line);
}

/* The open refused: when for its permission mode, once more with the one
 * every host knows. */
static void open_refused(struct claude_worker *c, json_t *error)
{
	const char *code = json_string_value(json_object_get(error, "code"));
	const char *text = json_string_value(json_object_get(error, "message"));
	const char *mode = json_string_value(json_object_get(c->open_params, "permissionMode"));

	if (code && strcmp(code, "invalid_request") == 0 && text && strstr(text, "permissionMode") && mode &&
	    strcmp(mode, "default") != 0 &&
	    json_object_set_new(c->open_params, "permissionMode", json_string("default")) == 0) {
		worker_proc_send(c->proc, claude_host_open(json_integer(ID_OPEN), json_incref(c->open_params)));
		return;
	}
	fail_with(c, "the Claude agent host refused open", json_object_get(error, "message"));
}

static void on_reply(struct claude_worker *c, json_int_t id, json_t *msg)
{
	json_t *error = json_object_get(msg, "error");

	if (id == ID_OPEN && error)
		open_refused(c, error);
	else if (id == ID_OPEN)
		worker_proc_send(c->proc, claude_host_send(json_integer(ID_SEND), c->w->brief, NULL));
	else if (id == ID_SEND && error)
		fail_with(c, "the Claude agent host refused send", json_object_get(error, "message"));
	else if (id == ID_SEND)
		c->running = 1;
	/* interrupt: the idle state is what counts, and the grace covers
	 * it; close, toolResult, permission: nothing to do. */
}

/* An SDK message: the result's kind, and the idle state that ends the
 * turn. */
static void on_message(struct claude_worker *c, json_t *m)
{
	const char *type = json_string_value(json_object_get(m, "type"));
	const char *subtype = json_string_value(json_object_get(m, "subtype"));
	const char *state = json_string_value(json_object_get(m, "state"));

	if (!type)
		return;
	if (strcmp(type, "result") == 0)
		c->result_error = json_is_true(json_object_get(m, "is_error")) || !subtype ||
				  strcmp(subtype, "success") != 0;
	else if (strcmp(type, "system") == 0 && subtype && strcmp(subtype, "session_state_changed") == 0 && state &&
		 strcmp(state, "idle") == 0 && c->running)
		worker_proc_turn_ended(c->proc, c->interrupted ? "interrupted"
						 : c->result_error ? "failed" : "completed");
}

static void on_tool_call(struct claude_worker *c, const char *line, size_t len, json_t *ev)
{
	struct claude_tool_call tc;
	char err[256], *text, *rid;
	json_t *params;

	if (dialect_claude_parse(line, len, &tc, err, sizeof err) == 0) {
		text = worker_proc_answer(c->proc, c->w->tool, c->w->tool_arg, tc.tool, tc.args, tc.request_id,
					  dialect_claude_result);
		dialect_claude_free(&tc);
		params = text ? json_loads(text, 0, NULL) : NULL;
		free(text);
	} else if ((rid = claude_host_request_id(ev))) {
		params = claude_host_tool_result(rid, 0, err, NULL);
		free(rid);
	} else {
		return; /* nothing to answer */
	}
	if (!params)
		worker_proc_fail(c->proc, "out of memory answering the Claude worker's tool call%s", NULL);
	else
		worker_proc_send(c->proc, rpc_request_int(c->next_id++, "toolResult", params));
}

static void on_event(struct claude_worker *c, const char *event, json_t *ev, const char *line, size_t len)
{
	if (strcmp(event, "message") == 0) {
		on_message(c, json_object_get(ev, "message"));
	} else if (strcmp(event, "toolCall") == 0) {
		on_tool_call(c, line, len, ev);
	} else if (strcmp(event, "permission") == 0) {
		char *rid = claude_host_request_id(ev);
		worker_proc_send(c->proc,
				 rpc_request_int(c->next_id++, "permission", claude_host_permission(rid, 0, DENIED)));
		free(rid);
	} else if (strcmp(event, "failed") == 0) {
		fail_with(c, "the Claude agent host failed", json_object_get(ev, "error"));
	} else if (strcmp(event, "closed") == 0) {
		fail_with(c, "the Claude agent host closed before the worker's turn ended",
			  json_object_get(ev, "reason"));
	}
	/* toolCancel: our calls are answered before the next line is read,
	 * so the host has had the answer (or drops it: delivered false). */
}

static void on_line(void *state, json_t *msg, const char *line, size_t len)
{
	struct claude_worker *c = state;
	json_t *id = json_object_get(msg, "id");
	const char *event = json_string_value(json_object_get(msg, "event"));

	if (event)
		on_event(c, event, msg, line, len);
	else if (json_is_integer(id))
		on_reply(c, json_integer_value(id), msg);
}

static int interrupt(void *state)
{
	struct claude_worker *c = state;

	if (!c->running)
		return -1; /* no turn yet: nothing to interrupt */
	c->interrupted = 1;
	worker_proc_send(c->proc, claude_host_interrupt(json_integer(ID_INTERRUPT)));
	return 0;
}

/* open's params; NULL with err. */
static json_t *open_params(const struct worker_opts *o, const json_t *tools, char *err, size_t errlen)
{
	json_t *caps = (json_t *)tools, *allowed, *cap, *params = NULL;
	char session[37];
	size_t i;

	if (!(allowed = json_array()))
		goto oom;
	json_array_foreach(caps, i, cap) {
		const char *name = json_string_value(json_object_get(cap, "name"));
		if (!name) {
			snprintf(err, errlen, "the Claude worker's tool %zu has no name", i + 1);
			goto out;
		}
		if (json_array_append_new(allowed, tool_form_claude_allowed(name)) < 0)
			goto oom;
	}
	if (hb_random_uuid(session, err, errlen) < 0)
		goto out;
	/* persistSession false: the worker is private, so Claude Code keeps
	 * no transcript of it in the user's projects folder. */
	if (!(params = json_pack("{s:s, s:s, s:s, s:O, s:O, s:b}", "sessionId", session, "cwd", o->cwd,
				 "permissionMode", "dontAsk", "allowedTools", allowed, "appCapabilities", caps,
				 "persistSession", 0)) ||
	    (o->model && json_object_set_new(params, "model", json_string(o->model)) < 0))
		goto oom;
	goto out;
oom:
	snprintf(err, errlen, "out of memory starting the Claude worker");
	json_decref(params);
	params = NULL;
out:
	json_decref(allowed);
	return params;
}

static void begin(void *state)
{
	struct claude_worker *c = state;

	worker_proc_send(c->proc, claude_host_open(json_integer(ID_OPEN), json_incref(c->open_params)));
}

/* The host closes the query and ends; a host already gone makes this
 * write fail, which nobody waits for any more. */
static void end(void *state)
{
	struct claude_worker *c = state;

	worker_proc_send(c->proc, claude_host_close(json_integer(ID_CLOSE)));
}

static void destroy(void *state)
{
	struct claude_worker *c = state;

	json_decref(c->open_params);
	free(c);
}

static void *create(struct worker *w, const struct worker_opts *o, const json_t *tools, char *err, size_t errlen)
{
	struct claude_worker *c = calloc(1, sizeof *c);

	if (!c) {
		snprintf(err, errlen, "out of memory starting the Claude worker");
		return NULL;
	}
	if (!(c->open_params = open_params(o, tools, err, errlen))) {
		destroy(c);
		return NULL;
	}
	c->w = w;
	c->proc = &w->proc;
	c->next_id = ID_ANSWERS;
	return c;
}

const struct worker_agent worker_claude = { .agent = "Claude", .program = "the agent host",
	.name = "the Claude agent host",
	.create = create, .begin = begin, .line = on_line, .interrupt = interrupt, .end = end, .destroy = destroy };
