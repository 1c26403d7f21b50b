/*
 * workdir_rig - what the tests of the explainer worker's folder
 * (test_explainer_workdir.c, test_explainer_workdir_render.c) share: the
 * scenes they write, a work folder ROOT/work made and removed per test, the
 * parser and fonts set up once, and readers of what the tools answered
 * (texts, folder listings, PNG sizes and pixels) and wrote (WAVs).
 */
#ifndef TEST_WORKDIR_RIG_H
#define TEST_WORKDIR_RIG_H

#include <cairo.h>
#include <stddef.h>
#include <stdint.h>

#include "../../svc-explainer/workdir.h"
#include "../harness/explainer_env.h"

/* tests/explainer/small/one.svg: a red circle moves from x 300 to 1600
 * between 0.5 s and 1.5 s. */
#define ONE_SVG                                                                                         \
	"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1920 1080\">\n"                       \
	"  <rect width=\"1920\" height=\"1080\" fill=\"#0f2740\"/>\n"                                   \
	"  <text x=\"160\" y=\"200\" font-family=\"DejaVu Sans\" font-size=\"80\" fill=\"#ffffff\">"    \
	"Small explainer</text>\n"                                                                      \
	"  <circle cx=\"300\" cy=\"600\" r=\"120\" fill=\"#ef476f\">\n"                                 \
	"    <animate attributeName=\"cx\" from=\"300\" to=\"1600\" begin=\"0.5s\" dur=\"1s\" "        \
	"fill=\"freeze\"/>\n"                                                                           \
	"  </circle>\n"                                                                                 \
	"</svg>\n"
/* tests/explainer/small/two.svg: a line drawn in 1 s. */
#define TWO_SVG                                                                                         \
	"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1920 1080\">\n"                       \
	"  <rect width=\"1920\" height=\"1080\" fill=\"#ffffff\"/>\n"                                   \
	"  <path d=\"M200 540 L1700 540\" stroke=\"#118ab2\" stroke-width=\"12\" "                      \
	"stroke-dasharray=\"1500\" stroke-dashoffset=\"1500\">\n"                                       \
	"    <animate attributeName=\"stroke-dashoffset\" from=\"1500\" to=\"0\" dur=\"1s\" "          \
	"fill=\"freeze\"/>\n"                                                                           \
	"  </path>\n"                                                                                   \
	"</svg>\n"
/* Three problems, each on its own line. */
#define BAD_SVG                                                                                         \
	"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1920 1080\">\n"                       \
	"<script>alert(1)</script>\n"                                                                   \
	"<text font-family=\"Arial\">x</text>\n"                                                        \
	"<circle r=\"5\"><animateMotion dur=\"1s\" path=\"M0 0 L1 1\"/></circle>\n"                     \
	"</svg>\n"
#define SAY "A short spoken sentence."

/* preview.c's contact sheet: two 480x270 frames a row, 16 px gaps, 30 px labels. */
#define SHEET_W (2 * 480 + 3 * 16)
#define SHEET_H(n) (16 + (n) * (30 + 270 + 16))

struct fixture {
	char root[64];
	char dir[80];
};

int make_dir(void **state);
int remove_dir(void **state);
/* Asserts the answer's ok and that its text contains want; frees it. */
void expect(struct workdir_answer a, int ok, const char *want);
void write_ok(const struct fixture *f, const char *name, const char *svg, const char *say, double duration,
	      long position, const char *want);
char *file_text(const char *dir, const char *name);
void write_text(const char *dir, const char *name, const char *text);
int exists(const char *dir, const char *name);
/* The folder's entries, sorted and joined by spaces (the test's view of
 * "nothing else was written"). */
void entries(const char *dir, char *out, size_t outlen);
/* The script's scenes as "svg/duration/say" joined by " | ". */
void script_summary(const char *dir, char *out, size_t outlen);
/* The answer carries a PNG of w x h: its signature and its IHDR. */
void expect_png(const struct workdir_answer *a, uint32_t w, uint32_t h);
/* The colour at (x, y) of the answer's PNG as 0xRRGGBB. */
uint32_t pixel(const struct workdir_answer *a, int x, int y);
/* The answer's PNG decoded (an RGB24 or ARGB32 image; caller destroys). */
cairo_surface_t *png_image(const struct workdir_answer *a);

#endif
