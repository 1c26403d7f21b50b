/*
 * test_explainer_captions - the video's captions and poster (captions.h,
 * preview.h): cues cut at sentences and clauses into readable lines, timed
 * by the narration's measured length; the WebVTT and SRT files of a real
 * render read back by a small parser of each format and checked against
 * every scene's narration start and end; captions burned into the picture
 * seen in a frame decoded by ffmpeg; the poster decodable at the canvas's
 * size; the manifest keys "caption" and "poster"; and the worker's
 * poster choice, finish's "poster" argument.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../renderer/captions.h"
#include "../../renderer/folder.h"
#include "../../renderer/pipeline.h"
#include "../../renderer/preview.h"
#include "../../svc-explainer/worker_tools.h"
#include "../harness/explainer_env.h"
#include "../harness/fx_folder.h"
#include "../harness/group.h"

#define FPS 30 /* the default rate (canvas.h) */
#define FRAME_S (1.0 / FPS)

static const char *const LONG_TEXT =
	"Packets leave your laptop and cross a dozen routers before they reach the server. "
	"Each router reads the address, looks up the next hop in its table, and forwards the packet, "
	"usually within a fraction of a millisecond; when a link fails, the routers agree on a new path "
	"within seconds. Short. And that is why the web keeps working!";

/* Code points of n bytes. */
static size_t chars(const char *s, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xC0) != 0x80;
	return c;
}

/* Every line of text at most CAPTION_LINE_CHARS, at most CAPTION_LINES lines. */
static void assert_readable(const char *text)
{
	int lines = 0;

	for (const char *p = text;; lines++) {
		size_t len = strcspn(p, "\n");
		assert_true(len > 0);
		if (chars(p, len) > CAPTION_LINE_CHARS)
			fail_msg("a line of %zu characters: \"%.*s\"", chars(p, len), (int)len, p);
		if (!p[len])
			break;
		p += len + 1;
	}
	assert_true(lines + 1 <= CAPTION_LINES);
}

static void test_cues_of_a_text(void **state)
{
	struct captions c = { 0 };
	size_t words_in = 0, words_out = 0;

	(void)state;
	assert_int_equal(captions_add_text(&c, LONG_TEXT, 10.0, 20.0), 0);
	assert_true(c.n >= 5);
	assert_true(fabs(c.v[0].start - 10.0) < 1e-9);
	assert_true(fabs(c.v[c.n - 1].end - 30.0) < 1e-9);
	for (size_t i = 0; i < c.n; i++) {
		assert_readable(c.v[i].text);
		assert_true(c.v[i].end - c.v[i].start >= CAPTION_MIN_S - 1e-9);
		if (i > 0)
			assert_true(fabs(c.v[i].start - c.v[i - 1].end) < 1e-9);
		for (const char *p = c.v[i].text; *p; p++)
			words_out += (*p == ' ' || *p == '\n');
		words_out++;
	}
	for (const char *p = LONG_TEXT; *p; p++)
		words_in += *p == ' ';
	assert_int_equal(words_out, words_in + 1); /* no word lost or doubled */
	/* Cut at a sentence: the first cue is the first sentence's start, and
	 * no cue holds the end of one sentence and the start of the next
	 * except "Short." merged into a neighbour (it alone is under 1 s). */
	assert_true(strncmp(c.v[0].text, "Packets leave", 13) == 0);
	for (size_t i = 0; i < c.n; i++) {
		const char *dot = strstr(c.v[i].text, "server. ");
		assert_null(dot);
	}
	/* A longer cue lasts longer. */
	for (size_t i = 0; i + 1 < c.n; i++)
		if (strlen(c.v[i].text) > 2 * strlen(c.v[i + 1].text) &&
		    c.v[i + 1].end - c.v[i + 1].start > CAPTION_MIN_S + 1e-6)
			assert_true(c.v[i].end - c.v[i].start > c.v[i + 1].end - c.v[i + 1].start);
	captions_free(&c);
}

static void test_cues_without_spaces_and_short_narration(void **state)
{
	struct captions c = { 0 };
	/* 60 CJK characters, no spaces: cut into line-sized pieces. */
	char cjk[60 * 3 + 1];

	(void)state;
	for (int i = 0; i < 60; i++)
		memcpy(cjk + 3 * i, "\xE6\xB0\xB4", 3);
	cjk[180] = '\0';
	assert_int_equal(captions_add_text(&c, cjk, 0, 5.0), 0);
	for (size_t i = 0; i < c.n; i++)
		assert_readable(c.v[i].text);
	assert_true(fabs(c.v[c.n - 1].end - 5.0) < 1e-9);
	captions_free(&c);
	/* Narration shorter than a second per cue: equal shares, still exact. */
	assert_int_equal(captions_add_text(&c, "One. Two three four five six seven eight nine ten eleven twelve "
						"thirteen fourteen fifteen sixteen seventeen.", 0, 1.5), 0);
	assert_true(c.n >= 1);
	assert_true(fabs(c.v[c.n - 1].end - 1.5) < 1e-9);
	captions_free(&c);
	assert_int_equal(captions_add_text(&c, "   \n ", 0, 3), 0);
	assert_int_equal(c.n, 0);
}

/* ---- a rendered folder -------------------------------------------------- */

static const char *const SCENE_SVG =
	"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1920 1080\">"
	"<rect width=\"1920\" height=\"1080\" fill=\"#ffffff\"/>"
	"<circle cx=\"300\" cy=\"300\" r=\"100\" fill=\"#ef476f\"/></svg>";

/* WAV lengths in samples (24 kHz): 4.3 s and 1.7 s; scenes 5 s and 2.5 s. */
#define WAV1 103200
#define WAV2 40800

static void make_folder(const char *dir, const char *poster)
{
	char path[256], manifest[2048];

	snprintf(path, sizeof path, "%s/a.svg", dir);
	fx_write_file(path, SCENE_SVG);
	snprintf(path, sizeof path, "%s/b.svg", dir);
	fx_write_file(path, SCENE_SVG);
	fx_speech_wav(dir, "a.wav", WAV1);
	fx_speech_wav(dir, "b.wav", WAV2);
	snprintf(manifest, sizeof manifest,
		 "{ \"scenes\": ["
		 " { \"svg\": \"a.svg\", \"narration\": \"a.wav\", \"duration\": 5,"
		 "   \"caption\": \"The first scene speaks three sentences, and this one is the longest. "
		 "Then it is <quiet> & done. Its narration ends here.\" },"
		 " { \"svg\": \"b.svg\", \"narration\": \"b.wav\", \"duration\": 2.5,"
		 "   \"caption\": \"The second one is short.\" } ]%s }",
		 poster ? poster : "");
	snprintf(path, sizeof path, "%s/explainer.json", dir);
	fx_write_file(path, manifest);
}

struct cue {
	double start, end;
	char text[256];
};

/* "HH:MM:SS.mmm" or "HH:MM:SS,mmm". */
static double parse_time(const char *s, char sep)
{
	int h, m, sec, ms;
	char c;

	assert_int_equal(sscanf(s, "%d:%d:%d%c%d", &h, &m, &sec, &c, &ms), 5);
	assert_int_equal(c, sep);
	return h * 3600.0 + m * 60.0 + sec + ms / 1000.0;
}

/* A WebVTT (sep '.', header "WEBVTT") or SRT (sep ',') file's cues. */
static size_t parse_cues(const char *path, char sep, struct cue *out, size_t max)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t n = 0;
	int in_cue = 0;

	assert_non_null(f);
	if (sep == '.') {
		assert_non_null(fgets(line, sizeof line, f));
		assert_string_equal(line, "WEBVTT\n");
	}
	while (fgets(line, sizeof line, f)) {
		char *arrow = strstr(line, " --> ");
		if (arrow) {
			assert_true(n < max);
			out[n].start = parse_time(line, sep);
			out[n].end = parse_time(arrow + 5, sep);
			out[n].text[0] = '\0';
			in_cue = 1;
			n++;
		} else if (strcmp(line, "\n") == 0) {
			in_cue = 0;
		} else if (in_cue) {
			char *t = out[n - 1].text;
			size_t used = strlen(t);
			line[strcspn(line, "\n")] = '\0';
			snprintf(t + used, sizeof out[n - 1].text - used, "%s%s", used ? "\n" : "", line);
		}
	}
	fclose(f);
	return n;
}

static void render(const char *dir, const char *target, int burn)
{
	struct render_options o = { .threads = 1, .burn_captions = burn };
	struct render_stats st;
	struct problems p = { 0 };
	struct explainer e;
	char err[512];

	assert_int_equal(explainer_open(dir, &e, &p), 0);
	if (render_explainer(&e, target, &o, &st, &p, err, sizeof err) < 0)
		fail_msg("render: %s", err);
	problems_free(&p);
	explainer_free(&e);
}

static void test_caption_files_follow_the_narration(void **state)
{
	struct fx_folder *f = *state;
	char vtt[512], srt[512], mp4[512], err[512];
	struct cue v[32], s[32];
	struct problems p = { 0 };
	struct explainer e;
	int written;

	make_folder(f->path, NULL);
	snprintf(mp4, sizeof mp4, "%s/out.mp4", f->path);
	assert_int_equal(explainer_open(f->path, &e, &p), 0);
	if (captions_write_beside(&e, mp4, vtt, srt, sizeof vtt, &written, err, sizeof err) < 0)
		fail_msg("%s", err);
	assert_int_equal(written, 1);
	assert_string_equal(strrchr(vtt, '/'), "/out.vtt");
	assert_string_equal(strrchr(srt, '/'), "/out.srt");
	size_t nv = parse_cues(vtt, '.', v, 32), ns = parse_cues(srt, ',', s, 32);
	assert_int_equal(nv, ns);
	assert_true(nv >= 3);
	/* Each scene's cues: from its first frame to its WAV's end. */
	double starts[2] = { 0, (double)e.scenes[1].first_frame / FPS };
	double ends[2] = { starts[0] + WAV1 / 24000.0, starts[1] + WAV2 / 24000.0 };
	size_t scene = 0;
	assert_true(fabs(v[0].start - starts[0]) <= FRAME_S);
	for (size_t i = 0; i < nv; i++) {
		assert_readable(v[i].text);
		assert_true(v[i].end > v[i].start);
		if (i + 1 < nv && fabs(v[i + 1].start - v[i].end) > 0.0015) {
			/* A gap: the end of scene 1's narration. */
			assert_int_equal(scene, 0);
			assert_true(fabs(v[i].end - ends[0]) <= FRAME_S);
			assert_true(fabs(v[i + 1].start - starts[1]) <= FRAME_S);
			scene = 1;
		}
		/* SRT: the same cues, the same text. */
		assert_true(fabs(s[i].start - v[i].start) < 1e-9 && fabs(s[i].end - v[i].end) < 1e-9);
	}
	assert_int_equal(scene, 1);
	assert_true(fabs(v[nv - 1].end - ends[1]) <= FRAME_S);
	assert_string_equal(v[nv - 1].text, "The second one is short.");
	/* WebVTT escapes its markup characters; SRT is plain text. */
	int escaped = 0, plain = 0;
	for (size_t i = 0; i < nv; i++) {
		escaped += strstr(v[i].text, "&lt;quiet&gt; &amp; done.") != NULL;
		plain += strstr(s[i].text, "<quiet> & done.") != NULL;
	}
	assert_int_equal(escaped, 1);
	assert_int_equal(plain, 1);
	explainer_free(&e);
}

/* The frame at second t of a video as RGB24 rows, from the ffmpeg CLI. */
static uint8_t *frame_rgb(const char *mp4, double t, size_t size)
{
	char at[32], cmd[1024];
	uint8_t *rgb = malloc(size);
	FILE *pipe;

	assert_non_null(rgb);
	snprintf(at, sizeof at, "%.3f", t);
	snprintf(cmd, sizeof cmd, "ffmpeg -v error -ss %s -i '%s' -frames:v 1 -f rawvideo -pix_fmt rgb24 -", at, mp4);
	assert_non_null(pipe = popen(cmd, "r"));
	assert_int_equal(fread(rgb, 1, size, pipe), size);
	assert_int_equal(pclose(pipe), 0);
	return rgb;
}

static void test_burned_captions_are_in_the_picture(void **state)
{
	struct fx_folder *f = *state;
	const int w = 1920, h = 1080; /* the default canvas */
	const size_t size = (size_t)w * h * 3;
	char plain[512], burnt[512];
	long dark = 0, light = 0, differ = 0;

	make_folder(f->path, NULL);
	snprintf(plain, sizeof plain, "%s/plain.mp4", f->path);
	snprintf(burnt, sizeof burnt, "%s/burnt.mp4", f->path);
	render(f->path, plain, 0);
	render(f->path, burnt, 1);
	uint8_t *a = frame_rgb(plain, 0.5, size), *b = frame_rgb(burnt, 0.5, size);
	/* The bottom title-safe band, where the box is: dark in the burnt
	 * render, with light text on it; the plain render is white there. */
	for (int y = (int)(h * 0.75); y < (int)(h * 0.9); y++)
		for (int x = (int)(w * 0.3); x < (int)(w * 0.7); x++) {
			const uint8_t *pa = a + ((size_t)y * w + x) * 3, *pb = b + ((size_t)y * w + x) * 3;
			differ += abs(pa[0] - pb[0]) > 40;
			dark += pb[0] < 110 && pb[1] < 110 && pb[2] < 110;
			light += pb[0] > 200 && pb[1] > 200 && pb[2] > 200;
		}
	free(a);
	free(b);
	assert_true(differ > 20000);
	assert_true(dark > 20000);
	assert_true(light > 2000);
	/* Above the band the pictures are the same. */
	a = frame_rgb(plain, 0.5, size);
	b = frame_rgb(burnt, 0.5, size);
	assert_memory_equal(a, b, (size_t)w * 3 * (size_t)(h / 2));
	free(a);
	free(b);
}

/* A cue's layer on a canvas of w x h: the box inside the canvas, its
 * bottom on the title-safe margin, its text wrapped to fit. */
static void assert_overlay_fits(int w, int h, int min_lines)
{
	struct caption_cue cue = { 0, 1, "Each router reads the address, looks\nup the next hop and forwards the packet" };
	double x, y, bw, bh;
	char err[256], view[64];
	size_t len;
	int lines = 0;
	char *svg = captions_overlay_svg(&cue, w, h, &len, err, sizeof err);

	if (!svg)
		fail_msg("%s", err);
	assert_int_equal(strlen(svg), len);
	snprintf(view, sizeof view, "viewBox=\"0 0 %d %d\"", w, h);
	assert_non_null(strstr(svg, view));
	const char *rect = strstr(svg, "<rect x=\"");
	assert_non_null(rect);
	assert_int_equal(sscanf(rect, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &x, &y, &bw, &bh), 4);
	assert_true(x >= 0 && x + bw <= w);
	assert_true(fabs(y + bh - h * 0.9) < 0.5);
	for (const char *p = svg; (p = strstr(p, "<text ")); p++)
		lines++;
	assert_true(lines >= min_lines);
	free(svg);
}

static void test_overlay_follows_the_canvas(void **state)
{
	(void)state;
	assert_overlay_fits(1920, 1080, 2);
	assert_overlay_fits(1080, 1920, 3); /* 9:16: narrower, so wrapped again */
	assert_overlay_fits(1080, 1080, 3);
}

static void test_poster(void **state)
{
	struct fx_folder *f = *state;
	struct problems p = { 0 };
	struct explainer e;
	char png[512], err[512];
	cairo_surface_t *s;

	make_folder(f->path, ", \"poster\": { \"scene\": \"b.svg\", \"at\": 1.5 }");
	assert_int_equal(explainer_open(f->path, &e, &p), 0);
	assert_string_equal(e.poster_scene, "b.svg");
	assert_string_equal(e.poster_at, "1.5");
	snprintf(png, sizeof png, "%s/poster.png", f->path);
	if (poster_write(&e, png, err, sizeof err) < 0)
		fail_msg("%s", err);
	explainer_free(&e);
	s = cairo_image_surface_create_from_png(png);
	assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
	assert_int_equal(cairo_image_surface_get_width(s), 1920);
	assert_int_equal(cairo_image_surface_get_height(s), 1080);
	cairo_surface_destroy(s);
	/* Without the key: the first scene's end frame. */
	make_folder(f->path, NULL);
	assert_int_equal(explainer_open(f->path, &e, &p), 0);
	assert_null(e.poster_scene);
	assert_int_equal(poster_write(&e, png, err, sizeof err), 0);
	explainer_free(&e);
}

static void assert_refused(const char *dir, const char *extra, const char *scene_extra, const char *words)
{
	char path[256], manifest[1024];
	struct problems p = { 0 };
	struct explainer e;
	int found = 0;

	snprintf(manifest, sizeof manifest,
		 "{ \"scenes\": [ { \"svg\": \"a.svg\", \"duration\": 3%s } ]%s }", scene_extra, extra);
	snprintf(path, sizeof path, "%s/explainer.json", dir);
	fx_write_file(path, manifest);
	assert_int_equal(explainer_open(dir, &e, &p), -1);
	for (size_t i = 0; i < p.n; i++)
		found |= strstr(p.v[i].text, words) != NULL;
	if (!found)
		fail_msg("no problem says \"%s\" (first: %s)", words, p.n ? p.v[0].text : "none");
	problems_free(&p);
}

static void test_manifest_keys_refused(void **state)
{
	struct fx_folder *f = *state;

	make_folder(f->path, NULL);
	assert_refused(f->path, "", ", \"caption\": 7", "\"caption\" must be the scene's spoken text");
	assert_refused(f->path, ", \"poster\": { \"scene\": \"zz.svg\" }", "", "there is no scene zz.svg");
	assert_refused(f->path, ", \"poster\": { \"scene\": \"a.svg\", \"at\": 9 }", "", "\"at\" is 9");
	assert_refused(f->path, ", \"poster\": { \"scene\": \"a.svg\", \"when\": 1 }", "", "\"poster\" must be like");
	assert_refused(f->path, ", \"poster\": \"a.svg\"", "", "\"poster\" must be like");
}

static void test_finish_poster_argument(void **state)
{
	struct worker_finish_args a;
	char err[512];

	(void)state;
	assert_int_equal(worker_tools_finish_args("{}", &a, err, sizeof err), 0);
	assert_false(a.has_poster);
	assert_int_equal(worker_tools_finish_args("", &a, err, sizeof err), 0);
	assert_false(a.has_poster);
	assert_int_equal(worker_tools_finish_args("{\"poster\":{\"scene\":\"02-how.svg\"}}", &a, err, sizeof err), 0);
	assert_true(a.has_poster);
	assert_string_equal(a.poster.scene, "02-how.svg");
	assert_string_equal(a.poster.at, "end");
	assert_int_equal(worker_tools_finish_args("{\"poster\":{\"scene\":\"2\",\"at\":2.5}}", &a, err, sizeof err), 0);
	assert_string_equal(a.poster.at, "2.5");
	assert_int_equal(worker_tools_finish_args("{\"poster\":{\"scene\":\"a.svg\",\"at\":\"start\"}}", &a, err,
						  sizeof err), 0);
	assert_string_equal(a.poster.at, "start");
	assert_int_equal(worker_tools_finish_args("{\"poster\":{\"at\":\"end\"}}", &a, err, sizeof err), -1);
	assert_non_null(strstr(err, "scene"));
	assert_int_equal(worker_tools_finish_args("{\"poster\":{\"scene\":\"a.svg\",\"frame\":1}}", &a, err,
						  sizeof err), -1);
	assert_non_null(strstr(err, "frame"));
	assert_int_equal(worker_tools_finish_args("{\"poster\":\"a.svg\"}", &a, err, sizeof err), -1);
	assert_int_equal(worker_tools_finish_args("{\"cover\":1}", &a, err, sizeof err), -1);
	assert_non_null(strstr(err, "cover"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cues_of_a_text),
		cmocka_unit_test(test_cues_without_spaces_and_short_narration),
		cmocka_unit_test_setup_teardown(test_caption_files_follow_the_narration, fx_folder_make, fx_folder_remove),
		cmocka_unit_test_setup_teardown(test_burned_captions_are_in_the_picture, fx_folder_make, fx_folder_remove),
		cmocka_unit_test(test_overlay_follows_the_canvas),
		cmocka_unit_test_setup_teardown(test_poster, fx_folder_make, fx_folder_remove),
		cmocka_unit_test_setup_teardown(test_manifest_keys_refused, fx_folder_make, fx_folder_remove),
		cmocka_unit_test(test_finish_poster_argument),
	};
	return ck_run_group_tests(tests, fx_explainer_setup, fx_explainer_teardown);
}
