/*
 * fit - each scene fitted to its spoken narration, and the length gate of
 * page 000 ("The narrated video must last 30-120 seconds").
 *
 * A narrated scene lasts its narration plus FIT_PAUSE_S of quiet before
 * the next one, in whole frames; a silent scene keeps the duration its
 * author gave.  The scene's animations were written for that authored
 * duration; the manifest keeps it as the scene's "timeline" (folder.h), so
 * they are stretched or squeezed uniformly onto the new length and every
 * step keeps its place relative to the spoken text.
 */
#ifndef EXPLAINER_FIT_H
#define EXPLAINER_FIT_H

#include <stddef.h>

#define FIT_PAUSE_S 0.5
#define FIT_TOTAL_MIN_S 30.0
#define FIT_TOTAL_MAX_S 120.0

struct fit_scene {
	const char *name;  /* the scene's SVG name, for the gate's sentence */
	double written;    /* the duration its author gave, seconds */
	double narration;  /* seconds of speech; 0 for a silent scene */
	double duration;   /* out: the fitted length, whole frames */
};

/* Sets every duration, in whole frames at fps frames a second; returns the
 * total in seconds. */
double fit_scenes(struct fit_scene *v, size_t n, int fps);
/* 0 when the total is within 30-120 s; otherwise -1 with why: the
 * measured length (to one decimal, per scene and in total) and what to do. */
int fit_gate(const struct fit_scene *v, size_t n, char *why, size_t whylen);

#endif
