/*
 * act_evaluate - the action evaluate: a script run in the tab's page,
 * its JSON value answered (a promise awaited), as chrome-devtools-mcp's
 * evaluate_script.
 *
 * A script in the user's own browser can do whatever the user's
 * logged-in page can: read its data, send requests as the user.  That is
 * as much as running a command on the user's machine, so it is open only
 * to a session whose access lets its agent run commands without asking
 * (full-auto and above); a read-only session, or a call without a run
 * (no access known), is refused and pointed to snapshot and read.
 */
#include "act.h"
#include "actions.h"

#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "utf8.h"

#define EVAL_DEFAULT_CHARS 10000
#define EVAL_LEAST_ACCESS "full-auto"

int action_evaluate(struct act *a)
{
	const char *expression = json_string_value(json_object_get(a->args, "expression"));
	json_int_t max = json_integer_value(json_object_get(a->args, "maxChars"));
	json_t *value = NULL;
	size_t len, keep;
	char *text;
	int rc;

	if (hb_access_rank(a->ctx->access) < hb_access_rank(EVAL_LEAST_ACCESS))
		return hb_call_failf(a->call,
				     "Action evaluate runs a script in the user's own browser, which can do whatever "
				     "the user's logged-in pages can: it is open to sessions with full auto access or "
				     "more, and this one has %s. Look at the page with snapshot and read instead.",
				     *a->ctx->access ? hb_access_words(a->ctx->access) : "no access level");
	if (!expression || !*expression)
		return hb_call_fail(a->call, "Action evaluate needs expression: the JavaScript to run in the page, like "
					     "document.title; its value comes back as JSON.");
	if (max <= 0)
		max = EVAL_DEFAULT_CHARS;
	if (act_eval(a, expression, &value) < 0)
		return -1;
	text = json_dumps(value, JSON_ENCODE_ANY | JSON_COMPACT);
	json_decref(value);
	if (!text)
		return hb_call_fail(a->call, "The script's value cannot be written as JSON.");
	len = strlen(text);
	keep = hb_utf8_fit(text, len, (size_t)max, len);
	rc = hb_call_succeedf(a->call, "The script's value (JSON%s):\n%.*s%s",
			      keep < len ? ", cut" : "", (int)keep, text,
			      keep < len ? "\n[cut: the value goes on; return less, or raise maxChars]" : "");
	free(text);
	return rc;
}
