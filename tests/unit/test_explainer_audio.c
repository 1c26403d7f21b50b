/*
 * test_explainer_audio - the explainer's sound track: exactly 1600 samples
 * per frame, each scene's narration resampled in place (sample 2i is
 * source sample i) from the scene's first frame, exact silence after it,
 * nothing outside [-1, 1], and a sentence for narration longer than its
 * scene and for impossible parts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../renderer/soundtrack.h"

#define NARRATION_RATE 24000

/* 24 kHz narration: a 440 Hz sine at half scale. */
static int16_t *sine(size_t n)
{
	int16_t *s = malloc(n * sizeof *s);

	assert_non_null(s);
	for (size_t i = 0; i < n; i++)
		s[i] = (int16_t)lrint(16384.0 * sin(2 * M_PI * 440.0 * (double)i / NARRATION_RATE));
	return s;
}

static void test_track_layout(void **state)
{
	int16_t *speech = sine(12000), *full = sine(8000);
	struct audio_part parts[3] = { { speech, 12000, 30 }, { NULL, 0, 15 }, { full, 8000, 10 } };
	float *t;
	size_t n;
	char err[256];
	double energy = 0;

	(void)state;
	assert_int_equal(audio_track(parts, 3, 30, &t, &n, err, sizeof err), 0);
	assert_int_equal(n, (size_t)55 * 1600);
	/* The resampled narration lines up with its source: sample 2i is
	 * source sample i (away from the edges, where the filter starts). */
	for (size_t i = 2000; i < 10000; i++)
		assert_true(fabsf(t[2 * i] - (float)speech[i] / 32768.0f) < 1e-3f);
	/* Silence from the end of the narration to the end of scene 2. */
	for (size_t i = 24000; i < 45 * 1600; i++)
		if (t[i] != 0.0f)
			fail_msg("sample %zu is %g, not silence", i, (double)t[i]);
	/* Scene 3 is filled to its last sample by narration that fits exactly. */
	for (size_t i = 45 * 1600; i < n; i++)
		energy += (double)t[i] * t[i];
	assert_true(sqrt(energy / (10 * 1600)) > 0.3); /* a half-scale sine: 0.354 */
	free(t);
	free(speech);
	free(full);
}

static void test_track_clamped(void **state)
{
	int16_t square[4800];
	struct audio_part part = { square, 4800, 10 };
	float *t, max = 0;
	size_t n;
	char err[256];

	(void)state;
	/* A full-scale square wave: the sinc filter rings past full scale. */
	for (size_t i = 0; i < 4800; i++)
		square[i] = (i / 60) % 2 ? INT16_MAX : INT16_MIN;
	assert_int_equal(audio_track(&part, 1, 30, &t, &n, err, sizeof err), 0);
	for (size_t i = 0; i < n; i++)
		max = fabsf(t[i]) > max ? fabsf(t[i]) : max;
	assert_true(max == 1.0f);
	free(t);
}

static void test_track_errors(void **state)
{
	int16_t *speech = sine(8001);
	struct audio_part too_long[2] = { { NULL, 0, 5 }, { speech, 8001, 10 } };
	struct audio_part negative = { NULL, 0, -1 }, no_data = { NULL, 10, 10 }, empty = { NULL, 0, 0 };
	float *t = (float *)1;
	size_t n = 1;
	char err[256];

	(void)state;
	assert_int_equal(audio_track(too_long, 2, 30, &t, &n, err, sizeof err), -1);
	assert_null(t);
	assert_int_equal(n, 0);
	assert_string_equal(err, "the narration of scene 2 lasts 0.3334 s (8001 samples at 24 kHz), longer than "
				 "the scene's 10 frames (0.3333 s)");
	too_long[1].n = 8000; /* exactly the scene's length fits */
	assert_int_equal(audio_track(too_long, 2, 30, &t, &n, err, sizeof err), 0);
	assert_int_equal(n, (size_t)15 * 1600);
	free(t);
	assert_int_equal(audio_track(&negative, 1, 30, &t, &n, err, sizeof err), -1);
	assert_non_null(strstr(err, "impossible length of -1 frames"));
	assert_int_equal(audio_track(&no_data, 1, 30, &t, &n, err, sizeof err), -1);
	assert_non_null(strstr(err, "no data"));
	assert_int_equal(audio_track(&empty, 1, 30, &t, &n, err, sizeof err), -1);
	assert_non_null(strstr(err, "no frames"));
	assert_int_equal(audio_track(NULL, 0, 30, &t, &n, err, sizeof err), -1);
	free(speech);
}

/* At 60 fps a frame is 800 samples: the same narration needs twice the
 * frames, and a rate without whole samples a frame is refused. */
static void test_track_60fps(void **state)
{
	int16_t *speech = sine(8000);
	struct audio_part parts[2] = { { NULL, 0, 10 }, { speech, 8000, 20 } };
	float *t = NULL;
	size_t n = 0;
	char err[256];

	(void)state;
	assert_int_equal(audio_track(parts, 2, 60, &t, &n, err, sizeof err), 0);
	assert_int_equal(n, (size_t)30 * 800);
	for (size_t i = 0; i < 10 * 800; i++)
		assert_true(t[i] == 0.0f); /* the silent scene */
	assert_true(fabsf(t[10 * 800 + 200]) > 0.01f); /* speech starts on scene 2's first frame */
	free(t);
	parts[1].frames = 19; /* 0.3167 s: too short for 0.3333 s of speech */
	assert_int_equal(audio_track(parts, 2, 60, &t, &n, err, sizeof err), -1);
	assert_non_null(strstr(err, "longer than the scene's 19 frames (0.3167 s)"));
	assert_int_equal(audio_track(parts, 2, 59, &t, &n, err, sizeof err), -1);
	assert_non_null(strstr(err, "59 fps"));
	free(speech);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_track_layout),
		cmocka_unit_test(test_track_clamped),
		cmocka_unit_test(test_track_errors),
		cmocka_unit_test(test_track_60fps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
