/*
 * claude_failure - why a Claude run failed, kept in the error log (page
 * 003, "Live runs, approvals, and failures").
 *
 * The bridge sees every line of the pipe; this file watches them for the
 * operation of the running turn (the desktop's `send` id, or the id of a
 * session message's `send` once the host took it) and for a failure: a
 * `result` message with is_error or an error_* subtype (its reason from
 * Claude's errors list, else its result text, which is how API errors
 * such as a missing sign-in arrive), or the host's `failed` event.  A
 * turn the desktop interrupted ends with error_during_execution: that is
 * no failure.  The
 * assistant message Claude writes itself for an API error comes before
 * its result and is kept only as the reason of last resort.  One line per
 * failure, so a failed turn whose host then fails too is logged twice
 * only when both say something.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claude_failure.h"
#include "error_log.h"
#include "utf8.h"

/* The pipe is read on one thread: plain statics are enough. */
static char op[128] = "-";
static char written[1024]; /* the text of Claude's own assistant message */
/* The desktop interrupted the turn: Claude Code ends it with
 * error_during_execution, which is the person's stop, not a failure. */
static int interrupted;

static void note_op(const json_t *id)
{
	char *text;

	if (json_is_string(id)) {
		snprintf(op, sizeof op, "%s", json_string_value(id));
		return;
	}
	if ((text = json_dumps(id, JSON_COMPACT | JSON_ENCODE_ANY))) {
		snprintf(op, sizeof op, "%s", text);
		free(text);
	}
}

static void log_failure(const char *session, const char *run, const char *reason)
{
	char safe[1024];
	size_t n = hb_utf8_fit(reason, strlen(reason), 900, sizeof safe - 1);

	/* Claude's text may hold newlines: one line in the log, its words
	 * (UTF-8, from JSON) kept as they are for the person reading it. */
	memcpy(safe, reason, n);
	safe[n] = 0;
	for (char *c = safe; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
	hb_error_log("claude_run", "session=%s run=%s op=%s %s", session, run, op, safe);
	written[0] = 0;
}

/* Claude's errors list, joined with "; ", into out; 0 when it is empty. */
static int errors_text(const json_t *errors, char *out, size_t outlen)
{
	const json_t *e;
	size_t i, n = 0;

	out[0] = 0;
	json_array_foreach(errors, i, e) {
		const char *s = json_string_value(e);
		int r;
		if (!s || !*s)
			continue;
		r = snprintf(out + n, outlen - n, "%s%s", n ? "; " : "", s);
		if (r < 0 || (size_t)r >= outlen - n)
			break;
		n += (size_t)r;
	}
	return out[0] != 0;
}

static void result_message(const char *session, const char *run, const json_t *m)
{
	const char *subtype = json_string_value(json_object_get(m, "subtype"));
	const char *result = json_string_value(json_object_get(m, "result"));
	char reason[1024];

	if ((!json_is_true(json_object_get(m, "is_error")) && !(subtype && strncmp(subtype, "error_", 6) == 0)) ||
	    (interrupted && subtype && strcmp(subtype, "error_during_execution") == 0)) {
		written[0] = 0;
		interrupted = 0;
		return;
	}
	interrupted = 0;
	if (errors_text(json_object_get(m, "errors"), reason, sizeof reason))
		log_failure(session, run, reason);
	else if (result && *result)
		log_failure(session, run, result);
	else if (written[0])
		log_failure(session, run, written);
	else
		log_failure(session, run, subtype ? subtype : "the turn failed without a reason");
}

/* An assistant message Claude Code wrote itself (an API error): its
 * model is "<synthetic>", or it carries the SDK's `error` field. */
static void assistant_message(const json_t *m)
{
	const json_t *inner = json_object_get(m, "message"), *b;
	const char *model = json_string_value(json_object_get(inner, "model"));
	size_t i, n = 0;

	if (!json_object_get(m, "error") && !(model && strcmp(model, "<synthetic>") == 0))
		return;
	written[0] = 0;
	json_array_foreach(json_object_get(inner, "content"), i, b) {
		const char *t = json_string_value(json_object_get(b, "text"));
		int r;
		if (!t)
			continue;
		r = snprintf(written + n, sizeof written - n, "%s%s", n ? " " : "", t);
		if (r < 0 || (size_t)r >= sizeof written - n)
			break;
		n += (size_t)r;
	}
}

void claude_failure_seen(const char *session, const char *run, int from_desktop, const json_t *msg)
{
	const json_t *id = json_object_get(msg, "id");
	const char *ev = json_string_value(json_object_get(msg, "event"));
	const json_t *m = json_object_get(msg, "message");
	const char *type = json_string_value(json_object_get(m, "type"));

	if (from_desktop) {
		const char *method = json_string_value(json_object_get(msg, "method"));
		if (id && method && strcmp(method, "send") == 0) {
			note_op(id);
			interrupted = 0;
		}
		if (method && strcmp(method, "interrupt") == 0)
			interrupted = 1;
		return;
	}
	if (json_is_string(id) && json_object_get(msg, "result") &&
	    strncmp(json_string_value(id), "session-message-", 16) == 0 && !strchr(json_string_value(id), '#'))
		note_op(id); /* the host took a session message: its turn runs */
	if (!ev)
		return;
	if (strcmp(ev, "failed") == 0) {
		const char *why = json_string_value(json_object_get(msg, "error"));
		log_failure(session, run, why && *why ? why : "the agent host failed without a reason");
	} else if (strcmp(ev, "message") == 0 && type && strcmp(type, "result") == 0) {
		result_message(session, run, m);
	} else if (strcmp(ev, "message") == 0 && type && strcmp(type, "assistant") == 0) {
		assistant_message(m);
	}
}
