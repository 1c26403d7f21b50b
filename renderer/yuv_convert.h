/*
 * yuv_convert - a drawn frame (cairo's opaque ARGB32, BGRA in memory on
 * little-endian machines) to the encoder's yuv420p: BT.709 coefficients,
 * full-range RGB in, limited-range YUV out, as the MP4's tags say.
 *
 * Chroma is the mean of each 2x2 block, so a rectangle on even
 * coordinates converts to exactly the samples the whole frame would give
 * there: the pipeline converts only what a frame changed (frame.h).
 */
#ifndef EXPLAINER_YUV_CONVERT_H
#define EXPLAINER_YUV_CONVERT_H

#include <stdint.h>

#include "blend.h"

/* Converts the rectangle (x, y, w, h) of bgra (rows of stride bytes, the
 * same size as dst) into dst; x, y, w and h even. */
void yuv_convert_rect(const uint8_t *bgra, int stride, const struct yuv_view *dst, int x, int y, int w, int h);

#endif
