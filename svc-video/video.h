/*
 * video - the extract_video_context tool: a YouTube link, a public video
 * URL or a local recording (with consent), watched by Gemini for a goal as
 * a tutorial or a meeting, answered as timestamped Markdown notes with
 * the gaps called out.
 */
#ifndef VIDEO_VIDEO_H
#define VIDEO_VIDEO_H

#include <jansson.h>

#include "service.h"

int video_extract(struct hb_call *call, const json_t *args);

#endif
