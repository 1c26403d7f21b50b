/*
 * test_speech_answer - the streaming reader of Gemini's TTS answer
 * (svc-speech/answer.c, pcm_b64.c): the same samples and the same verdict
 * whatever the pieces the answer arrives in (one byte at a time, every
 * split point, random ones), for escapes, blanks, field orders, several
 * parts, repeated keys; bad base64, truncated and oversized answers.
 *
 * The two references the reader is held to are test_speech_answer_refs.c's;
 * the helpers both use are speech_answer_rig.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "../../svc-speech/answer.h"
#include "../../svc-speech/audio.h"
#include "base64.h"
#include "gemini.h"

#include "speech_answer_rig.h"

static void test_every_split_point(void **state)
{
	char *text = audio_answer(301, 1), err[512]; /* 301 samples: 602 bytes, a padded end */
	size_t len = strlen(text);
	struct speech_audio a;

	(void)state;
	expect_audio(text, 301, 1);
	for (size_t k = 0; k <= len; k++) {
		size_t cuts[1] = { k };
		if (read_cut(text, len, cuts, 1, SPEECH_ANSWER_MAX, &a, err, sizeof err) != SPEECH_AUDIO_OK)
			fail_msg("cut at %zu: %s", k, err);
		expect_samples(&a, 301, 1);
		free(a.samples);
	}
	free(text);
}

static void test_random_split_points(void **state)
{
	uint64_t seed = 0x5eed5eed;
	char *text = audio_answer(24000, 2), err[512]; /* one second: 64 KB of JSON */
	size_t len = strlen(text), cuts[64];
	struct speech_audio a;

	(void)state;
	for (int round = 0; round < 200; round++) {
		size_t n = 1 + rnd(&seed) % 63;
		for (size_t i = 0; i < n; i++)
			cuts[i] = rnd(&seed) % (len + 1);
		for (size_t i = 1; i < n; i++) /* ascending (insertion sort) */
			for (size_t k = i; k > 0 && cuts[k - 1] > cuts[k]; k--) {
				size_t t = cuts[k];
				cuts[k] = cuts[k - 1];
				cuts[k - 1] = t;
			}
		if (read_cut(text, len, cuts, n, SPEECH_ANSWER_MAX, &a, err, sizeof err) != SPEECH_AUDIO_OK)
			fail_msg("round %d: %s", round, err);
		expect_samples(&a, 24000, 2);
		free(a.samples);
	}
	free(text);
}

static void test_escapes(void **state)
{
	char *data = b64_of(100, 3), esc[2000], *o = esc;
	struct buf b = { 0 };

	(void)state;
	/* '/' written as "\/", 'A' as "\u0041": jansson read them as the characters. */
	for (const char *c = data; *c; c++) {
		if (*c == '/')
			o += sprintf(o, "\\/");
		else if (*c == 'A')
			o += sprintf(o, "\\u0041");
		else
			*o++ = *c;
	}
	*o = '\0';
	assert_true(strchr(data, '/') || strchr(data, 'A'));
	put(&b, "{\"candid\\u0061tes\":[{\"content\":{\"parts\":[{\"inline\\u0044ata\":{\"mimeType\":\"audio\\/L16;rate=24000\","
		"\"data\":\"%s\"}}]}}],\"note\":\"\\\"quoted\\\" \\\\ \\n \\ud83d\\ude00 \\u00e9 caf\xc3\xa9\"}", esc);
	expect_audio(b.s, 100, 3);
	free(b.s);
	/* An escape that is not base64 once read: a blank, a newline. */
	b = (struct buf){ 0 };
	put(&b, "{\"candidates\":[{\"content\":{\"parts\":[{\"inlineData\":{\"mimeType\":\"audio/L16\","
		"\"data\":\"AAAA\\nAAAA\"}}]}}]}");
	expect_verdict(b.s, SPEECH_AUDIO_RETRY, SPEECH_AUDIO_NOT_BASE64);
	free(b.s);
	free(data);
}

static void test_blanks(void **state)
{
	char *data = b64_of(200, 4);
	struct buf b = { 0 };

	(void)state;
	put(&b, " \r\n\t{ \"candidates\" :\n [\n  {\r\n   \"content\" : {\t\"parts\" : [ { \"inlineData\" :\n"
		"{ \"mimeType\" : \"audio/L16; codec=pcm; rate=24000\" ,\n \"data\" : \"%s\" } } ] } ,"
		" \"finishReason\" : \"STOP\" } ] , \"usageMetadata\" : { \"totalTokenCount\" : 56 } } \n\r\t ", data);
	expect_audio(b.s, 200, 4);
	free(b.s);
	free(data);
}

static void test_field_orders(void **state)
{
	char *data = b64_of(150, 5);
	struct buf b = { 0 };

	(void)state;
	/* data before mimeType, finishReason before content, the answer's
	 * other fields first, numbers of every form around. */
	put(&b, "{\"usageMetadata\":{\"promptTokenCount\":8,\"x\":[1,-2,3.5,-0.25e-3,1E+2,true,false,null,{}]},"
		"\"candidates\":[{\"finishReason\":\"STOP\",\"index\":0,\"content\":{\"parts\":[{\"inlineData\":"
		"{\"data\":\"%s\",\"mimeType\":\"audio/l16; rate=24000; channels=1\"}}],\"role\":\"model\"}}],"
		"\"promptFeedback\":{\"safetyRatings\":[]}}", data);
	expect_audio(b.s, 150, 5);
	free(b.s);
	free(data);
}

static void test_several_parts(void **state)
{
	char *d1 = b64_of(100, 6), *d2 = b64_of(100, 6);
	struct buf b = { 0 };
	struct speech_audio a;
	char err[512];

	(void)state;
	put(&b, "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"(breath)\"},{\"inlineData\":{\"mimeType\":"
		"\"audio/L16;rate=24000\",\"data\":\"%s\"}},{\"inlineData\":{\"mimeType\":\"audio/L16;rate=24000\","
		"\"data\":\"%s\"}}]}}]}", d1, d2);
	assert_int_equal(read_bytewise(b.s, b.n, &a, err, sizeof err), SPEECH_AUDIO_OK);
	assert_int_equal(a.n, 200);
	for (size_t i = 0; i < 100; i++) {
		assert_int_equal(a.samples[i], sample_at(i, 6));
		assert_int_equal(a.samples[100 + i], sample_at(i, 6));
	}
	free(a.samples);
	free(b.s);

	/* Two rates in one answer; a second part that is not PCM. */
	b = (struct buf){ 0 };
	put(&b, "{\"candidates\":[{\"content\":{\"parts\":[{\"inlineData\":{\"mimeType\":\"audio/L16;rate=24000\","
		"\"data\":\"%s\"}},{\"inlineData\":{\"mimeType\":\"audio/L16;rate=16000\",\"data\":\"%s\"}}]}}]}", d1, d2);
	expect_verdict(b.s, SPEECH_AUDIO_FAIL, "Gemini sent one answer at two sample rates (24000 and 16000 Hz)");
	free(b.s);
	b = (struct buf){ 0 };
	put(&b, "{\"candidates\":[{\"content\":{\"parts\":[{\"inlineData\":{\"mimeType\":\"audio/L16\","
		"\"data\":\"%s\"}},{\"inlineData\":{\"data\":\"%s\",\"mimeType\":\"audio/mpeg\"}}]}}]}", d1, d2);
	expect_verdict(b.s, SPEECH_AUDIO_FAIL, "Gemini sent the audio as \"audio/mpeg\", not as 16-bit mono PCM");
	free(b.s);
	/* Only the first candidate counts. */
	b = (struct buf){ 0 };
	put(&b, "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"no\"}]}},{\"content\":{\"parts\":"
		"[{\"inlineData\":{\"mimeType\":\"audio/L16\",\"data\":\"%s\"}}]}}]}", d1);
	expect_verdict(b.s, SPEECH_AUDIO_RETRY, "Gemini answered with text instead of audio");
	free(b.s);
	free(d1);
	free(d2);
}

static void test_repeated_keys(void **state)
{
	char *d1 = b64_of(50, 7), *d2 = b64_of(80, 8);
	struct buf b = { 0 };

	(void)state;
	/* jansson kept the later of two equal keys: so does the reader. */
	put(&b, "{\"candidates\":[{\"content\":{\"parts\":[{\"inlineData\":{\"mimeType\":\"audio/mpeg\",\"data\":\"%s\","
		"\"mimeType\":\"audio/L16\",\"data\":\"%s\"}}]}}]}", d1, d2);
	expect_audio(b.s, 80, 8);
	free(b.s);
	b = (struct buf){ 0 };
	put(&b, "{\"candidates\":[{\"content\":{\"parts\":[{\"inlineData\":{\"mimeType\":\"audio/L16\",\"data\":\"@@\"},"
		"\"inlineData\":{\"mimeType\":\"audio/L16\",\"data\":\"%s\"}}]}}],\"candidates\":[{\"content\":{\"parts\":"
		"[{\"inlineData\":{\"mimeType\":\"audio/L16\",\"data\":\"%s\"}}]}}]}", d1, d2);
	expect_audio(b.s, 80, 8);
	free(b.s);
	b = (struct buf){ 0 };
	put(&b, "{\"candidates\":[{\"content\":{\"parts\":[{\"inlineData\":{\"mimeType\":\"audio/L16\",\"data\":\"%s\"}}],"
		"\"parts\":[]}}]}", d1);
	expect_verdict(b.s, SPEECH_AUDIO_RETRY, "Gemini's answer holds no audio");
	free(b.s);
	free(d1);
	free(d2);
}

static void test_bad_base64(void **state)
{
	static const struct {
		const char *data;
		const char *why;
	} cases[] = {
		{ "AAAA@AAA", SPEECH_AUDIO_NOT_BASE64 },
		{ "AAAA AAA", SPEECH_AUDIO_NOT_BASE64 },
		{ "AA=A", SPEECH_AUDIO_NOT_BASE64 },     /* '=' inside */
		{ "AAAAAA===", SPEECH_AUDIO_NOT_BASE64 }, /* three at the end */
		{ "AAAAA", SPEECH_AUDIO_NOT_BASE64 },    /* one character cannot carry a byte */
		{ "AAAAA=", SPEECH_AUDIO_NOT_BASE64 },
		{ "AAAA-_AA", SPEECH_AUDIO_NOT_BASE64 }, /* the URL alphabet */
		{ "AAAAAAA=", SPEECH_AUDIO_ODD_BYTES },  /* five bytes */
		{ "AAAA", SPEECH_AUDIO_ODD_BYTES },      /* three */
		{ "AA", SPEECH_AUDIO_ODD_BYTES },        /* one, unpadded */
	};
	struct buf b = { 0 };
	struct speech_audio a;
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		b.n = 0;
		put(&b, "{\"candidates\":[{\"content\":{\"parts\":[{\"inlineData\":{\"mimeType\":\"audio/L16\",\"data\":\"%s\"}}]}}]}",
		    cases[i].data);
		expect_verdict(b.s, SPEECH_AUDIO_RETRY, cases[i].why);
	}
	/* Lenient where the old decoder was: the count of '=' is not checked. */
	for (int pads = 0; pads <= 2; pads++) {
		b.n = 0;
		put(&b, "{\"candidates\":[{\"content\":{\"parts\":[{\"inlineData\":{\"mimeType\":\"audio/L16\","
			"\"data\":\"AAAAAA%.*s\"}}]}}]}", pads, "==");
		assert_int_equal(read_bytewise(b.s, b.n, &a, err, sizeof err), SPEECH_AUDIO_OK);
		assert_int_equal(a.n, 2); /* 4 bytes */
		assert_int_equal(a.samples[0], 0);
		assert_int_equal(a.samples[1], 0);
		free(a.samples);
	}
	free(b.s);
	/* No data, or not a string: what the old reader said. */
	expect_verdict("{\"candidates\":[{\"content\":{\"parts\":[{\"inlineData\":{\"mimeType\":\"audio/L16\"}}]}}]}",
		       SPEECH_AUDIO_RETRY, SPEECH_AUDIO_NOT_BASE64);
	expect_verdict("{\"candidates\":[{\"content\":{\"parts\":[{\"inlineData\":{\"mimeType\":\"audio/L16\",\"data\":7}}]}}]}",
		       SPEECH_AUDIO_RETRY, SPEECH_AUDIO_NOT_BASE64);
	expect_verdict("{\"candidates\":[{\"content\":{\"parts\":[{\"inlineData\":\"x\"}]}}]}", SPEECH_AUDIO_FAIL,
		       "Gemini sent the audio as \"(no type)\"");
}

static void test_truncated(void **state)
{
	char *text = audio_answer(40, 9), err[512];
	size_t len = strlen(text);
	struct speech_audio a;

	(void)state;
	for (size_t k = 0; k < len; k++) {
		assert_int_equal(read_cut(text, k, NULL, 0, SPEECH_ANSWER_MAX, &a, err, sizeof err), SPEECH_AUDIO_RETRY);
		assert_string_equal(err, NOT_JSON);
		assert_null(a.samples);
	}
	free(text);
	expect_verdict("", SPEECH_AUDIO_RETRY, NOT_JSON);
	expect_verdict("{}garbage", SPEECH_AUDIO_RETRY, NOT_JSON);
	expect_verdict("[{\"candidates\":[]}]", SPEECH_AUDIO_RETRY, NOT_JSON);
}

static void test_oversized(void **state)
{
	char *text = audio_answer(2000, 10), err[512], want[80];
	size_t len = strlen(text);
	struct speech_answer *r;
	struct speech_audio a;

	(void)state;
	snprintf(want, sizeof want, "Gemini's answer is larger than %zu bytes", len - 1);
	/* One byte over the limit: the reader says stop, and why. */
	assert_non_null(r = speech_answer_new(len - 1));
	assert_int_equal(speech_answer_feed(r, text, len - 100), 0);
	assert_int_equal(speech_answer_feed(r, text + len - 100, 100), -1);
	assert_int_equal(speech_answer_feed(r, "", 0), -1); /* and keeps saying it */
	assert_int_equal(speech_answer_end(r, &a, err, sizeof err), SPEECH_AUDIO_FAIL);
	assert_string_equal(err, want);
	assert_null(a.samples);
	speech_answer_free(r);
	/* Exactly at the limit is fine. */
	assert_non_null(r = speech_answer_new(len));
	assert_int_equal(speech_answer_feed(r, text, len), 0);
	assert_int_equal(speech_answer_end(r, &a, err, sizeof err), SPEECH_AUDIO_OK);
	free(a.samples);
	speech_answer_free(r);
	free(text);
	/* The service's limit is the shared client's, 64 MiB, said so. */
	assert_int_equal(SPEECH_ANSWER_MAX, 64u << 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_split_point),
		cmocka_unit_test(test_random_split_points),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_blanks),
		cmocka_unit_test(test_field_orders),
		cmocka_unit_test(test_several_parts),
		cmocka_unit_test(test_repeated_keys),
		cmocka_unit_test(test_bad_base64),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_oversized),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
