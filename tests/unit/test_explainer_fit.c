/*
 * test_explainer_fit - scenes fitted to their narration, the 30-120 s
 * gate and its sentence, and the timeline that maps a scene's animations
 * onto its fitted length.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "../../renderer/fit.h"
#include "../../renderer/folder.h"

static void test_narrated_scene_lasts_its_narration_and_a_pause(void **state)
{
	struct fit_scene v[] = { { "a.svg", 8, 9.37, 0 }, { "b.svg", 6, 0, 0 }, { "c.svg", 12, 4.0, 0 } };

	(void)state;
	double total = fit_scenes(v, 3, 30);
	/* 9.87 s up to whole frames: 297 frames. */
	assert_true(fabs(v[0].duration - 297.0 / 30) < 1e-9);
	assert_true(fabs(v[1].duration - 6) < 1e-9);  /* silent: as written */
	assert_true(fabs(v[2].duration - 4.5) < 1e-9); /* shorter than written */
	assert_true(fabs(total - (297.0 / 30 + 6 + 4.5)) < 1e-9);
}

static void test_gate_passes_30_to_120_seconds(void **state)
{
	struct fit_scene v[] = { { "a.svg", 10, 14.5, 0 }, { "b.svg", 10, 14.5, 0 } };
	char why[512] = "";

	(void)state;
	fit_scenes(v, 2, 30); /* exactly 30 s */
	assert_int_equal(fit_gate(v, 2, why, sizeof why), 0);
	v[0].narration = 104.5;
	fit_scenes(v, 2, 30); /* exactly 120 s */
	assert_int_equal(fit_gate(v, 2, why, sizeof why), 0);
}

static void test_gate_names_each_length_to_one_decimal(void **state)
{
	struct fit_scene v[] = { { "01-intro.svg", 10, 61.23, 0 }, { "02-how.svg", 20, 0, 0 },
				 { "03-end.svg", 5, 49.0, 0 } };
	char why[1024];

	(void)state;
	fit_scenes(v, 3, 30);
	assert_int_equal(fit_gate(v, 3, why, sizeof why), -1);
	assert_string_equal(why, "The narrated video lasts 131.2 s; it must last 30 to 120 s. By scene: "
				 "1 01-intro.svg 61.7 s (narration 61.2 s); 2 02-how.svg 20.0 s (silent); "
				 "3 03-end.svg 49.5 s (narration 49.0 s); Shorten the narration and finish again.");
	v[0].narration = 3;
	v[2].narration = 3;
	fit_scenes(v, 3, 30);
	assert_int_equal(fit_gate(v, 3, why, sizeof why), -1);
	assert_non_null(strstr(why, "lasts 27.0 s"));
	assert_non_null(strstr(why, "Lengthen the narration"));
}

static void test_gate_sentence_is_cut_not_overrun(void **state)
{
	struct fit_scene v[] = { { "a-very-long-scene-name.svg", 10, 200, 0 } };
	char why[40];

	(void)state;
	fit_scenes(v, 1, 30);
	memset(why, 'x', sizeof why);
	assert_int_equal(fit_gate(v, 1, why, sizeof why), -1);
	assert_int_equal(strlen(why), sizeof why - 1);
}

static void test_timeline_maps_animations_onto_the_duration(void **state)
{
	struct explainer_scene s;

	(void)state;
	memset(&s, 0, sizeof s);
	s.duration = 12;
	s.timeline = 8;   /* written for 8 s, fitted to 12 s */
	assert_true(fabs(explainer_scene_time(&s, 6) - 4) < 1e-9);  /* halfway stays halfway */
	assert_true(fabs(explainer_scene_time(&s, 12) - 8) < 1e-9);
	s.timeline = 12;
	assert_true(fabs(explainer_scene_time(&s, 5) - 5) < 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_narrated_scene_lasts_its_narration_and_a_pause),
		cmocka_unit_test(test_gate_passes_30_to_120_seconds),
		cmocka_unit_test(test_gate_names_each_length_to_one_decimal),
		cmocka_unit_test(test_gate_sentence_is_cut_not_overrun),
		cmocka_unit_test(test_timeline_maps_animations_onto_the_duration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
