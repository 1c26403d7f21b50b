/*
 * timeline_view - the rows of hbctl timeline (timeline.c for Claude,
 * timeline_codex.c for Codex), one view per thread.  Rows in order, with
 * the position of each id so a row with a known id replaces the earlier
 * one in place: every id of the read, hashed, where a live viewer's
 * tl_stream keeps a ring of the last 4096.  Each id keeps the time of the
 * latest saved message that made or completed its row, so --since leaves
 * out what is older (a tool call completed after it stays).  A subagent's view is printed
 * right after the spawn row that started it (page 003: a subagent is a
 * child thread with a view of its own).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../timeline/row_text.h"
#include "timeline_view.h"

int view_init(struct view *v)
{
	memset(v, 0, sizeof *v);
	v->rows = json_array();
	v->index = json_object();
	v->times = json_object();
	return v->rows && v->index && v->times ? 0 : -1;
}

void view_free(struct view *v)
{
	json_decref(v->rows);
	json_decref(v->index);
	json_decref(v->times);
}

void view_put(struct view *v, json_t *row)
{
	view_put_at(v, row, -1);
}

void view_put_at(struct view *v, json_t *row, long long when)
{
	const char *id = json_string_value(json_object_get(row, "id"));
	const json_t *at = id ? json_object_get(v->index, id) : NULL;

	if (id && when >= 0 && json_integer_value(json_object_get(v->times, id)) <= when)
		json_object_set_new(v->times, id, json_integer(when));

	if (at) {
		json_array_set_new(v->rows, (size_t)json_integer_value(at), row);
		return;
	}
	if (id)
		json_object_set_new(v->index, id, json_integer((json_int_t)json_array_size(v->rows)));
	json_array_append_new(v->rows, row);
}

int views_hold(const struct view *views, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (views[i].index && json_object_get(views[i].index, id))
			return 1;
	return 0;
}

static void print_row(const json_t *row, int json, int colour)
{
	char *text = json ? json_dumps(row, JSON_COMPACT) : tl_render(row, colour);

	if (text)
		json ? puts(text) : fputs(text, stdout);
	free(text);
}

static void print_view(struct view *views, size_t n, struct view *v, int json, int colour, long long since)
{
	const json_t *row;
	size_t i;

	v->printed = 1;
	json_array_foreach(v->rows, i, row) {
		const char *id = json_string_value(json_object_get(row, "id"));
		const char *kind = json_string_value(json_object_get(row, "kind"));
		const json_t *when = id ? json_object_get(v->times, id) : NULL;

		if (!since || !when || json_integer_value(when) >= since)
			print_row(row, json, colour);
		if (!kind || strcmp(kind, "spawn") != 0 || !id)
			continue;
		for (size_t k = 1; k < n; k++)
			if (!views[k].printed && strcmp(views[k].spawn, id) == 0)
				print_view(views, n, &views[k], json, colour, since);
	}
}

void views_print(struct view *views, size_t n, int json, int colour, long long since)
{
	print_view(views, n, &views[0], json, colour, since);
	for (size_t k = 1; k < n; k++)
		if (!views[k].printed)
			print_view(views, n, &views[k], json, colour, since);
}

int views_print_thread(struct view *views, size_t n, const char *thread, int json, int colour, long long since)
{
	for (size_t k = 1; k < n; k++)
		if (strcmp(views[k].thread, thread) == 0) {
			print_view(views, n, &views[k], json, colour, since);
			return 0;
		}
	return -1;
}
