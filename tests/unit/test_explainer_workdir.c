/*
 * test_explainer_workdir - the explainer worker's folder and the handlers
 * of its tools (svc-explainer/workdir.h), on a real folder: scenes written,
 * replaced, inserted, moved and removed with script.json following; the
 * script and a scene read back; every problem of a bad scene and of a
 * hand-broken script reported with its file and line; previews (the start
 * and the end frame told apart by their pixels) and the contact sheet as
 * PNG bytes of the right size; each bad name, narration text, duration and
 * position refused with nothing written; the 30-scene limit; calls at once
 * from two threads losing nothing; and the renderer's manifest from the
 * script and real WAVs, accepted by explainer_open, or refused by the
 * 30-120 s gate with its sentence.
 * Each test works in its own mkdtemp folder: ROOT/work is the work folder,
 * so a name that climbs out ("../x.svg") would land in ROOT, where the
 * test looks for it.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cairo.h>
#include <dirent.h>
#include <ftw.h>
#include <jansson.h>
#include <libxml/parser.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../svc-explainer/folder.h"
#include "../../svc-explainer/fonts.h"
#include "../../svc-explainer/workdir.h"
#include "../../svc-speech/wav.h"
#include "../harness/group.h"

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

static int make_dir(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);

	if (!f)
		return -1;
	snprintf(f->root, sizeof f->root, "/tmp/hbworkdir.XXXXXX");
	if (!mkdtemp(f->root))
		return -1;
	snprintf(f->dir, sizeof f->dir, "%s/work", f->root);
	if (mkdir(f->dir, 0700) < 0)
		return -1;
	*state = f;
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int remove_dir(void **state)
{
	struct fixture *f = *state;
	int r = nftw(f->root, remove_entry, 8, FTW_DEPTH | FTW_PHYS);

	free(f);
	return r == 0 ? 0 : -1;
}

/* ---- helpers ------------------------------------------------------------ */

/* Asserts the answer's ok and that its text contains want; frees it. */
static void expect(struct workdir_answer a, int ok, const char *want)
{
	if (a.ok != ok || !strstr(a.text, want))
		fail_msg("expected %s containing \"%s\", got %s:\n%s", ok ? "ok" : "not ok", want,
			 a.ok ? "ok" : "not ok", a.text);
	workdir_answer_free(&a);
}

static void write_ok(const struct fixture *f, const char *name, const char *svg, const char *say, double duration,
		     long position, const char *want)
{
	expect(workdir_write_scene(f->dir, name, svg, say, duration, position), 1, want);
}

static char *file_text(const char *dir, const char *name)
{
	char path[256], *buf = NULL;
	FILE *fp;
	long len;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(fp = fopen(path, "rb")))
		return NULL;
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	assert_true((len = ftell(fp)) >= 0);
	rewind(fp);
	assert_non_null(buf = calloc(1, (size_t)len + 1));
	assert_int_equal(fread(buf, 1, (size_t)len, fp), (size_t)len);
	fclose(fp);
	return buf;
}

static void write_text(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_non_null(fp = fopen(path, "wb"));
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
}

static int exists(const char *dir, const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	return lstat(path, &st) == 0;
}

/* The folder's entries, sorted and joined by spaces (the test's view of
 * "nothing else was written"). */
static void entries(const char *dir, char *out, size_t outlen)
{
	struct dirent **list;
	int n = scandir(dir, &list, NULL, alphasort);

	assert_true(n >= 0);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (list[i]->d_name[0] != '.' || (strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, "..")))
			snprintf(out + strlen(out), outlen - strlen(out), "%s%s", out[0] ? " " : "",
				 list[i]->d_name);
		free(list[i]);
	}
	free(list);
}

/* The script's scenes as "svg/duration/say" joined by " | ". */
static void script_summary(const char *dir, char *out, size_t outlen)
{
	char path[256];
	json_error_t jerr;
	json_t *root, *sc;
	size_t i;

	snprintf(path, sizeof path, "%s/script.json", dir);
	root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		fail_msg("script.json: %s", jerr.text);
	out[0] = '\0';
	json_array_foreach(json_object_get(root, "scenes"), i, sc) {
		assert_int_equal(json_object_size(sc), 3);
		snprintf(out + strlen(out), outlen - strlen(out), "%s%s/%g/%s", i ? " | " : "",
			 json_string_value(json_object_get(sc, "svg")),
			 json_number_value(json_object_get(sc, "duration")),
			 json_string_value(json_object_get(sc, "say")));
	}
	json_decref(root);
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The answer carries a PNG of w x h: its signature and its IHDR. */
static void expect_png(const struct workdir_answer *a, uint32_t w, uint32_t h)
{
	static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

	assert_non_null(a->png);
	assert_true(a->png_len > 8 + 8 + 13);
	assert_memory_equal(a->png, sig, 8);
	assert_int_equal(be32(a->png + 8), 13);
	assert_memory_equal(a->png + 12, "IHDR", 4);
	assert_int_equal(be32(a->png + 16), w);
	assert_int_equal(be32(a->png + 20), h);
}

struct png_reader {
	const unsigned char *data;
	size_t len, at;
};

static cairo_status_t read_png(void *closure, unsigned char *buf, unsigned int len)
{
	struct png_reader *r = closure;

	if (len > r->len - r->at)
		return CAIRO_STATUS_READ_ERROR;
	memcpy(buf, r->data + r->at, len);
	r->at += len;
	return CAIRO_STATUS_SUCCESS;
}

/* The colour at (x, y) of the answer's PNG as 0xRRGGBB. */
static uint32_t pixel(const struct workdir_answer *a, int x, int y)
{
	struct png_reader r = { a->png, a->png_len, 0 };
	cairo_surface_t *s = cairo_image_surface_create_from_png_stream(read_png, &r);
	uint32_t px;

	assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
	px = ((const uint32_t *)(const void *)(cairo_image_surface_get_data(s) +
					       (size_t)y * (size_t)cairo_image_surface_get_stride(s)))[x];
	cairo_surface_destroy(s);
	return px & 0xffffff;
}

/* A WAV as svc-speech writes it, of n silent 24 kHz samples, named NAME. */
static void write_wav(const char *dir, const char *name, size_t n)
{
	struct speech_wav w;
	char err[256], to[256];

	assert_int_equal(speech_wav_open(&w, dir, "speech", 24000, err, sizeof err), 0);
	assert_int_equal(speech_wav_silence(&w, n, err, sizeof err), 0);
	assert_int_equal(speech_wav_finish(&w, err, sizeof err), 0);
	snprintf(to, sizeof to, "%s/%s", dir, name);
	assert_int_equal(rename(w.path, to), 0);
}

/* ---- writing, replacing, inserting, removing ---------------------------- */

static void test_write_two_scenes(void **state)
{
	struct fixture *f = *state;
	char got[1024];

	write_ok(f, "01-intro.svg", ONE_SVG, "First, the intro.", 8, 0, "scene 1 01-intro.svg written; it passes "
									  "the checks");
	write_ok(f, "02-how.svg", TWO_SVG, "Then how it works.\nIn two sentences.", 6.5, 0,
		 "scene 2 02-how.svg written; it passes the checks");
	script_summary(f->dir, got, sizeof got);
	assert_string_equal(got, "01-intro.svg/8/First, the intro. | 02-how.svg/6.5/Then how it works.\nIn two "
				 "sentences.");
	char *one = file_text(f->dir, "01-intro.svg"), *two = file_text(f->dir, "02-how.svg");
	assert_string_equal(one, ONE_SVG);
	assert_string_equal(two, TWO_SVG);
	free(one);
	free(two);
	entries(f->dir, got, sizeof got);
	assert_string_equal(got, "01-intro.svg 02-how.svg script.json"); /* no temporary file left */
}

static void test_replace_keeps_or_moves_place(void **state)
{
	struct fixture *f = *state;
	char got[1024];

	write_ok(f, "a.svg", ONE_SVG, "A.", 5, 0, "scene 1 a.svg");
	write_ok(f, "b.svg", ONE_SVG, "B.", 5, 0, "scene 2 b.svg");
	write_ok(f, "c.svg", ONE_SVG, "C.", 5, 0, "scene 3 c.svg");
	write_ok(f, "b.svg", TWO_SVG, "B again.", 7.25, 0, "scene 2 b.svg written; it passes the checks");
	script_summary(f->dir, got, sizeof got);
	assert_string_equal(got, "a.svg/5/A. | b.svg/7.25/B again. | c.svg/5/C.");
	char *b = file_text(f->dir, "b.svg");
	assert_string_equal(b, TWO_SVG);
	free(b);
	write_ok(f, "c.svg", ONE_SVG, "C first.", 4, 1, "scene 1 c.svg written");
	script_summary(f->dir, got, sizeof got);
	assert_string_equal(got, "c.svg/4/C first. | a.svg/5/A. | b.svg/7.25/B again.");
	write_ok(f, "c.svg", ONE_SVG, "C last.", 4, 3, "scene 3 c.svg written");
	script_summary(f->dir, got, sizeof got);
	assert_string_equal(got, "a.svg/5/A. | b.svg/7.25/B again. | c.svg/4/C last.");
	/* A replaced scene has no place past the last. */
	expect(workdir_write_scene(f->dir, "a.svg", ONE_SVG, "A.", 5, 4), 0, "the position 4 is past the end: give "
									     "1 to 3, or 0 to keep the scene's "
									     "place");
}

static void test_insert_at_position(void **state)
{
	struct fixture *f = *state;
	char got[1024];

	write_ok(f, "a.svg", ONE_SVG, "A.", 5, 0, "scene 1 a.svg");
	write_ok(f, "b.svg", ONE_SVG, "B.", 5, 0, "scene 2 b.svg");
	write_ok(f, "first.svg", ONE_SVG, "First.", 3, 1, "scene 1 first.svg written");
	write_ok(f, "mid.svg", ONE_SVG, "Mid.", 3, 3, "scene 3 mid.svg written");
	write_ok(f, "end.svg", ONE_SVG, "End.", 3, 5, "scene 5 end.svg written");
	script_summary(f->dir, got, sizeof got);
	assert_string_equal(got, "first.svg/3/First. | a.svg/5/A. | mid.svg/3/Mid. | b.svg/5/B. | end.svg/3/End.");
	expect(workdir_write_scene(f->dir, "far.svg", ONE_SVG, "Far.", 3, 7), 0,
	       "the position 7 is past the end: give 1 to 6, or 0 to add the scene last");
	expect(workdir_write_scene(f->dir, "far.svg", ONE_SVG, "Far.", 3, -1), 0, "the position -1 is not a "
										  "scene's place");
	assert_false(exists(f->dir, "far.svg"));
}

static void test_remove(void **state)
{
	struct fixture *f = *state;
	char got[1024];

	write_ok(f, "a.svg", ONE_SVG, "A.", 5, 0, "scene 1 a.svg");
	write_ok(f, "b.svg", TWO_SVG, "B.", 5, 0, "scene 2 b.svg");
	write_ok(f, "c.svg", ONE_SVG, "C.", 5, 0, "scene 3 c.svg");
	expect(workdir_remove_scene(f->dir, "b.svg"), 1, "scene 2 b.svg removed; 2 scenes remain");
	assert_false(exists(f->dir, "b.svg"));
	script_summary(f->dir, got, sizeof got);
	assert_string_equal(got, "a.svg/5/A. | c.svg/5/C.");
	expect(workdir_remove_scene(f->dir, "b.svg"), 0, "there is no scene b.svg; the scenes are: a.svg, c.svg");
	expect(workdir_remove_scene(f->dir, "a.svg"), 1, "scene 1 a.svg removed; 1 scene remains");
	expect(workdir_remove_scene(f->dir, "c.svg"), 1, "scene 1 c.svg removed; 0 scenes remain");
	expect(workdir_remove_scene(f->dir, "c.svg"), 0, "there is no scene c.svg; there are no scenes yet");
	entries(f->dir, got, sizeof got);
	assert_string_equal(got, "script.json");
}

/* ---- reading and checking ----------------------------------------------- */

static void test_read_script_and_svg(void **state)
{
	struct fixture *f = *state;

	expect(workdir_read(f->dir, NULL), 1, "no scenes yet");
	write_ok(f, "01-intro.svg", ONE_SVG, "Welcome.\nThis is the intro.", 8, 0, "scene 1");
	expect(workdir_write_scene(f->dir, "02-bad.svg", BAD_SVG, "Something breaks.", 2.5, 0), 0, "scene 2 "
												   "02-bad.svg");
	struct workdir_answer a = workdir_read(f->dir, NULL);
	assert_int_equal(a.ok, 1);
	assert_string_equal(a.text, "2 scenes, 10.5 s as written:\n"
				    "\n1. 01-intro.svg, 8 s, passes the checks\n"
				    "say: Welcome.\nThis is the intro.\n"
				    "\n2. 02-bad.svg, 2.5 s, does not pass the checks (3 problems: check lists them)\n"
				    "say: Something breaks.\n");
	workdir_answer_free(&a);
	a = workdir_read(f->dir, "01-intro.svg");
	assert_int_equal(a.ok, 1);
	assert_string_equal(a.text, ONE_SVG);
	assert_null(a.png);
	workdir_answer_free(&a);
	expect(workdir_read(f->dir, "03-none.svg"), 0, "there is no scene 03-none.svg; the scenes are: "
						       "01-intro.svg, 02-bad.svg");
	write_text(f->dir, "latin1.svg", "<svg>\xe9</svg>");
	expect(workdir_read(f->dir, "latin1.svg"), 0, "latin1.svg is not UTF-8 text");

	char missing[128], want[192];
	snprintf(missing, sizeof missing, "%s/missing", f->root);
	snprintf(want, sizeof want, "the work folder %s cannot be opened: No such file or directory", missing);
	expect(workdir_read(missing, NULL), 0, want);
	expect(workdir_write_scene(missing, "a.svg", ONE_SVG, SAY, 5, 0), 0, want);
	assert_false(exists(f->root, "missing"));
}

static void test_check_lists_every_problem(void **state)
{
	struct fixture *f = *state;
	char path[256], outside[256];

	expect(workdir_check(f->dir), 0, "no scenes yet");
	write_ok(f, "a.svg", ONE_SVG, "A.", 5, 0, "scene 1");
	write_ok(f, "b.svg", TWO_SVG, "B.", 7.5, 0, "scene 2");
	expect(workdir_check(f->dir), 1, "2 scenes, 12.5 s as written: ok");

	/* A bad scene is written all the same, with each problem on its line. */
	struct workdir_answer a = workdir_write_scene(f->dir, "bad.svg", BAD_SVG, "Bad.", 3, 0);
	assert_int_equal(a.ok, 0);
	assert_non_null(strstr(a.text, "scene 3 bad.svg written, but it does not pass the checks; fix these and "
				       "write it again:\n"));
	assert_non_null(strstr(a.text, "\nbad.svg:2: "));
	assert_non_null(strstr(a.text, "\nbad.svg:3: "));
	assert_non_null(strstr(a.text, "\nbad.svg:4: "));
	assert_non_null(strstr(a.text, "Arial"));
	assert_non_null(strstr(a.text, "animateMotion"));
	workdir_answer_free(&a);
	char *bad = file_text(f->dir, "bad.svg");
	assert_string_equal(bad, BAD_SVG);
	free(bad);

	/* A scene's file gone, and one that became a link out of the folder. */
	snprintf(path, sizeof path, "%s/a.svg", f->dir);
	assert_int_equal(unlink(path), 0);
	snprintf(outside, sizeof outside, "%s/outside.svg", f->root);
	write_text(f->root, "outside.svg", ONE_SVG);
	snprintf(path, sizeof path, "%s/b.svg", f->dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(outside, path), 0);
	a = workdir_check(f->dir);
	assert_int_equal(a.ok, 0);
	assert_non_null(strstr(a.text, "5 problems; fix them and check again:\n"));
	assert_non_null(strstr(a.text, "\nscript.json: scene 1: a.svg is not in the work folder; write the scene "
				       "again or remove it\n"));
	assert_non_null(strstr(a.text, "\nscript.json: scene 2: b.svg is not a regular file (a symbolic link); "
				       "write the scene again\n"));
	assert_non_null(strstr(a.text, "\nbad.svg:2: "));
	assert_non_null(strstr(a.text, "\nbad.svg:3: "));
	assert_non_null(strstr(a.text, "\nbad.svg:4: "));
	workdir_answer_free(&a);
	expect(workdir_read(f->dir, "b.svg"), 0, "b.svg is a symbolic link");
	expect(workdir_preview(f->dir, "b.svg", "start"), 0, "scene 2 b.svg cannot be drawn until it passes the "
							     "checks:\nscript.json: scene 2: b.svg is not a "
							     "regular file");

	/* Writing the scenes again fixes them. */
	write_ok(f, "a.svg", ONE_SVG, "A.", 5, 0, "scene 1 a.svg written; it passes the checks");
	write_ok(f, "b.svg", TWO_SVG, "B.", 5, 0, "scene 2 b.svg written; it passes the checks");
	write_ok(f, "bad.svg", TWO_SVG, "Fixed.", 3, 0, "scene 3 bad.svg written; it passes the checks");
	expect(workdir_check(f->dir), 1, "3 scenes, 13 s as written: ok");
}

static void test_broken_script(void **state)
{
	struct fixture *f = *state;

	write_ok(f, "a.svg", ONE_SVG, "A.", 5, 0, "scene 1");
	/* Not JSON: nothing can use the script, and nothing is written. */
	write_text(f->dir, "script.json", "{\"scenes\": [\n{\"svg\": \"a.svg\",,}]}");
	expect(workdir_write_scene(f->dir, "b.svg", TWO_SVG, "B.", 5, 0), 0,
	       "script.json holds the scenes in order and cannot be read; fix it or delete it and write the scenes "
	       "again:\nscript.json:2: is not valid JSON");
	assert_false(exists(f->dir, "b.svg"));
	expect(workdir_check(f->dir), 0, "script.json:2: is not valid JSON");
	/* A misspelt key is refused rather than dropped. */
	write_text(f->dir, "script.json", "{\"scenes\": [{\"svg\": \"a.svg\", \"say\": \"A.\", \"duration\": 5, "
					  "\"narration\": \"a.wav\"}]}");
	expect(workdir_read(f->dir, NULL), 0, "script.json: scene 1: unknown key \"narration\"; a scene has "
					      "\"svg\", \"say\" and \"duration\"");
	/* A value out of its range loads; check names it; writing the scene fixes it. */
	write_text(f->dir, "script.json", "{\"scenes\": [{\"svg\": \"a.svg\", \"say\": \"A.\", \"duration\": 1000}, "
					  "{\"svg\": \"a.svg\", \"say\": \"\\t\", \"duration\": 5}]}");
	struct workdir_answer a = workdir_check(f->dir);
	assert_int_equal(a.ok, 0);
	assert_non_null(strstr(a.text, "\nscript.json: scene 1 (a.svg): the duration 1000 s is outside 0.5 to 600 "
				       "s"));
	assert_non_null(strstr(a.text, "\nscript.json: scene 2: a.svg is also scene 1; each scene has a file of "
				       "its own"));
	assert_non_null(strstr(a.text, "\nscript.json: scene 2 (a.svg): the narration text contains a control "
				       "character (character 1)"));
	workdir_answer_free(&a);
	expect(workdir_remove_scene(f->dir, "a.svg"), 1, "scene 1 a.svg removed; 1 scene remains");
	write_ok(f, "a.svg", ONE_SVG, "A.", 5, 0, "scene 1 a.svg written");
	expect(workdir_check(f->dir), 1, "1 scene, 5 s as written: ok");
}

/* ---- refusals ------------------------------------------------------------ */

static void test_bad_names(void **state)
{
	struct fixture *f = *state;
	static const struct {
		const char *name, *why;
	} bad[] = {
		{ "../x.svg", "\"../x.svg\" contains \"/\"; a scene is a file directly in the work folder" },
		{ "a/b.svg", "\"a/b.svg\" contains \"/\"" },
		{ "x.png", "\"x.png\" does not end in .svg; a scene is an SVG file" },
		{ "..", "\"..\" begins with \".\"" },
		{ ".svg", "\".svg\" begins with \".\"" },
		{ "svg", "\"svg\" does not end in .svg" },
		{ "", "the scene's name is empty" },
		{ "a\nb.svg", "the scene's name contains a control character" },
		{ "script.json", "\"script.json\" does not end in .svg" },
		{ "explainer.json", "\"explainer.json\" does not end in .svg" },
	};
	char name[200], got[256];

	write_ok(f, "a.svg", ONE_SVG, "A.", 5, 0, "scene 1");
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		expect(workdir_write_scene(f->dir, bad[i].name, ONE_SVG, SAY, 5, 0), 0, bad[i].why);
		expect(workdir_remove_scene(f->dir, bad[i].name), 0, bad[i].why);
		expect(workdir_read(f->dir, bad[i].name), 0, bad[i].why);
		expect(workdir_preview(f->dir, bad[i].name, "start"), 0, bad[i].why);
	}
	memset(name, 'n', 125);
	strcpy(name + 125, ".svg");
	expect(workdir_write_scene(f->dir, name, ONE_SVG, SAY, 5, 0), 0, "the scene's name has 129 bytes, more than "
									 "the 128 it may have");
	entries(f->dir, got, sizeof got);
	assert_string_equal(got, "a.svg script.json");
	entries(f->root, got, sizeof got);
	assert_string_equal(got, "work");
	script_summary(f->dir, got, sizeof got);
	assert_string_equal(got, "a.svg/5/A.");
}

static void test_bad_say_and_duration(void **state)
{
	struct fixture *f = *state;
	static const struct {
		const char *say, *why;
	} bad[] = {
		{ "", "the narration text is empty" },
		{ " \n \n", "the narration text is empty" },
		{ "One.\tTwo.", "the narration text contains a control character (character 5)" },
		{ "Bell\a", "contains a control character (character 5)" },
		{ "del\x7f", "contains a control character (character 4)" },
		{ "\xc3\xa9t\xc3\xa9 \xc2\x85 next", "contains a control character (character 5)" }, /* C1 NEL */
		{ "bad \xff byte", "the narration text is not UTF-8 text" },
	};
	static const double durations[] = { 0.49, 600.01, 0, -1, NAN, INFINITY };
	char say[4 * 2001 + 1], why[64], got[256];

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		expect(workdir_write_scene(f->dir, "a.svg", ONE_SVG, bad[i].say, 5, 0), 0, bad[i].why);
	/* 2000 characters are fine however many bytes they take; 2001 are not. */
	for (int i = 0; i < 2000; i++)
		memcpy(say + 2 * i, "\xc3\xa9", 2);
	say[4000] = '\0';
	write_ok(f, "long.svg", ONE_SVG, say, 5, 0, "scene 1 long.svg written");
	strcat(say, "e");
	expect(workdir_write_scene(f->dir, "a.svg", ONE_SVG, say, 5, 0), 0,
	       "the narration text has 2001 characters, more than the 2000 a scene may have");
	for (size_t i = 0; i < sizeof durations / sizeof durations[0]; i++) {
		snprintf(why, sizeof why, "the duration %g s is outside 0.5 to 600 s", durations[i]);
		expect(workdir_write_scene(f->dir, "a.svg", ONE_SVG, SAY, durations[i], 0), 0, why);
	}
	write_ok(f, "short.svg", ONE_SVG, SAY, 0.5, 0, "scene 2 short.svg written");
	write_ok(f, "longest.svg", ONE_SVG, SAY, 600, 0, "scene 3 longest.svg written");
	entries(f->dir, got, sizeof got);
	assert_string_equal(got, "long.svg longest.svg script.json short.svg");
}

static void test_too_many_scenes(void **state)
{
	struct fixture *f = *state;
	char name[32];

	for (int i = 1; i <= SCRIPT_MAX_SCENES; i++) {
		snprintf(name, sizeof name, "%02d.svg", i);
		write_ok(f, name, TWO_SVG, SAY, 1, 0, name);
	}
	expect(workdir_write_scene(f->dir, "31.svg", TWO_SVG, SAY, 1, 0), 0,
	       "the explainer already has 30 scenes, the most it may have; replace or remove a scene instead of "
	       "adding 31.svg");
	assert_false(exists(f->dir, "31.svg"));
	write_ok(f, "30.svg", ONE_SVG, SAY, 2, 0, "scene 30 30.svg written"); /* replacing is fine */
	expect(workdir_check(f->dir), 1, "30 scenes, 31 s as written: ok");
}

/* ---- pictures ------------------------------------------------------------ */

static void test_preview_start_and_end(void **state)
{
	struct fixture *f = *state;
	struct workdir_answer a;

	write_ok(f, "01-intro.svg", ONE_SVG, SAY, 2.5, 0, "scene 1");
	write_ok(f, "02-how.svg", TWO_SVG, SAY, 1.5, 0, "scene 2");
	a = workdir_preview(f->dir, "01-intro.svg", "start");
	assert_int_equal(a.ok, 1);
	assert_string_equal(a.text, "scene 1 01-intro.svg at its start: 0 s of 2.5 s (its first frame)");
	expect_png(&a, 1920, 1080);
	assert_int_equal(pixel(&a, 300, 600), 0xef476f); /* the circle where it begins */
	assert_int_equal(pixel(&a, 1600, 600), 0x0f2740);
	workdir_answer_free(&a);
	a = workdir_preview(f->dir, "01-intro.svg", "end");
	assert_int_equal(a.ok, 1);
	assert_string_equal(a.text, "scene 1 01-intro.svg at its end: 2.47 s of 2.5 s (its last frame)");
	expect_png(&a, 1920, 1080);
	assert_int_equal(pixel(&a, 300, 600), 0x0f2740); /* ... and where it ends */
	assert_int_equal(pixel(&a, 1600, 600), 0xef476f);
	workdir_answer_free(&a);
	a = workdir_preview(f->dir, "02-how.svg", "end");
	expect_png(&a, 1920, 1080);
	assert_int_equal(pixel(&a, 1650, 540), 0x118ab2); /* the line drawn whole */
	workdir_answer_free(&a);

	expect(workdir_preview(f->dir, "01-intro.svg", "middle"), 0, "\"middle\" is not a frame to preview: give "
								     "\"start\" (the scene's first frame) or "
								     "\"end\" (its last)");
	expect(workdir_preview(f->dir, "03.svg", "start"), 0, "there is no scene 03.svg; the scenes are: "
							      "01-intro.svg, 02-how.svg");
	expect(workdir_write_scene(f->dir, "03-bad.svg", BAD_SVG, SAY, 2, 0), 0, "scene 3 03-bad.svg written, but");
	a = workdir_preview(f->dir, "03-bad.svg", "end");
	assert_int_equal(a.ok, 0);
	assert_null(a.png);
	assert_non_null(strstr(a.text, "scene 3 03-bad.svg cannot be drawn until it passes the checks:\n"));
	assert_non_null(strstr(a.text, "\n03-bad.svg:2: "));
	assert_non_null(strstr(a.text, "\n03-bad.svg:4: "));
	workdir_answer_free(&a);
}

static void test_sheet(void **state)
{
	struct fixture *f = *state;
	struct workdir_answer a;

	expect(workdir_sheet(f->dir), 0, "no scenes yet");
	write_ok(f, "01-intro.svg", ONE_SVG, SAY, 2.5, 0, "scene 1");
	write_ok(f, "02-how.svg", TWO_SVG, SAY, 1.5, 0, "scene 2");
	a = workdir_sheet(f->dir);
	assert_int_equal(a.ok, 1);
	assert_string_equal(a.text, "contact sheet of 2 scenes (4 s as written): a row per scene, its start frame on "
				    "the left and its end frame on the right");
	expect_png(&a, SHEET_W, SHEET_H(2));
	/* Scene 1's start frame: the circle a quarter size at (75, 150), in
	 * the first thumbnail (at 16, 46); its end frame's circle at (400, 150). */
	assert_int_equal(pixel(&a, 16 + 75, 46 + 150), 0xef476f);
	assert_int_equal(pixel(&a, 16 + 480 + 16 + 400, 46 + 150), 0xef476f);
	workdir_answer_free(&a);
	expect(workdir_write_scene(f->dir, "03-bad.svg", BAD_SVG, SAY, 2, 0), 0, "scene 3 03-bad.svg written, but");
	a = workdir_sheet(f->dir);
	assert_int_equal(a.ok, 0);
	assert_null(a.png);
	assert_non_null(strstr(a.text, "the contact sheet needs every scene to pass the checks:\n03-bad.svg:2: "));
	workdir_answer_free(&a);
	expect(workdir_remove_scene(f->dir, "03-bad.svg"), 1, "removed");
	write_ok(f, "03.svg", ONE_SVG, SAY, 1, 0, "scene 3");
	a = workdir_sheet(f->dir);
	expect_png(&a, SHEET_W, SHEET_H(3));
	workdir_answer_free(&a);
}

/* ---- calls at once ------------------------------------------------------- */

struct writer {
	const char *dir;
	char prefix;
	int failed;
};

static void *write_many(void *arg)
{
	struct writer *w = arg;
	char name[32];

	for (int i = 0; i < SCRIPT_MAX_SCENES / 2; i++) {
		snprintf(name, sizeof name, "%c%02d.svg", w->prefix, i);
		struct workdir_answer a = workdir_write_scene(w->dir, name, TWO_SVG, SAY, 1, 0);
		w->failed += !a.ok;
		workdir_answer_free(&a);
	}
	return NULL;
}

/* Two threads each add 15 scenes; with script.json read and written by
 * both, an update made from a stale copy would lose a scene. */
static void test_calls_at_once_lose_nothing(void **state)
{
	struct fixture *f = *state;
	struct writer a = { f->dir, 'a', 0 }, b = { f->dir, 'b', 0 };
	pthread_t ta, tb;
	char got[2048], name[32];

	assert_int_equal(pthread_create(&ta, NULL, write_many, &a), 0);
	assert_int_equal(pthread_create(&tb, NULL, write_many, &b), 0);
	assert_int_equal(pthread_join(ta, NULL), 0);
	assert_int_equal(pthread_join(tb, NULL), 0);
	assert_int_equal(a.failed + b.failed, 0);
	script_summary(f->dir, got, sizeof got);
	for (int i = 0; i < SCRIPT_MAX_SCENES / 2; i++) {
		snprintf(name, sizeof name, "a%02d.svg/", i);
		assert_non_null(strstr(got, name));
		name[0] = 'b';
		assert_non_null(strstr(got, name));
	}
	expect(workdir_check(f->dir), 1, "30 scenes, 30 s as written: ok");
}

/* ---- the renderer's manifest -------------------------------------------- */

static void test_manifest(void **state)
{
	struct fixture *f = *state;
	static const double seconds[] = { 12, 0, 17.2 };
	static const char *const wavs[] = { "01.wav", NULL, "03.wav" };
	struct workdir_fit fit;
	struct problems p = { 0 };
	struct explainer e;

	write_ok(f, "01.svg", ONE_SVG, "One.", 8, 0, "scene 1");
	write_ok(f, "02.svg", TWO_SVG, "Two.", 6, 0, "scene 2");
	write_ok(f, "03.svg", ONE_SVG, "Three.", 10, 0, "scene 3");
	write_wav(f->dir, "01.wav", 24000 * 12);
	write_wav(f->dir, "03.wav", 24000 * 172 / 10);
	expect(workdir_manifest(f->dir, seconds, wavs, 2, &fit), 0, "narration is given for 2 scenes, but the script "
								    "has 3");
	assert_int_equal(fit.n, 0);
	workdir_fit_free(&fit);
	expect(workdir_manifest(f->dir, seconds, wavs, 3, &fit), 1, "explainer.json written: 3 scenes, 36.2 s "
								    "narrated");
	assert_int_equal(fit.n, 3);
	assert_string_equal(fit.v[0].name, "01.svg");
	assert_true(fabs(fit.v[0].duration - 12.5) < 1e-9);
	assert_true(fabs(fit.v[1].duration - 6) < 1e-9); /* silent: as written */
	assert_true(fabs(fit.v[2].duration - 17.7) < 1e-9);
	assert_true(fabs(fit.total - 36.2) < 1e-9);
	workdir_fit_free(&fit);

	/* The renderer takes it: narration, fitted duration, written timeline. */
	if (explainer_open(f->dir, &e, &p) < 0) {
		problems_print(&p, stderr);
		fail();
	}
	assert_int_equal(e.n, 3);
	assert_string_equal(e.scenes[0].svg, "01.svg");
	assert_string_equal(e.scenes[0].wav, "01.wav");
	assert_null(e.scenes[1].wav);
	assert_string_equal(e.scenes[2].wav, "03.wav");
	assert_int_equal(e.scenes[0].frames, 375);
	assert_int_equal(e.scenes[1].frames, 180);
	assert_int_equal(e.scenes[2].frames, 531);
	assert_true(fabs(e.scenes[0].timeline - 8) < 1e-9);
	assert_true(fabs(e.scenes[2].timeline - 10) < 1e-9);
	assert_true(fabs(e.scenes[2].duration - 17.7) < 1e-9);
	explainer_free(&e);
	problems_free(&p);
}

static void test_manifest_gate_and_refusals(void **state)
{
	struct fixture *f = *state;
	static const double short_seconds[] = { 2, 3.04 };
	static const char *const wavs[] = { "a.wav", "b.wav" };
	struct workdir_fit fit;

	write_ok(f, "a.svg", ONE_SVG, "A.", 8, 0, "scene 1");
	write_ok(f, "b.svg", TWO_SVG, "B.", 9, 0, "scene 2");
	write_wav(f->dir, "a.wav", 24000 * 2);
	write_wav(f->dir, "b.wav", 24000 * 304 / 100);
	expect(workdir_manifest(f->dir, short_seconds, wavs, 2, &fit), 0,
	       "The narrated video lasts 6.1 s; it must last 30 to 120 s. By scene: 1 a.svg 2.5 s (narration "
	       "2.0 s); 2 b.svg 3.6 s (narration 3.0 s); Lengthen the narration and finish again.");
	assert_int_equal(fit.n, 2); /* the caller learns the lengths all the same */
	assert_true(fabs(fit.total - (2.5 + 3.5667)) < 1e-3);
	workdir_fit_free(&fit);
	assert_false(exists(f->dir, "explainer.json"));

	/* A WAV that is not there: the renderer refuses, nothing stays. */
	static const double seconds[] = { 20, 15 };
	static const char *const missing[] = { "a.wav", "gone.wav" };
	expect(workdir_manifest(f->dir, seconds, missing, 2, &fit), 0,
	       "the renderer refuses the manifest made from the script and the narration:\nexplainer.json: "
	       "scene 2: \"narration\" names gone.wav, which is not in the folder");
	workdir_fit_free(&fit);
	assert_false(exists(f->dir, "explainer.json"));

	static const double bad_seconds[] = { 20, NAN };
	expect(workdir_manifest(f->dir, bad_seconds, wavs, 2, &fit), 0, "scene 2 (b.svg): nan s is not a "
									"narration's length");
	workdir_fit_free(&fit);
	static const char *const no_wav[] = { "a.wav", NULL };
	expect(workdir_manifest(f->dir, seconds, no_wav, 2, &fit), 0, "scene 2 (b.svg) has 15 s of narration but "
								      "no WAV");
	workdir_fit_free(&fit);

	/* A scene that does not pass the checks stops the manifest. */
	expect(workdir_write_scene(f->dir, "b.svg", BAD_SVG, "B.", 9, 0), 0, "does not pass the checks");
	expect(workdir_manifest(f->dir, seconds, wavs, 2, &fit), 0, "the scenes do not pass the checks:\nb.svg:2: ");
	workdir_fit_free(&fit);
	assert_false(exists(f->dir, "explainer.json"));
}

static int setup(void **state)
{
	char err[512];

	(void)state;
	xmlInitParser();
	if (fonts_setup(err, sizeof err) < 0)
		fail_msg("%s", err);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	xmlCleanupParser();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_two_scenes, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_replace_keeps_or_moves_place, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_insert_at_position, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_remove, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_read_script_and_svg, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_check_lists_every_problem, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_broken_script, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_bad_names, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_bad_say_and_duration, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_too_many_scenes, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_preview_start_and_end, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_sheet, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_calls_at_once_lose_nothing, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_manifest, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_manifest_gate_and_refusals, make_dir, remove_dir),
	};
	return ck_run_group_tests(tests, setup, teardown);
}
