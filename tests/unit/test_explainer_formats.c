/*
 * test_explainer_formats - the video's canvas (issue 36): the formats
 * 16:9, 9:16 and 1:1 at 30 or 60 fps, as explainer.json, script.json,
 * video.json and create_explainer_video's arguments carry them.  Each
 * place accepts the three formats and two rates, gives the defaults when
 * they are absent and refuses anything else (a model's "9x16", "vertical"
 * or 59.94) with a sentence listing the choices; scenes must be drawn for
 * the canvas; the worker's previews and sheet come out at its size; the
 * manifest the finish writes carries it; a revision keeps the saved
 * video's canvas unless the call gives another; the worker's brief states
 * it.  (tests/e2e/explainer-formats.sh renders each one.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../renderer/canvas.h"
#include "../../renderer/fit.h"
#include "../../renderer/folder.h"
#include "../../renderer/pipeline.h"
#include "../../renderer/script.h"
#include "../../svc-explainer/brief.h"
#include "../../svc-explainer/explain.h"
#include "../../svc-explainer/videos_record.h"
#include "../../svc-explainer/workdir.h"
#include "../harness/explainer_env.h"
#include "reply_style.h"
#include "../harness/fx_folder.h"
#include "../harness/group.h"

#define CHOICES_FORMAT "give \"16:9\" (1920x1080, landscape, the default), \"9:16\" (1080x1920, vertical) or " \
		       "\"1:1\" (1080x1080, square)"
#define CHOICES_FPS "give 30 (the default) or 60"

/* A scene drawn for a canvas of w x h, animated. */
static char *scene_svg(int w, int h)
{
	char *s = malloc(512);

	assert_non_null(s);
	assert_true(snprintf(s, 512, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\">"
				 "<rect width=\"%d\" height=\"%d\" fill=\"#123\"/>"
				 "<circle cx=\"100\" cy=\"100\" r=\"50\" fill=\"#f00\">"
				 "<animate attributeName=\"cx\" from=\"100\" to=\"500\" dur=\"1s\" fill=\"freeze\"/>"
				 "</circle></svg>", w, h, w, h) < 512);
	return s;
}

/* The text of path (caller frees). */
static char *read_text(const char *path)
{
	FILE *fp = fopen(path, "rb");
	char *buf = calloc(1, 1 << 16);
	size_t n;

	assert_non_null(fp);
	assert_non_null(buf);
	n = fread(buf, 1, (1 << 16) - 1, fp);
	assert_true(n > 0);
	fclose(fp);
	return buf;
}

static void write_in(const char *dir, const char *name, const char *text)
{
	char *path = fx_path_in(dir, name);

	fx_write_file(path, text);
	free(path);
}

/* The width and height of a PNG, from its IHDR. */
static void png_size(const unsigned char *png, size_t len, int *w, int *h)
{
	assert_true(len > 24 && memcmp(png + 12, "IHDR", 4) == 0);
	*w = (int)((unsigned)png[16] << 24 | (unsigned)png[17] << 16 | (unsigned)png[18] << 8 | png[19]);
	*h = (int)((unsigned)png[20] << 24 | (unsigned)png[21] << 16 | (unsigned)png[22] << 8 | png[23]);
}

static void expect_refused(struct canvas *c, const char *json, const char *want)
{
	json_t *o = json_loads(json, 0, NULL);
	char err[512] = "";

	assert_non_null(o);
	assert_int_equal(canvas_read(o, c, err, sizeof err), -1);
	if (!strstr(err, want))
		fail_msg("%s gave \"%s\", not \"%s\"", json, err, want);
	json_decref(o);
}

static void expect_read(const char *json, struct canvas from, int w, int h, int fps)
{
	json_t *o = json_loads(json, 0, NULL);
	char err[256];

	assert_non_null(o);
	assert_int_equal(canvas_read(o, &from, err, sizeof err), 0);
	assert_int_equal(from.width, w);
	assert_int_equal(from.height, h);
	assert_int_equal(from.fps, fps);
	json_decref(o);
}

/* ---- the values ----------------------------------------------------------- */

static void test_canvas_values(void **state)
{
	struct canvas c = canvas_default();

	(void)state;
	assert_int_equal(c.width, 1920);
	assert_int_equal(c.height, 1080);
	assert_int_equal(c.fps, 30);
	expect_read("{}", c, 1920, 1080, 30);
	expect_read("{\"format\":\"16:9\",\"fps\":30}", c, 1920, 1080, 30);
	expect_read("{\"format\":\"9:16\"}", c, 1080, 1920, 30);
	expect_read("{\"format\":\"1:1\",\"fps\":60}", c, 1080, 1080, 60);
	expect_read("{\"fps\":60.0}", c, 1920, 1080, 60);
	assert_string_equal(canvas_format_name(1080, 1920), "9:16");
	assert_null(canvas_format_name(1280, 720));
	assert_string_equal(canvas_orientation(1920, 1080), "landscape");
	assert_string_equal(canvas_orientation(1080, 1920), "vertical");
	assert_string_equal(canvas_orientation(1080, 1080), "square");
	/* What a model may pass instead. */
	expect_refused(&c, "{\"format\":\"9x16\"}", "\"format\" is \"9x16\", which is not a format; " CHOICES_FORMAT);
	expect_refused(&c, "{\"format\":\"vertical\"}", "\"format\" is \"vertical\", which is not a format; ");
	expect_refused(&c, "{\"format\":\"1920x1080\"}", CHOICES_FORMAT);
	expect_refused(&c, "{\"format\":169}", "\"format\" must be a string: \"16:9\"");
	expect_refused(&c, "{\"fps\":59.94}", "\"fps\" is 59.94, which is not a frame rate a video may have; " CHOICES_FPS);
	expect_refused(&c, "{\"fps\":25}", "\"fps\" is 25");
	expect_refused(&c, "{\"fps\":\"60\"}", "\"fps\" must be a number: 30 (the default) or 60");
	/* A refusal leaves what was there. */
	assert_int_equal(c.width, 1920);
	assert_int_equal(c.fps, 30);
}

/* ---- explainer.json ------------------------------------------------------- */

static void test_manifest_keys(void **state)
{
	struct fx_folder *f = *state;
	struct problems p = { 0 };
	struct explainer e;
	struct scene **scenes;
	char *tall = scene_svg(1080, 1920), *wide = scene_svg(1920, 1080);

	write_in(f->path, "a.svg", tall);
	write_in(f->path, "explainer.json",
		 "{\"format\":\"9:16\",\"fps\":60,\"scenes\":[{\"svg\":\"a.svg\",\"duration\":2.5}]}");
	assert_int_equal(explainer_open(f->path, &e, &p), 0);
	assert_int_equal(e.width, 1080);
	assert_int_equal(e.height, 1920);
	assert_int_equal(e.fps, 60);
	assert_int_equal(e.scenes[0].frames, 150);
	assert_int_equal(e.total_frames, 150);
	assert_true(scene_frame_time(e.scenes[0].frames - 1, e.fps) == 149.0 / 60);
	assert_non_null(scenes = scenes_load(&e, &p));
	scenes_free(scenes, e.n);
	explainer_free(&e);

	/* Without the keys: 16:9 at 30 fps, as before. */
	write_in(f->path, "b.svg", wide);
	write_in(f->path, "explainer.json", "{\"scenes\":[{\"svg\":\"b.svg\",\"duration\":2.5}]}");
	assert_int_equal(explainer_open(f->path, &e, &p), 0);
	assert_int_equal(e.width, 1920);
	assert_int_equal(e.height, 1080);
	assert_int_equal(e.fps, 30);
	assert_int_equal(e.scenes[0].frames, 75);
	explainer_free(&e);

	/* A scene drawn for another canvas. */
	write_in(f->path, "explainer.json", "{\"format\":\"1:1\",\"scenes\":[{\"svg\":\"b.svg\",\"duration\":2}]}");
	assert_int_equal(explainer_open(f->path, &e, &p), 0);
	assert_null(scenes_load(&e, &p));
	assert_int_equal(p.n, 1);
	assert_string_equal(p.v[0].text, "viewBox is \"0 0 1920 1080\"; a scene's viewBox must be \"0 0 1080 1080\" "
					 "(the video is 1080x1080: draw in those units)");
	explainer_free(&e);
	problems_free(&p);

	/* Refusals, with the scenes' problems as well. */
	write_in(f->path, "explainer.json", "{\"format\":\"4:3\",\"scenes\":[{\"svg\":\"b.svg\",\"duration\":2}]}");
	assert_int_equal(explainer_open(f->path, &e, &p), -1);
	assert_int_equal(p.n, 1);
	assert_string_equal(p.v[0].text, "\"format\" is \"4:3\", which is not a format; " CHOICES_FORMAT);
	problems_free(&p);
	write_in(f->path, "explainer.json", "{\"fps\":24,\"scenes\":[]}");
	assert_int_equal(explainer_open(f->path, &e, &p), -1);
	assert_int_equal(p.n, 2);
	assert_non_null(strstr(p.v[0].text, "\"scenes\" is empty"));
	assert_string_equal(p.v[1].text, "\"fps\" is 24, which is not a frame rate a video may have; " CHOICES_FPS);
	problems_free(&p);
	write_in(f->path, "explainer.json", "{\"size\":\"big\",\"scenes\":[{\"svg\":\"b.svg\",\"duration\":2}]}");
	assert_int_equal(explainer_open(f->path, &e, &p), -1);
	assert_string_equal(p.v[0].text, "unknown key \"size\"; the manifest has \"scenes\" and optionally \"format\", "
					 "\"fps\" and \"poster\"");
	problems_free(&p);
	free(tall);
	free(wide);
}

/* Fitting rounds to whole frames of the video's rate. */
static void test_fit_at_60(void **state)
{
	struct fit_scene v[1] = { { "a.svg", 8, 3.01, 0 } };

	(void)state;
	/* 3.01 s of speech and the half-second pause: 210.6 frames at 60
	 * fps, 105.3 at 30 */
	assert_true(fit_scenes(v, 1, 60) == 211.0 / 60);
	assert_true(v[0].duration == 211.0 / 60);
	assert_true(fit_scenes(v, 1, 30) == 106.0 / 30);
}

/* ---- script.json and the worker's tools --------------------------------------------- */

static void test_script_keys(void **state)
{
	struct fx_folder *f = *state;
	struct problems p = { 0 };
	struct script s;
	struct explainer e;
	char err[256], *text, *path = fx_path_in(f->path, SCRIPT_FILE);

	/* No script yet: no scenes, the default canvas. */
	assert_int_equal(script_load(f->path, &s, &p), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(s.width, 1920);
	assert_int_equal(s.fps, 30);
	script_free(&s);
	write_in(f->path, SCRIPT_FILE, "{\"format\":\"1:1\",\"fps\":60,\"scenes\":[{\"svg\":\"a.svg\",\"say\":\"Hi.\","
				       "\"duration\":2}]}");
	assert_int_equal(script_load(f->path, &s, &p), 0);
	assert_int_equal(s.width, 1080);
	assert_int_equal(s.height, 1080);
	assert_int_equal(s.fps, 60);
	/* Saving keeps it, first in the file. */
	assert_int_equal(script_save(f->path, &s, err, sizeof err), 0);
	text = read_text(path);
	assert_non_null(strstr(text, "{\n  \"format\": \"1:1\",\n  \"fps\": 60,\n  \"scenes\": ["));
	free(text);
	/* The renderer's view of it. */
	assert_int_equal(script_explainer(f->path, &s, 0, 1, &e, err, sizeof err), 0);
	assert_int_equal(e.width, 1080);
	assert_int_equal(e.height, 1080);
	assert_int_equal(e.fps, 60);
	assert_int_equal(e.scenes[0].frames, 120);
	explainer_free(&e);
	script_free(&s);
	/* A bad canvas makes the script unreadable, with the sentence. */
	write_in(f->path, SCRIPT_FILE, "{\"format\":\"square\",\"scenes\":[]}");
	assert_int_equal(script_load(f->path, &s, &p), -1);
	assert_string_equal(p.v[0].text, "\"format\" is \"square\", which is not a format; " CHOICES_FORMAT);
	problems_free(&p);
	write_in(f->path, SCRIPT_FILE, "{\"canvas\":\"1:1\",\"scenes\":[]}");
	assert_int_equal(script_load(f->path, &s, &p), -1);
	assert_non_null(strstr(p.v[0].text, "(with, optionally, \"format\" and \"fps\" beside \"scenes\") and nothing else"));
	problems_free(&p);
	free(path);
}

/* The worker's folder of a 9:16 video at 60 fps: its scenes are checked
 * against that canvas, its previews and sheet have its shape, and the
 * manifest the finish writes carries it. */
static void test_workdir_canvas(void **state)
{
	struct fx_folder *f = *state;
	struct problems p = { 0 };
	struct workdir_answer a;
	struct workdir_fit fit;
	struct explainer e;
	char err[256], *tall = scene_svg(1080, 1920), *wide = scene_svg(1920, 1080);
	const double seconds[2] = { 0, 0 };
	const char *const wavs[2] = { NULL, NULL };
	int w, h;

	assert_int_equal(workdir_set_canvas(f->path, 1080, 1920, 60, err, sizeof err), 0);
	a = workdir_write_scene(f->path, "01-wide.svg", wide, "A scene drawn for the wrong canvas.", 15, 0);
	assert_int_equal(a.ok, 0);
	assert_non_null(strstr(a.text, "a scene's viewBox must be \"0 0 1080 1920\" (the video is 1080x1920"));
	workdir_answer_free(&a);
	a = workdir_write_scene(f->path, "01-wide.svg", tall, "The same scene, drawn tall.", 15, 0);
	assert_int_equal(a.ok, 1);
	workdir_answer_free(&a);
	a = workdir_write_scene(f->path, "02-next.svg", tall, "The next one.", 15, 0);
	assert_int_equal(a.ok, 1);
	workdir_answer_free(&a);
	a = workdir_preview(f->path, "01-wide.svg", "end");
	assert_int_equal(a.ok, 1);
	png_size(a.png, a.png_len, &w, &h);
	assert_int_equal(w, 1080);
	assert_int_equal(h, 1920);
	/* the last frame at 60 fps */
	assert_non_null(strstr(a.text, "at its end: 14.98 s of 15 s"));
	workdir_answer_free(&a);
	a = workdir_sheet(f->path);
	assert_int_equal(a.ok, 1);
	png_size(a.png, a.png_len, &w, &h);
	assert_int_equal(w, 2 * 270 + 3 * 16);
	assert_int_equal(h, 16 + 2 * (30 + 480 + 16));
	workdir_answer_free(&a);
	/* The finish's manifest. */
	a = workdir_manifest(f->path, seconds, wavs, 2, NULL, &fit);
	assert_int_equal(a.ok, 1);
	workdir_answer_free(&a);
	workdir_fit_free(&fit);
	assert_int_equal(explainer_open(f->path, &e, &p), 0);
	assert_int_equal(e.width, 1080);
	assert_int_equal(e.height, 1920);
	assert_int_equal(e.fps, 60);
	assert_int_equal(e.total_frames, 30 * 60);
	explainer_free(&e);
	free(tall);
	free(wide);
}

/* ---- create_explainer_video ------------------------------------------------ */

static void expect_args(const char *json, const char *want)
{
	json_t *args = json_loads(json, 0, NULL);
	char err[512] = "";
	int rc;

	assert_non_null(args);
	rc = explain_check_args(args, err, sizeof err);
	if (!want)
		assert_int_equal(rc, 0);
	else if (rc != -1 || !strstr(err, want))
		fail_msg("%s gave %d \"%s\", not \"%s\"", json, rc, err, want);
	json_decref(args);
}

static void test_tool_arguments(void **state)
{
	(void)state;
	expect_args("{\"question\":\"q\",\"facts\":\"f\"}", NULL);
	expect_args("{\"question\":\"q\",\"facts\":\"f\",\"format\":\"9:16\",\"fps\":60}", NULL);
	expect_args("{\"question\":\"q\",\"facts\":\"f\",\"format\":\"1:1\"}", NULL);
	expect_args("{\"question\":\"q\",\"facts\":\"f\",\"format\":\"9x16\"}",
		    "\"format\" is \"9x16\", which is not a format; " CHOICES_FORMAT);
	expect_args("{\"question\":\"q\",\"facts\":\"f\",\"format\":\"vertical\"}", "\"format\" is \"vertical\"");
	expect_args("{\"question\":\"q\",\"facts\":\"f\",\"fps\":59.94}",
		    "\"fps\" is 59.94, which is not a frame rate a video may have; " CHOICES_FPS);
	expect_args("{\"question\":\"q\",\"facts\":\"f\",\"fps\":null}", "\"fps\" must be a number");
	expect_args("{\"question\":\"q\",\"facts\":\"f\",\"aspect\":\"9:16\"}", "aspect");
}

/* A revision keeps the saved video's canvas (video.json) unless the call
 * gives a new format or rate: the call's arguments are read over it. */
static void test_revision_keeps_canvas(void **state)
{
	struct fx_folder *f = *state;
	struct video_record r = { .id = "20261201-153012-a1b2c3", .session = "s-1", .revision = 1,
				  .created = "2026-12-01T15:30:12Z", .updated = "2026-12-01T15:41:07Z",
				  .duration = 42, .scenes = 3, .question = "Why?", .width = 1080, .height = 1920,
				  .fps = 60 };
	struct video_record back;
	char err[256], *path = fx_path_in(f->path, VIDEO_RECORD_FILE);
	struct canvas saved;

	assert_int_equal(video_record_write(path, &r, err, sizeof err), 0);
	assert_int_equal(video_record_read(path, &back, err, sizeof err), 0);
	assert_int_equal(back.width, 1080);
	assert_int_equal(back.height, 1920);
	assert_int_equal(back.fps, 60);
	video_record_free(&back);
	saved = (struct canvas){ back.width, back.height, back.fps };
	expect_read("{\"question\":\"q\",\"facts\":\"f\",\"videoPath\":\"/v.mp4\"}", saved, 1080, 1920, 60);
	expect_read("{\"question\":\"q\",\"facts\":\"f\",\"fps\":30}", saved, 1080, 1920, 30);
	expect_read("{\"question\":\"q\",\"facts\":\"f\",\"format\":\"1:1\"}", saved, 1080, 1080, 60);
	/* A record from before formats: 16:9 at 30 fps. */
	fx_write_file(path, "{\"id\":\"20261201-153012-a1b2c3\",\"session\":\"s-1\",\"revision\":0,"
			    "\"created\":\"2026-12-01T15:30:12Z\",\"updated\":\"2026-12-01T15:30:12Z\","
			    "\"durationSeconds\":40,\"scenes\":2,\"question\":\"Why?\"}");
	assert_int_equal(video_record_read(path, &back, err, sizeof err), 0);
	assert_int_equal(back.width, 1920);
	assert_int_equal(back.height, 1080);
	assert_int_equal(back.fps, 30);
	video_record_free(&back);
	fx_write_file(path, "{\"id\":\"20261201-153012-a1b2c3\",\"session\":\"s-1\",\"revision\":0,"
			    "\"created\":\"2026-12-01T15:30:12Z\",\"updated\":\"2026-12-01T15:30:12Z\","
			    "\"durationSeconds\":40,\"scenes\":2,\"question\":\"Why?\",\"fps\":50}");
	assert_int_equal(video_record_read(path, &back, err, sizeof err), -1);
	assert_non_null(strstr(err, "video.json is broken: \"fps\" is 50"));
	free(path);
}

/* ---- the brief ----------------------------------------------------------------- */

static char *brief_for(int w, int h, int fps, int revision, int changed)
{
	struct brief_input in = { "Why is the sky blue?", "Rayleigh scattering.", NULL, 0, revision, 15, 6,
				  reply_style_narration(REPLY_STYLE_STE), w, h, fps, changed };
	char *b = brief_write(&in);

	assert_non_null(b);
	return b;
}

static void test_brief_states_canvas(void **state)
{
	char *b;

	(void)state;
	b = brief_for(1920, 1080, 30, 0, 0);
	assert_non_null(strstr(b, "## The canvas\nThe canvas is 1920x1080 (16:9, landscape) at 30 fps. Every scene's "
				  "root is <svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1920 1080\">"));
	assert_non_null(strstr(b, "at least 96 units from the left and right edges and 54 from the top and bottom"));
	assert_null(strstr(b, "tall and narrow"));
	free(b);
	b = brief_for(1080, 1920, 60, 0, 0);
	assert_non_null(strstr(b, "The canvas is 1080x1920 (9:16, vertical, for phones) at 60 fps."));
	assert_non_null(strstr(b, "viewBox=\"0 0 1080 1920\""));
	assert_non_null(strstr(b, "(x 54 to 1026, y 96 to 1824)"));
	assert_non_null(strstr(b, "The frame is tall and narrow"));
	assert_null(strstr(b, "1920 1080"));
	free(b);
	b = brief_for(1080, 1080, 30, 0, 0);
	assert_non_null(strstr(b, "The canvas is 1080x1080 (1:1, square) at 30 fps."));
	assert_non_null(strstr(b, "The frame is square"));
	free(b);
	b = brief_for(1080, 1920, 30, 1, 1);
	assert_non_null(strstr(b, "REVISION"));
	assert_non_null(strstr(b, "The saved video had another size: redraw every scene for this canvas"));
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_canvas_values),
		cmocka_unit_test_setup_teardown(test_manifest_keys, fx_folder_make, fx_folder_remove),
		cmocka_unit_test(test_fit_at_60),
		cmocka_unit_test_setup_teardown(test_script_keys, fx_folder_make, fx_folder_remove),
		cmocka_unit_test_setup_teardown(test_workdir_canvas, fx_folder_make, fx_folder_remove),
		cmocka_unit_test(test_tool_arguments),
		cmocka_unit_test_setup_teardown(test_revision_keeps_canvas, fx_folder_make, fx_folder_remove),
		cmocka_unit_test(test_brief_states_canvas),
	};
	return ck_run_group_tests(tests, fx_explainer_setup, fx_explainer_teardown);
}
