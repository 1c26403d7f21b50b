/*
 * claude_host_client - see claude_host_client.h.  The toolResult text is
 * dialect.c's (the recorded frames are replayed through it).
 */
#include "claude_host_client.h"

#include <stdlib.h>
#include <string.h>

#include "dialect.h"
#include "rpc_frame.h"

json_t *claude_host_open(json_t *id, json_t *params)
{
	return rpc_request(id, "open", params);
}

json_t *claude_host_send(json_t *id, const char *text, const char *message_id)
{
	json_t *params = json_pack("{s:s}", "text", text);

	if (params && message_id && json_object_set_new(params, "messageId", json_string(message_id)) < 0) {
		json_decref(params);
		params = NULL;
	}
	return rpc_request(id, "send", params);
}

json_t *claude_host_interrupt(json_t *id)
{
	return rpc_request(id, "interrupt", json_object());
}

json_t *claude_host_close(json_t *id)
{
	return rpc_request(id, "close", json_object());
}

json_t *claude_host_history(json_t *id, const char *session, const char *cwd, int limit, const char *before)
{
	json_t *params = json_pack("{s:s, s:s, s:i}", "sessionId", session, "cwd", cwd, "limit", limit);

	if (params && before && json_object_set_new(params, "before", json_string(before)) < 0) {
		json_decref(params);
		params = NULL;
	}
	return rpc_request(id, "history", params);
}

char *claude_host_request_id(const json_t *event)
{
	const json_t *rid = json_object_get(event, "requestId");

	if (!json_is_string(rid) && !json_is_integer(rid))
		return NULL;
	return json_dumps(rid, JSON_COMPACT | JSON_ENCODE_ANY);
}

json_t *claude_host_tool_result(const char *request_id, int ok, const char *text, const char *images)
{
	char *params = request_id ? dialect_claude_result(request_id, ok, text, images) : NULL;
	json_t *v = params ? json_loads(params, 0, NULL) : NULL;

	free(params);
	return v;
}

/* request_id's JSON value; NULL when it is not JSON. */
static json_t *id_value(const char *request_id)
{
	return request_id ? json_loads(request_id, JSON_DECODE_ANY, NULL) : NULL;
}

json_t *claude_host_tool_answer(const char *request_id, const char *answer)
{
	json_t *params = answer ? json_loads(answer, 0, NULL) : NULL, *rid = id_value(request_id);

	if (!json_is_object(params) || !rid) {
		json_decref(rid);
		json_decref(params);
		return NULL;
	}
	/* Taken out first, so the id the host gave is always last. */
	json_object_del(params, "requestId");
	if (json_object_set_new(params, "requestId", rid) < 0) {
		json_decref(params);
		return NULL;
	}
	return params;
}

json_t *claude_host_permission(const char *request_id, int allow, const char *message)
{
	json_t *rid = id_value(request_id);
	json_t *params = rid ? json_pack("{s:o, s:s}", "requestId", rid, "decision", allow ? "allow" : "deny") : NULL;

	if (params && !allow && message && json_object_set_new(params, "message", json_string(message)) < 0) {
		json_decref(params);
		params = NULL;
	}
	return params;
}
