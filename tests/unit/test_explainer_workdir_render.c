/*
 * test_explainer_workdir_render - what the explainer worker's tools make
 * of a work folder (svc-explainer/workdir.h): previews (the start and the
 * end frame told apart by their pixels) and the contact sheet as PNG bytes
 * of the right size; a character no font has refused by write_scene and
 * the sheet but drawn by the preview with a warning; calls at once from
 * two threads losing nothing; and the
 * renderer's manifest from the script and real WAVs, accepted by
 * explainer_open, or refused by the 30-120 s gate with its sentence; the
 * script's transitions carried into it, within half of the fitted scenes.
 * Each test works in its own mkdtemp folder (workdir_rig.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cairo.h>
#include <dirent.h>
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

#include "../../renderer/folder.h"
#include "../../renderer/fonts.h"
#include "../../svc-explainer/workdir.h"
#include "../../svc-speech/wav.h"
#include "../harness/group.h"
#include "workdir_rig.h"

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

/* A character no font has: write_scene and the sheet refuse the scene,
 * naming it; the preview draws the frame and names it after the frame's
 * description. */
static void test_uncovered_character(void **state)
{
	static const char pua_svg[] = "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 1920 1080'>\n"
				      "<rect width='1920' height='1080' fill='#fff'/>\n"
				      "<text x='100' y='300' font-size='80'>Pin &#xE000; and &#xE000;</text>\n"
				      "</svg>\n";
	static const char named[] = "pua.svg:3: U+E000 (\xee\x80\x80) is in no installed font; it would be "
				    "drawn as an empty box";
	struct fixture *f = *state;
	struct workdir_answer a;

	a = workdir_write_scene(f->dir, "pua.svg", pua_svg, SAY, 2, 0);
	assert_int_equal(a.ok, 0);
	assert_non_null(strstr(a.text, "scene 1 pua.svg written, but it does not pass the checks"));
	assert_non_null(strstr(a.text, named));
	assert_null(strstr(strstr(a.text, named) + sizeof named - 1, "U+E000")); /* once, not per occurrence */
	workdir_answer_free(&a);
	a = workdir_preview(f->dir, "pua.svg", "start");
	assert_int_equal(a.ok, 1);
	expect_png(&a, 1920, 1080);
	assert_non_null(strstr(a.text, "scene 1 pua.svg at its start: 0 s of 2 s (its first frame); it shows empty "
				       "boxes where a character is in no installed font"));
	assert_non_null(strstr(a.text, named));
	workdir_answer_free(&a);
	a = workdir_sheet(f->dir);
	assert_int_equal(a.ok, 0);
	assert_null(a.png);
	assert_non_null(strstr(a.text, named));
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
	fx_speech_wav(f->dir, "01.wav", 24000 * 12);
	fx_speech_wav(f->dir, "03.wav", 24000 * 172 / 10);
	expect(workdir_manifest(f->dir, seconds, wavs, 2, NULL, &fit), 0, "narration is given for 2 scenes, but the script "
								    "has 3");
	assert_int_equal(fit.n, 0);
	workdir_fit_free(&fit);
	expect(workdir_manifest(f->dir, seconds, wavs, 3, NULL, &fit), 1, "explainer.json written: 3 scenes, 36.2 s "
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

/* The script's transitions reach the manifest, each within half of the
 * scenes as fitted: scene 3 is written for 10 s but narrated in 3, so its
 * 2 s slide becomes 1.75 s (half of its 3.5 s). */
static void test_manifest_transitions(void **state)
{
	struct fixture *f = *state;
	static const double seconds[] = { 25, 0, 3 };
	static const char *const wavs[] = { "01.wav", NULL, "03.wav" };
	const struct transition fade = { TRANSITION_CROSSFADE, 0.8 }, slide = { TRANSITION_SLIDE_UP, 2 };
	struct workdir_fit fit;
	struct problems p = { 0 };
	struct explainer e;

	write_ok(f, "01.svg", ONE_SVG, "One.", 8, 0, "scene 1");
	expect(workdir_write_scene_entering(f->dir, "02.svg", TWO_SVG, "Two.", 6, 0, &fade), 1, "passes the checks");
	expect(workdir_write_scene_entering(f->dir, "03.svg", ONE_SVG, "Three.", 10, 0, &slide), 1,
	       "passes the checks");
	fx_speech_wav(f->dir, "01.wav", 24000 * 25);
	fx_speech_wav(f->dir, "03.wav", 24000 * 3);
	expect(workdir_manifest(f->dir, seconds, wavs, 3, NULL, &fit), 1, "explainer.json written: 3 scenes");
	workdir_fit_free(&fit);
	if (explainer_open(f->dir, &e, &p) < 0) {
		problems_print(&p, stderr);
		fail();
	}
	assert_int_equal(e.scenes[0].transition.type, TRANSITION_CUT);
	assert_int_equal(e.scenes[1].transition.type, TRANSITION_CROSSFADE);
	assert_int_equal(e.scenes[1].transition_frames, 24);
	assert_int_equal(e.scenes[2].transition.type, TRANSITION_SLIDE_UP);
	assert_true(fabs(e.scenes[2].transition.duration - 1.75) < 1e-9);
	assert_int_equal(e.scenes[2].transition_frames, 53);
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
	fx_speech_wav(f->dir, "a.wav", 24000 * 2);
	fx_speech_wav(f->dir, "b.wav", 24000 * 304 / 100);
	expect(workdir_manifest(f->dir, short_seconds, wavs, 2, NULL, &fit), 0,
	       "The narrated video lasts 6.1 s; it must last 30 to 120 s. By scene: 1 a.svg 2.5 s (narration "
	       "2.0 s); 2 b.svg 3.6 s (narration 3.0 s); Lengthen the narration and finish again.");
	assert_int_equal(fit.n, 2); /* the caller learns the lengths all the same */
	assert_true(fabs(fit.total - (2.5 + 3.5667)) < 1e-3);
	workdir_fit_free(&fit);
	assert_false(exists(f->dir, "explainer.json"));

	/* A WAV that is not there: the renderer refuses, nothing stays. */
	static const double seconds[] = { 20, 15 };
	static const char *const missing[] = { "a.wav", "gone.wav" };
	expect(workdir_manifest(f->dir, seconds, missing, 2, NULL, &fit), 0,
	       "the renderer refuses the manifest made from the script and the narration:\nexplainer.json: "
	       "scene 2: \"narration\" names gone.wav, which is not in the folder");
	workdir_fit_free(&fit);
	assert_false(exists(f->dir, "explainer.json"));

	static const double bad_seconds[] = { 20, NAN };
	expect(workdir_manifest(f->dir, bad_seconds, wavs, 2, NULL, &fit), 0, "scene 2 (b.svg): nan s is not a "
									"narration's length");
	workdir_fit_free(&fit);
	static const char *const no_wav[] = { "a.wav", NULL };
	expect(workdir_manifest(f->dir, seconds, no_wav, 2, NULL, &fit), 0, "scene 2 (b.svg) has 15 s of narration but "
								      "no WAV");
	workdir_fit_free(&fit);

	/* A scene that does not pass the checks stops the manifest. */
	expect(workdir_write_scene(f->dir, "b.svg", BAD_SVG, "B.", 9, 0), 0, "does not pass the checks");
	expect(workdir_manifest(f->dir, seconds, wavs, 2, NULL, &fit), 0, "the scenes do not pass the checks:\nb.svg:2: ");
	workdir_fit_free(&fit);
	assert_false(exists(f->dir, "explainer.json"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_preview_start_and_end, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_uncovered_character, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_sheet, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_calls_at_once_lose_nothing, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_manifest, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_manifest_transitions, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_manifest_gate_and_refusals, make_dir, remove_dir),
	};
	return ck_run_group_tests(tests, fx_explainer_setup, fx_explainer_teardown);
}
