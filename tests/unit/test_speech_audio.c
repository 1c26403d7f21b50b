/*
 * test_speech_audio - from Gemini's answer to the WAV file: the mimeType
 * spellings, every kind of answer without usable audio, resampling of
 * another rate, the WAV writer (header fields, silence exact in samples,
 * a rewind, nothing left behind on abort), and the tool's argument checks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <jansson.h>

#include "../../svc-speech/answer.h"
#include "../../svc-speech/audio.h"
#include "../../svc-speech/speech_args.h"
#include "../../svc-speech/wav.h"

static void test_mime_types(void **state)
{
	long rate;
	int ch;

	(void)state;
	assert_int_equal(speech_pcm_format("audio/L16;codec=pcm;rate=24000", &rate, &ch), 0);
	assert_int_equal(rate, 24000);
	assert_int_equal(speech_pcm_format("audio/l16; rate=16000; channels=1", &rate, &ch), 0);
	assert_int_equal(rate, 16000);
	assert_int_equal(ch, 1);
	assert_int_equal(speech_pcm_format("AUDIO/PCM", &rate, &ch), 0);
	assert_int_equal(rate, 24000); /* unsaid: Gemini's rate */
	assert_int_equal(speech_pcm_format("audio/l16; channels=2", &rate, &ch), 0);
	assert_int_equal(ch, 2);
	assert_int_equal(speech_pcm_format("audio/mpeg", &rate, &ch), -1);
	assert_int_equal(speech_pcm_format("audio/L16;codec=opus", &rate, &ch), -1);
	assert_int_equal(speech_pcm_format("audio/L16;rate=abc", &rate, &ch), -1);
	assert_int_equal(speech_pcm_format("audio/L16;rate=10", &rate, &ch), -1);
	assert_int_equal(speech_pcm_format(NULL, &rate, &ch), -1);
	assert_int_equal(speech_pcm_format("", &rate, &ch), -1);
}

/* Base64 of n little-endian samples of value v (test-side encoder). */
static char *b64_samples(size_t n, int16_t v)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t len = n * 2;
	unsigned char *b = malloc(len + 3);
	char *out = malloc(len / 3 * 4 + 8), *o = out;

	assert_non_null(b);
	assert_non_null(out);
	for (size_t i = 0; i < n; i++) {
		b[2 * i] = (unsigned char)((uint16_t)v & 0xff);
		b[2 * i + 1] = (unsigned char)((uint16_t)v >> 8);
	}
	for (size_t i = 0; i < len; i += 3) {
		uint32_t w = (uint32_t)b[i] << 16 | (i + 1 < len ? (uint32_t)b[i + 1] << 8 : 0) | (i + 2 < len ? b[i + 2] : 0);
		*o++ = a[w >> 18 & 63];
		*o++ = a[w >> 12 & 63];
		*o++ = i + 1 < len ? a[w >> 6 & 63] : '=';
		*o++ = i + 2 < len ? a[w & 63] : '=';
	}
	*o = '\0';
	free(b);
	return out;
}

/* Read a whole answer (valid JSON) as the service does. */
static enum speech_audio_result parse(const char *answer, struct speech_audio *a, char *err, size_t errlen)
{
	struct speech_answer *reader = speech_answer_new(SPEECH_ANSWER_MAX);
	enum speech_audio_result r;

	assert_non_null(reader);
	assert_int_equal(speech_answer_feed(reader, answer, strlen(answer)), 0);
	r = speech_answer_end(reader, a, err, errlen);
	speech_answer_free(reader);
	return r;
}

static char *audio_answer(const char *mime, size_t n, int16_t v)
{
	char *data = b64_samples(n, v), *out = malloc(strlen(data) + 300);

	assert_non_null(out);
	sprintf(out, "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"inlineData\":{\"mimeType\":\"%s\","
		     "\"data\":\"%s\"}}]},\"finishReason\":\"STOP\"}]}", mime, data);
	free(data);
	return out;
}

static void test_answers(void **state)
{
	struct speech_audio a;
	char err[512], *ans;

	(void)state;
	ans = audio_answer("audio/L16;codec=pcm;rate=24000", 1000, -1234);
	assert_int_equal(parse(ans, &a, err, sizeof err), SPEECH_AUDIO_OK);
	free(ans);
	assert_int_equal(a.n, 1000);
	assert_int_equal(a.samples[0], -1234);
	assert_int_equal(a.samples[999], -1234);
	free(a.samples);

	/* 16 kHz: resampled to 24 kHz, half as many again. */
	ans = audio_answer("audio/l16; rate=16000; channels=1", 16000, 3000);
	assert_int_equal(parse(ans, &a, err, sizeof err), SPEECH_AUDIO_OK);
	free(ans);
	assert_int_equal(a.source_rate, 16000);
	assert_true(a.n >= 23990 && a.n <= 24010);
	assert_true(abs(a.samples[12000] - 3000) < 30); /* the level is kept */
	free(a.samples);

	ans = audio_answer("audio/mpeg", 100, 1);
	assert_int_equal(parse(ans, &a, err, sizeof err), SPEECH_AUDIO_FAIL);
	assert_non_null(strstr(err, "\"audio/mpeg\", not as 16-bit mono PCM"));
	free(ans);
	ans = audio_answer("audio/L16;rate=24000;channels=2", 100, 1);
	assert_int_equal(parse(ans, &a, err, sizeof err), SPEECH_AUDIO_FAIL);
	free(ans);

	assert_int_equal(parse("{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Sure!\"}]}}]}", &a, err, sizeof err),
			 SPEECH_AUDIO_RETRY);
	assert_string_equal(err, "Gemini answered with text instead of audio");
	assert_int_equal(parse("{\"candidates\":[{\"content\":{\"parts\":[]},\"finishReason\":\"OTHER\"}]}", &a, err,
			       sizeof err), SPEECH_AUDIO_RETRY);
	assert_string_equal(err, "Gemini's answer holds no audio");
	assert_int_equal(parse("{}", &a, err, sizeof err), SPEECH_AUDIO_RETRY);
	assert_int_equal(parse("{\"promptFeedback\":{\"blockReason\":\"SAFETY\"}}", &a, err, sizeof err), SPEECH_AUDIO_FAIL);
	assert_string_equal(err, "Gemini blocked the text (SAFETY)");
	assert_int_equal(parse("{\"candidates\":[{\"finishReason\":\"PROHIBITED_CONTENT\"}]}", &a, err, sizeof err),
			 SPEECH_AUDIO_FAIL);
	assert_int_equal(parse("{\"candidates\":[{\"content\":{\"parts\":[{\"inlineData\":{\"mimeType\":\"audio/L16\","
			       "\"data\":\"@@@@\"}}]}}]}", &a, err, sizeof err), SPEECH_AUDIO_RETRY);
	assert_int_equal(parse("{\"candidates\":[{\"content\":{\"parts\":[{\"inlineData\":{\"mimeType\":\"audio/L16\","
			       "\"data\":\"AAAA\"}}]}}]}", &a, err, sizeof err), SPEECH_AUDIO_RETRY); /* 3 bytes */
	assert_non_null(strstr(err, "odd number of bytes"));
}

static void test_resample_level(void **state)
{
	int16_t in[8000], *out;
	size_t n;
	char err[256];
	int peak = 0;

	(void)state;
	for (int i = 0; i < 8000; i++) { /* a 100 Hz triangle at 8 kHz, one second */
		int k = i % 80;
		in[i] = (int16_t)((k < 40 ? k : 80 - k) * 500 - 10000);
	}
	assert_int_equal(speech_resample(in, 8000, 8000, &out, &n, err, sizeof err), 0);
	assert_true(n >= 23990 && n <= 24010);
	for (size_t i = 1000; i < n - 1000; i++)
		if (abs(out[i]) > peak)
			peak = abs(out[i]);
	assert_true(peak > 9000 && peak < 10500); /* the level is kept */
	free(out);
}

static char dir[64];

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/hbwavtest.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	char cmd[100];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.' || (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0);
	closedir(d);
	return n;
}

static uint32_t le32(const unsigned char *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_wav_writer(void **state)
{
	struct speech_wav w;
	char err[512], sub[200];
	int16_t part[10] = { 1, -2, 3, -4, 5, -6, 7, -8, 9, 32767 };
	unsigned char h[44], body[(10 + 4320 + 10) * 2];
	FILE *f;

	(void)state;
	snprintf(sub, sizeof sub, "%s/agent-speech", dir);
	assert_int_equal(speech_wav_open(&w, sub, "speech", 24000, err, sizeof err), 0);
	assert_int_equal(entries(sub), 1); /* the temporary file only */
	assert_true(access(w.path, F_OK) != 0);
	assert_int_equal(speech_wav_append(&w, part, 10, err, sizeof err), 0);
	assert_int_equal(speech_wav_silence(&w, 4320, err, sizeof err), 0);
	assert_int_equal(speech_wav_append(&w, part, 10, err, sizeof err), 0);
	assert_int_equal(speech_wav_finish(&w, err, sizeof err), 0);
	assert_int_equal(entries(sub), 1); /* renamed: the final file only */
	assert_non_null(strstr(w.path, "/agent-speech/speech-"));
	assert_non_null(f = fopen(w.path, "rb"));
	assert_int_equal(fread(h, 1, 44, f), 44);
	assert_int_equal(fread(body, 1, sizeof body, f), sizeof body);
	assert_int_equal(fgetc(f), EOF);
	fclose(f);
	assert_memory_equal(h, "RIFF", 4);
	assert_int_equal(le32(h + 4), 36 + sizeof body);
	assert_memory_equal(h + 8, "WAVEfmt ", 8);
	assert_int_equal(h[20] | h[21] << 8, 1);  /* PCM */
	assert_int_equal(h[22] | h[23] << 8, 1);  /* mono */
	assert_int_equal(le32(h + 24), 24000);
	assert_int_equal(le32(h + 28), 48000);
	assert_int_equal(h[32] | h[33] << 8, 2);
	assert_int_equal(h[34] | h[35] << 8, 16);
	assert_memory_equal(h + 36, "data", 4);
	assert_int_equal(le32(h + 40), sizeof body);
	assert_int_equal(body[2], 0xfe); /* -2, little-endian */
	assert_int_equal(body[3], 0xff);
	for (size_t i = 20; i < 20 + 4320 * 2; i++)
		assert_int_equal(body[i], 0);
	assert_int_equal(body[sizeof body - 1], 0x7f);

	/* What a failed attempt wrote is taken back; the flush on the way
	 * changes nothing in the file. */
	assert_int_equal(speech_wav_open(&w, sub, "speech", 24000, err, sizeof err), 0);
	assert_int_equal(speech_wav_append(&w, part, 10, err, sizeof err), 0);
	assert_int_equal(speech_wav_sync(&w, err, sizeof err), 0);
	assert_int_equal(speech_wav_append(&w, part + 5, 5, err, sizeof err), 0);
	assert_int_equal(speech_wav_rewind(&w, 10, err, sizeof err), 0);
	assert_int_equal(speech_wav_rewind(&w, 11, err, sizeof err), -1);
	assert_non_null(strstr(err, "rewinding past its end"));
	assert_int_equal(speech_wav_append(&w, part, 3, err, sizeof err), 0);
	assert_int_equal(speech_wav_sync(&w, err, sizeof err), 0);
	assert_int_equal(speech_wav_finish(&w, err, sizeof err), 0);
	assert_non_null(f = fopen(w.path, "rb"));
	assert_int_equal(fread(h, 1, 44, f), 44);
	assert_int_equal(le32(h + 40), 13 * 2);
	assert_int_equal(fread(body, 1, sizeof body, f), 13 * 2);
	fclose(f);
	assert_int_equal(body[16], 9);    /* part[8] */
	assert_int_equal(body[19], 0x7f); /* part[9], the tenth sample... */
	assert_int_equal(body[20], 1);    /* ...then part[0], not part[5] (-6) */
	assert_int_equal(body[24], 3);
	assert_int_equal(remove(w.path), 0);

	/* An aborted file leaves nothing. */
	assert_int_equal(speech_wav_open(&w, sub, "speech", 24000, err, sizeof err), 0);
	assert_int_equal(speech_wav_append(&w, part, 10, err, sizeof err), 0);
	speech_wav_abort(&w);
	assert_int_equal(entries(sub), 1);
}

/* Parse args text; 0 or -1 with err. */
static int args(const char *text, struct speech_args *a, char *err, size_t errlen, json_t **keep)
{
	*keep = json_loads(text, 0, NULL);
	assert_non_null(*keep);
	return speech_args_parse(*keep, a, err, errlen);
}

static void test_arguments(void **state)
{
	struct speech_args a;
	char err[1024], *big;
	json_t *j;

	(void)state;
	assert_int_equal(args("{\"text\":\"Hi.\"}", &a, err, sizeof err, &j), 0);
	assert_string_equal(a.voice, "Kore");
	assert_null(a.style);
	json_decref(j);
	assert_int_equal(args("{\"text\":\"Hi.\",\"voice\":\"zubenelgenubi\",\"style\":\"  \"}", &a, err, sizeof err, &j), 0);
	assert_string_equal(a.voice, "Zubenelgenubi");
	assert_null(a.style); /* blank notes are no notes */
	json_decref(j);
	assert_int_equal(args("{\"text\":\"Hi.\",\"voice\":\"Alexa\"}", &a, err, sizeof err, &j), -1);
	assert_non_null(strstr(err, "unknown voice \"Alexa\""));
	for (const char *v = "Zephyr"; v; v = strcmp(v, "Zephyr") == 0 ? "Sulafat" : NULL)
		assert_non_null(strstr(err, v));
	json_decref(j);
	assert_int_equal(args("{\"text\":\"Hi.\",\"voice\":7}", &a, err, sizeof err, &j), -1);
	json_decref(j);
	assert_int_equal(args("{\"text\":\"\"}", &a, err, sizeof err, &j), -1);
	json_decref(j);
	assert_int_equal(args("{\"text\":\"Hi.\",\"sessionId\":\"s-1\"}", &a, err, sizeof err, &j), -1);
	assert_non_null(strstr(err, "unknown field \"sessionId\""));
	json_decref(j);
	/* The limit counts characters: 60,000 two-byte letters pass, one more does not. */
	big = malloc(2 * (SPEECH_TEXT_MAX_CHARS + 1) + 20);
	assert_non_null(big);
	strcpy(big, "{\"text\":\"");
	for (int i = 0; i < SPEECH_TEXT_MAX_CHARS; i++)
		strcat(big + 9 + 2 * (size_t)i, "é");
	strcat(big, "\"}");
	assert_int_equal(args(big, &a, err, sizeof err, &j), 0);
	json_decref(j);
	strcpy(big + strlen(big) - 2, "é\"}");
	assert_int_equal(args(big, &a, err, sizeof err, &j), -1);
	assert_non_null(strstr(err, "60001 characters long; at most 60000"));
	json_decref(j);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mime_types),
		cmocka_unit_test(test_answers),
		cmocka_unit_test(test_resample_level),
		cmocka_unit_test_setup_teardown(test_wav_writer, make_dir, remove_dir),
		cmocka_unit_test(test_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
