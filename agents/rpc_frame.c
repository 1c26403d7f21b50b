/*
 * rpc_frame - see rpc_frame.h.
 */
#include "rpc_frame.h"

#include <stdlib.h>
#include <string.h>

#include "lines.h"

json_t *rpc_request(json_t *id, const char *method, json_t *params)
{
	json_t *req;

	if (!id || !params) {
		json_decref(id);
		json_decref(params);
		return NULL;
	}
	req = json_pack("{s:o, s:s, s:o}", "id", id, "method", method, "params", params);
	return req; /* a failed json_pack consumed id and params (jansson >= 2.11) */
}

json_t *rpc_request_int(long long id, const char *method, json_t *params)
{
	return rpc_request(json_integer((json_int_t)id), method, params);
}

json_t *rpc_request_str(const char *id, const char *method, json_t *params)
{
	return rpc_request(json_string(id), method, params);
}

json_t *rpc_notification(const char *method)
{
	return json_pack("{s:s}", "method", method);
}

json_t *rpc_error_answer(const json_t *id, int code, const char *message)
{
	return json_pack("{s:O, s:{s:i, s:s}}", "id", id ? id : json_null(), "error", "code", code, "message",
			 message);
}

const char *rpc_error_message(const json_t *answer, const char *fallback)
{
	const json_t *error = json_object_get(answer, "error");
	const char *message = json_string_value(json_object_get(error, "message"));

	if (!error)
		return NULL;
	return message ? message : fallback;
}

int rpc_frame_write(int fd, const json_t *v)
{
	char *text = v ? json_dumps(v, JSON_COMPACT) : NULL;
	int rc = text ? write_line(fd, text, strlen(text)) : -1;

	free(text);
	return rc < 0 ? -1 : 0;
}
