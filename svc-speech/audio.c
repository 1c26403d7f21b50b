/*
 * audio - from a generateContent answer to samples.  Every way an answer
 * can hold no usable audio gets its own sentence, because the person who
 * reads the tool error has to decide whether to try again.
 */
#include "audio.h"

#include <ctype.h>
#include <samplerate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base64.h"

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

/* Little-endian bytes to samples (whatever this machine's byte order). */
static int16_t *samples_from_bytes(const unsigned char *b, size_t n)
{
	int16_t *s = malloc((n ? n : 1) * sizeof *s);

	for (size_t i = 0; s && i < n; i++)
		s[i] = (int16_t)(uint16_t)(b[2 * i] | (unsigned)b[2 * i + 1] << 8);
	return s;
}

/* Decode one inlineData part and append it to out (at its source rate). */
static enum speech_audio_result add_part(const struct hb_gemini_reply *reply, const json_t *inline_data,
					 struct speech_audio *out, char *err, size_t errlen)
{
	const char *mime = json_string_value(json_object_get(inline_data, "mimeType")), *data;
	unsigned char *bytes;
	int16_t *s, *grown;
	size_t len, dlen;
	long rate;
	int channels;

	if (speech_pcm_format(mime, &rate, &channels) < 0 || channels != 1) {
		snprintf(err, errlen, "Gemini sent the audio as \"%.100s\", not as 16-bit mono PCM, so it cannot "
			 "be stitched into a WAV file", mime ? mime : "(no type)");
		return SPEECH_AUDIO_FAIL;
	}
	if (out->n && rate != out->source_rate) {
		snprintf(err, errlen, "Gemini sent one answer at two sample rates (%ld and %ld Hz)", out->source_rate,
			 rate);
		return SPEECH_AUDIO_FAIL;
	}
	if (!(data = hb_gemini_string(reply, json_object_get(inline_data, "data"), &dlen)) ||
	    !(bytes = hb_base64_decode(data, dlen, &len))) {
		snprintf(err, errlen, "Gemini's audio data is not valid base64");
		return SPEECH_AUDIO_RETRY;
	}
	if (len % 2) {
		free(bytes);
		snprintf(err, errlen, "Gemini's audio is an odd number of bytes, so not 16-bit samples");
		return SPEECH_AUDIO_RETRY;
	}
	s = samples_from_bytes(bytes, len / 2);
	free(bytes);
	grown = s ? realloc(out->samples, (out->n + len / 2 + 1) * sizeof *grown) : NULL;
	if (!grown) {
		free(s);
		snprintf(err, errlen, "out of memory while decoding the audio");
		return SPEECH_AUDIO_FAIL;
	}
	memcpy(grown + out->n, s, len / 2 * sizeof *s);
	free(s);
	out->samples = grown;
	out->n += len / 2;
	out->source_rate = rate;
	return SPEECH_AUDIO_OK;
}

/* Why an answer without audio has none. */
static enum speech_audio_result no_audio(const json_t *answer, int text_seen, char *err, size_t errlen)
{
	const json_t *cand = json_array_get(json_object_get(answer, "candidates"), 0);
	const char *block = json_string_value(json_object_get(json_object_get(answer, "promptFeedback"), "blockReason"));
	const char *finish = json_string_value(json_object_get(cand, "finishReason"));

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

enum speech_audio_result speech_audio_from_answer(const struct hb_gemini_reply *reply, struct speech_audio *out,
						  char *err, size_t errlen)
{
	const json_t *answer = reply->body;
	const json_t *cand = json_array_get(json_object_get(answer, "candidates"), 0);
	const json_t *parts = json_object_get(json_object_get(cand, "content"), "parts"), *part;
	enum speech_audio_result r = SPEECH_AUDIO_OK;
	int text_seen = 0;
	size_t i;

	memset(out, 0, sizeof *out);
	json_array_foreach(parts, i, part) {
		const json_t *inline_data = json_object_get(part, "inlineData");
		text_seen |= json_object_get(part, "text") != NULL;
		if (inline_data && (r = add_part(reply, inline_data, out, err, errlen)) != SPEECH_AUDIO_OK)
			break;
	}
	if (r == SPEECH_AUDIO_OK && out->n == 0)
		r = no_audio(answer, text_seen, err, errlen);
	if (r == SPEECH_AUDIO_OK && out->source_rate != SPEECH_RATE) {
		int16_t *s;
		size_t n;
		if (speech_resample(out->samples, out->n, out->source_rate, &s, &n, err, errlen) < 0)
			r = SPEECH_AUDIO_FAIL;
		else {
			free(out->samples);
			out->samples = s;
			out->n = n;
		}
	}
	if (r != SPEECH_AUDIO_OK) {
		free(out->samples);
		memset(out, 0, sizeof *out);
	}
	return r;
}
