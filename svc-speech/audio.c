/*
 * audio - the format of Gemini's audio, resampling, and the verdicts on
 * an answer.  Every way an answer can hold no usable audio gets its own
 * sentence, because the person who reads the tool error has to decide
 * whether to try again.
 */
#include "audio.h"

#include <ctype.h>
#include <samplerate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int speech_pcm_format(const char *mime, long *rate, int *channels)
{
	char buf[256], *p, *save = NULL;
	int first = 1;

	*rate = SPEECH_RATE;
	*channels = 1;
	if (!mime || strlen(mime) >= sizeof buf)
		return -1;
	strcpy(buf, mime);
	for (p = strtok_r(buf, ";", &save); p; p = strtok_r(NULL, ";", &save), first = 0) {
		char *end;

		while (isspace((unsigned char)*p))
			p++;
		for (end = p + strlen(p); end > p && isspace((unsigned char)end[-1]);)
			*--end = '\0';
		if (first) {
			if (strcasecmp(p, "audio/l16") != 0 && strcasecmp(p, "audio/pcm") != 0)
				return -1;
		} else if (strncasecmp(p, "rate=", 5) == 0) {
			*rate = strtol(p + 5, &end, 10);
			if (*end || *rate < 4000 || *rate > 192000)
				return -1;
		} else if (strncasecmp(p, "channels=", 9) == 0) {
			*channels = (int)strtol(p + 9, &end, 10);
			if (*end || *channels < 1)
				return -1;
		} else if (strncasecmp(p, "codec=", 6) == 0 && strcasecmp(p + 6, "pcm") != 0) {
			return -1;
		}
	}
	return first ? -1 : 0;
}

int speech_resample(const int16_t *in, size_t n, long from_rate, int16_t **out, size_t *outn, char *err,
		    size_t errlen)
{
	double ratio = (double)SPEECH_RATE / (double)from_rate;
	size_t cap = (size_t)((double)n * ratio) + 64;
	float *fin = malloc((n ? n : 1) * sizeof *fin), *fout = malloc(cap * sizeof *fout);
	SRC_DATA d;
	int rc;

	*out = NULL;
	if (!fin || !fout || !(*out = malloc(cap * sizeof **out))) {
		snprintf(err, errlen, "out of memory while resampling");
		goto fail;
	}
	src_short_to_float_array(in, fin, (int)n);
	memset(&d, 0, sizeof d);
	d.data_in = fin;
	d.input_frames = (long)n;
	d.data_out = fout;
	d.output_frames = (long)cap;
	d.src_ratio = ratio;
	if ((rc = src_simple(&d, SRC_SINC_FASTEST, 1)) != 0) {
		snprintf(err, errlen, "cannot resample from %ld Hz: %s", from_rate, src_strerror(rc));
		goto fail;
	}
	src_float_to_short_array(fout, *out, (int)d.output_frames_gen);
	*outn = (size_t)d.output_frames_gen;
	free(fin);
	free(fout);
	return 0;
fail:
	free(*out);
	*out = NULL;
	free(fin);
	free(fout);
	return -1;
}

enum speech_audio_result speech_audio_part_type(const char *mime, size_t prev_n, long prev_rate, long *rate,
						char *err, size_t errlen)
{
	int channels;

	if (speech_pcm_format(mime, rate, &channels) < 0 || channels != 1) {
		snprintf(err, errlen, "Gemini sent the audio as \"%.100s\", not as 16-bit mono PCM, so it cannot "
			 "be stitched into a WAV file", mime ? mime : "(no type)");
		return SPEECH_AUDIO_FAIL;
	}
	if (prev_n && *rate != prev_rate) {
		snprintf(err, errlen, "Gemini sent one answer at two sample rates (%ld and %ld Hz)", prev_rate, *rate);
		return SPEECH_AUDIO_FAIL;
	}
	return SPEECH_AUDIO_OK;
}

enum speech_audio_result speech_audio_none(const char *block, const char *finish, int text_seen, char *err,
					   size_t errlen)
{
	if (block) {
		snprintf(err, errlen, "Gemini blocked the text (%.60s)", block);
		return SPEECH_AUDIO_FAIL;
	}
	if (finish && (strcmp(finish, "SAFETY") == 0 || strcmp(finish, "PROHIBITED_CONTENT") == 0 ||
		       strcmp(finish, "BLOCKLIST") == 0 || strcmp(finish, "SPII") == 0)) {
		snprintf(err, errlen, "Gemini refused to speak the text (finishReason %.60s)", finish);
		return SPEECH_AUDIO_FAIL;
	}
	snprintf(err, errlen, "%s", text_seen ? "Gemini answered with text instead of audio"
					      : "Gemini's answer holds no audio");
	return SPEECH_AUDIO_RETRY;
}

int speech_audio_to_rate(struct speech_audio *a, char *err, size_t errlen)
{
	int16_t *s;
	size_t n;

	if (a->source_rate == SPEECH_RATE)
		return 0;
	if (speech_resample(a->samples, a->n, a->source_rate, &s, &n, err, errlen) < 0) {
		free(a->samples);
		a->samples = NULL;
		a->n = 0;
		return -1;
	}
	free(a->samples);
	a->samples = s;
	a->n = n;
	return 0;
}
