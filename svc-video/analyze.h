/*
 * analyze - the one generateContent request that watches the video: the
 * video part first, then the prompt (gemini.md: text after the video), at
 * the configured temperature, with responseMimeType application/json and
 * the intent's JSON schema (schema.h).  Retried like every Gemini request
 * (429, 500, 503, 504, no answer); an answer that is blocked, cut off,
 * not JSON or off the schema fails the call as it is.
 */
#ifndef VIDEO_ANALYZE_H
#define VIDEO_ANALYZE_H

#include <jansson.h>
#include <stddef.h>

#include "gemini.h"
#include "schema.h"

#define VIDEO_ATTEMPTS 3

struct video_analysis {
	const struct hb_gemini *gemini;
	const char *model;
	double temperature;
	enum video_intent intent;
	const char *goal;
	const char *file_uri;  /* the canonical YouTube link, the video URL or the uploaded file's uri */
	const char *mime;      /* NULL for YouTube, which Gemini knows by its link */
	long backoff_ms;       /* before the first retry */
};

enum video_analyze_result { ANALYZE_OK, ANALYZE_FAILED, ANALYZE_CANCELLED };

/* *notes gets the checked answer (the caller frees it). */
enum video_analyze_result video_analyze(const struct video_analysis *a, json_t **notes, char *err, size_t errlen);
/* The request's JSON text (malloc'd), or NULL when memory runs out. */
char *video_request_body(const struct video_analysis *a);
/* The notes in a 200 answer: the text parts that are not thoughts, joined,
 * parsed and checked.  0, or -1 with err. */
int video_answer_notes(const struct hb_gemini_reply *r, enum video_intent intent, json_t **notes, char *err,
		       size_t errlen);

#endif
