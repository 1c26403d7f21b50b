/*
 * png - writing a drawn frame as PNG, fast.
 *
 * cairo_surface_write_to_png compresses with zlib's default level and
 * tries every row filter: 100 ms for a 1920x1080 frame, more than the
 * frame took to draw.  A preview is looked at once and thrown away, so
 * this writer uses the fastest level and one cheap filter (a few times
 * faster, the file a little larger).
 */
#ifndef EXPLAINER_PNG_H
#define EXPLAINER_PNG_H

#include <stddef.h>

struct _cairo_surface;

/* An opaque ARGB32 or RGB24 image surface to path as 8-bit RGB.  0, or
 * -1 with err. */
int png_write_surface(struct _cairo_surface *surface, const char *path, char *err, size_t errlen);

#endif
