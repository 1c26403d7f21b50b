/*
 * stream - where a row goes in a timeline already shown: a new row at
 * the end, or in place of the row with its identity (a live row replaced
 * by its saved row, a tool call completed by its result).
 *
 * Bounded: it remembers the last TL_STREAM_MAX ids; an update of an older
 * row is placed as new (docs/timeline.md).
 */
#ifndef HB_TIMELINE_STREAM_H
#define HB_TIMELINE_STREAM_H

#include <jansson.h>
#include <stddef.h>

#include "row.h"

#define TL_STREAM_MAX 4096

enum tl_place { TL_PLACE_NEW, TL_PLACE_REPLACES, TL_PLACE_INVALID };

struct tl_stream {
	char (*ids)[TL_ID_MAX]; /* a ring of ids by position */
	size_t count;		/* rows placed so far; position p is at ids[p % TL_STREAM_MAX] */
};

int tl_stream_init(struct tl_stream *s);
void tl_stream_free(struct tl_stream *s);
/* Place row (by its "id"): NEW with *pos its new position, or REPLACES
 * with *pos the position of the row it replaces; INVALID for a row without
 * an id. */
enum tl_place tl_stream_place(struct tl_stream *s, const json_t *row, size_t *pos);

#endif
