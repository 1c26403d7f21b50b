/*
 * frame - one SVG frame drawn with librsvg into a 1920x1080 cairo surface,
 * and converted to the encoder's yuv420p picture (see frame.h,
 * yuv_convert.h).
 *
 * A framer belongs to one thread: librsvg handles and cairo surfaces are
 * not shared, so the pipeline's render threads each have their own.  The
 * handle is made from the SVG text for every frame (0.2 ms against a
 * 17 ms draw, reference/explainer-render.md), which keeps the frame a pure
 * function of its text.
 */
#include "frame.h"

#include <cairo.h>
#include <librsvg/rsvg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yuv_convert.h"

#define FRAME_W 1920
#define FRAME_H 1080

struct framer {
	cairo_surface_t *surface;
	cairo_surface_t *still;  /* the still layer drawn last, or NULL */
	char *still_svg;         /* its text */
	size_t still_len;
};

struct framer *framer_new(char *err, size_t errlen)
{
	struct framer *f = calloc(1, sizeof *f);

	if (!f) {
		snprintf(err, errlen, "out of memory for a frame");
		return NULL;
	}
	f->surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, FRAME_W, FRAME_H);
	if (cairo_surface_status(f->surface) != CAIRO_STATUS_SUCCESS) {
		snprintf(err, errlen, "cannot make a 1920x1080 drawing surface: %s",
			 cairo_status_to_string(cairo_surface_status(f->surface)));
		framer_free(f);
		return NULL;
	}
	return f;
}

/* Draws svg onto surface, over what is there (white first with blank). */
static int draw_svg(cairo_surface_t *surface, int blank, const char *svg, size_t len, char *err, size_t errlen)
{
	const RsvgRectangle viewport = { 0, 0, FRAME_W, FRAME_H };
	GError *gerr = NULL;
	RsvgHandle *h = rsvg_handle_new_from_data((const guint8 *)svg, len, &gerr);
	cairo_t *cr;
	int rc = 0;

	if (!h) {
		snprintf(err, errlen, "librsvg cannot read the frame: %s", gerr ? gerr->message : "unknown error");
		g_clear_error(&gerr);
		return -1;
	}
	cr = cairo_create(surface);
	/* Opaque white first: premultiplied transparency would turn dark once
	 * swscale drops the alpha. */
	if (blank) {
		cairo_set_source_rgb(cr, 1, 1, 1);
		cairo_paint(cr);
	}
	if (!rsvg_handle_render_document(h, cr, &viewport, &gerr)) {
		snprintf(err, errlen, "librsvg cannot draw the frame: %s", gerr ? gerr->message : "unknown error");
		g_clear_error(&gerr);
		rc = -1;
	} else if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
		snprintf(err, errlen, "cairo cannot draw the frame: %s", cairo_status_to_string(cairo_status(cr)));
		rc = -1;
	}
	cairo_destroy(cr);
	g_object_unref(h);
	cairo_surface_flush(surface);
	return rc;
}

int framer_draw(struct framer *f, const char *svg, size_t len, char *err, size_t errlen)
{
	return draw_svg(f->surface, 1, svg, len, err, errlen);
}

/* Draws and keeps the still layer, unless it is the one kept. */
static int keep_still(struct framer *f, const char *still, size_t len, char *err, size_t errlen)
{
	if (f->still && len == f->still_len && memcmp(still, f->still_svg, len) == 0)
		return 0;
	free(f->still_svg);
	f->still_svg = NULL;
	if (!f->still)
		f->still = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, FRAME_W, FRAME_H);
	if (cairo_surface_status(f->still) != CAIRO_STATUS_SUCCESS || !(f->still_svg = malloc(len ? len : 1))) {
		snprintf(err, errlen, "out of memory for a frame's still layer");
		return -1;
	}
	if (draw_svg(f->still, 1, still, len, err, errlen) < 0) {
		free(f->still_svg);
		f->still_svg = NULL;
		return -1;
	}
	memcpy(f->still_svg, still, len);
	f->still_len = len;
	return 0;
}

int framer_draw_layers(struct framer *f, const char *still, size_t still_len, const char *moving,
		       size_t moving_len, char *err, size_t errlen)
{
	if (!still)
		return framer_draw(f, moving, moving_len, err, errlen);
	if (keep_still(f, still, still_len, err, errlen) < 0)
		return -1;
	cairo_surface_flush(f->surface);
	memcpy(cairo_image_surface_get_data(f->surface), cairo_image_surface_get_data(f->still),
	       (size_t)cairo_image_surface_get_stride(f->still) * FRAME_H);
	cairo_surface_mark_dirty(f->surface);
	return draw_svg(f->surface, 0, moving, moving_len, err, errlen);
}

void framer_yuv(struct framer *f, uint8_t *yuv)
{
	struct yuv_view dst = yuv_packed_view(yuv, FRAME_W, FRAME_H);

	yuv_convert_rect(cairo_image_surface_get_data(f->surface), cairo_image_surface_get_stride(f->surface), &dst,
			 0, 0, FRAME_W, FRAME_H);
}

const uint8_t *framer_pixels(struct framer *f, int *stride)
{
	*stride = cairo_image_surface_get_stride(f->surface);
	return cairo_image_surface_get_data(f->surface);
}

cairo_surface_t *framer_surface(struct framer *f)
{
	return f->surface;
}

void framer_free(struct framer *f)
{
	if (!f)
		return;
	if (f->surface)
		cairo_surface_destroy(f->surface);
	if (f->still)
		cairo_surface_destroy(f->still);
	free(f->still_svg);
	free(f);
}
