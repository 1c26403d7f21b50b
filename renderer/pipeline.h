/*
 * pipeline - an explainer folder to its MP4: every scene checked, the
 * audio track built, frames evaluated in order, the changed ones drawn on
 * all cores, and all of them encoded in order into a temporary file that
 * becomes the target only when complete (output.h).
 *
 * Explainer scenes are mostly still, so a frame whose evaluated SVG is
 * byte-for-byte the previous frame's is not drawn again: the encoder gets
 * the previous picture once more.  Burned-in captions are a layer of their
 * own drawn over the frame (captions.h), so a frame is the same picture
 * when its SVG text and its cue are the same.
 */
#ifndef EXPLAINER_PIPELINE_H
#define EXPLAINER_PIPELINE_H

#include <stdatomic.h>
#include <stddef.h>

#include "folder.h"
#include "problems.h"

/* phase is "checking", "audio", "rendering" or "finishing"; done of total
 * frames while rendering (0 of 0 otherwise).  Called on the caller's
 * thread. */
typedef void (*render_progress_fn)(void *arg, const char *phase, long done, long total);

struct render_options {
	int threads;                 /* drawing threads; 0: one per online CPU */
	const char *preset;          /* x264 preset; NULL: "veryfast" */
	int crf;                     /* 0: 20 */
	render_progress_fn progress; /* NULL: none */
	void *progress_arg;
	const atomic_int *cancel;    /* nonzero: stop within a frame; NULL: never */
	long long deadline_ms;       /* hb_monotonic_ms() past it: stop within a frame; 0: none */
	int burn_captions;           /* draw the scenes' captions into the picture (captions.h) */
};

/* The start of the sentence of a render stopped at its deadline. */
#define RENDER_DEADLINE_ERR "the time limit was reached while rendering"

struct render_stats {
	long frames;    /* encoded */
	long drawn;     /* drawn by librsvg; the rest reused the previous picture */
};

/* Renders the explainer e into target.  0; or -1 with err, and with every
 * problem of the folder appended to p when the scenes are at fault; the
 * target is then as it was.  A cancel gives -1 with err "cancelled"; the
 * deadline gives -1 with err starting RENDER_DEADLINE_ERR. */
int render_explainer(const struct explainer *e, const char *target, const struct render_options *o,
		     struct render_stats *stats, struct problems *p, char *err, size_t errlen);

/* Every scene of e loaded (scene.h), in order; NULL with the problems
 * appended.  Frees with scenes_free(v, e->n). */
struct scene **scenes_load(const struct explainer *e, struct problems *p);
void scenes_free(struct scene **v, size_t n);

#endif
