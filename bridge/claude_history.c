/*
 * claude_history - see claude_history.h.  The host joins the SDK's
 * envelopes of one API message into one entry (`uuid` the first, `uuids`
 * all of them); a user message written by our `send` has the messageId
 * we gave as its uuid, so looking at both fields finds it either way.
 */
#include "claude_history.h"

#include <stdio.h>
#include <string.h>

#include "claude_host_client.h"

json_t *claude_history_request(const char *id, const char *session, const char *cwd, const char *before)
{
	return claude_host_history(json_string(id), session, cwd, CLAUDE_HISTORY_PAGE, before);
}

static int names(const json_t *m, const char *uuid)
{
	const char *first = json_string_value(json_object_get(m, "uuid"));
	const json_t *u;
	size_t i;

	if (first && strcmp(first, uuid) == 0)
		return 1;
	json_array_foreach(json_object_get(m, "uuids"), i, u)
		if (json_is_string(u) && strcmp(json_string_value(u), uuid) == 0)
			return 1;
	return 0;
}

const json_t *claude_history_message(const json_t *answer, const char *uuid)
{
	const json_t *m;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(answer, "result"), "messages"), i, m)
		if (names(m, uuid))
			return m;
	return NULL;
}

enum claude_history_verdict claude_history_judge(const json_t *answer, const char *uuid, char *before,
						 size_t before_len, const char **why)
{
	const json_t *result = json_object_get(answer, "result"), *msgs = json_object_get(result, "messages");
	const char *oldest;

	*why = NULL;
	if (!json_is_object(result)) {
		*why = json_string_value(json_object_get(json_object_get(answer, "error"), "message"));
		if (!*why)
			*why = "the agent host gave no transcript";
		return CLAUDE_HISTORY_ERROR;
	}
	if (json_is_true(json_object_get(result, "reload")))
		return CLAUDE_HISTORY_RELOAD;
	if (!json_is_array(msgs)) {
		*why = "the agent host's transcript read has no messages list";
		return CLAUDE_HISTORY_ERROR;
	}
	if (claude_history_message(answer, uuid))
		return CLAUDE_HISTORY_FOUND;
	oldest = json_string_value(json_object_get(json_array_get(msgs, 0), "uuid"));
	if (!json_is_true(json_object_get(result, "hasMore")) || !oldest || strlen(oldest) >= before_len)
		return CLAUDE_HISTORY_ABSENT;
	snprintf(before, before_len, "%s", oldest);
	return CLAUDE_HISTORY_MORE;
}
