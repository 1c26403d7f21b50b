/*
 * render - a checked answer (schema.h) as the Markdown the agent reads:
 * a title, where the notes come from and what they are for, the summary,
 * the gaps (right after it, so they are not missed), then each section of
 * the intent with its entries in time order, each starting with its
 * timestamp.  Gemini's text is put in as plain Markdown, except commands
 * and code, which keep their exact characters inside code spans and
 * fences long enough for any backticks they hold.
 */
#ifndef VIDEO_RENDER_H
#define VIDEO_RENDER_H

#include <jansson.h>

#include "schema.h"

struct video_render_info {
	enum video_intent intent;
	const char *source;  /* the URL or file as the call named it */
	const char *goal;
	const char *model;
};

/* Malloc'd Markdown, or NULL when memory runs out.  answer must have
 * passed video_schema_check. */
char *video_render(const struct video_render_info *info, const json_t *answer);

#endif
