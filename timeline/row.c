/*
 * row - the row kinds, their names on the wire, and the caps every text
 * goes through (see row.h).  Cutting lives here once so a hostile frame
 * meets the same bound in every projector.
 */
#include "row.h"

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
};

const char *tl_kind_name(enum tl_kind kind)
{
	return (unsigned)kind < TL_KIND_COUNT ? kind_names[kind] : "unknown";
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
