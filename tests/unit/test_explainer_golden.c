/*
 * test_explainer_golden - frames of real scenes at fixed times, drawn by
 * the whole chain (scene check, SMIL evaluation, librsvg), against the
 * PNGs checked in under tests/explainer/golden/.  A small tolerance
 * absorbs rounding in a library update; a wrong value at t does not pass.
 *
 * Frames drawn for the video only where they change give the samples of
 * the whole frame.
 *
 * HB_GOLDEN_WRITE=1 writes the PNGs instead (after a deliberate change:
 * look at them before committing).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <libxml/parser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../renderer/fonts.h"
#include "../../renderer/blend.h"
#include "../../renderer/frame.h"
#include "../../renderer/problems.h"
#include "../../renderer/scene.h"
#include "../harness/group.h"
#include "../harness/explainer_env.h"

#define GOLDEN_DIR "tests/explainer/golden/"
#define REFERENCE_DIR "tests/explainer/reference/"
/* Per channel, out of 255: what a rounding change may move a pixel by. */
#define PIXEL_TOLERANCE 24
/* At most this share of pixels may move that much. */
#define MOVED_SHARE 0.002

struct golden {
	const char *scene;
	double t;
	const char *png;
};

static const struct golden goldens[] = {
	{ "shapes.svg", 0.0, "shapes-0.0.png" },
	{ "shapes.svg", 1.0, "shapes-1.0.png" },
	{ "shapes.svg", 2.0, "shapes-2.0.png" },
	{ "shapes.svg", 3.5, "shapes-3.5.png" },
	{ "morph.svg", 1.0, "morph-1.0.png" },
	{ "morph.svg", 2.5, "morph-2.5.png" },
};

/* The share of pixels whose colour differs by more than the tolerance. */
static double moved_share(cairo_surface_t *got, cairo_surface_t *want)
{
	int w = cairo_image_surface_get_width(got), h = cairo_image_surface_get_height(got);
	int gs = cairo_image_surface_get_stride(got), ws = cairo_image_surface_get_stride(want);
	const uint8_t *g = cairo_image_surface_get_data(got), *x = cairo_image_surface_get_data(want);
	long moved = 0;

	assert_int_equal(cairo_image_surface_get_width(want), w);
	assert_int_equal(cairo_image_surface_get_height(want), h);
	for (int y = 0; y < h; y++)
		for (int i = 0; i < w; i++)
			for (int c = 0; c < 3; c++) {
				int d = g[y * gs + i * 4 + c] - x[y * ws + i * 4 + c];
				if (d > PIXEL_TOLERANCE || d < -PIXEL_TOLERANCE) {
					moved++;
					break;
				}
			}
	return (double)moved / ((double)w * h);
}

static void draw_golden(const struct golden *gd, struct framer *f)
{
	char path[256], err[512];
	struct problems p = { 0 };
	const char *svg;
	size_t len;

	snprintf(path, sizeof path, GOLDEN_DIR "%s", gd->scene);
	struct scene *s = scene_load(path, gd->scene, 1920, 1080, &p);
	if (!s) {
		problems_first(&p, err, sizeof err);
		fail_msg("%s", err);
	}
	assert_int_equal(scene_svg_at(s, gd->t, &svg, &len, err, sizeof err), 0);
	if (framer_draw(f, svg, len, err, sizeof err) < 0)
		fail_msg("%s", err);
	scene_free(s);
	problems_free(&p);
}

static void test_golden_frames(void **state)
{
	char err[512], path[256];
	struct framer *f = framer_new(1920, 1080, err, sizeof err);

	(void)state;
	assert_non_null(f);
	for (size_t i = 0; i < sizeof goldens / sizeof goldens[0]; i++) {
		draw_golden(&goldens[i], f);
		snprintf(path, sizeof path, GOLDEN_DIR "%s", goldens[i].png);
		if (getenv("HB_GOLDEN_WRITE")) {
			assert_int_equal(cairo_surface_write_to_png(framer_surface(f), path), CAIRO_STATUS_SUCCESS);
			continue;
		}
		cairo_surface_t *want = cairo_image_surface_create_from_png(path);
		assert_int_equal(cairo_surface_status(want), CAIRO_STATUS_SUCCESS);
		double share = moved_share(framer_surface(f), want);
		if (share > MOVED_SHARE)
			fail_msg("%s at %.2f s differs from %s in %.3f%% of its pixels", goldens[i].scene, goldens[i].t,
				 goldens[i].png, share * 100);
		cairo_surface_destroy(want);
	}
	framer_free(f);
}

/* The goldens are far enough apart that a wrong time would not pass. */
static void test_golden_frames_tell_times_apart(void **state)
{
	char err[512];
	struct framer *f = framer_new(1920, 1080, err, sizeof err);

	(void)state;
	assert_non_null(f);
	draw_golden(&goldens[1], f); /* shapes at 1.0 s */
	cairo_surface_t *want = cairo_image_surface_create_from_png(GOLDEN_DIR "shapes-2.0.png");
	assert_int_equal(cairo_surface_status(want), CAIRO_STATUS_SUCCESS);
	assert_true(moved_share(framer_surface(f), want) > MOVED_SHARE);
	cairo_surface_destroy(want);
	framer_free(f);
}

/* The renderer draws a scene's still background once and the rest over
 * it: the pixels must be those of the whole document drawn at once. */
static void test_layers_draw_the_same_pixels(void **state)
{
	char err[512];
	struct framer *whole = framer_new(1920, 1080, err, sizeof err);
	struct framer *layered = framer_new(1920, 1080, err, sizeof err);

	(void)state;
	assert_non_null(whole);
	assert_non_null(layered);
	for (size_t i = 0; i < sizeof goldens / sizeof goldens[0]; i++) {
		char path[256];
		struct problems p = { 0 };
		const char *still, *moving;
		size_t still_len, moving_len;
		int stride;

		draw_golden(&goldens[i], whole);
		snprintf(path, sizeof path, GOLDEN_DIR "%s", goldens[i].scene);
		struct scene *s = scene_load(path, goldens[i].scene, 1920, 1080, &p);
		assert_non_null(s);
		assert_int_equal(scene_layers_at(s, goldens[i].t, &still, &still_len, &moving, &moving_len, err,
						 sizeof err), 0);
		assert_non_null(still); /* both scenes begin with a still background */
		assert_int_equal(framer_draw_layers(layered, still, still_len, moving, moving_len, err, sizeof err), 0);
		const uint8_t *a = framer_pixels(whole, &stride), *b = framer_pixels(layered, &stride);
		assert_memory_equal(a, b, (size_t)stride * 1080);
		scene_free(s);
		problems_free(&p);
	}
	framer_free(whole);
	framer_free(layered);
}

/* What the video gets from a frame drawn only where its moving layer
 * paints (framer_draw_yuv, one framer through every frame in turn, as a
 * drawer does) is, sample for sample, the whole frame drawn and
 * converted: the goldens' scenes and the bench's reference scenes, every
 * 0.4 s of their 11 s. */
static void test_partial_draw_same_samples(void **state)
{
	static const char *const scenes[] = { GOLDEN_DIR "shapes.svg",      GOLDEN_DIR "morph.svg",
					      REFERENCE_DIR "01-intro.svg",   REFERENCE_DIR "02-hops.svg",
					      REFERENCE_DIR "03-chart.svg",   REFERENCE_DIR "04-restart.svg",
					      REFERENCE_DIR "05-morph.svg",   REFERENCE_DIR "06-summary.svg" };
	char err[512];
	struct framer *whole = framer_new(1920, 1080, err, sizeof err), *partial = framer_new(1920, 1080, err, sizeof err);
	long differ = 0, frames = 0;

	(void)state;
	assert_non_null(whole);
	assert_non_null(partial);
	/* The picture's size is the canvas's, as the framer has it. */
	size_t size = yuv_packed_size(cairo_image_surface_get_width(framer_surface(whole)),
				      cairo_image_surface_get_height(framer_surface(whole)));
	uint8_t *want = malloc(size), *got = malloc(size);
	assert_non_null(want);
	assert_non_null(got);
	for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; i++) {
		struct problems p = { 0 };
		struct scene *s = scene_load(scenes[i], scenes[i], 1920, 1080, &p);
		const char *svg, *still, *moving;
		size_t len, still_len, moving_len;

		if (!s) {
			problems_first(&p, err, sizeof err);
			fail_msg("%s", err);
		}
		for (double t = 0; t <= 11; t += 0.4, frames++) {
			assert_int_equal(scene_svg_at(s, t, &svg, &len, err, sizeof err), 0);
			assert_int_equal(framer_draw(whole, svg, len, err, sizeof err), 0);
			framer_yuv(whole, want);
			assert_int_equal(scene_layers_at(s, t, &still, &still_len, &moving, &moving_len, err, sizeof err),
					 0);
			assert_int_equal(framer_draw_yuv(partial, still, still_len, moving, moving_len, got, err,
							 sizeof err),
					 0);
			if (memcmp(want, got, size) != 0) {
				fprintf(stderr, "%s at %.1f s: the partial draw differs\n", scenes[i], t);
				differ++;
			}
		}
		scene_free(s);
		problems_free(&p);
	}
	assert_int_equal(differ, 0);
	assert_true(frames > 200);
	free(want);
	free(got);
	framer_free(whole);
	framer_free(partial);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_frames),
		cmocka_unit_test(test_golden_frames_tell_times_apart),
		cmocka_unit_test(test_layers_draw_the_same_pixels),
		cmocka_unit_test(test_partial_draw_same_samples),
	};
	return ck_run_group_tests(tests, fx_explainer_setup, fx_explainer_teardown);
}
