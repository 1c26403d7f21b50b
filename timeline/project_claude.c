/*
 * project_claude - one Claude SDK message into timeline rows (page 003's
 * table; docs/timeline.md).
 *
 * Identity: an assistant block is "claude:<API message id>#<block index>",
 * a tool call and its result "claude:<tool_use id>", a user message's
 * block "claude:<uuid>#<index>".  The SDK streams one API message as
 * several envelopes of one block each while the saved transcript joins
 * them; counting blocks per API message id (several at once, since
 * subagents' pieces interleave) gives both the same index, so the saved
 * row replaces the live one in place.
 *
 * Turns: a top-level user message with text (the person's prompt, another
 * session's message) starts one, "claude:<its uuid>#started", the same
 * live (the bridge projects the message it wrote) and saved; the result
 * message ends it, "claude:<the prompt's uuid>#completed", live only (the
 * transcript keeps no result).
 *
 * Waits: an api_retry system message (a model call failed and is tried
 * again) is a retry row, a rate_limit_event that is not "allowed" a
 * rate_limit row, "claude:<its uuid>#retry" and "#ratelimit": live only,
 * since the transcript keeps neither, so no saved row replaces them.
 */
#include "project.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "message_row.h"
#include "retry_row.h"
#include "subagents.h"
#include "tool_kind.h"
#include "turn_row.h"

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* A row of this message: its id from the parts, its depth and thread. */
static json_t *row_of(enum tl_kind kind, const char *a, const char *b, int index, const char *parent, int depth)
{
	char id[TL_ID_MAX];
	int n = index >= 0 ? snprintf(id, sizeof id, "claude:%s#%d", a, index)
			   : snprintf(id, sizeof id, "claude:%s%s", a, b ? b : "");
	json_t *row = n > 0 && n < (int)sizeof id ? tl_row_new("claude", kind, id) : NULL;

	if (row && depth)
		json_object_set_new(row, "depth", json_integer(depth));
	if (row && parent)
		tl_row_str(row, "thread", parent, TL_ID_MAX);
	return row;
}

static int blank(const char *s)
{
	for (; s && *s; s++)
		if (*s != ' ' && *s != '\n' && *s != '\t' && *s != '\r')
			return 0;
	return 1;
}

static void assistant_block(struct tl_claude *st, const json_t *b, const char *mid, int idx, const char *parent,
			    int depth, json_t *rows)
{
	const char *type = str(b, "type"), *name = str(b, "name"), *tid = str(b, "id");
	json_t *row;

	if (!type)
		return;
	if (strcmp(type, "text") == 0 && !blank(str(b, "text"))) {
		row = row_of(TL_ASSISTANT, mid, NULL, idx, parent, depth);
		if (row)
			tl_row_str(row, "text", str(b, "text"), TL_TEXT_MAX);
		tl_rows_add(rows, row);
	} else if (strcmp(type, "thinking") == 0 && !blank(str(b, "thinking"))) {
		row = row_of(TL_REASONING, mid, NULL, idx, parent, depth);
		if (row)
			tl_row_str(row, "text", str(b, "thinking"), TL_TEXT_MAX);
		tl_rows_add(rows, row);
	} else if (strcmp(type, "tool_use") == 0 && name && tid) {
		enum tl_kind kind = tl_claude_tool_kind(name);

		row = row_of(kind, tid, NULL, -1, parent, depth);
		if (!row || tl_claude_call_fields(row, name, json_object_get(b, "input")) < 0) {
			json_decref(row);
			return;
		}
		if (kind == TL_SPAWN) {
			tl_claude_spawn_put(st, tid, depth + 1);
			json_object_set_new(row, "status", json_string("running"));
			json_object_set_new(row, "childDepth", json_integer(depth + 1));
			json_object_set_new(row, "link", json_pack("{s:s}", "thread", tid));
		}
		tl_open_put(st->open, &st->nopen, &st->open_next, tid, row);
		tl_rows_add(rows, row);
	}
}

/* The block counter of API message mid; the oldest is forgotten when the
 * table is full (its late pieces would then count from 0 again). */
static int *msg_blocks(struct tl_claude *st, const char *mid)
{
	size_t slot;

	for (slot = 0; slot < st->nmsgs; slot++)
		if (strcmp(st->msgs[slot].id, mid) == 0)
			return &st->msgs[slot].next;
	slot = st->nmsgs < TL_MSGS_MAX ? st->nmsgs++ : (st->msgs_next++ % TL_MSGS_MAX);
	snprintf(st->msgs[slot].id, TL_ID_MAX, "%s", mid);
	st->msgs[slot].next = 0;
	return &st->msgs[slot].next;
}

static void assistant(struct tl_claude *st, const json_t *msg, const char *parent, int depth, json_t *rows)
{
	const json_t *m = json_object_get(msg, "message"), *b;
	const char *mid = str(m, "id") ? str(m, "id") : str(msg, "uuid");
	int *blocks;
	size_t i;

	if (!mid)
		return;
	/* A reply Claude writes itself (usage limit, API error): no model ran. */
	if ((str(m, "model") && strcmp(str(m, "model"), "<synthetic>") == 0) ||
	    json_is_true(json_object_get(msg, "isApiErrorMessage"))) {
		json_t *row = row_of(TL_SYSTEM, mid, NULL, 0, parent, depth);
		const json_t *first = json_array_get(json_object_get(m, "content"), 0);

		const char *text = str(first, "text") ? str(first, "text") : "", *bar = strchr(text, '|');

		/* "Claude AI usage limit reached|<epoch>": the time as a field */
		if (row && bar && strncmp(text, "Claude AI usage limit reached", 29) == 0 && bar[1]) {
			tl_row_text(row, "text", text, (size_t)(bar - text), TL_TEXT_MAX);
			json_object_set_new(row, "resetsAt", json_integer(strtoll(bar + 1, NULL, 10)));
		} else if (row) {
			tl_row_str(row, "text", text, TL_TEXT_MAX);
		}
		tl_rows_add(rows, row);
		return;
	}
	blocks = msg_blocks(st, mid);
	json_array_foreach(json_object_get(m, "content"), i, b)
		assistant_block(st, b, mid, (*blocks)++, parent, depth, rows);
}

/* Whether a tool_result_meta's non_execution_kind is a refusal before the
 * call ran: the permission callback or a rule ("permission-rule", what a
 * deny of the agent host's permission gives) or auto mode said no.  These
 * are the kinds the live stream gives with a "reject" decision.  Not the
 * calls a stopped turn ended ("interrupted", "cancelled", and
 * "user-rejected", which the SDK gives a tool stopped while it ran): those
 * stay errors, as they are live. */
static int refusal_kind(const char *k)
{
	static const char *const refusals[] = { "permission-rule", "automode-blocked", "automode-unavailable",
						"automode-parsing-error" };

	for (size_t i = 0; k && i < sizeof refusals / sizeof refusals[0]; i++)
		if (strcmp(k, refusals[i]) == 0)
			return 1;
	return 0;
}

/* Whether the result of call tid was refused before it ran.  Live, the
 * SDK gives the permission decision; a saved message (the SDK's
 * getSessionMessages) keeps only the transcript's toolDenialKind, as
 * non_execution_kind, so either one says declined. */
static int declined(const json_t *msg, const char *tid)
{
	const json_t *meta;
	size_t i;

	json_array_foreach(json_object_get(msg, "tool_result_meta"), i, meta) {
		const char *d = str(json_object_get(meta, "permission_decision"), "decision");

		if (str(meta, "id") && strcmp(str(meta, "id"), tid) == 0 &&
		    ((d && strcmp(d, "reject") == 0) || refusal_kind(str(meta, "non_execution_kind"))))
			return 1;
	}
	return 0;
}

/* The text parts of a tool result's content (a string or blocks), and
 * its images as rows after the tool row. */
static void result_output(json_t *row, const json_t *content, const char *tid, const char *parent, int depth,
			  json_t *images)
{
	/* one byte past the cap: enough for tl_row_text to see the cut */
	char out[TL_OUTPUT_MAX + 1];
	size_t len = 0, i;
	const json_t *b;
	int nimg = 0;

	if (json_is_string(content)) {
		tl_row_str(row, "output", json_string_value(content), TL_OUTPUT_MAX);
		return;
	}
	json_array_foreach(content, i, b) {
		const char *type = str(b, "type");

		if (type && strcmp(type, "text") == 0 && str(b, "text")) {
			size_t l = strlen(str(b, "text"));

			if (len && len < sizeof out)
				out[len++] = '\n';
			if (l > sizeof out - len)
				l = sizeof out - len;
			memcpy(out + len, str(b, "text"), l);
			len += l;
		} else if (type && strcmp(type, "image") == 0 && nimg < 16) {
			char suffix[32];
			const json_t *src = json_object_get(b, "source");
			json_t *img;

			snprintf(suffix, sizeof suffix, "#image%d", nimg++);
			img = row_of(TL_IMAGE, tid, suffix, -1, parent, depth);
			if (img) {
				tl_row_str(img, "mediaType", str(src, "media_type") ? str(src, "media_type") : "image", 64);
				json_object_set_new(img, "bytes",
						    json_integer((json_int_t)(json_string_length(json_object_get(src, "data")) / 4 * 3)));
				tl_row_str(img, "toolUseId", tid, TL_ID_MAX);
			}
			tl_rows_add(images, img);
		}
	}
	if (len)
		tl_row_text(row, "output", out, len, TL_OUTPUT_MAX);
}

static void tool_result(struct tl_claude *st, const json_t *msg, const json_t *b, const char *parent, int depth,
			json_t *rows)
{
	const char *tid = str(b, "tool_use_id"), *kind, *status;
	json_t *open, *row, *images = json_array();
	int err = json_is_true(json_object_get(b, "is_error"));

	if (!tid || !images)
		return json_decref(images);
	open = tl_open_get(st->open, st->nopen, tid);
	row = open ? json_deep_copy(open) : row_of(TL_TOOL, tid, NULL, -1, parent, depth);
	if (!row)
		return json_decref(images);
	if (!open)	/* its call came before this stream began */
		json_object_set_new(row, "title", json_string("Tool"));
	kind = str(row, "kind");
	status = declined(msg, tid) ? "declined" : err ? "error" : "output";
	if (kind && strcmp(kind, "spawn") == 0 && !err)
		status = tl_claude_spawn_runs_on(row) ? "running" : "completed";
	json_object_set_new(row, "status", json_string(status));
	result_output(row, json_object_get(b, "content"), tid, parent, depth, images);
	if (!err)
		tl_claude_result_fields(row, json_object_get(msg, "tool_use_result"));
	if (kind && strcmp(kind, "command") == 0)
		json_object_set_new(row, "outputRef", json_string(tid));
	if (kind && strcmp(kind, "spawn") == 0 && !err && tl_claude_spawn_runs_on(row))
		tl_open_put(st->open, &st->nopen, &st->open_next, tid, row); /* its task events go on */
	else
		tl_open_del(st->open, &st->nopen, tid);
	tl_rows_add(rows, row);
	for (size_t i = 0; i < json_array_size(images); i++)
		tl_rows_add(rows, json_incref(json_array_get(images, i)));
	json_decref(images);
}

/* The value of <tag>…</tag> in s into out, or 0 when absent. */
static int tag_value(const char *s, const char *tag, char *out, size_t outlen)
{
	char open[64], close[64];
	const char *a, *z;

	snprintf(open, sizeof open, "<%s>", tag);
	snprintf(close, sizeof close, "</%s>", tag);
	if (!(a = strstr(s, open)) || !(z = strstr(a, close)))
		return 0;
	a += strlen(open);
	snprintf(out, outlen, "%.*s", (int)(z - a < (long)outlen - 1 ? z - a : (long)outlen - 1), a);
	return 1;
}

static int housekeeping(const char *name)
{
	static const char *const hidden[] = { "/exit", "/quit", "/clear", "/resume", "/status", "/cost" };

	for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++)
		if (strcmp(name, hidden[i]) == 0)
			return 1;
	return 0;
}

/* A local slash command, or its output completing it in place. */
static json_t *slash(struct tl_claude *st, const char *text, const char *uuid, int idx, const char *parent, int depth)
{
	char name[128], out[TL_OUTPUT_MAX];
	json_t *row;

	if (tag_value(text, "command-name", name, sizeof name)) {
		row = row_of(housekeeping(name) ? TL_HIDDEN : TL_SLASH_COMMAND, uuid, NULL, idx, parent, depth);
		if (row) {
			tl_row_str(row, "command", name, sizeof name);
			if (tag_value(text, "command-args", out, sizeof out) && *out)
				tl_row_str(row, "args", out, TL_OUTPUT_MAX);
			if (housekeeping(name))
				json_object_set_new(row, "reason", json_string("housekeeping"));
		}
		json_decref(st->slash);
		st->slash = row ? json_deep_copy(row) : NULL;
		return row;
	}
	if (!tag_value(text, "local-command-stdout", out, sizeof out) &&
	    !tag_value(text, "local-command-stderr", out, sizeof out))
		return NULL;
	row = st->slash ? json_deep_copy(st->slash) : row_of(TL_SLASH_COMMAND, uuid, NULL, idx, parent, depth);
	if (row)
		tl_row_str(row, "output", out, TL_OUTPUT_MAX);
	json_decref(st->slash);
	st->slash = NULL;
	return row;
}

static json_t *user_text(struct tl_claude *st, const char *text, const char *uuid, int idx, const char *parent,
			 int depth)
{
	int env = tl_is_session_message(text);
	json_t *row;

	if (strncmp(text, "[Request interrupted by user", 28) == 0) {
		row = row_of(TL_TURN_ABORTED, uuid, NULL, idx, parent, depth);
		if (row)
			tl_row_str(row, "text", text, 1024);
		return row;
	}
	if (strstr(text, "<command-name>") || strstr(text, "<local-command-std"))
		return slash(st, text, uuid, idx, parent, depth);
	row = row_of(env ? TL_AGENT_MESSAGE : TL_USER, uuid, NULL, idx, parent, depth);
	if (row && env) {
		tl_session_message_fields(row, text);
	} else if (row) {
		tl_row_str(row, "text", text, TL_TEXT_MAX);
	}
	return row;
}

/* Why a user message is no one's words and is hidden, or NULL: synthetic
 * and meta messages (live: isSynthetic, isMeta; saved: the SDK's is_meta),
 * and the notice Claude Code writes as a user turn when a background
 * subagent ends (saved with origin.kind "task-notification" and its text in
 * a <task-notification> wrapper; its spawn row already shows the end). */
static const char *hidden_reason(const json_t *msg)
{
	const json_t *content = json_object_get(json_object_get(msg, "message"), "content");
	const char *text = json_is_string(content) ? json_string_value(content)
						    : str(json_array_get(content, 0), "text");
	const char *origin = str(json_object_get(msg, "origin"), "kind");

	if (json_is_true(json_object_get(msg, "isSynthetic")))
		return "synthetic";
	if (json_is_true(json_object_get(msg, "isMeta")) || json_is_true(json_object_get(msg, "is_meta")))
		return "meta";
	if ((origin && strcmp(origin, "task-notification") == 0) ||
	    (text && strncmp(text, "<task-notification>", 19) == 0))
		return "task notification";
	return NULL;
}

/* Whether a user text is someone's words to the model rather than a note
 * Claude Code writes itself (an interrupt, a local slash command). */
static int prompt_text(const char *text)
{
	return text && strncmp(text, "[Request interrupted by user", 28) != 0 && !strstr(text, "<command-name>") &&
	       !strstr(text, "<local-command-std");
}

/* Whether a top-level user message starts a turn: text, and no tool
 * result (those come inside a turn). */
static int starts_turn(const json_t *content)
{
	const json_t *b;
	size_t i;
	int text = 0;

	if (json_is_string(content))
		return prompt_text(json_string_value(content));
	json_array_foreach(content, i, b) {
		const char *type = str(b, "type");

		if (type && strcmp(type, "tool_result") == 0)
			return 0;
		if (type && strcmp(type, "text") == 0 && prompt_text(str(b, "text")))
			text = 1;
	}
	return text;
}

static void turn_started(struct tl_claude *st, const char *uuid, json_t *rows)
{
	json_t *row = row_of(TL_TURN_STARTED, uuid, "#started", -1, NULL, 0);

	if (row)
		tl_row_str(row, "turn", uuid, TL_ID_MAX);
	tl_rows_add(rows, row);
	snprintf(st->turn, sizeof st->turn, "%s", uuid);
}

static void user(struct tl_claude *st, const json_t *msg, const char *parent, int depth, json_t *rows)
{
	const json_t *content = json_object_get(json_object_get(msg, "message"), "content"), *b;
	const char *uuid = str(msg, "uuid");
	size_t i;

	if (!uuid)
		return;
	if (json_is_true(json_object_get(msg, "isCompactSummary"))) {
		json_t *row = row_of(TL_COMPACTED, uuid, NULL, 0, parent, depth);

		if (row)
			json_object_set_new(row, "title", json_string("Conversation compacted"));
		tl_rows_add(rows, row);
		return;
	}
	if (hidden_reason(msg)) {
		json_t *row = row_of(TL_HIDDEN, uuid, NULL, 0, parent, depth);

		if (row)
			json_object_set_new(row, "reason", json_string(hidden_reason(msg)));
		tl_rows_add(rows, row);
		return;
	}
	if (!parent && starts_turn(content))
		turn_started(st, uuid, rows);
	if (json_is_string(content)) {
		tl_rows_add(rows, user_text(st, json_string_value(content), uuid, 0, parent, depth));
		return;
	}
	json_array_foreach(content, i, b) {
		const char *type = str(b, "type");

		if (!type)
			continue;
		if (strcmp(type, "tool_result") == 0)
			tool_result(st, msg, b, parent, depth, rows);
		else if (strcmp(type, "text") == 0 && str(b, "text"))
			tl_rows_add(rows, user_text(st, str(b, "text"), uuid, (int)i, parent, depth));
	}
}

/* An api_retry system message: the attempt, of how many, the wait and why. */
static json_t *api_retry(const json_t *msg, const char *uuid, const char *parent, int depth)
{
	json_t *row = row_of(TL_RETRY, uuid, "#retry", -1, parent, depth);
	const json_t *status = json_object_get(msg, "error_status");
	struct tl_retry r;

	if (!row)
		return NULL;
	tl_retry_init(&r);
	if (json_is_integer(json_object_get(msg, "attempt")))
		r.attempt = json_integer_value(json_object_get(msg, "attempt"));
	if (json_is_integer(json_object_get(msg, "max_retries")))
		r.max_attempts = json_integer_value(json_object_get(msg, "max_retries"));
	if (json_is_number(json_object_get(msg, "retry_delay_ms")))
		r.delay_ms = (long long)json_number_value(json_object_get(msg, "retry_delay_ms"));
	if (json_is_integer(status))
		r.http_status = json_integer_value(status);
	r.reason = tl_retry_reason(str(msg, "error"), r.http_status);
	tl_retry_fields(row, &r);
	return row;
}

/* A rate_limit_event: a row when the account is limited ("rejected") or
 * near it ("allowed_warning"); "allowed" says nothing a person waits on. */
static void rate_limit(const json_t *msg, json_t *rows)
{
	const json_t *info = json_object_get(msg, "rate_limit_info"), *at = json_object_get(info, "resetsAt");
	const char *status = str(info, "status"), *uuid = str(msg, "uuid");
	json_t *row;

	if (!uuid || !status || strcmp(status, "allowed") == 0)
		return;
	if (!(row = row_of(TL_RATE_LIMIT, uuid, "#ratelimit", -1, NULL, 0)))
		return;
	tl_row_str(row, "status", status, 32);
	if (json_is_number(at))
		json_object_set_new(row, "resetsAt", json_integer((json_int_t)json_number_value(at)));
	tl_row_str(row, "limitType", str(info, "rateLimitType"), 64);
	tl_rows_add(rows, row);
}

static void system_msg(struct tl_claude *st, const json_t *msg, const char *parent, int depth, json_t *rows)
{
	const char *sub = str(msg, "subtype"), *uuid = str(msg, "uuid");
	json_t *row;

	if (tl_claude_task(st, msg, rows) || !sub || !uuid)
		return;
	if (strcmp(sub, "compact_boundary") == 0) {
		row = row_of(TL_HIDDEN, uuid, NULL, 0, parent, depth);
		if (row)
			json_object_set_new(row, "reason", json_string("compact boundary"));
	} else if (strcmp(sub, "api_retry") == 0) {
		row = api_retry(msg, uuid, parent, depth);
	} else if (strcmp(sub, "informational") == 0 && str(msg, "content")) {
		row = row_of(TL_SYSTEM, uuid, NULL, 0, parent, depth);
		if (row) {
			tl_row_str(row, "text", str(msg, "content"), TL_TEXT_MAX);
			tl_row_str(row, "level", str(msg, "level"), 32);
		}
	} else {
		return;	/* init, state changes: no row (docs/timeline.md) */
	}
	tl_rows_add(rows, row);
}

/* The per-model usage of a result (model_usage_since_last_result: this
 * turn's own; the SDK's modelUsage and total_cost_usd run on across the
 * turns of a query) summed into end; 0 when the result has none. */
static int model_usage(const json_t *models, struct tl_turn_end *end)
{
	const char *model;
	const json_t *u;
	double cost = 0;
	long long in = 0, cached = 0, out = 0;

	if (!json_is_object(models) || !json_object_size(models))
		return 0;
	json_object_foreach((json_t *)models, model, u) {
		cached += json_integer_value(json_object_get(u, "cacheReadInputTokens"));
		in += json_integer_value(json_object_get(u, "inputTokens")) +
		      json_integer_value(json_object_get(u, "cacheReadInputTokens")) +
		      json_integer_value(json_object_get(u, "cacheCreationInputTokens"));
		out += json_integer_value(json_object_get(u, "outputTokens"));
		cost += json_number_value(json_object_get(u, "costUSD"));
	}
	end->tokens_in = in, end->cached_tokens_in = cached, end->tokens_out = out, end->cost_usd = cost;
	return 1;
}

/* The result message: the end of the running turn. */
static void result(struct tl_claude *st, const json_t *msg, json_t *rows)
{
	const char *sub = str(msg, "subtype"), *why = str(msg, "terminal_reason");
	const char *turn = st->turn[0] ? st->turn : str(msg, "uuid");
	const json_t *u = json_object_get(msg, "usage");
	struct tl_turn_end end;
	json_t *row;

	if (!turn)
		return;
	tl_turn_end_init(&end, sub && strcmp(sub, "success") == 0 && !json_is_true(json_object_get(msg, "is_error"))
				       ? "completed"
			       : why && strncmp(why, "aborted", 7) == 0 ? "interrupted" : "failed");
	if (json_is_integer(json_object_get(msg, "duration_ms")))
		end.duration_ms = json_integer_value(json_object_get(msg, "duration_ms"));
	/* without the per-turn figures (an older Claude Code), the main
	 * loop's usage of this turn, and no cost */
	if (!model_usage(json_object_get(msg, "model_usage_since_last_result"), &end) && json_is_object(u)) {
		end.cached_tokens_in = json_integer_value(json_object_get(u, "cache_read_input_tokens"));
		end.tokens_in = json_integer_value(json_object_get(u, "input_tokens")) + end.cached_tokens_in +
				json_integer_value(json_object_get(u, "cache_creation_input_tokens"));
		end.tokens_out = json_integer_value(json_object_get(u, "output_tokens"));
	}
	if ((row = row_of(TL_TURN_COMPLETED, turn, "#completed", -1, NULL, 0)))
		tl_turn_end_fields(row, turn, &end);
	tl_rows_add(rows, row);
	st->turn[0] = '\0';
}

void tl_claude_sent(struct tl_claude *st, const char *uuid, const char *text, json_t *rows)
{
	json_t *msg = json_pack("{s:s, s:s, s:n, s:{s:s, s:[{s:s, s:s}]}}", "type", "user", "uuid", uuid,
				"parent_tool_use_id", "message", "role", "user", "content", "type", "text", "text", text);

	if (msg)
		user(st, msg, NULL, 0, rows);
	json_decref(msg);
}

void tl_claude_init(struct tl_claude *st)
{
	memset(st, 0, sizeof *st);
}

void tl_claude_free(struct tl_claude *st)
{
	tl_open_clear(st->open, &st->nopen);
	json_decref(st->slash);
	st->slash = NULL;
}

int tl_claude_project(struct tl_claude *st, const json_t *msg, json_t *rows, char *err, size_t errlen)
{
	const char *type = str(msg, "type"), *parent = str(msg, "parent_tool_use_id");
	int depth = tl_claude_spawn_depth(st, parent);

	if (!json_is_object(msg) || !type) {
		snprintf(err, errlen, "Claude message is not an object with a type");
		return -1;
	}
	if (strcmp(type, "assistant") == 0)
		assistant(st, msg, parent, depth, rows);
	else if (strcmp(type, "user") == 0)
		user(st, msg, parent, depth, rows);
	else if (strcmp(type, "system") == 0)
		system_msg(st, msg, parent, depth, rows);
	else if (strcmp(type, "result") == 0 && !parent)
		result(st, msg, rows);
	else if (strcmp(type, "rate_limit_event") == 0)
		rate_limit(msg, rows);
	return 0;
}
