/*
 * open - the rows a projector keeps open until a later frame completes
 * them (a tool call until its result, a Codex item until it completes),
 * and tl_parse_frame.  A fixed table: a stream of calls that never get a
 * result drops the oldest rather than growing.
 */
#include "project.h"

#include <stdio.h>
#include <string.h>

void tl_open_put(struct tl_open *open, size_t *n, size_t *next, const char *id, const json_t *row)
{
	json_t *copy = json_deep_copy(row);
	size_t slot;

	if (!copy || strlen(id) >= TL_ID_MAX)
		return json_decref(copy);
	for (slot = 0; slot < *n; slot++)
		if (strcmp(open[slot].id, id) == 0)
			break;
	if (slot == *n) {
		if (*n < TL_OPEN_MAX)
			slot = (*n)++;
		else
			slot = *next, *next = (*next + 1) % TL_OPEN_MAX;
	}
	json_decref(open[slot].row);
	strcpy(open[slot].id, id);
	open[slot].row = copy;
}

json_t *tl_open_get(struct tl_open *open, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(open[i].id, id) == 0)
			return open[i].row;
	return NULL;
}

void tl_open_del(struct tl_open *open, size_t *n, const char *id)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(open[i].id, id) == 0) {
			json_decref(open[i].row);
			open[i] = open[--*n];
			open[*n].row = NULL;
			return;
		}
}

void tl_open_clear(struct tl_open *open, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		json_decref(open[i].row), open[i].row = NULL;
	*n = 0;
}

json_t *tl_parse_frame(const char *text, size_t len, char *err, size_t errlen)
{
	json_error_t je;
	json_t *v;

	if (len > TL_FRAME_MAX) {
		snprintf(err, errlen, "frame of %zu bytes is longer than the %u bytes a timeline frame may have", len,
			 TL_FRAME_MAX);
		return NULL;
	}
	v = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!v) {
		snprintf(err, errlen, "frame is not JSON: %s (line %d)", je.text, je.line);
		return NULL;
	}
	if (!json_is_object(v)) {
		json_decref(v);
		snprintf(err, errlen, "frame is not a JSON object");
		return NULL;
	}
	return v;
}
