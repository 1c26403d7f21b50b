/*
 * video_args - the arguments of extract_video_context, checked: exactly
 * one source (youtube_url, video_url or local_file), the consent a local
 * file needs, the intent (tutorial or meeting) and the user's goal.
 *
 * Only what the arguments alone can tell: the YouTube link is made
 * canonical here; the video URL's type (a HEAD request) and the local
 * file itself (open, type, size) are checked when they are used.
 */
#ifndef VIDEO_ARGS_H
#define VIDEO_ARGS_H

#include <jansson.h>
#include <stddef.h>

#include "schema.h"
#include "youtube.h"

#define VIDEO_GOAL_MAX_CHARS 2000
#define VIDEO_URL_MAX 2048

enum video_source { VIDEO_YOUTUBE, VIDEO_URL, VIDEO_LOCAL };

struct video_args {
	enum video_source source;
	const char *given;       /* the source as the call named it (borrowed) */
	char youtube[YOUTUBE_CANONICAL_MAX]; /* VIDEO_YOUTUBE: what goes to Gemini */
	enum video_intent intent;
	const char *goal;        /* borrowed, not blank */
};

/* 0, or -1 with a sentence for the model in err. */
int video_args_parse(const json_t *args, struct video_args *out, char *err, size_t errlen);

#endif
