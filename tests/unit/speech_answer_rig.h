/*
 * speech_answer_rig - what the tests of the streaming reader of Gemini's
 * TTS answer (test_speech_answer.c, test_speech_answer_refs.c) share:
 * a deterministic generator, a growing text buffer, answers with known
 * samples, and the reader fed in pieces (whole, byte by byte, at given
 * cuts) with checks of what it read.
 */
#ifndef TEST_SPEECH_ANSWER_RIG_H
#define TEST_SPEECH_ANSWER_RIG_H

#include <stddef.h>
#include <stdint.h>

#include "../../svc-speech/answer.h"
#include "../../svc-speech/audio.h"

/* What the reader says of a text that is not JSON. */
#define NOT_JSON "Gemini's answer is not a JSON object"

/* A small deterministic generator (xorshift64*), state passed around. */
uint32_t rnd(uint64_t *s);
struct buf {
	char *s;
	size_t n, cap;
};

void put(struct buf *b, const char *fmt, ...);
int16_t sample_at(size_t i, int seed);
/* n samples (of pattern seed) as base64, padded. */
char *b64_of(size_t n, int seed);
/* One answer of one audio part at 24 kHz. */
char *audio_answer(size_t n, int seed);
/* Feed text in the pieces that cuts[0..ncuts) (ascending offsets) make;
 * then the verdict.  Bytes after a -1 from feed are not sent, as fetch.c
 * stops the transfer. */
enum speech_audio_result read_cut(const char *text, size_t len, const size_t *cuts, size_t ncuts,
				  size_t max, struct speech_audio *out, char *err, size_t errlen);
enum speech_audio_result read_all(const char *text, size_t len, struct speech_audio *out, char *err,
				  size_t errlen);
enum speech_audio_result read_bytewise(const char *text, size_t len, struct speech_audio *out, char *err,
				       size_t errlen);
void expect_samples(const struct speech_audio *a, size_t n, int seed);
/* text must give n samples of seed, fed in any pieces. */
void expect_audio(const char *text, size_t n, int seed);
/* text must give verdict r with want in err, fed whole and byte by byte. */
void expect_verdict(const char *text, enum speech_audio_result r, const char *want);

#endif
