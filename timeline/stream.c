/*
 * stream - the identity rule of the timeline (see stream.h): a row whose
 * id was shown replaces that row in place.  A linear scan over at most
 * TL_STREAM_MAX ids, newest first: replacements are almost always of a
 * recent row.
 */
#include "stream.h"

#include <stdlib.h>
#include <string.h>

int tl_stream_init(struct tl_stream *s)
{
	s->count = 0;
	s->ids = calloc(TL_STREAM_MAX, sizeof *s->ids);
	return s->ids ? 0 : -1;
}

void tl_stream_free(struct tl_stream *s)
{
	free(s->ids);
	s->ids = NULL;
}

enum tl_place tl_stream_place(struct tl_stream *s, const json_t *row, size_t *pos)
{
	const char *id = json_string_value(json_object_get(row, "id"));
	size_t kept = s->count < TL_STREAM_MAX ? s->count : TL_STREAM_MAX;

	if (!id || !*id || strlen(id) >= TL_ID_MAX)
		return TL_PLACE_INVALID;
	for (size_t i = 1; i <= kept; i++) {
		size_t p = s->count - i;

		if (strcmp(s->ids[p % TL_STREAM_MAX], id) == 0) {
			*pos = p;
			return TL_PLACE_REPLACES;
		}
	}
	strcpy(s->ids[s->count % TL_STREAM_MAX], id);
	*pos = s->count++;
	return TL_PLACE_NEW;
}
