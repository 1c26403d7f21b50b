/*
 * finish - what happens when the explainer worker finishes (page 000,
 * "Narrated explainer videos"): every scene's narration synthesized and
 * measured, each scene fitted to its spoken text, the 30-120 s gate, the
 * 1080p30 MP4 rendered with its captions (WebVTT and SRT, from each
 * scene's narration text and measured length) and its poster, and the
 * result committed as the video's next
 * revision (videos.h).
 *
 * The synthesizer is the caller's (the service asks svc-speech through
 * the broker, with the session's key and voice).  A narration is kept in
 * the worker's folder under a name made from its text's SHA-256
 * ("say-<16 hex>.wav"), so finishing again after a revision of one
 * scene's words synthesizes only that scene, and a worker that shortens
 * its narration after a failed gate pays only for what it changed.
 */
#ifndef EXPLAINER_FINISH_H
#define EXPLAINER_FINISH_H

#include <stddef.h>

#include "pipeline.h"
#include "videos.h"
#include "workdir.h"

/* Writes text's narration to wav_path: a 24 kHz mono 16-bit WAV.  0, or -1
 * with err (said to the worker as it is). */
typedef int (*finish_speak_fn)(void *arg, const char *text, const char *wav_path, char *err, size_t errlen);

struct finish_request {
	const char *workdir;                 /* the worker's folder: it becomes the video's source */
	struct video_entry *entry;           /* open (videos_create / videos_find) */
	finish_speak_fn speak;
	void *speak_arg;
	const struct render_options *render; /* threads, progress, cancel, deadline (narration too), burn-in */
	const struct workdir_poster *poster; /* the worker's poster frame; NULL: the first scene's end */
};

struct finish_outcome {
	int gate_failed;          /* the worker must revise the narration */
	size_t synthesized;       /* narrations made now (the rest were kept) */
	struct workdir_fit fit;   /* the scenes as fitted (free with finish_outcome_free) */
	struct render_stats stats;
};

/* 0: the video is saved (r->entry's record updated).  -1 with err, a text
 * for the worker: the folder's problems, a synthesis failure, the gate's
 * sentence (out->gate_failed), or why the render failed ("cancelled" on a
 * cancel, a sentence naming the time limit past the deadline); the entry's
 * video, source and record are then as they were.  out->fit is filled
 * before the render starts, so the render's progress may show it. */
int explainer_finish(const struct finish_request *r, struct finish_outcome *out, char *err, size_t errlen);
void finish_outcome_free(struct finish_outcome *out);

#endif
