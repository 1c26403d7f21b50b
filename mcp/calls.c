/*
 * calls - tools/call in flight (calls.h).  A call's answer, its failure,
 * a dead broker and an oversized argument are all tool results with
 * isError and a sentence, which the client's model reads; only what
 * JSON-RPC and MCP call protocol errors (no tool name, arguments that
 * are not an object, a tool the broker does not know) are JSON-RPC
 * errors.  A cancelled call is never answered (MCP: the receiver of a
 * cancel does not answer the request).
 */
#include "calls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "images.h"
#include "jsonrpc.h"
#include "link.h"
#include "opfields.h"
#include "protocol.h"

struct mcp_call {
	json_t *id;                     /* the client's request id */
	int64_t broker_id;              /* the front request's id */
	char call_id[32];               /* mcp-N: how the broker's events name it */
	char key[32];                   /* the broker's key, once an event said it */
	json_t *progress_token;         /* _meta.progressToken, or NULL */
	json_int_t progress;            /* notifications sent */
	int cancelled;                  /* notifications/cancelled came */
	int retried;                    /* sent again after the run was gone */
	char *tool, *args;
	struct mcp_call *next;
};

static void call_free(struct mcp_call *c)
{
	json_decref(c->id);
	json_decref(c->progress_token);
	free(c->tool);
	free(c->args);
	free(c);
}

/* Take c out of the table and free it. */
static void forget(struct mcp *m, struct mcp_call *c)
{
	for (struct mcp_call **pp = &m->calls; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	call_free(c);
}

json_t *calls_result(int ok, const char *text, const char *images)
{
	json_t *content = json_array(), *all = NULL, *img;
	char err[256];
	size_t i;

	if (!content || json_array_append_new(content, json_pack("{s:s, s:s}", "type", "text", "text", text)) < 0)
		goto fail;
	if (images) {
		if (!(all = hb_images_parse(images, err, sizeof err)))
			goto fail;
		json_array_foreach(all, i, img)
			if (json_array_append_new(content, json_pack("{s:s, s:O, s:s}", "type", "image", "data",
								    json_object_get(img, "data"), "mimeType",
								    hb_image_mime(img))) < 0)
				goto fail;
		json_decref(all);
	}
	return json_pack("{s:o, s:b}", "content", content, "isError", !ok);
fail:
	json_decref(all);
	json_decref(content);
	return NULL;
}

/* Answer c's request with a tool result and forget c. */
static void answer(struct mcp *m, struct mcp_call *c, int ok, const char *text, const char *images)
{
	json_t *result = calls_result(ok, text, images);

	if (!result)
		result = calls_result(0, "hb-mcp could not read the images of the tool's answer", NULL);
	mcp_send(m, mcp_rpc_result(c->id, result));
	forget(m, c);
}

/* Send c to the broker under this connection's run. */
static int send_call(struct mcp *m, struct mcp_call *c, char *err, size_t errlen)
{
	struct hb_env req;

	if (link_run(m, err, errlen) < 0)
		return -1;
	hb_env_init(&req);
	hb_env_set_str(&req, "op", HB_OP_CALL);
	hb_env_set_str(&req, "tool", c->tool);
	hb_env_set_str(&req, "json", c->args);
	hb_env_set_str(&req, "run", m->run);
	hb_env_set_str(&req, "call_id", c->call_id);
	c->key[0] = '\0';
	return link_send(m, &req, &c->broker_id, err, errlen);
}

void calls_start(struct mcp *m, const json_t *id, const json_t *params)
{
	const char *name = json_string_value(json_object_get(params, "name"));
	const json_t *args = json_object_get(params, "arguments");
	const json_t *token = json_object_get(json_object_get(params, "_meta"), "progressToken");
	struct mcp_call *c;
	char err[768];

	if (!name || !*name) {
		mcp_send(m, mcp_rpc_error(id, MCP_INVALID_PARAMS, "tools/call needs \"name\", the tool's name"));
		return;
	}
	if (args && !json_is_object(args)) {
		mcp_send(m, mcp_rpc_error(id, MCP_INVALID_PARAMS, "tools/call's \"arguments\" must be an object"));
		return;
	}
	if (!(c = calloc(1, sizeof *c)) || !(c->id = json_deep_copy(id)) || !(c->tool = strdup(name)) ||
	    !(c->args = args ? json_dumps(args, JSON_COMPACT) : strdup("{}"))) {
		if (c)
			call_free(c);
		mcp_send(m, mcp_rpc_error(id, MCP_INTERNAL_ERROR, "hb-mcp is out of memory"));
		return;
	}
	if (json_is_string(token) || json_is_integer(token))
		c->progress_token = json_deep_copy(token);
	snprintf(c->call_id, sizeof c->call_id, "mcp-%lu", ++m->next_call);
	c->next = m->calls;
	m->calls = c;
	if (strlen(c->args) > HB_MAX_PAYLOAD) {
		snprintf(err, sizeof err, "the arguments are %zu bytes; at most %u are accepted, so nothing was sent",
			 strlen(c->args), HB_MAX_PAYLOAD);
		answer(m, c, 0, err, NULL);
		return;
	}
	if (send_call(m, c, err, sizeof err) < 0)
		answer(m, c, 0, err, NULL);
}

static struct mcp_call *by_broker_id(struct mcp *m, int64_t id)
{
	for (struct mcp_call *c = m->calls; c; c = c->next)
		if (c->broker_id == id)
			return c;
	return NULL;
}

static struct mcp_call *by_call_id(struct mcp *m, const char *call_id)
{
	for (struct mcp_call *c = m->calls; call_id && c; c = c->next)
		if (strcmp(c->call_id, call_id) == 0)
			return c;
	return NULL;
}

int calls_known(const struct mcp *m, const char *call_id)
{
	return by_call_id((struct mcp *)m, call_id) != NULL;
}

void calls_on_reply(struct mcp *m, const struct hb_env *reply)
{
	const char *code = hb_env_str(reply, "err.code"), *msg = hb_env_str(reply, "err.msg");
	struct mcp_call *c;
	int64_t id;
	char err[768];

	if (hb_env_int(reply, "id", &id) < 0 || !(c = by_broker_id(m, id))) {
		if (msg) /* a cancel or an approval's answer that came too late */
			fprintf(stderr, "hb-mcp: hb-broker: %s\n", msg);
		return;
	}
	if (c->cancelled) {
		forget(m, c);
		return;
	}
	if (code && strcmp(code, "unknown-tool") == 0) {
		mcp_send(m, mcp_rpc_error(c->id, MCP_INVALID_PARAMS, msg ? msg : "unknown tool"));
		forget(m, c);
		return;
	}
	if (code && strcmp(code, "no-run") == 0 && !c->retried) {
		/* The run went with a broker that restarted: open it again. */
		c->retried = 1;
		m->run_open = 0;
		if (send_call(m, c, err, sizeof err) < 0)
			answer(m, c, 0, err, NULL);
		return;
	}
	if (msg)
		answer(m, c, 0, msg, NULL);
	else
		answer(m, c, hb_env_bool(reply, "ok", 0), hb_env_str_or(reply, "text", ""), hb_env_str(reply, "images"));
}

static void send_cancel(struct mcp *m, struct mcp_call *c)
{
	struct hb_env req;
	int64_t id;
	char err[512];

	hb_env_init(&req);
	hb_env_set_str(&req, "op", HB_OP_CANCEL);
	hb_env_set_str(&req, "key", c->key);
	if (link_send(m, &req, &id, err, sizeof err) < 0)
		fprintf(stderr, "hb-mcp: cannot cancel %s: %s\n", c->call_id, err);
}

void calls_note_key(struct mcp *m, const char *call_id, const char *key)
{
	struct mcp_call *c = by_call_id(m, call_id);

	if (!c || !key || c->key[0] || strlen(key) >= sizeof c->key)
		return;
	snprintf(c->key, sizeof c->key, "%s", key);
	if (c->cancelled)
		send_cancel(m, c);
}

void calls_on_event(struct mcp *m, const char *topic, const json_t *ev)
{
	const char *run = json_string_value(json_object_get(ev, "run"));
	struct mcp_call *c;

	if (!run || strcmp(run, m->run) != 0 ||
	    !(c = by_call_id(m, json_string_value(json_object_get(ev, "callId")))))
		return;
	calls_note_key(m, c->call_id, json_string_value(json_object_get(ev, "key")));
	if (strcmp(topic, "call.progress") != 0 || !c->progress_token || c->cancelled)
		return;
	mcp_send(m, mcp_rpc_notification("notifications/progress",
					 json_pack("{s:O, s:I, s:s}", "progressToken", c->progress_token, "progress",
						   ++c->progress, "message",
						   json_string_value(json_object_get(ev, "text")) ?
							   json_string_value(json_object_get(ev, "text")) : "")));
}

void calls_cancel(struct mcp *m, const json_t *request_id)
{
	for (struct mcp_call *c = m->calls; request_id && c; c = c->next)
		if (json_equal(c->id, request_id) && !c->cancelled) {
			c->cancelled = 1;
			if (c->key[0])
				send_cancel(m, c);
			return;
		}
}

void calls_fail_all(struct mcp *m, const char *why)
{
	while (m->calls) {
		if (m->calls->cancelled)
			forget(m, m->calls);
		else
			answer(m, m->calls, 0, why, NULL);
	}
}

void calls_free(struct mcp *m)
{
	while (m->calls)
		forget(m, m->calls);
}
