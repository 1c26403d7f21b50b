/*
 * worker_claude - the desktop side of the agent host's pipe for
 * svc-explainer's worker (see worker_claude.h); the process itself is
 * worker_proc.c's.  send goes out once open is answered, so that nothing
 * blocks outside worker_claude_wait, whose deadline and cancel then cover
 * the start-up too.  The turn runs from send's answer until the host
 * reports the session idle, as hb-claude-bridge sees it
 * (bridge/claude_deliver.c): the idle state is the only sign that the
 * whole turn is over.
 *
 * The permission mode is dontAsk: Claude Code then refuses every tool not
 * in allowedTools without asking, so the worker has its own tools and no
 * other.  A host that does not know dontAsk refuses the open as an invalid
 * request; the open is then sent again with "default", where a question
 * comes as a permission event, which is denied.
 */
#include "worker_claude.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dialect.h"
#include "random.h"
#include "worker_proc.h"

#define TOOL_PREFIX "mcp__hbcode__" /* the host's one MCP server */
#define DENIED "The explainer worker may use only its own tools."

/* Our request ids; the answers to toolResult and permission (ids from
 * ID_ANSWERS on) change nothing. */
enum { ID_OPEN = 1, ID_SEND, ID_INTERRUPT, ID_CLOSE, ID_ANSWERS = 100 };

struct worker_claude {
	struct worker_proc proc;
	worker_tool_fn tool;
	void *tool_arg;
	json_t *open_params;
	char *brief;
	json_int_t next_id;
	int running;             /* send was answered: the turn runs until idle */
	int interrupted;         /* we asked the turn to stop */
	int result_error;        /* the turn's result message was an error */
};

/* params: a new reference; NULL: out of memory. */
static void send_request(struct worker_claude *w, json_int_t id, const char *method, json_t *params)
{
	worker_proc_send(&w->proc, params ? json_pack("{s:I, s:s, s:o}", "id", id, "method", method, "params", params)
					  : NULL);
}

static void fail_with(struct worker_claude *w, const char *what, json_t *why)
{
	const char *text = json_string_value(why);
	char line[300];

	snprintf(line, sizeof line, "%s: %s", what, text ? text : "no reason given");
	worker_proc_fail(&w->proc, "%s", line);
}

/* The open refused: when for its permission mode, once more with the one
 * every host knows. */
static void open_refused(struct worker_claude *w, json_t *error)
{
	const char *code = json_string_value(json_object_get(error, "code"));
	const char *text = json_string_value(json_object_get(error, "message"));
	const char *mode = json_string_value(json_object_get(w->open_params, "permissionMode"));

	if (code && strcmp(code, "invalid_request") == 0 && text && strstr(text, "permissionMode") && mode &&
	    strcmp(mode, "default") != 0 &&
	    json_object_set_new(w->open_params, "permissionMode", json_string("default")) == 0) {
		send_request(w, ID_OPEN, "open", json_incref(w->open_params));
		return;
	}
	fail_with(w, "the Claude agent host refused open", json_object_get(error, "message"));
}

static void on_reply(struct worker_claude *w, json_int_t id, json_t *msg)
{
	json_t *error = json_object_get(msg, "error");

	if (id == ID_OPEN && error)
		open_refused(w, error);
	else if (id == ID_OPEN)
		send_request(w, ID_SEND, "send", json_pack("{s:s}", "text", w->brief));
	else if (id == ID_SEND && error)
		fail_with(w, "the Claude agent host refused send", json_object_get(error, "message"));
	else if (id == ID_SEND)
		w->running = 1;
	/* interrupt: the idle state is what counts, and the grace covers
	 * it; close, toolResult, permission: nothing to do. */
}

/* An SDK message: the result's kind, and the idle state that ends the
 * turn. */
static void on_message(struct worker_claude *w, json_t *m)
{
	const char *type = json_string_value(json_object_get(m, "type"));
	const char *subtype = json_string_value(json_object_get(m, "subtype"));
	const char *state = json_string_value(json_object_get(m, "state"));

	if (!type)
		return;
	if (strcmp(type, "result") == 0)
		w->result_error = json_is_true(json_object_get(m, "is_error")) || !subtype ||
				  strcmp(subtype, "success") != 0;
	else if (strcmp(type, "system") == 0 && subtype && strcmp(subtype, "session_state_changed") == 0 && state &&
		 strcmp(state, "idle") == 0 && w->running)
		worker_proc_turn_ended(&w->proc, w->interrupted ? "interrupted"
						 : w->result_error ? "failed" : "completed");
}

static void on_tool_call(struct worker_claude *w, const char *line, size_t len, json_t *ev)
{
	json_t *rid = json_object_get(ev, "requestId"), *params;
	struct claude_tool_call tc;
	char err[256], *text, *idtext;

	if (dialect_claude_parse(line, len, &tc, err, sizeof err) == 0) {
		text = worker_proc_answer(&w->proc, w->tool, w->tool_arg, tc.tool, tc.args, tc.request_id,
					  dialect_claude_result);
		dialect_claude_free(&tc);
	} else if (json_is_string(rid) || json_is_integer(rid)) {
		idtext = json_dumps(rid, JSON_COMPACT | JSON_ENCODE_ANY);
		text = idtext ? dialect_claude_result(idtext, 0, err, NULL) : NULL;
		free(idtext);
	} else {
		return; /* nothing to answer */
	}
	params = text ? json_loads(text, 0, NULL) : NULL;
	free(text);
	if (!params)
		worker_proc_fail(&w->proc, "out of memory answering the Claude worker's tool call%s", NULL);
	else
		send_request(w, w->next_id++, "toolResult", params);
}

static void on_event(struct worker_claude *w, const char *event, json_t *ev, const char *line, size_t len)
{
	if (strcmp(event, "message") == 0) {
		on_message(w, json_object_get(ev, "message"));
	} else if (strcmp(event, "toolCall") == 0) {
		on_tool_call(w, line, len, ev);
	} else if (strcmp(event, "permission") == 0) {
		send_request(w, w->next_id++, "permission",
			     json_pack("{s:O, s:s, s:s}", "requestId", json_object_get(ev, "requestId"), "decision",
				       "deny", "message", DENIED));
	} else if (strcmp(event, "failed") == 0) {
		fail_with(w, "the Claude agent host failed", json_object_get(ev, "error"));
	} else if (strcmp(event, "closed") == 0) {
		fail_with(w, "the Claude agent host closed before the worker's turn ended",
			  json_object_get(ev, "reason"));
	}
	/* toolCancel: our calls are answered before the next line is read,
	 * so the host has had the answer (or drops it: delivered false). */
}

static void on_line(void *ctx, const char *line, size_t len)
{
	struct worker_claude *w = ctx;
	json_t *msg = json_loadb(line, len, 0, NULL), *id;
	const char *event;

	if (!json_is_object(msg)) {
		json_decref(msg);
		return; /* not a line of the pipe */
	}
	id = json_object_get(msg, "id");
	event = json_string_value(json_object_get(msg, "event"));
	if (event)
		on_event(w, event, msg, line, len);
	else if (json_is_integer(id))
		on_reply(w, json_integer_value(id), msg);
	json_decref(msg);
}

static int interrupt(void *ctx)
{
	struct worker_claude *w = ctx;

	if (!w->running)
		return -1; /* no turn yet: nothing to interrupt */
	w->interrupted = 1;
	send_request(w, ID_INTERRUPT, "interrupt", json_object());
	return 0;
}

static const struct worker_proc_ops claude_ops = { on_line, interrupt };

/* A new conversation's id: a random UUID, version 4. */
static int new_session_id(char out[37], char *err, size_t errlen)
{
	unsigned char r[16];

	if (hb_random_bytes(r, sizeof r, err, errlen) < 0)
		return -1;
	r[6] = (unsigned char)((r[6] & 0x0f) | 0x40);
	r[8] = (unsigned char)((r[8] & 0x3f) | 0x80);
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2],
		 r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15]);
	return 0;
}

/* open's params; NULL with err. */
static json_t *open_params(const struct worker_claude_opts *o, char *err, size_t errlen)
{
	json_t *caps, *allowed = NULL, *cap, *params = NULL;
	json_error_t jerr;
	char session[37];
	size_t i;

	if (!(caps = json_loads(o->app_capabilities, 0, &jerr)) || !json_is_array(caps)) {
		snprintf(err, errlen, "the Claude worker's tools are not a JSON array: %s",
			 caps ? "another JSON value" : jerr.text);
		goto out;
	}
	if (!(allowed = json_array()))
		goto oom;
	json_array_foreach(caps, i, cap) {
		const char *name = json_string_value(json_object_get(cap, "name"));
		if (!name) {
			snprintf(err, errlen, "the Claude worker's tool %zu has no name", i + 1);
			goto out;
		}
		if (json_array_append_new(allowed, json_sprintf(TOOL_PREFIX "%s", name)) < 0)
			goto oom;
	}
	if (new_session_id(session, err, errlen) < 0)
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
	json_decref(caps);
	return params;
}

static void free_worker(struct worker_claude *w)
{
	json_decref(w->open_params);
	free(w->brief);
	free(w);
}

int worker_claude_start(const struct worker_claude_opts *o, struct worker_claude **out, char *err, size_t errlen)
{
	struct worker_claude *w;

	*out = NULL;
	if (!o->host_argv || !o->host_argv[0] || !o->cwd || !o->app_capabilities || !o->brief || !o->tool) {
		snprintf(err, errlen, "the Claude worker needs the agent host, a work folder, its tools, a brief and a "
				      "tool callback");
		return -1;
	}
	if (!(w = calloc(1, sizeof *w)) || !(w->brief = strdup(o->brief))) {
		free(w);
		snprintf(err, errlen, "out of memory starting the Claude worker");
		return -1;
	}
	if (!(w->open_params = open_params(o, err, errlen))) {
		free_worker(w);
		return -1;
	}
	w->tool = o->tool;
	w->tool_arg = o->tool_arg;
	w->next_id = ID_ANSWERS;
	if (worker_proc_start(&w->proc, "the Claude agent host", o->host_argv, o->envp, err, errlen) < 0) {
		free_worker(w);
		return -1;
	}
	send_request(w, ID_OPEN, "open", json_incref(w->open_params));
	*out = w;
	return 0;
}

enum worker_end worker_claude_wait(struct worker_claude *w, long long deadline_ms,
				   int (*stop)(void *arg), void *stop_arg, char *err, size_t errlen)
{
	return worker_proc_wait(&w->proc, &claude_ops, w, deadline_ms, stop, stop_arg, err, errlen);
}

const char *worker_claude_turn_status(const struct worker_claude *w)
{
	return w->proc.status[0] ? w->proc.status : NULL;
}

unsigned worker_claude_tool_calls(const struct worker_claude *w)
{
	return w->proc.tool_calls;
}

int worker_claude_pgid(const struct worker_claude *w)
{
	return (int)w->proc.child.pid;
}

void worker_claude_stop(struct worker_claude *w)
{
	if (!w)
		return;
	/* The host closes the query and ends; a host already gone makes
	 * this write fail, which nobody waits for any more. */
	if (!w->proc.exited)
		send_request(w, ID_CLOSE, "close", json_object());
	worker_proc_stop(&w->proc);
	free_worker(w);
}
