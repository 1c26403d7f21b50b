/*
 * preview - single frames and the contact sheet as PNG (see preview.h).
 *
 * The worker previews often while it writes, so a preview loads only the
 * scene it shows and draws one frame: parse, evaluate, draw, PNG.
 */
#include "preview.h"

#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "output.h"
#include "pipeline.h"
#include "png.h"
#include "problems.h"
#include "scene.h"

/* A thumbnail is a quarter of the frame: 480x270 for 16:9, 270x480 for
 * 9:16, 270x270 for 1:1. */
#define THUMB_SCALE 0.25
#define SHEET_GAP 16
#define SHEET_LABEL 30
/* Beyond this many scenes, two scenes side by side per row: a sheet of 30
 * in one column would be 9,500 px tall, more than a model takes in. */
#define SHEET_ONE_COLUMN_MAX 8

int preview_time(const struct explainer_scene *s, int fps, const char *at, double *t, char *err, size_t errlen)
{
	char *end;

	if (strcmp(at, "start") == 0) {
		*t = 0;
		return 0;
	}
	if (strcmp(at, "end") == 0) {
		*t = scene_frame_time(s->frames - 1, fps);
		return 0;
	}
	*t = strtod(at, &end);
	if (end == at || *end || !isfinite(*t) || *t < 0 || *t > s->duration) {
		snprintf(err, errlen, "--at %s: give start, end, or a time in seconds from 0 to %g (the length of %s)",
			 at, s->duration, s->svg);
		return -1;
	}
	return 0;
}

/* Draws scene s at t into f; 0 or -1 with err. */
static int draw_at(struct scene *s, struct framer *f, double t, char *err, size_t errlen)
{
	const char *svg;
	size_t len;

	if (scene_svg_at(s, t, &svg, &len, err, errlen) < 0)
		return -1;
	return framer_draw(f, svg, len, err, errlen);
}

/* Where a picture goes: the file target (through a temporary file), or,
 * when target is NULL, PNG bytes in memory for the caller. */
struct png_sink {
	const char *target;
	unsigned char **png;
	size_t *len;
};

static int emit_png(cairo_surface_t *surface, const struct png_sink *sink, char *err, size_t errlen)
{
	unsigned char *png;
	size_t len;
	int rc;

	if (!sink->target)
		return png_encode_surface(surface, sink->png, sink->len, err, errlen);
	if (png_encode_surface(surface, &png, &len, err, errlen) < 0)
		return -1;
	rc = output_write_file(sink->target, png, len, err, errlen);
	free(png);
	return rc;
}

/* Loads one scene, with its problems as one error; the characters no font
 * has go to missing when it is not NULL, and are problems when it is. */
static struct scene *load_one(const struct explainer *e, const struct explainer_scene *es, struct problems *missing,
			      char *err, size_t errlen)
{
	struct problems p = { 0 };
	struct scene *s = scene_load_apart(es->svg_path, es->svg, e->width, e->height, &p, missing ? missing : &p);

	if (!s) {
		problems_first(&p, err, errlen);
		if (p.n > 1) {
			size_t used = strlen(err);
			snprintf(err + used, errlen - used, " (and %zu more problems: run hb-explainer check)", p.n - 1);
		}
	}
	problems_free(&p);
	return s;
}

static int preview_to(const struct explainer *e, const char *scene, const char *at, const struct png_sink *sink,
		      struct problems *missing, char *err, size_t errlen)
{
	const struct explainer_scene *es = explainer_find_scene(e, scene);
	struct framer *f = NULL;
	struct scene *s = NULL;
	double t;
	int rc = -1;

	if (!es) {
		snprintf(err, errlen, "no scene %s in %s: give its number (1 to %zu) or its svg file name", scene, e->dir,
			 e->n);
		return -1;
	}
	if (preview_time(es, e->fps, at, &t, err, errlen) < 0 || !(s = load_one(e, es, missing, err, errlen)) ||
	    !(f = framer_new(e->width, e->height, err, errlen)))
		goto out;
	if (draw_at(s, f, explainer_scene_time(es, t), err, errlen) == 0)
		rc = emit_png(framer_surface(f), sink, err, errlen);
out:
	framer_free(f);
	scene_free(s);
	return rc;
}

int preview_write(const struct explainer *e, const char *scene, const char *at, const char *target,
		  struct problems *missing, char *err, size_t errlen)
{
	struct png_sink sink = { target, NULL, NULL };

	return preview_to(e, scene, at, &sink, missing, err, errlen);
}

int preview_png(const struct explainer *e, const char *scene, const char *at, unsigned char **png, size_t *len,
		struct problems *missing, char *err, size_t errlen)
{
	struct png_sink sink = { NULL, png, len };

	return preview_to(e, scene, at, &sink, missing, err, errlen);
}

int poster_write(const struct explainer *e, const char *target, char *err, size_t errlen)
{
	return preview_write(e, e->poster_scene ? e->poster_scene : "1", e->poster_at ? e->poster_at : "end", target,
			     NULL, err, errlen);
}

static void label_row(cairo_t *cr, const struct explainer_scene *es, int fps, size_t i, double x, double y)
{
	char text[600];

	snprintf(text, sizeof text, "%zu  %s   start 0 s  |  end %.2f s", i + 1, es->svg,
		 scene_frame_time(es->frames - 1, fps));
	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 18);
	cairo_move_to(cr, x + SHEET_GAP, y + 21);
	cairo_show_text(cr, text);
}

/* The thumbnail's size, and a sheet cell's (two thumbnails and a label). */
static int thumb_w(const struct explainer *e)
{
	return (int)(e->width * THUMB_SCALE);
}

static int thumb_h(const struct explainer *e)
{
	return (int)(e->height * THUMB_SCALE);
}

static int cell_w(const struct explainer *e)
{
	return 2 * thumb_w(e) + 3 * SHEET_GAP;
}

static int cell_h(const struct explainer *e)
{
	return SHEET_LABEL + thumb_h(e) + SHEET_GAP;
}

/* Draws scene es's start and end frames into cell i of the sheet. */
static int sheet_cell(cairo_t *cr, struct framer *f, const struct explainer *e, size_t i, size_t per_row,
		      char *err, size_t errlen)
{
	const struct explainer_scene *es = &e->scenes[i];
	double x = (double)(i % per_row) * cell_w(e);
	double y = SHEET_GAP + (double)(i / per_row) * cell_h(e);
	struct scene *s = load_one(e, es, NULL, err, errlen);

	if (!s)
		return -1;
	label_row(cr, es, e->fps, i, x, y);
	for (int col = 0; col < 2; col++) {
		double t = explainer_scene_time(es, col ? scene_frame_time(es->frames - 1, e->fps) : 0);

		if (draw_at(s, f, t, err, errlen) < 0) {
			scene_free(s);
			return -1;
		}
		cairo_save(cr);
		cairo_translate(cr, x + SHEET_GAP + col * (thumb_w(e) + SHEET_GAP), y + SHEET_LABEL);
		cairo_scale(cr, THUMB_SCALE, THUMB_SCALE);
		cairo_set_source_surface(cr, framer_surface(f), 0, 0);
		cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD);
		cairo_paint(cr);
		cairo_restore(cr);
	}
	scene_free(s);
	return 0;
}

static int sheet_to(const struct explainer *e, const struct png_sink *sink, char *err, size_t errlen)
{
	size_t per_row = e->n > SHEET_ONE_COLUMN_MAX ? 2 : 1;
	int w = (int)per_row * cell_w(e);
	int h = SHEET_GAP + (int)((e->n + per_row - 1) / per_row) * cell_h(e);
	cairo_surface_t *sheet = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	struct framer *f = framer_new(e->width, e->height, err, errlen);
	cairo_t *cr = cairo_create(sheet);
	int rc = -1;

	if (!f || cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
		if (f)
			snprintf(err, errlen, "cannot make a %dx%d contact sheet", w, h);
		goto out;
	}
	cairo_set_source_rgb(cr, 0.93, 0.93, 0.93);
	cairo_paint(cr);
	for (size_t i = 0; i < e->n; i++)
		if (sheet_cell(cr, f, e, i, per_row, err, errlen) < 0)
			goto out;
	cairo_surface_flush(sheet);
	rc = emit_png(sheet, sink, err, errlen);
out:
	cairo_destroy(cr);
	cairo_surface_destroy(sheet);
	framer_free(f);
	return rc;
}

int sheet_write(const struct explainer *e, const char *target, char *err, size_t errlen)
{
	struct png_sink sink = { target, NULL, NULL };

	return sheet_to(e, &sink, err, errlen);
}

int sheet_png(const struct explainer *e, unsigned char **png, size_t *len, char *err, size_t errlen)
{
	struct png_sink sink = { NULL, png, len };

	return sheet_to(e, &sink, err, errlen);
}
