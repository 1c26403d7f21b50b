/*
 * speech_answer_rig - see speech_answer_rig.h.
 */
#include "speech_answer_rig.h"

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


/* A small deterministic generator (xorshift64*), state passed around. */
uint32_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (uint32_t)((*s * 2685821657736338717ull) >> 32);
}

void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int k;

	for (;;) {
		va_start(ap, fmt);
		k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
		va_end(ap);
		assert_true(k >= 0);
		if (b->s && (size_t)k < b->cap - b->n)
			break;
		b->cap = (b->cap + (size_t)k + 64) * 2;
		assert_non_null(b->s = realloc(b->s, b->cap));
	}
	b->n += (size_t)k;
}

int16_t sample_at(size_t i, int seed)
{
	return (int16_t)(uint16_t)((i * 2654435761u + (unsigned)seed * 40503u) >> 11);
}

/* n samples (of pattern seed) as base64, padded. */
char *b64_of(size_t n, int seed)
{
	unsigned char *bytes = malloc(n * 2 + 1);
	char *out;

	assert_non_null(bytes);
	for (size_t i = 0; i < n; i++) {
		uint16_t v = (uint16_t)sample_at(i, seed);
		bytes[2 * i] = (unsigned char)(v & 0xff);
		bytes[2 * i + 1] = (unsigned char)(v >> 8);
	}
	assert_non_null(out = hb_base64_encode(bytes, n * 2));
	free(bytes);
	return out;
}

/* One answer of one audio part at 24 kHz. */
char *audio_answer(size_t n, int seed)
{
	struct buf b = { 0 };
	char *data = b64_of(n, seed);

	put(&b, "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"inlineData\":{\"mimeType\":"
		"\"audio/L16;codec=pcm;rate=24000\",\"data\":\"%s\"}}]},\"finishReason\":\"STOP\",\"index\":0}],"
		"\"usageMetadata\":{\"promptTokenCount\":8,\"candidatesTokenCount\":48,\"totalTokenCount\":56},"
		"\"modelVersion\":\"gemini-3.1-flash-tts-preview\",\"responseId\":\"r-1\"}", data);
	free(data);
	return b.s;
}

/* Feed text in the pieces that cuts[0..ncuts) (ascending offsets) make;
 * then the verdict.  Bytes after a -1 from feed are not sent, as fetch.c
 * stops the transfer. */
enum speech_audio_result read_cut(const char *text, size_t len, const size_t *cuts, size_t ncuts,
				  size_t max, struct speech_audio *out, char *err, size_t errlen)
{
	struct speech_answer *a = speech_answer_new(max);
	enum speech_audio_result r;
	size_t at = 0;

	assert_non_null(a);
	for (size_t i = 0; i <= ncuts; i++) {
		size_t end = i < ncuts ? cuts[i] : len;
		if (end > at && speech_answer_feed(a, text + at, end - at) < 0)
			break;
		at = end > at ? end : at;
	}
	r = speech_answer_end(a, out, err, errlen);
	speech_answer_free(a);
	return r;
}

enum speech_audio_result read_all(const char *text, size_t len, struct speech_audio *out, char *err,
				  size_t errlen)
{
	return read_cut(text, len, NULL, 0, SPEECH_ANSWER_MAX, out, err, errlen);
}

enum speech_audio_result read_bytewise(const char *text, size_t len, struct speech_audio *out, char *err,
				       size_t errlen)
{
	struct speech_answer *a = speech_answer_new(SPEECH_ANSWER_MAX);
	enum speech_audio_result r;

	assert_non_null(a);
	for (size_t i = 0; i < len; i++)
		if (speech_answer_feed(a, text + i, 1) < 0)
			break;
	r = speech_answer_end(a, out, err, errlen);
	speech_answer_free(a);
	return r;
}

void expect_samples(const struct speech_audio *a, size_t n, int seed)
{
	assert_int_equal(a->n, n);
	for (size_t i = 0; i < n; i++)
		if (a->samples[i] != sample_at(i, seed))
			fail_msg("sample %zu is %d, not %d", i, a->samples[i], sample_at(i, seed));
}

/* text must give n samples of seed, fed in any pieces. */
void expect_audio(const char *text, size_t n, int seed)
{
	struct speech_audio a;
	char err[512];

	if (read_all(text, strlen(text), &a, err, sizeof err) != SPEECH_AUDIO_OK)
		fail_msg("whole: %s", err);
	expect_samples(&a, n, seed);
	free(a.samples);
	if (read_bytewise(text, strlen(text), &a, err, sizeof err) != SPEECH_AUDIO_OK)
		fail_msg("byte by byte: %s", err);
	expect_samples(&a, n, seed);
	free(a.samples);
}

/* text must give verdict r with want in err, fed whole and byte by byte. */
void expect_verdict(const char *text, enum speech_audio_result r, const char *want)
{
	struct speech_audio a;
	char err[512];

	assert_int_equal(read_all(text, strlen(text), &a, err, sizeof err), r);
	if (!strstr(err, want))
		fail_msg("whole: \"%s\" does not say \"%s\"", err, want);
	assert_null(a.samples);
	assert_int_equal(read_bytewise(text, strlen(text), &a, err, sizeof err), r);
	if (!strstr(err, want))
		fail_msg("byte by byte: \"%s\" does not say \"%s\"", err, want);
}
