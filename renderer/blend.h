/*
 * blend - the pictures of a transition between two scenes (transition.h),
 * made from two yuv420p pictures the pipeline already has: the previous
 * scene's last picture ("from") and the entering scene's picture ("to").
 * No scene is drawn again: a crossfade mixes every sample, a slide copies
 * shifted rows of both.  Sizes and strides come with the pictures, so any
 * canvas works (width and height even, as yuv420p needs).
 */
#ifndef EXPLAINER_BLEND_H
#define EXPLAINER_BLEND_H

#include <stddef.h>
#include <stdint.h>

#include "transition.h"

/* A yuv420p picture: Y at full size, U and V at half width and height. */
struct yuv_view {
	uint8_t *plane[3];
	int stride[3];
	int width, height;
};

/* The bytes of a tightly packed yuv420p picture of width x height. */
size_t yuv_packed_size(int width, int height);
/* buf, a tightly packed yuv420p picture (Y, then U, then V), as a view. */
struct yuv_view yuv_packed_view(uint8_t *buf, int width, int height);

/* dst = from + (to - from) * p, per sample (p from 0 to 1). */
void blend_crossfade(const struct yuv_view *dst, const struct yuv_view *from, const struct yuv_view *to,
		     double p);
/* to pushes from out to the left (vertical: to the top), p of the way:
 * dst shows from's far part and to's near part side by side. */
void blend_slide(const struct yuv_view *dst, const struct yuv_view *from, const struct yuv_view *to, double p,
		 int vertical);
/* The picture of transition type at p (0 < p < 1); a cut is to. */
void blend_transition(enum transition_type type, const struct yuv_view *dst, const struct yuv_view *from,
		      const struct yuv_view *to, double p);

#endif
