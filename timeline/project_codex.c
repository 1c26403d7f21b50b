/*
 * project_codex - one Codex app-server notification into timeline rows,
 * the same kinds as Claude's (docs/timeline.md).
 *
 * Identity: an item's rows are "codex:<item id>": item/started, its
 * deltas and item/completed are the same row, each replacing the last.
 * Turn markers are "codex:<turn id>#aborted" and the like.  The
 * conversation's own turns (depth 0; a sub-agent's turns are its spawn
 * row's, as a Claude subagent's) begin with "codex:<turn id>#started" and
 * end with "#completed", which carries the turn's duration and the tokens
 * of the token-usage notifications codex sent during it.  The state
 * keeps each started item's row so a delta (which carries only text)
 * updates the whole row.
 *
 * A model call that failed and is tried again is an `error` notification
 * with willRetry (codex 0.171.0: "Reconnecting... 1/3", the HTTP status
 * in codexErrorInfo, codex's sentence in additionalDetails): a retry row
 * "codex:<turn id>#retry<n>", n counting the turn's retries, live only
 * (a saved turn keeps no retries).  An error without willRetry ends the
 * turn, which turn/completed shows.
 */
#include "project.h"

#include "message_row.h"
#include "retry_row.h"
#include "turn_row.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static json_t *row_of(const struct tl_codex *st, enum tl_kind kind, const char *id, const char *suffix)
{
	char full[TL_ID_MAX];
	int n = snprintf(full, sizeof full, "codex:%s%s", id, suffix ? suffix : "");
	json_t *row = n > 0 && n < (int)sizeof full ? tl_row_new("codex", kind, full) : NULL;

	if (row && st->depth)
		json_object_set_new(row, "depth", json_integer(st->depth));
	if (row && st->thread[0])
		tl_row_str(row, "thread", st->thread, TL_ID_MAX);
	return row;
}

/* call, output, error, declined: the tool row states of page 003. */
static const char *status_of(const char *s)
{
	if (!s || strcmp(s, "inProgress") == 0)
		return "call";
	if (strcmp(s, "completed") == 0)
		return "output";
	if (strcmp(s, "declined") == 0)
		return "declined";
	return "error";
}

/* The texts of an array of {type, text} parts, joined by newlines. */
static void join_texts(json_t *row, const char *key, const json_t *parts, size_t max)
{
	char out[TL_OUTPUT_MAX + 1];
	size_t len = 0, i, l;
	const json_t *p;

	json_array_foreach(parts, i, p) {
		const char *t = json_is_string(p) ? json_string_value(p) : str(p, "text");

		if (!t)
			continue;
		if (len && len < sizeof out)
			out[len++] = '\n';
		l = strlen(t) < sizeof out - len ? strlen(t) : sizeof out - len;
		memcpy(out + len, t, l);
		len += l;
	}
	if (len)
		tl_row_text(row, key, out, len, max);
}

static json_t *user_item(const struct tl_codex *st, const json_t *it, const char *id)
{
	const json_t *first = json_array_get(json_object_get(it, "content"), 0);
	const char *text = str(first, "text") ? str(first, "text") : "";
	json_t *row = row_of(st, tl_is_session_message(text) ? TL_AGENT_MESSAGE : TL_USER, id, NULL);

	if (row && tl_is_session_message(text))
		tl_session_message_fields(row, text);
	else if (row)
		join_texts(row, "text", json_object_get(it, "content"), TL_TEXT_MAX);
	return row;
}

static json_t *command_item(const struct tl_codex *st, const json_t *it, const char *id)
{
	json_t *row = row_of(st, TL_COMMAND, id, NULL);

	if (!row)
		return NULL;
	tl_row_str(row, "command", str(it, "command") ? str(it, "command") : "", TL_TEXT_MAX);
	tl_row_str(row, "cwd", str(it, "cwd"), 4096);
	json_object_set_new(row, "status", json_string(status_of(str(it, "status"))));
	tl_row_str(row, "output", str(it, "aggregatedOutput"), TL_OUTPUT_MAX);
	if (json_is_integer(json_object_get(it, "exitCode")))
		json_object_set(row, "exitCode", json_object_get(it, "exitCode"));
	json_object_set_new(row, "outputRef", json_string(id));
	return row;
}

static json_t *file_item(const struct tl_codex *st, const json_t *it, const char *id)
{
	json_t *row = row_of(st, TL_FILE_CHANGE, id, NULL), *changes = json_array();
	const json_t *c;
	size_t i;

	if (!row || !changes)
		return json_decref(changes), row;
	json_array_foreach(json_object_get(it, "changes"), i, c) {
		json_t *one = json_object();

		if (i == TL_STEPS_MAX || !one)
			break;
		tl_row_str(one, "path", str(c, "path") ? str(c, "path") : "(no path)", 4096);
		tl_row_str(one, "change", str(json_object_get(c, "kind"), "type"), 32);
		tl_row_str(one, "diff", str(c, "diff") ? str(c, "diff") : "", TL_DIFF_MAX);
		json_array_append_new(changes, one);
	}
	json_object_set_new(row, "changes", changes);
	if (str(json_array_get(changes, 0), "path")) {
		const char *path = str(json_array_get(changes, 0), "path"), *slash = strrchr(path, '/');

		tl_row_str(row, "title", slash && slash[1] ? slash + 1 : path, 4096);
	}
	json_object_set_new(row, "status", json_string(status_of(str(it, "status"))));
	return row;
}

static json_t *tool_item(const struct tl_codex *st, const json_t *it, const char *id, const char *server)
{
	json_t *row = row_of(st, TL_TOOL, id, NULL);
	char label[512];
	const char *tool = str(it, "tool") ? str(it, "tool") : str(it, "type");

	if (!row)
		return NULL;
	if (server)
		snprintf(label, sizeof label, "%s: %s", server, tool);
	else
		snprintf(label, sizeof label, "%s", tool);
	tl_row_str(row, "tool", tool, 256);
	tl_row_str(row, "label", label, sizeof label);
	tl_row_str(row, "title", label, sizeof label);
	tl_row_args(row, "arguments", json_object_get(it, "arguments"));
	json_object_set_new(row, "status", json_string(status_of(str(it, "status"))));
	if (json_object_get(it, "contentItems"))
		join_texts(row, "output", json_object_get(it, "contentItems"), TL_OUTPUT_MAX);
	if (json_object_get(it, "result"))
		join_texts(row, "output", json_object_get(json_object_get(it, "result"), "content"), TL_OUTPUT_MAX);
	if (str(json_object_get(it, "error"), "message"))
		tl_row_str(row, "output", str(json_object_get(it, "error"), "message"), TL_OUTPUT_MAX);
	return row;
}

/* What a wait (or another call on sub-agents) found: each agent's state,
 * with its last message, a line each. */
static void agent_states(json_t *row, const json_t *states)
{
	json_t *lines = json_array(), *v;
	const char *k;

	if (!lines)
		return;
	json_object_foreach((json_t *)states, k, v) {
		const char *status = str(v, "status"), *msg = str(v, "message");

		json_array_append_new(lines, json_sprintf("%s%s%s", status ? status : "unknown", msg ? ": " : "",
							   msg ? msg : ""));
	}
	if (json_array_size(lines))
		join_texts(row, "output", lines, TL_OUTPUT_MAX);
	json_decref(lines);
}

static json_t *collab_item(const struct tl_codex *st, const json_t *it, const char *id)
{
	const char *tool = str(it, "tool"), *child;
	json_t *row;
	const char *status = str(it, "status");

	if (!tool || strcmp(tool, "spawnAgent") != 0) {
		if ((row = tool_item(st, it, id, "Agent")) && json_object_size(json_object_get(it, "agentsStates")))
			agent_states(row, json_object_get(it, "agentsStates"));
		return row;
	}
	if (!(row = row_of(st, TL_SPAWN, id, NULL)))
		return NULL;
	child = json_string_value(json_array_get(json_object_get(it, "receiverThreadIds"), 0));
	tl_row_str(row, "title", "Subagent", 64);
	tl_row_str(row, "prompt", str(it, "prompt"), TL_TEXT_MAX);
	json_object_set_new(row, "status", json_string(!status || strcmp(status, "inProgress") == 0 ? "running"
						       : strcmp(status, "completed") == 0 ? "completed" : "failed"));
	json_object_set_new(row, "childDepth", json_integer(st->depth + 1));
	if (child)
		json_object_set_new(row, "link", json_pack("{s:s}", "thread", child));
	return row;
}

static json_t *item_row(const struct tl_codex *st, const json_t *it)
{
	const char *type = str(it, "type"), *id = str(it, "id");
	json_t *row = NULL;

	if (!type || !id)
		return NULL;
	if (strcmp(type, "userMessage") == 0)
		return user_item(st, it, id);
	if (strcmp(type, "agentMessage") == 0 && (row = row_of(st, TL_ASSISTANT, id, NULL)))
		tl_row_str(row, "text", str(it, "text") ? str(it, "text") : "", TL_TEXT_MAX);
	else if (strcmp(type, "reasoning") == 0) {
		const json_t *parts = json_array_size(json_object_get(it, "summary")) ? json_object_get(it, "summary")
										      : json_object_get(it, "content");

		if ((row = row_of(st, TL_REASONING, id, NULL)))
			join_texts(row, "text", parts, TL_TEXT_MAX);
		if (row && !json_object_get(row, "text"))	/* empty thinking makes no row */
			json_decref(row), row = NULL;
	} else if (strcmp(type, "commandExecution") == 0)
		return command_item(st, it, id);
	else if (strcmp(type, "fileChange") == 0)
		return file_item(st, it, id);
	else if (strcmp(type, "mcpToolCall") == 0)
		return tool_item(st, it, id, str(it, "server"));
	else if (strcmp(type, "dynamicToolCall") == 0)
		return tool_item(st, it, id, str(it, "namespace"));
	else if (strcmp(type, "collabAgentToolCall") == 0)
		return collab_item(st, it, id);
	else if (strcmp(type, "plan") == 0 && (row = row_of(st, TL_PLAN, id, NULL)))
		tl_row_str(row, "markdown", str(it, "text") ? str(it, "text") : "", TL_TEXT_MAX);
	else if (strcmp(type, "contextCompaction") == 0 && (row = row_of(st, TL_COMPACTED, id, NULL)))
		json_object_set_new(row, "title", json_string("Conversation compacted"));
	else if (strcmp(type, "imageView") == 0 && (row = row_of(st, TL_IMAGE, id, NULL)))
		tl_row_str(row, "path", str(it, "path"), 4096);
	else if (strcmp(type, "hookPrompt") == 0 && (row = row_of(st, TL_HIDDEN, id, NULL)))
		json_object_set_new(row, "reason", json_string("meta"));
	else if (strcmp(type, "enteredReviewMode") == 0 || strcmp(type, "exitedReviewMode") == 0) {
		if ((row = row_of(st, TL_SYSTEM, id, NULL)))
			tl_row_str(row, "text", type[0] == 'e' && type[1] == 'n' ? "Review started" : "Review finished", 64);
	} else
		return tool_item(st, it, id, NULL);	/* webSearch, sleep, imageGeneration, … */
	return row;
}

static void item_event(struct tl_codex *st, const json_t *params, int done, json_t *rows)
{
	json_t *row = item_row(st, json_object_get(params, "item"));
	const char *id = str(json_object_get(params, "item"), "id");

	const char *type = str(json_object_get(params, "item"), "type");

	/* A reasoning, message or plan item starts empty: keep it open for
	 * its deltas and show it with its first text (empty thinking makes
	 * no row at all). */
	if (!row && !done && id && type && strcmp(type, "reasoning") == 0)
		row = row_of(st, TL_REASONING, id, NULL);
	if (row && !done && !json_object_get(row, "status") &&
	    (json_string_length(json_object_get(row, "text")) == 0 &&
	     json_string_length(json_object_get(row, "markdown")) == 0) &&
	    type && (strcmp(type, "reasoning") == 0 || strcmp(type, "agentMessage") == 0 || strcmp(type, "plan") == 0)) {
		tl_open_put(st->open, &st->nopen, &st->open_next, id, row);
		json_decref(row);
		return;
	}
	if (!row)
		return;
	if (done)
		tl_open_del(st->open, &st->nopen, id);
	else
		tl_open_put(st->open, &st->nopen, &st->open_next, id, row);
	tl_rows_add(rows, row);
}

/* A delta appends to the open item's key (text or output), cut at max. */
static void delta(struct tl_codex *st, const json_t *params, const char *key, size_t max, json_t *rows)
{
	const char *id = str(params, "itemId"), *d = str(params, "delta"), *old;
	json_t *open = id ? tl_open_get(st->open, st->nopen, id) : NULL;
	char *joined;
	size_t a, b;

	if (!open || !d)
		return;
	old = str(open, key) ? str(open, key) : "";
	a = strlen(old), b = strlen(d);
	/* already cut: the rest is read on demand, no row changes */
	if (a >= sizeof TL_CUT_MARK - 1 && strcmp(old + a - (sizeof TL_CUT_MARK - 1), TL_CUT_MARK) == 0)
		return;
	if (!(joined = malloc(a + b + 1)))
		return;
	memcpy(joined, old, a), memcpy(joined + a, d, b), joined[a + b] = '\0';
	tl_row_text(open, key, joined, a + b, max);
	free(joined);
	tl_rows_add(rows, json_deep_copy(open));
}

static void plan_update(const struct tl_codex *st, const json_t *params, json_t *rows)
{
	json_t *row = str(params, "turnId") ? row_of(st, TL_PLAN, str(params, "turnId"), "#plan") : NULL;
	json_t *steps = tl_plan_steps(json_object_get(params, "plan"), "step");

	if (!row || !steps)
		return json_decref(row), json_decref(steps);
	json_object_set_new(row, "steps", steps);
	tl_row_str(row, "markdown", str(params, "explanation"), TL_TEXT_MAX);
	tl_rows_add(rows, row);
}

static void turn_started(struct tl_codex *st, const json_t *params, json_t *rows)
{
	const char *tid = str(json_object_get(params, "turn"), "id");
	json_t *row;

	if (!tid || st->depth)
		return;
	snprintf(st->turn, sizeof st->turn, "%s", tid);
	st->tokens_in = st->cached_in = st->tokens_out = -1;
	if ((row = row_of(st, TL_TURN_STARTED, tid, "#started")))
		tl_row_str(row, "turn", tid, TL_ID_MAX);
	tl_rows_add(rows, row);
}

/* thread/tokenUsage/updated: "last" is the usage of the model call that
 * just ended; the calls of the running turn add up to the turn's. */
static void token_usage(struct tl_codex *st, const json_t *params)
{
	const json_t *last = json_object_get(json_object_get(params, "tokenUsage"), "last");
	const char *tid = str(params, "turnId");

	if (!tid || strcmp(tid, st->turn) != 0 || !json_is_object(last))
		return;
	if (st->tokens_in < 0)
		st->tokens_in = st->cached_in = st->tokens_out = 0;
	st->tokens_in += json_integer_value(json_object_get(last, "inputTokens"));
	st->cached_in += json_integer_value(json_object_get(last, "cachedInputTokens"));
	st->tokens_out += json_integer_value(json_object_get(last, "outputTokens"));
}

static void turn_done(struct tl_codex *st, const json_t *params, json_t *rows)
{
	const json_t *turn = json_object_get(params, "turn");
	const char *status = str(turn, "status"), *tid = str(turn, "id");
	json_t *row = NULL;
	struct tl_turn_end end;

	if (!status || !tid)
		return;
	if (strcmp(status, "interrupted") == 0 && (row = row_of(st, TL_TURN_ABORTED, tid, "#aborted")))
		json_object_set_new(row, "text", json_string("Turn aborted"));
	else if (strcmp(status, "failed") == 0 && (row = row_of(st, TL_SYSTEM, tid, "#failed")))
		tl_row_str(row, "text", str(json_object_get(turn, "error"), "message") ? str(json_object_get(turn, "error"), "message")
										  : "The turn failed.", TL_TEXT_MAX);
	tl_rows_add(rows, row);
	if (st->depth)
		return;
	tl_turn_end_init(&end, strcmp(status, "completed") == 0 || strcmp(status, "interrupted") == 0 ? status : "failed");
	if (json_is_integer(json_object_get(turn, "durationMs")))
		end.duration_ms = json_integer_value(json_object_get(turn, "durationMs"));
	if (strcmp(tid, st->turn) == 0)
		end.tokens_in = st->tokens_in, end.cached_tokens_in = st->cached_in, end.tokens_out = st->tokens_out;
	if ((row = row_of(st, TL_TURN_COMPLETED, tid, "#completed")))
		tl_turn_end_fields(row, tid, &end);
	tl_rows_add(rows, row);
	st->turn[0] = '\0';
}

/* The HTTP status and a category word of codexErrorInfo: a string
 * ("serverOverloaded") or an object of one key whose value may carry
 * httpStatusCode ({"responseStreamDisconnected": {"httpStatusCode": 529}}). */
static const char *error_category(const json_t *info, long long *http_status)
{
	static const char *const words[][2] = {
		{ "serverOverloaded", "overloaded" },
		{ "rateLimitExceeded", "rate_limit" },
		{ "usageLimitExceeded", "rate_limit" },
		{ "internalServerError", "server_error" },
		{ "responseStreamDisconnected", "stream disconnected" },
		{ "responseStreamConnectionFailed", "connection failed" },
		{ "httpConnectionFailed", "connection failed" },
	};
	const char *key = json_string_value(info), *k;
	const json_t *v;

	if (json_is_object(info) && json_object_size(info) == 1) {
		json_object_foreach((json_t *)info, k, v) {
			key = k;	/* the loop leaves k NULL */
			if (json_is_integer(json_object_get(v, "httpStatusCode")))
				*http_status = json_integer_value(json_object_get(v, "httpStatusCode"));
		}
	}
	for (size_t i = 0; key && i < sizeof words / sizeof words[0]; i++)
		if (strcmp(key, words[i][0]) == 0)
			return words[i][1];
	return NULL;
}

/* "Reconnecting... 2/5": the attempt and of how many, into r (strtoll,
 * which stops at any number's bound, not sscanf, whose overflow is
 * undefined). */
static void attempt_of(const char *msg, struct tl_retry *r)
{
	char *end;
	long long attempt, max;

	if (!msg || !(msg = strpbrk(msg, "0123456789")))
		return;
	attempt = strtoll(msg, &end, 10);
	if (*end != '/' || end[1] < '0' || end[1] > '9')
		return;
	max = strtoll(end + 1, NULL, 10);
	r->attempt = attempt, r->max_attempts = max;
}

static void retry(struct tl_codex *st, const json_t *params, json_t *rows)
{
	const json_t *error = json_object_get(params, "error");
	const char *turn = str(params, "turnId"), *category;
	char suffix[32];
	json_t *row;
	struct tl_retry r;

	if (!json_is_true(json_object_get(params, "willRetry")) || !turn)
		return;
	if (strcmp(turn, st->retry_turn) != 0) {	/* this turn's first retry */
		snprintf(st->retry_turn, sizeof st->retry_turn, "%s", turn);
		st->retries = 0;
	}
	if (st->retries < TL_RETRIES_MAX)	/* past it, the last row is updated in place */
		st->retries++;
	snprintf(suffix, sizeof suffix, "#retry%d", st->retries);
	if (!(row = row_of(st, TL_RETRY, turn, suffix)))
		return;
	tl_retry_init(&r);
	attempt_of(str(error, "message"), &r);
	category = error_category(json_object_get(error, "codexErrorInfo"), &r.http_status);
	r.reason = tl_retry_reason(category, r.http_status);
	if (!r.reason)
		r.reason = category;
	r.detail = str(error, "additionalDetails") ? str(error, "additionalDetails") : str(error, "message");
	tl_retry_fields(row, &r);
	tl_rows_add(rows, row);
}

void tl_codex_init(struct tl_codex *st, int depth)
{
	memset(st, 0, sizeof *st);
	st->depth = depth;
	st->tokens_in = st->cached_in = st->tokens_out = -1;
}

void tl_codex_free(struct tl_codex *st)
{
	tl_open_clear(st->open, &st->nopen);
}

int tl_codex_project(struct tl_codex *st, const json_t *note, json_t *rows, char *err, size_t errlen)
{
	const char *m = str(note, "method");
	const json_t *params = json_object_get(note, "params");

	if (!m || !json_is_object(params)) {
		snprintf(err, errlen, "Codex notification has no method and params object");
		return -1;
	}
	if (strcmp(m, "item/started") == 0 || strcmp(m, "item/completed") == 0)
		item_event(st, params, m[5] == 'c', rows);
	else if (strcmp(m, "item/agentMessage/delta") == 0 || strcmp(m, "item/plan/delta") == 0)
		delta(st, params, m[5] == 'a' ? "text" : "markdown", TL_TEXT_MAX, rows);
	else if (strcmp(m, "item/reasoning/summaryTextDelta") == 0 || strcmp(m, "item/reasoning/textDelta") == 0)
		delta(st, params, "text", TL_TEXT_MAX, rows);
	else if (strcmp(m, "item/commandExecution/outputDelta") == 0)
		delta(st, params, "output", TL_OUTPUT_MAX, rows);
	else if (strcmp(m, "turn/plan/updated") == 0)
		plan_update(st, params, rows);
	else if (strcmp(m, "turn/started") == 0)
		turn_started(st, params, rows);
	else if (strcmp(m, "thread/tokenUsage/updated") == 0)
		token_usage(st, params);
	else if (strcmp(m, "turn/completed") == 0)
		turn_done(st, params, rows);
	else if (strcmp(m, "error") == 0)
		retry(st, params, rows);
	else if (strcmp(m, "thread/compacted") == 0 && str(params, "turnId")) {
		json_t *row = row_of(st, TL_COMPACTED, str(params, "turnId"), "#compacted");

		if (row)
			json_object_set_new(row, "title", json_string("Conversation compacted"));
		tl_rows_add(rows, row);
	}
	return 0;
}
