/*
 * jsonrpc - reading and writing MCP's JSON-RPC 2.0 lines (jsonrpc.h).
 * What a bad line gets follows JSON-RPC 2.0, section 5: not JSON is a
 * parse error with a null id; anything else that is not a request,
 * a notification or a response is an invalid request, with the id when
 * the line had a usable one.  MCP (since 2025-06-18) has no batches, so
 * an array is an invalid request too.
 */
#include "jsonrpc.h"

#include <string.h>

#include "rpc_frame.h"

const char *const mcp_revisions[] = { "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL };

const char *mcp_negotiate(const char *asked)
{
	for (int i = 0; asked && mcp_revisions[i]; i++)
		if (strcmp(asked, mcp_revisions[i]) == 0)
			return mcp_revisions[i];
	return mcp_revisions[0];
}

json_t *mcp_rpc_error(const json_t *id, int code, const char *message)
{
	json_t *null = json_null();
	json_t *e = rpc_error_answer(id ? id : null, code, message);

	json_decref(null);
	return e;
}

json_t *mcp_rpc_result(const json_t *id, json_t *result)
{
	json_t *r = result ? json_pack("{s:O, s:o}", "id", id, "result", result) : NULL;

	return r;
}

json_t *mcp_rpc_notification(const char *method, json_t *params)
{
	json_t *n = rpc_notification(method);

	if (n && params && json_object_set_new(n, "params", params) < 0) {
		json_decref(n);
		return NULL;
	}
	if (!n)
		json_decref(params);
	return n;
}

int mcp_send(struct mcp *m, json_t *msg)
{
	int rc;

	if (!msg || json_object_set_new(msg, "jsonrpc", json_string("2.0")) < 0) {
		json_decref(msg);
		return -1;
	}
	rc = rpc_frame_write(m->out_fd, msg);
	json_decref(msg);
	return rc;
}

/* A JSON-RPC id: a string or an integer (null and numbers with a
 * fraction are allowed by JSON-RPC but not by MCP). */
static int usable_id(const json_t *id)
{
	return json_is_string(id) || json_is_integer(id);
}

static int invalid(json_t **answer, const json_t *id, const char *why)
{
	*answer = mcp_rpc_error(usable_id(id) ? id : NULL, MCP_INVALID_REQUEST, why);
	return -1;
}

int mcp_rpc_read(const char *line, size_t len, json_t **msg, enum mcp_kind *kind, json_t **answer)
{
	json_error_t jerr;
	json_t *v = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr), *id, *method, *params;
	int rc = -1;

	*msg = *answer = NULL;
	if (!v) {
		char why[256];
		snprintf(why, sizeof why, "Parse error: the line is not JSON (%s, at character %d)", jerr.text,
			 jerr.position);
		*answer = mcp_rpc_error(NULL, MCP_PARSE_ERROR, why);
		return -1;
	}
	if (json_is_array(v)) {
		invalid(answer, NULL, "Invalid request: MCP has no batches; send one message a line");
		goto out;
	}
	if (!json_is_object(v)) {
		invalid(answer, NULL, "Invalid request: a message is a JSON object");
		goto out;
	}
	id = json_object_get(v, "id");
	method = json_object_get(v, "method");
	params = json_object_get(v, "params");
	if (!json_is_string(json_object_get(v, "jsonrpc")) ||
	    strcmp(json_string_value(json_object_get(v, "jsonrpc")), "2.0") != 0) {
		invalid(answer, id, "Invalid request: \"jsonrpc\" must be \"2.0\"");
		goto out;
	}
	if (!method) {
		/* A response to one of hb-mcp's requests (elicitation, ping). */
		if (usable_id(id) && (json_object_get(v, "result") || json_object_get(v, "error"))) {
			*kind = MCP_MSG_RESPONSE;
			rc = 0;
		} else if (id) {
			invalid(answer, id, "Invalid request: a message needs a \"method\", or a \"result\" or \"error\"");
		}
		goto out;
	}
	if (!json_is_string(method)) {
		invalid(answer, id, "Invalid request: \"method\" must be a string");
		goto out;
	}
	if (id && !usable_id(id)) {
		invalid(answer, NULL, "Invalid request: \"id\" must be a string or an integer");
		goto out;
	}
	if (params && !json_is_object(params)) {
		if (id)
			invalid(answer, id, "Invalid request: \"params\" must be an object");
		goto out;
	}
	*kind = id ? MCP_MSG_REQUEST : MCP_MSG_NOTIFICATION;
	rc = 0;
out:
	if (rc == 0)
		*msg = v;
	else
		json_decref(v);
	return rc;
}
