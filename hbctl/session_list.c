/*
 * session_list - the sessions through maintain_sessions (see
 * session_list.h).  One call as the user (no run), like hbctl call; its
 * answer's text is the JSON svc-sessions writes ({"sessions": [...]}).
 */
#include "session_list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "hbctl.h"
#include "protocol.h"

#define LIST_TIMEOUT_MS 5000

int session_list_fetch(const char *agent, int archived, json_t **sessions, int *exit_code, char *err, size_t errlen)
{
	json_t *args = json_pack("{s:s, s:i, s:b}", "action", "listSessions", "limit", SESSION_LIST_LIMIT,
				 "includeArchived", archived), *answer = NULL;
	char *text = NULL;
	struct hb_client c;
	struct hb_env req, reply;
	int rc = -1;

	*sessions = NULL;
	*exit_code = EXIT_FAIL;
	if (args && agent)
		json_object_set_new(args, "agent", json_string(agent));
	if (!args || !(text = json_dumps(args, JSON_COMPACT))) {
		snprintf(err, errlen, "out of memory");
		json_decref(args);
		return -1;
	}
	json_decref(args);
	if (hb_client_open(&c, NULL, LIST_TIMEOUT_MS, err, errlen) < 0) {
		*exit_code = EXIT_NO_BROKER;
		free(text);
		return -1;
	}
	hb_env_init(&req);
	hb_env_set_str(&req, "op", HB_OP_CALL);
	hb_env_set_str(&req, "tool", "maintain_sessions");
	hb_env_set_str(&req, "json", text);
	hb_env_set_str(&req, "session", "");
	hb_env_set_str(&req, "run", "");
	hb_env_set_str(&req, "call_id", "");
	rc = hb_client_request(&c, &req, &reply, err, errlen);
	free(text); /* the envelope borrowed it */
	hb_client_close(&c);
	if (rc < 0) {
		*exit_code = EXIT_NO_BROKER;
		return -1;
	}
	rc = -1;
	if (hb_env_str(&reply, "err.msg"))
		snprintf(err, errlen, "%s", hb_env_str(&reply, "err.msg"));
	else if (!hb_env_bool(&reply, "ok", 0))
		snprintf(err, errlen, "maintain_sessions: %s", hb_env_str_or(&reply, "text", "failed"));
	else if (!(answer = json_loads(hb_env_str_or(&reply, "text", ""), 0, NULL)) ||
		 !json_is_array(json_object_get(answer, "sessions")))
		snprintf(err, errlen, "maintain_sessions answered without a list of sessions");
	else {
		*sessions = json_incref(json_object_get(answer, "sessions"));
		*exit_code = 0;
		rc = 0;
	}
	json_decref(answer);
	hb_env_free(&reply);
	return rc;
}

void session_names_free(struct session_names *n)
{
	json_decref(n->by_id);
	n->by_id = NULL;
}

const json_t *session_names_get(struct session_names *n, const char *id)
{
	const json_t *s = id && n->by_id ? json_object_get(n->by_id, id) : NULL;
	time_t now = time(NULL);
	json_t *list, *by_id;
	char err[512];
	size_t i;
	int code;

	if (s || !id || (n->fetched && now - n->fetched < SESSION_NAMES_REFRESH))
		return s;
	n->fetched = now;
	if (session_list_fetch(NULL, 1, &list, &code, err, sizeof err) < 0)
		return NULL;
	if ((by_id = json_object())) {
		json_array_foreach(list, i, s)
			if (json_is_string(json_object_get(s, "id")))
				json_object_set(by_id, json_string_value(json_object_get(s, "id")), (json_t *)s);
		json_decref(n->by_id);
		n->by_id = by_id;
	}
	json_decref(list);
	return n->by_id ? json_object_get(n->by_id, id) : NULL;
}
