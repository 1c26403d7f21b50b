/*
 * audio - the sound in a TTS answer, as 24 kHz mono 16-bit samples.
 *
 * Gemini sends headerless 16-bit little-endian PCM in
 * candidates[0].content.parts[].inlineData, base64 encoded, with a mimeType
 * whose spelling varies by model ("audio/L16;codec=pcm;rate=24000",
 * "audio/l16; rate=24000; channels=1").  A part at another rate is
 * resampled (libsamplerate); anything that is not 16-bit mono PCM fails
 * clearly, since stitching it would produce noise.
 *
 * The answer itself is read as it arrives (answer.c); the verdicts here
 * are the sentences a person reads when an answer holds no usable audio,
 * kept in one place so that every reader of an answer words them alike.
 */
#ifndef SPEECH_AUDIO_H
#define SPEECH_AUDIO_H

#include <stddef.h>
#include <stdint.h>

#define SPEECH_RATE 24000

/* The sentences of two verdicts that the base64 decoder reaches. */
#define SPEECH_AUDIO_NOT_BASE64 "Gemini's audio data is not valid base64"
#define SPEECH_AUDIO_ODD_BYTES "Gemini's audio is an odd number of bytes, so not 16-bit samples"
#define SPEECH_AUDIO_NO_MEMORY "out of memory while decoding the audio"

struct speech_audio {
	int16_t *samples;  /* malloc'd, at SPEECH_RATE */
	size_t n;
	long source_rate;  /* the rate Gemini sent */
};

enum speech_audio_result {
	SPEECH_AUDIO_OK,
	SPEECH_AUDIO_RETRY,  /* no audio this time (text instead, empty, broken): ask again */
	SPEECH_AUDIO_FAIL,   /* blocked, or audio we cannot use */
};

/* 0 when mime names 16-bit PCM, with its rate (24000 when unsaid) and
 * channels (1 when unsaid); -1 otherwise. */
int speech_pcm_format(const char *mime, long *rate, int *channels);
/* n samples at from_rate to SPEECH_RATE; *out malloc'd.  0 or -1 with err. */
int speech_resample(const int16_t *in, size_t n, long from_rate, int16_t **out, size_t *outn, char *err,
		    size_t errlen);

/* The type of one inlineData part (mime NULL when it has no string
 * mimeType), judged against the parts before it (prev_n samples at
 * prev_rate): SPEECH_AUDIO_OK with *rate, or SPEECH_AUDIO_FAIL with err. */
enum speech_audio_result speech_audio_part_type(const char *mime, size_t prev_n, long prev_rate, long *rate,
						char *err, size_t errlen);
/* Why an answer without audio has none, from promptFeedback.blockReason
 * and candidates[0].finishReason (NULL when absent) and whether a part
 * held text. */
enum speech_audio_result speech_audio_none(const char *block, const char *finish, int text_seen, char *err,
					   size_t errlen);
/* Bring a's samples to SPEECH_RATE when Gemini sent another rate.  0, or
 * -1 with err (a's samples are then freed). */
int speech_audio_to_rate(struct speech_audio *a, char *err, size_t errlen);

#endif
