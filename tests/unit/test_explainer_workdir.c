/*
 * test_explainer_workdir - the explainer worker's folder and the handlers
 * of its tools (svc-explainer/workdir.h), on a real folder: scenes written,
 * replaced, inserted, moved and removed with script.json following; the
 * script and a scene read back; every problem of a bad scene and of a
 * hand-broken script reported with its file and line; each bad name,
 * narration text, duration and position refused with nothing written; the
 * 30-scene limit.  (Previews, calls at once and the manifest:
 * test_explainer_workdir_render.c.)
 * Each test works in its own mkdtemp folder: ROOT/work is the work folder,
 * so a name that climbs out ("../x.svg") would land in ROOT, where the
 * test looks for it (workdir_rig.h).
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
					      "\"svg\", \"say\", \"duration\" and optionally \"transition\"");
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
	};
	return ck_run_group_tests(tests, fx_explainer_setup, fx_explainer_teardown);
}
