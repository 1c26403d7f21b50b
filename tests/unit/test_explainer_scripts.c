/*
 * test_explainer_scripts - text in every major script and emoji is drawn
 * with real glyphs, and a character no font has is reported.
 *
 * tests/explainer/scripts/scripts.svg has one line each of Latin, Greek,
 * Cyrillic, Chinese, Japanese, Korean, Arabic, Hebrew, Devanagari, Thai and
 * emoji.  Its frame is compared with a golden by perceptual difference:
 * both reduced to a quarter-size greyscale (4x4 pixel averages), then the
 * mean absolute difference of each line's band.  The same fonts draw it
 * at 0.00; a line of empty boxes instead of glyphs moves it by 4.5 to 15
 * grey levels, which the test shows by drawing the same
 * scene with a configuration that leaves the Noto folders out.  Each line
 * must also hold ink (not be blank).
 *
 * HB_GOLDEN_WRITE=1 writes the golden instead (look at it before committing).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../renderer/frame.h"
#include "../../renderer/problems.h"
#include "../../renderer/scene.h"
#include "../harness/group.h"
#include "../harness/explainer_env.h"

#define SCENE "tests/explainer/scripts/scripts.svg"
#define GOLDEN "tests/fixtures/scripts/scripts-quarter.png"
#define UNCOVERED_DIR "tests/explainer/uncovered"
#define SHRINK 4
/* The lines of the scene: baselines 80, 170, ... 980, font-size 60. */
#define LINES 11
#define FIRST_BASELINE 80
#define LINE_STEP 90
/* Mean absolute difference of a line's band, in grey levels (0..255). */
#define LINE_TOLERANCE 2.0
/* Pixels darker than half grey in a line's band, at full size. */
#define LINE_MIN_INK 400

static const char *const line_names[LINES] = { "Latin", "Greek", "Cyrillic", "Chinese", "Japanese", "Korean",
					       "Arabic", "Hebrew", "Devanagari", "Thai", "emoji" };

struct grey {
	int w, h;
	uint8_t *v;
};

static uint8_t luma(const uint8_t *bgra)
{
	return (uint8_t)((bgra[2] * 54 + bgra[1] * 183 + bgra[0] * 19) >> 8);
}

/* The surface reduced by SHRINK in both directions, in grey levels. */
static struct grey shrink(cairo_surface_t *s)
{
	int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
	int stride = cairo_image_surface_get_stride(s);
	const uint8_t *px = cairo_image_surface_get_data(s);
	struct grey g = { w / SHRINK, h / SHRINK, NULL };

	cairo_surface_flush(s);
	assert_non_null(g.v = malloc((size_t)g.w * g.h));
	for (int y = 0; y < g.h; y++)
		for (int x = 0; x < g.w; x++) {
			int sum = 0;
			for (int dy = 0; dy < SHRINK; dy++)
				for (int dx = 0; dx < SHRINK; dx++)
					sum += luma(px + (y * SHRINK + dy) * stride + (x * SHRINK + dx) * 4);
			g.v[y * g.w + x] = (uint8_t)(sum / (SHRINK * SHRINK));
		}
	return g;
}

/* Rows [top, bottom) of line i at full size. */
static void line_band(int i, int *top, int *bottom)
{
	*top = FIRST_BASELINE + i * LINE_STEP - 70;
	*bottom = FIRST_BASELINE + i * LINE_STEP + 20;
}

static double line_difference(const struct grey *a, const struct grey *b, int i)
{
	int top, bottom;
	double sum = 0;
	long n = 0;

	line_band(i, &top, &bottom);
	for (int y = top / SHRINK; y < bottom / SHRINK && y < a->h; y++)
		for (int x = 0; x < a->w; x++, n++)
			sum += abs(a->v[y * a->w + x] - b->v[y * b->w + x]);
	return sum / (double)n;
}

static long line_ink(cairo_surface_t *s, int i)
{
	int stride = cairo_image_surface_get_stride(s), top, bottom;
	const uint8_t *px = cairo_image_surface_get_data(s);
	long ink = 0;

	line_band(i, &top, &bottom);
	for (int y = top; y < bottom; y++)
		for (int x = 0; x < cairo_image_surface_get_width(s); x++)
			ink += luma(px + y * stride + x * 4) < 128;
	return ink;
}

/* The scene's frame under fontconfig's current configuration, also when
 * some characters are in none of its fonts (their number in *missing). */
static struct framer *draw_scene(size_t *missing)
{
	struct problems p = { 0 }, boxes = { 0 };
	char err[512];
	const char *svg;
	size_t len;
	struct framer *f = framer_new(1920, 1080, err, sizeof err);
	struct scene *s = scene_load_apart(SCENE, "scripts.svg", 1920, 1080, &p, &boxes);

	assert_non_null(f);
	if (!s) {
		problems_first(&p, err, sizeof err);
		fail_msg("%s", err);
	}
	assert_int_equal(scene_svg_at(s, 0, &svg, &len, err, sizeof err), 0);
	if (framer_draw(f, svg, len, err, sizeof err) < 0)
		fail_msg("%s", err);
	scene_free(s);
	problems_free(&p);
	*missing = boxes.n;
	problems_free(&boxes);
	return f;
}

static struct grey golden(void)
{
	cairo_surface_t *png = cairo_image_surface_create_from_png(GOLDEN);
	struct grey g = { 0, 0, NULL };

	assert_int_equal(cairo_surface_status(png), CAIRO_STATUS_SUCCESS);
	g.w = cairo_image_surface_get_width(png);
	g.h = cairo_image_surface_get_height(png);
	assert_non_null(g.v = malloc((size_t)g.w * g.h));
	for (int y = 0; y < g.h; y++)
		for (int x = 0; x < g.w; x++)
			g.v[y * g.w + x] = luma(cairo_image_surface_get_data(png) + y * cairo_image_surface_get_stride(png) +
						x * 4);
	cairo_surface_destroy(png);
	return g;
}

static void write_golden(const struct grey *g)
{
	cairo_surface_t *png = cairo_image_surface_create(CAIRO_FORMAT_RGB24, g->w, g->h);
	uint8_t *px = cairo_image_surface_get_data(png);

	for (int y = 0; y < g->h; y++)
		for (int x = 0; x < g->w; x++) {
			uint32_t v = g->v[y * g->w + x];
			*(uint32_t *)(void *)(px + y * cairo_image_surface_get_stride(png) + x * 4) = v << 16 | v << 8 | v;
		}
	cairo_surface_mark_dirty(png);
	assert_int_equal(cairo_surface_write_to_png(png, GOLDEN), CAIRO_STATUS_SUCCESS);
	cairo_surface_destroy(png);
}

/* The largest line difference from the golden; *worst names the line. */
static double worst_line(const struct grey *got, const struct grey *want, int *worst)
{
	double max = -1;

	assert_int_equal(got->w, want->w);
	assert_int_equal(got->h, want->h);
	for (int i = 0; i < LINES; i++) {
		double d = line_difference(got, want, i);
		if (d > max) {
			max = d;
			*worst = i;
		}
	}
	return max;
}

static void test_every_script_matches_its_golden(void **state)
{
	size_t missing;
	struct framer *f = draw_scene(&missing);
	struct grey got = shrink(framer_surface(f)), want;
	int worst = 0;

	(void)state;
	assert_int_equal(missing, 0);
	if (getenv("HB_GOLDEN_WRITE"))
		write_golden(&got);
	want = golden();
	for (int i = 0; i < LINES; i++) {
		double d = line_difference(&got, &want, i);
		long ink = line_ink(framer_surface(f), i);
		if (d > LINE_TOLERANCE)
			fail_msg("the %s line differs from the golden by %.2f grey levels (at most %.1f)", line_names[i],
				 d, LINE_TOLERANCE);
		if (ink < LINE_MIN_INK)
			fail_msg("the %s line has %ld dark pixels: nothing drawn", line_names[i], ink);
	}
	assert_true(worst_line(&got, &want, &worst) <= LINE_TOLERANCE);
	free(got.v);
	free(want.v);
	framer_free(f);
}

/* Without the Noto folders (the configuration before issue 36) the CJK,
 * Devanagari, Thai and emoji lines are boxes, and the comparison says so.
 * Drawn in a child process: pango keeps the configuration it first saw. */
static void test_boxes_fail_the_comparison(void **state)
{
	static const char dejavu_only[] =
		"<?xml version=\"1.0\"?>\n<fontconfig><dir>/usr/share/fonts/truetype/dejavu</dir>"
		"<cachedir>/var/cache/fontconfig</cachedir><match target=\"pattern\"><edit name=\"family\" "
		"mode=\"append_last\"><string>sans-serif</string></edit></match><alias binding=\"same\">"
		"<family>sans-serif</family><prefer><family>DejaVu Sans</family></prefer></alias></fontconfig>\n";
	int fds[2], status;
	double over[LINES];
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		FcConfig *c = FcConfigCreate();
		int ok = c && FcConfigParseAndLoadFromMemory(c, (const FcChar8 *)dejavu_only, FcTrue) &&
			 FcConfigBuildFonts(c) && FcConfigSetCurrent(c);
		if (ok) {
			size_t missing;
			struct framer *f = draw_scene(&missing);
			struct grey got = shrink(framer_surface(f)), want = golden();
			for (int i = 0; i < LINES; i++)
				over[i] = line_difference(&got, &want, i);
			/* The check sees the boxes too (16 named, and the count). */
			ok = missing == 17 && write(fds[1], over, sizeof over) == (ssize_t)sizeof over;
		}
		_exit(ok ? 0 : 1);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], over, sizeof over), (ssize_t)sizeof over);
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* DejaVu has Latin, Greek, Cyrillic, Arabic and Hebrew itself (they
	 * stay at 0.00); boxes measured 4.5 (two emoji of three) to 14.9. */
	for (int i = 0; i < LINES; i++) {
		int boxed = i == 3 || i == 4 || i == 5 || i == 8 || i == 9 || i == 10;
		if (boxed && over[i] <= LINE_TOLERANCE)
			fail_msg("the %s line in boxes differs by only %.2f grey levels", line_names[i], over[i]);
		if (!boxed && over[i] > LINE_TOLERANCE)
			fail_msg("the %s line moved by %.2f grey levels without Noto", line_names[i], over[i]);
	}
}

/* check: each private-use character once per scene, at the line it first
 * appears on (also inside a text that spans lines); the undrawn <title>
 * is not read. */
static void test_check_names_uncovered_characters(void **state)
{
	char cmd[1024], out[4096] = "";
	FILE *f;
	size_t n;

	(void)state;
	snprintf(cmd, sizeof cmd, "'%s/hb-explainer' check " UNCOVERED_DIR " 2>&1", getenv("HB_BUILD"));
	assert_non_null(f = popen(cmd, "r"));
	n = fread(out, 1, sizeof out - 1, f);
	out[n] = '\0';
	assert_int_not_equal(pclose(f), 0);
	if (strcmp(out, "map.svg:4: U+E000 (\xee\x80\x80) is in no installed font; it would be drawn as an empty box: "
			"write another character, or draw it with shapes\n"
			"map.svg:8: U+E001 (\xee\x80\x81) is in no installed font; it would be drawn as an empty box: "
			"write another character, or draw it with shapes\n") != 0)
		fail_msg("check said: %s", out);
}

static void test_check_passes_covered_text(void **state)
{
	struct problems p = { 0 };
	struct scene *s = scene_load(SCENE, "scripts.svg", 1920, 1080, &p);

	(void)state;
	assert_non_null(s);
	assert_int_equal(p.n, 0);
	scene_free(s);
}

/* scene_load_apart keeps the characters apart: the scene loads (a
 * preview draws it) and they are listed. */
static void test_load_apart(void **state)
{
	struct problems p = { 0 }, missing = { 0 };
	struct scene *s = scene_load_apart(UNCOVERED_DIR "/map.svg", "map.svg", 1920, 1080, &p, &missing);

	(void)state;
	assert_non_null(s);
	assert_int_equal(p.n, 0);
	assert_int_equal(missing.n, 2);
	assert_int_equal(missing.v[0].line, 4);
	assert_non_null(strstr(missing.v[0].text, "U+E000"));
	assert_int_equal(missing.v[1].line, 8);
	assert_non_null(strstr(missing.v[1].text, "U+E001"));
	scene_free(s);
	problems_free(&missing);
	assert_null(scene_load(UNCOVERED_DIR "/map.svg", "map.svg", 1920, 1080, &p));
	assert_int_equal(p.n, 2);
	problems_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* First: the child must be the first to draw. */
		cmocka_unit_test(test_boxes_fail_the_comparison),
		cmocka_unit_test(test_every_script_matches_its_golden),
		cmocka_unit_test(test_check_names_uncovered_characters),
		cmocka_unit_test(test_check_passes_covered_text),
		cmocka_unit_test(test_load_apart),
	};
	return ck_run_group_tests(tests, fx_explainer_setup, fx_explainer_teardown);
}
