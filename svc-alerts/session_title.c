/*
 * session_title - an alert names its session by id and by title.  The
 * title is the user's and may be long; the protocol caps it at 200
 * characters, so a longer one is cut at a character boundary (unlike the
 * agent's own title and body, which are refused: the agent can shorten
 * those, and the session's title is not the agent's to change).
 *
 * svc-sessions owns appdata.db; asking it (a subcall with the calling
 * call's binding) keeps svc-alerts out of the database: a read-only
 * connection to a WAL database needs to make its -shm file, which the
 * confinement of svc-alerts rightly refuses in the data folder.
 */
#include "session_title.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relay_proto.h"
#include "utf8.h"

#define SUBCALL_MS 5000

int session_title(struct hb_call *call, const char *id, char *out, size_t outlen, char *err, size_t errlen)
{
	json_t *args = json_pack("{s:s, s:s}", "action", "resolveSession", "targetSessionId", id), *answer;
	char *text = NULL, *json = args ? json_dumps(args, JSON_COMPACT) : NULL;
	const char *title;
	int ok = 0, rc = -1;

	out[0] = 0;
	json_decref(args);
	if (!json) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (hb_call_subcall(call, "maintain_sessions", json, SUBCALL_MS, &ok, &text) < 0 || !ok) {
		snprintf(err, errlen, "svc-sessions did not give it: %.300s", text ? text : "no answer");
	} else if (!(answer = json_loads(text, 0, NULL)) ||
		   !(title = json_string_value(json_object_get(answer, "title"))) || hb_relay_chars(title) < 0) {
		snprintf(err, errlen, "svc-sessions answered without a title");
		json_decref(answer);
	} else {
		size_t n = hb_utf8_fit(title, strlen(title), HB_RELAY_SESSION_TITLE_MAX, outlen - 1);

		memcpy(out, title, n);
		out[n] = '\0';
		json_decref(answer);
		rc = 0;
	}
	free(json);
	free(text);
	return rc;
}
