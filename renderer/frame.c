/*
 * frame - one SVG frame drawn with librsvg into a cairo surface of the
 * video's size, and converted to the encoder's yuv420p picture (see
 * frame.h, yuv_convert.h).
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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yuv_convert.h"

/* Pixels around a moving layer's ink rectangle that are drawn too. */
#define PAINT_MARGIN 4

struct framer {
	int width, height;
	cairo_surface_t *surface;
	cairo_surface_t *still;  /* the still layer drawn last, or NULL */
	char *still_svg;         /* its text */
	size_t still_len;
	uint8_t *still_yuv;      /* the still layer as yuv420p, when still_yuv_ok */
	int still_yuv_ok;
};

struct framer *framer_new(int width, int height, char *err, size_t errlen)
{
	struct framer *f = calloc(1, sizeof *f);

	if (!f) {
		snprintf(err, errlen, "out of memory for a frame");
		return NULL;
	}
	f->width = width;
	f->height = height;
	f->surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
	if (cairo_surface_status(f->surface) != CAIRO_STATUS_SUCCESS) {
		snprintf(err, errlen, "cannot make a %dx%d drawing surface: %s", width, height,
			 cairo_status_to_string(cairo_surface_status(f->surface)));
		framer_free(f);
		return NULL;
	}
	return f;
}

/* A handle on svg; NULL with err. */
static RsvgHandle *open_svg(const char *svg, size_t len, char *err, size_t errlen)
{
	GError *gerr = NULL;
	RsvgHandle *h = rsvg_handle_new_from_data((const guint8 *)svg, len, &gerr);

	if (!h) {
		snprintf(err, errlen, "librsvg cannot read the frame: %s", gerr ? gerr->message : "unknown error");
		g_clear_error(&gerr);
	}
	return h;
}

/* Draws h onto surface, over what is there (white first with blank),
 * only inside clip (x, y, w, h) when it is given; frees h. */
static int render(cairo_surface_t *surface, int blank, RsvgHandle *h, const int *clip, char *err, size_t errlen)
{
	const RsvgRectangle viewport = { 0, 0, cairo_image_surface_get_width(surface),
					 cairo_image_surface_get_height(surface) };
	GError *gerr = NULL;
	cairo_t *cr = cairo_create(surface);
	int rc = 0;

	if (clip) {
		cairo_rectangle(cr, clip[0], clip[1], clip[2], clip[3]);
		cairo_clip(cr);
	}
	/* Opaque white first: premultiplied transparency would turn dark once
	 * the conversion drops the alpha. */
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

/* Draws svg onto surface, over what is there (white first with blank). */
static int draw_svg(cairo_surface_t *surface, int blank, const char *svg, size_t len, char *err, size_t errlen)
{
	RsvgHandle *h = open_svg(svg, len, err, errlen);

	return h ? render(surface, blank, h, NULL, err, errlen) : -1;
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
	f->still_yuv_ok = 0;
	if (!f->still)
		f->still = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, f->width, f->height);
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
	       (size_t)cairo_image_surface_get_stride(f->still) * (size_t)f->height);
	cairo_surface_mark_dirty(f->surface);
	return draw_svg(f->surface, 0, moving, moving_len, err, errlen);
}

int framer_draw_over(struct framer *f, const char *svg, size_t len, char *err, size_t errlen)
{
	return draw_svg(f->surface, 0, svg, len, err, errlen);
}

void framer_yuv(struct framer *f, uint8_t *yuv)
{
	struct yuv_view dst = yuv_packed_view(yuv, f->width, f->height);

	yuv_convert_rect(cairo_image_surface_get_data(f->surface), cairo_image_surface_get_stride(f->surface), &dst,
			 0, 0, f->width, f->height);
}

/* Whether the text svg of len bytes contains word. */
static int mentions(const char *svg, size_t len, const char *word)
{
	size_t n = strlen(word);

	for (size_t i = 0; i + n <= len; i++)
		if (svg[i] == word[0] && memcmp(svg + i, word, n) == 0)
			return 1;
	return 0;
}

/* The part of a width x height frame the moving layer h may paint, as
 * (x, y, w, h) on even coordinates: its ink rectangle (librsvg's bounds
 * are not minimal, only never too small) with a margin for antialiasing;
 * the whole frame when librsvg cannot say or a filter or marker may paint
 * past it. */
static void paint_rect(RsvgHandle *h, const char *svg, size_t len, int width, int height, int *r)
{
	const RsvgRectangle viewport = { 0, 0, width, height };
	RsvgRectangle ink;
	GError *gerr = NULL;
	double x0, y0, x1, y1;

	r[0] = r[1] = 0;
	r[2] = width;
	r[3] = height;
	if (mentions(svg, len, "filter") || mentions(svg, len, "marker") ||
	    !rsvg_handle_get_geometry_for_layer(h, NULL, &viewport, &ink, NULL, &gerr)) {
		g_clear_error(&gerr);
		return;
	}
	if (ink.width <= 0 || ink.height <= 0) {
		r[2] = r[3] = 0;
		return;
	}
	x0 = fmax(0, floor(ink.x) - PAINT_MARGIN);
	y0 = fmax(0, floor(ink.y) - PAINT_MARGIN);
	x1 = fmin(width, ceil(ink.x + ink.width) + PAINT_MARGIN);
	y1 = fmin(height, ceil(ink.y + ink.height) + PAINT_MARGIN);
	if (!(x1 > x0 && y1 > y0)) {
		r[2] = r[3] = 0;
		return;
	}
	r[0] = (int)x0 & ~1;
	r[1] = (int)y0 & ~1;
	r[2] = (((int)x1 + 1) & ~1) - r[0];
	r[3] = (((int)y1 + 1) & ~1) - r[1];
}

/* The still layer's picture as yuv420p, converted once per still layer. */
static int still_yuv(struct framer *f, char *err, size_t errlen)
{
	if (f->still_yuv_ok)
		return 0;
	if (!f->still_yuv && !(f->still_yuv = malloc(yuv_packed_size(f->width, f->height)))) {
		snprintf(err, errlen, "out of memory for a frame's still layer");
		return -1;
	}
	struct yuv_view dst = yuv_packed_view(f->still_yuv, f->width, f->height);
	yuv_convert_rect(cairo_image_surface_get_data(f->still), cairo_image_surface_get_stride(f->still), &dst, 0,
			 0, f->width, f->height);
	f->still_yuv_ok = 1;
	return 0;
}

int framer_draw_yuv(struct framer *f, const char *still, size_t still_len, const char *moving, size_t moving_len,
		    uint8_t *yuv, char *err, size_t errlen)
{
	struct yuv_view dst = yuv_packed_view(yuv, f->width, f->height);
	int stride = cairo_image_surface_get_stride(f->surface), r[4];
	RsvgHandle *h;

	if (!still) {
		if (framer_draw(f, moving, moving_len, err, errlen) < 0)
			return -1;
		framer_yuv(f, yuv);
		return 0;
	}
	if (keep_still(f, still, still_len, err, errlen) < 0 || still_yuv(f, err, errlen) < 0 ||
	    !(h = open_svg(moving, moving_len, err, errlen)))
		return -1;
	paint_rect(h, moving, moving_len, f->width, f->height, r);
	memcpy(yuv, f->still_yuv, yuv_packed_size(f->width, f->height));
	if (r[2] == 0 || r[3] == 0) {
		g_object_unref(h);
		return 0;
	}
	/* The still layer under the rectangle, then the moving layer in it. */
	cairo_surface_flush(f->surface);
	for (int y = r[1]; y < r[1] + r[3]; y++)
		memcpy(cairo_image_surface_get_data(f->surface) + (size_t)y * (size_t)stride + 4 * (size_t)r[0],
		       cairo_image_surface_get_data(f->still) + (size_t)y * (size_t)stride + 4 * (size_t)r[0],
		       4 * (size_t)r[2]);
	cairo_surface_mark_dirty(f->surface);
	if (render(f->surface, 0, h, r, err, errlen) < 0)
		return -1;
	yuv_convert_rect(cairo_image_surface_get_data(f->surface), stride, &dst, r[0], r[1], r[2], r[3]);
	return 0;
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
	free(f->still_yuv);
	free(f);
}
