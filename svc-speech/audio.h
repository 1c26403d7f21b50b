/*
 * audio - the sound in a TTS answer, as 24 kHz mono 16-bit samples.
 *
 * Gemini sends headerless 16-bit little-endian PCM in
 * candidates[0].content.parts[].inlineData, base64 encoded, with a mimeType
 * whose spelling varies by model ("audio/L16;codec=pcm;rate=24000",
 * "audio/l16; rate=24000; channels=1").  A part at another rate is
 * resampled (libsamplerate); anything that is not 16-bit mono PCM fails
 * clearly, since stitching it would produce noise.
 */
#ifndef SPEECH_AUDIO_H
#define SPEECH_AUDIO_H

#include <stddef.h>
#include <stdint.h>

#include "gemini.h"

#define SPEECH_RATE 24000

struct speech_audio {
	int16_t *samples;  /* malloc'd, at SPEECH_RATE */
	size_t n;
	long source_rate;  /* the rate Gemini sent */
};

enum speech_audio_result {
	SPEECH_AUDIO_OK,
	SPEECH_AUDIO_RETRY,  /* no audio this time (text instead, empty): ask again */
	SPEECH_AUDIO_FAIL,   /* blocked, or audio we cannot use */
};

enum speech_audio_result speech_audio_from_answer(const struct hb_gemini_reply *reply, struct speech_audio *out,
						  char *err, size_t errlen);
/* 0 when mime names 16-bit PCM, with its rate (24000 when unsaid) and
 * channels (1 when unsaid); -1 otherwise. */
int speech_pcm_format(const char *mime, long *rate, int *channels);
/* n samples at from_rate to SPEECH_RATE; *out malloc'd.  0 or -1 with err. */
int speech_resample(const int16_t *in, size_t n, long from_rate, int16_t **out, size_t *outn, char *err,
		    size_t errlen);

#endif
