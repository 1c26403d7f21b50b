/*
 * row - the row kinds, their names on the wire, and the caps every text
 * goes through (see row.h).  Cutting lives here once so a hostile frame
 * meets the same bound in every projector.
 */
#include "row.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

static const char *const kind_names[TL_KIND_COUNT] = {
	[TL_USER] = "user",
	[TL_ASSISTANT] = "assistant",
	[TL_COMMAND] = "command",
	[TL_FILE_CHANGE] = "file_change",
	[TL_TOOL] = "tool",
	[TL_PLAN] = "plan",
	[TL_IMAGE] = "image",
	[TL_REASONING] = "reasoning",
	[TL_TURN_ABORTED] = "turn_aborted",
	[TL_COMPACTED] = "compacted",
	[TL_SLASH_COMMAND] = "slash_command",
	[TL_AGENT_MESSAGE] = "agent_message",
	[TL_SYSTEM] = "system",
	[TL_HIDDEN] = "hidden",
	[TL_SPAWN] = "spawn",
	[TL_TURN_STARTED] = "turn_started",
	[TL_TURN_COMPLETED] = "turn_completed",
	[TL_RETRY] = "retry",
	[TL_RATE_LIMIT] = "rate_limit",
};

const char *tl_kind_name(enum tl_kind kind)
{
	return (unsigned)kind < TL_KIND_COUNT ? kind_names[kind] : "unknown";
}

int tl_row_check(const json_t *row, const char *agent, char *err, size_t errlen)
{
	const char *id = json_string_value(json_object_get(row, "id"));
	const char *kind = json_string_value(json_object_get(row, "kind"));
	const char *ragent = json_string_value(json_object_get(row, "agent"));
	const json_t *depth = json_object_get(row, "depth");
	size_t alen = strlen(agent);
	int known = 0;

	if (!json_is_object(row)) {
		snprintf(err, errlen, "a row is a JSON object");
		return -1;
	}
	if (!ragent || strcmp(ragent, agent) != 0) {
		snprintf(err, errlen, "a row's \"agent\" must be \"%s\", the agent of the publisher's run", agent);
		return -1;
	}
	if (!id || strlen(id) >= TL_ID_MAX || strncmp(id, agent, alen) != 0 || id[alen] != ':' || !id[alen + 1]) {
		snprintf(err, errlen, "a row's \"id\" is \"%s:\" and more, at most %d bytes", agent, TL_ID_MAX - 1);
		return -1;
	}
	for (int k = 0; kind && k < TL_KIND_COUNT; k++)
		known |= strcmp(kind, kind_names[k]) == 0;
	if (!known) {
		snprintf(err, errlen, "a row's \"kind\" must be one of the kinds of docs/timeline.md");
		return -1;
	}
	if (!json_is_integer(depth) || json_integer_value(depth) < 0 || json_integer_value(depth) > TL_DEPTH_MAX) {
		snprintf(err, errlen, "a row's \"depth\" is a whole number from 0 to %d", TL_DEPTH_MAX);
		return -1;
	}
	return 0;
}

json_t *tl_row_new(const char *agent, enum tl_kind kind, const char *id)
{
	if (!id || strlen(id) >= TL_ID_MAX)
		return NULL;
	return json_pack("{s:s, s:s, s:s, s:i}", "id", id, "agent", agent, "kind", tl_kind_name(kind), "depth", 0);
}

char *tl_cut(const char *s, size_t len, size_t max)
{
	size_t mark = sizeof TL_CUT_MARK - 1, keep;
	char *out;

	if (len <= max)
		keep = len;
	else
		keep = max > mark ? hb_utf8_fit(s, len, (size_t)-1, max - mark) : 0;
	out = malloc(keep + mark + 1);
	if (!out)
		return NULL;
	memcpy(out, s, keep);
	if (len > max)
		memcpy(out + keep, TL_CUT_MARK, mark), keep += mark;
	out[keep] = '\0';
	return out;
}

int tl_row_text(json_t *row, const char *key, const char *s, size_t len, size_t max)
{
	char *cut, *fixed = NULL;
	json_t *v;

	/* JSON strings from jansson are UTF-8 already; a diff built from them
	 * too.  Repair anyway: a NUL inside would cut the string short. */
	if (!hb_utf8_valid(s, len) || memchr(s, '\0', len)) {
		char *tmp = malloc(len + 1);

		if (!tmp)
			return -1;
		memcpy(tmp, s, len);
		tmp[len] = '\0';
		fixed = hb_utf8_repair(tmp);
		free(tmp);
		if (!fixed)
			return -1;
		s = fixed;
		len = strlen(fixed);
	}
	cut = tl_cut(s, len, max);
	free(fixed);
	v = cut ? json_string(cut) : NULL;
	free(cut);
	return v ? json_object_set_new(row, key, v) : -1;
}

int tl_row_str(json_t *row, const char *key, const char *s, size_t max)
{
	return s ? tl_row_text(row, key, s, strlen(s), max) : 0;
}

int tl_row_args(json_t *row, const char *key, const json_t *args)
{
	char *text;
	size_t len;
	int rc;

	if (!args || json_is_null(args))
		return 0;
	if (!(text = json_dumps(args, JSON_ENCODE_ANY | JSON_COMPACT)))
		return -1;
	len = strlen(text);
	if (len <= TL_ARGS_MAX)
		rc = json_object_set_new(row, key, json_deep_copy(args));
	else
		rc = tl_row_text(row, key, text, len, TL_ARGS_MAX);
	free(text);
	return rc;
}

void tl_rows_add(json_t *rows, json_t *row)
{
	if (!row)
		return;
	if (json_array_size(rows) >= TL_ROWS_MAX) {
		json_t *last = json_array_get(rows, TL_ROWS_MAX - 1);

		json_object_set_new(last, "rowsCut", json_true());
		json_decref(row);
		return;
	}
	json_array_append_new(rows, row);
}

json_t *tl_plan_steps(const json_t *items, const char *text_key)
{
	json_t *steps = json_array(), *step;
	const json_t *item;
	const char *text, *status;
	size_t i;

	if (!steps)
		return NULL;
	json_array_foreach(items, i, item) {
		if (i == TL_STEPS_MAX || !(step = json_object()))
			break;
		text = json_string_value(json_object_get(item, text_key));
		status = json_string_value(json_object_get(item, "status"));
		tl_row_str(step, "step", text ? text : "", 1024);
		tl_row_str(step, "status", status ? status : "pending", 32);
		json_array_append_new(steps, step);
	}
	return steps;
}
