/*
 * png - writing a drawn frame as PNG, fast.
 *
 * cairo_surface_write_to_png compresses with zlib's default level and
 * tries every row filter: 100 ms for a 1920x1080 frame, more than the
 * frame took to draw.  A preview is looked at once and thrown away, so
 * this writer uses the fastest level and one cheap filter (a few times
 * faster, the file a little larger).  The same encoder writes to memory
 * for a preview that goes back to the worker's model in a tool answer.
 */
#ifndef EXPLAINER_PNG_H
#define EXPLAINER_PNG_H

#include <stddef.h>

struct _cairo_surface;

/* An opaque ARGB32 or RGB24 image surface as an 8-bit RGB PNG in memory:
 * *png (caller frees) of *len bytes.  0, or -1 with err. */
int png_encode_surface(struct _cairo_surface *surface, unsigned char **png, size_t *len, char *err,
		       size_t errlen);

#endif
