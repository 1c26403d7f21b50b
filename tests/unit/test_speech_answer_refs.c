/*
 * test_speech_answer_refs - two references keep the streaming reader of
 * Gemini's TTS answer (svc-speech/answer.c) to "the same acceptance rules":
 * jansson itself for what is JSON (every edge case below and thousands of
 * mutations of an answer), and the reading the service did before (the
 * whole text parsed with the base64 cut out, gemini/gemini_answer.c, then
 * the old part-by-part checks, written out again here) for the verdict
 * and the samples of thousands of randomly built answers.
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

/* What jansson made of a text: 1 for an object (what the service took). */
static int jansson_object(const char *text, size_t len)
{
	json_t *j = json_loadb(text, len, 0, NULL);
	int ok = json_is_object(j);

	json_decref(j);
	return ok;
}

static int reader_object(const char *text, size_t len)
{
	struct speech_audio a;
	char err[512];

	(void)read_all(text, len, &a, err, sizeof err);
	free(a.samples);
	return strcmp(err, NOT_JSON) != 0;
}

static void same_json(const char *text, size_t len)
{
	int j = jansson_object(text, len), r = reader_object(text, len);

	if (j != r)
		fail_msg("jansson %s, the reader %s: %.*s", j ? "accepts" : "refuses", r ? "accepts" : "refuses",
			 (int)(len < 300 ? len : 300), text);
}

static void test_json_as_jansson(void **state)
{
	static const char *const docs[] = {
		"{}", " {} ", "{} x", "{}}", "[]", "\"s\"", "1", "", " ", "{\"a\":1,}", "{,}", "{\"a\" 1}",
		"{\"a\":01}", "{\"a\":-0}", "{\"a\":-}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":1e}", "{\"a\":1e+}",
		"{\"a\":1E+2}", "{\"a\":1e-400}", "{\"a\":1e400}", "{\"a\":-1e309}", "{\"a\":1.7976931348623157e308}",
		"{\"a\":1.7976931348623159e308}", "{\"a\":9223372036854775807}", "{\"a\":9223372036854775808}",
		"{\"a\":-9223372036854775808}", "{\"a\":-9223372036854775809}", "{\"a\":123456789012345678901234}",
		"{\"a\":tru}", "{\"a\":truex}", "{\"a\":nul}", "{\"a\":True}", "{\"a\":[1,2,]}", "{\"a\":[,1]}",
		"{\"a\":\"\\u0000\"}", "{\"a\":\"\\u00\"}", "{\"a\":\"\\ud834\\udd1e\"}", "{\"a\":\"\\udc00\"}",
		"{\"a\":\"\\ud834\"}", "{\"a\":\"\\ud834x\"}", "{\"a\":\"\\ud834\\u0041\"}", "{\"a\":\"\\ud834\\ue000\"}", "{\"a\":\"\\x\"}",
		"{\"a\":\"\t\"}", "{\"a\":\"\x7f\"}", "{\"a\":\"\xc0\x80\"}", "{\"a\":\"\xed\xa0\x80\"}",
		"{\"a\":\"\xf4\x90\x80\x80\"}", "{\"a\":\"\xe2\x82\"}", "{\"a\":\"\xe2\x82\xac\"}", "\xef\xbb\xbf{}",
		"{\v}", "{\"a\":1}\n", "{\"a\":[{\"b\":[{}]}]}", "{\"\":0}", "{\"a\":\"b\" \"c\":1}", "{'a':1}",
		"{\"a\":1 , \"b\" : [ true , false , null ] }", "{\"a\":0.00000000000000000001e330}",
		"{\"a\":100000000000000000000.0e289}",
	};
	struct buf b = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
		same_json(docs[i], strlen(docs[i]));
	same_json("{\"a\":1}\0", 8);
	/* Nesting: jansson takes 2,048 levels, not 2,049. */
	for (int depth = 2047; depth <= 2050; depth++) {
		b.n = 0;
		put(&b, "{\"a\":");
		for (int i = 1; i < depth; i++)
			put(&b, "[");
		for (int i = 1; i < depth; i++)
			put(&b, "]");
		put(&b, "}");
		same_json(b.s, b.n);
	}
	/* A real number longer than any buffer. */
	b.n = 0;
	put(&b, "{\"a\":0.");
	for (int i = 0; i < 2000; i++)
		put(&b, "0");
	put(&b, "1e2100}");
	same_json(b.s, b.n);
	b.n = 0;
	put(&b, "{\"a\":1");
	for (int i = 0; i < 2000; i++)
		put(&b, "0");
	put(&b, ".5e-1700}");
	same_json(b.s, b.n);
	free(b.s);
}

static void test_json_mutations(void **state)
{
	static const char bytes[] = "{}[]\":,\\ u0a-.e+9tfn\x80\xc3\xff\t\n";
	uint64_t seed = 0xfeedface;
	char *text = audio_answer(30, 11);
	size_t len = strlen(text);
	char *m = malloc(len + 8);

	(void)state;
	assert_non_null(m);
	for (int i = 0; i < 5000; i++) {
		size_t n = len, at;

		memcpy(m, text, len);
		for (int k = 0; k < 1 + (int)(rnd(&seed) % 3); k++) {
			at = rnd(&seed) % n;
			switch (rnd(&seed) % 3) {
			case 0: /* replace */
				m[at] = bytes[rnd(&seed) % (sizeof bytes - 1)];
				break;
			case 1: /* delete */
				memmove(m + at, m + at + 1, n - at - 1);
				n--;
				break;
			default: /* insert */
				memmove(m + at + 1, m + at, n - at);
				m[at] = bytes[rnd(&seed) % (sizeof bytes - 1)];
				n++;
			}
		}
		same_json(m, n);
	}
	free(m);
	free(text);
}

/* The old reading, as it was: the whole text parsed (the long base64 cut
 * out first), then each part judged in order, then the rate. */
static enum speech_audio_result old_reader(const char *text, size_t len, struct speech_audio *out, char *err,
					   size_t errlen)
{
	struct hb_gemini_reply reply;
	const json_t *cand, *parts, *part;
	enum speech_audio_result r = SPEECH_AUDIO_OK;
	int text_seen = 0;
	char *copy = malloc(len + 1);
	size_t i;

	memset(&reply, 0, sizeof reply);
	memset(out, 0, sizeof *out);
	assert_non_null(copy);
	memcpy(copy, text, len);
	copy[len] = '\0';
	if (hb_gemini_parse_answer(&reply, copy, len) < 0) {
		hb_gemini_reply_free(&reply);
		snprintf(err, errlen, NOT_JSON);
		return SPEECH_AUDIO_RETRY;
	}
	cand = json_array_get(json_object_get(reply.body, "candidates"), 0);
	parts = json_object_get(json_object_get(cand, "content"), "parts");
	json_array_foreach(parts, i, part) {
		const json_t *inl = json_object_get(part, "inlineData");
		const char *mime, *data;
		unsigned char *bytes;
		size_t dlen, blen;
		long rate;
		int ch;

		text_seen |= json_object_get(part, "text") != NULL;
		if (!inl)
			continue;
		mime = json_string_value(json_object_get(inl, "mimeType"));
		if (speech_pcm_format(mime, &rate, &ch) < 0 || ch != 1) {
			snprintf(err, errlen, "Gemini sent the audio as \"%.100s\", not as 16-bit mono PCM, so it cannot "
				 "be stitched into a WAV file", mime ? mime : "(no type)");
			r = SPEECH_AUDIO_FAIL;
			break;
		}
		if (out->n && rate != out->source_rate) {
			snprintf(err, errlen, "Gemini sent one answer at two sample rates (%ld and %ld Hz)", out->source_rate,
				 rate);
			r = SPEECH_AUDIO_FAIL;
			break;
		}
		if (!(data = hb_gemini_string(&reply, json_object_get(inl, "data"), &dlen)) ||
		    !(bytes = hb_base64_decode(data, dlen, &blen))) {
			snprintf(err, errlen, "Gemini's audio data is not valid base64");
			r = SPEECH_AUDIO_RETRY;
			break;
		}
		if (blen % 2) {
			free(bytes);
			snprintf(err, errlen, "Gemini's audio is an odd number of bytes, so not 16-bit samples");
			r = SPEECH_AUDIO_RETRY;
			break;
		}
		assert_non_null(out->samples = realloc(out->samples, (out->n + blen / 2 + 1) * sizeof *out->samples));
		for (size_t k = 0; k < blen / 2; k++)
			out->samples[out->n + k] = (int16_t)(uint16_t)(bytes[2 * k] | (unsigned)bytes[2 * k + 1] << 8);
		free(bytes);
		out->n += blen / 2;
		out->source_rate = rate;
	}
	if (r == SPEECH_AUDIO_OK && out->n == 0)
		r = speech_audio_none(
			json_string_value(json_object_get(json_object_get(reply.body, "promptFeedback"), "blockReason")),
			json_string_value(json_object_get(cand, "finishReason")), text_seen, err, errlen);
	if (r == SPEECH_AUDIO_OK && speech_audio_to_rate(out, err, errlen) < 0)
		r = SPEECH_AUDIO_FAIL;
	if (r != SPEECH_AUDIO_OK) {
		free(out->samples);
		memset(out, 0, sizeof *out);
	}
	hb_gemini_reply_free(&reply);
	return r;
}

/* A random field of an inlineData's data. */
static void random_data(struct buf *b, uint64_t *s)
{
	static const char *const odd[] = { "7", "null", "\"@@@@\"", "\"AAAA\"", "\"AAA=\"", "\"AA==\"", "\"\"",
					   "\"AAAAA\"", "\"AA AA\"", "\"AAAA\\/\\/AA\"", "\"QUJD\\u0044\"" };
	uint32_t k = rnd(s) % 16;

	if (k < (uint32_t)(sizeof odd / sizeof odd[0])) {
		put(b, "\"data\":%s", odd[k]);
	} else {
		/* Some long enough for the old reader's cut (4,096 characters). */
		size_t n = rnd(s) % 2 ? 1 + rnd(s) % 40 : 3000 + rnd(s) % 300;
		char *d = b64_of(n, (int)(rnd(s) % 100));
		put(b, "\"data\":\"%s\"", d);
		free(d);
	}
}

static void random_inline(struct buf *b, uint64_t *s)
{
	static const char *const mimes[] = { "\"audio/L16;codec=pcm;rate=24000\"", "\"audio/l16; rate=24000; channels=1\"",
					     "\"audio/L16;rate=16000\"", "\"audio/mpeg\"", "\"audio/L16;channels=2\"",
					     "7", "\"AUDIO/PCM\"", "\"audio\\/L16\"" };
	int fields = (int)(rnd(s) % 4);

	if (rnd(s) % 10 == 0) {
		put(b, "\"inlineData\":%s", rnd(s) % 2 ? "\"x\"" : "[]");
		return;
	}
	if (rnd(s) % 2) { /* as Gemini sends it, at one of two rates */
		char *d = b64_of(1 + rnd(s) % 3000, (int)(rnd(s) % 100));
		put(b, "\"inlineData\":{\"mimeType\":%s,\"data\":\"%s\"}", mimes[rnd(s) % 3], d);
		free(d);
		return;
	}
	put(b, "\"inlineData\":{");
	for (int f = 0; f < fields + 1; f++) {
		if (f)
			put(b, ",");
		switch (rnd(s) % 5) {
		case 0:
		case 1:
			put(b, "\"mimeType\":%s", mimes[rnd(s) % (sizeof mimes / sizeof mimes[0])]);
			break;
		case 2:
		case 3:
			random_data(b, s);
			break;
		default:
			put(b, "\"other\":[1,{\"data\":\"@\"}]");
		}
	}
	put(b, "}");
}

static void random_part(struct buf *b, uint64_t *s)
{
	int fields = (int)(rnd(s) % 3);

	if (rnd(s) % 12 == 0) {
		put(b, "%s", rnd(s) % 2 ? "\"text\"" : "[{\"inlineData\":{}}]");
		return;
	}
	put(b, "{");
	for (int f = 0; f <= fields; f++) {
		if (f)
			put(b, ",");
		switch (rnd(s) % 4) {
		case 0:
		case 1:
			random_inline(b, s);
			break;
		case 2:
			put(b, "\"text\":%s", rnd(s) % 2 ? "\"Sure.\"" : "null");
			break;
		default:
			put(b, "\"thought\":false");
		}
	}
	put(b, "}");
}

static void random_candidate(struct buf *b, uint64_t *s)
{
	static const char *const finish[] = { "\"STOP\"", "\"SAFETY\"", "\"OTHER\"", "\"PROHIBITED_CONTENT\"", "3" };
	int fields = (int)(rnd(s) % 3);

	put(b, "{");
	for (int f = 0; f <= fields; f++) {
		if (f)
			put(b, ",");
		if (rnd(s) % 3) {
			int parts = (int)(rnd(s) % 4);
			put(b, "\"content\":{\"role\":\"model\",\"parts\":[");
			for (int p = 0; p < parts; p++) {
				if (p)
					put(b, ",");
				random_part(b, s);
			}
			put(b, "]}");
		} else {
			put(b, "\"finishReason\":%s", finish[rnd(s) % (sizeof finish / sizeof finish[0])]);
		}
	}
	put(b, "}");
}

/* An answer as Gemini might send one, or nearly: any order, repeats, odd values. */
static void random_answer(struct buf *b, uint64_t *s)
{
	int fields = (int)(rnd(s) % 4);

	b->n = 0;
	put(b, "{");
	for (int f = 0; f <= fields; f++) {
		if (f)
			put(b, ",");
		switch (rnd(s) % 5) {
		case 0:
		case 1: {
			int n = (int)(rnd(s) % 3);
			put(b, "\"candidates\":[");
			for (int c = 0; c < n; c++) {
				if (c)
					put(b, ",");
				random_candidate(b, s);
			}
			put(b, "]");
			break;
		}
		case 2:
			put(b, "\"promptFeedback\":{\"blockReason\":%s}", rnd(s) % 2 ? "\"SAFETY\"" : "1");
			break;
		case 3:
			put(b, "\"usageMetadata\":{\"promptTokenCount\":8,\"candidatesTokensDetails\":[{\"modality\":\"AUDIO\"}]}");
			break;
		default:
			put(b, "\"modelVersion\":\"m\",\"responseId\":\"r\"");
		}
	}
	put(b, "}");
}

static void test_same_as_the_old_reader(void **state)
{
	uint64_t seed = 0xa11ce;
	struct buf b = { 0 };
	int verdicts[3] = { 0 };

	(void)state;
	for (int i = 0; i < 5000; i++) {
		struct speech_audio want, got;
		char werr[512] = "", gerr[512] = "";
		enum speech_audio_result w, g;
		size_t cuts[3];

		random_answer(&b, &seed);
		for (int c = 0; c < 3; c++)
			cuts[c] = (size_t)c * b.n / 3 + rnd(&seed) % (b.n / 3 + 1);
		w = old_reader(b.s, b.n, &want, werr, sizeof werr);
		g = i % 25 ? read_cut(b.s, b.n, cuts, 3, SPEECH_ANSWER_MAX, &got, gerr, sizeof gerr)
			   : read_bytewise(b.s, b.n, &got, gerr, sizeof gerr);
		verdicts[w]++;
		if (w != g || strcmp(werr, gerr) != 0 || want.n != got.n ||
		    (want.n && memcmp(want.samples, got.samples, want.n * sizeof *want.samples) != 0))
			fail_msg("answer %d: the old reader said %d \"%s\" (%zu samples), the new one %d \"%s\" (%zu): %.600s",
				 i, w, werr, want.n, g, gerr, got.n, b.s);
		free(want.samples);
		free(got.samples);
	}
	/* The generator reaches every verdict. */
	print_message("verdicts: %d OK, %d RETRY, %d FAIL\n", verdicts[0], verdicts[1], verdicts[2]);
	assert_true(verdicts[SPEECH_AUDIO_OK] > 100);
	assert_true(verdicts[SPEECH_AUDIO_RETRY] > 100);
	assert_true(verdicts[SPEECH_AUDIO_FAIL] > 100);
	free(b.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_as_jansson),
		cmocka_unit_test(test_json_mutations),
		cmocka_unit_test(test_same_as_the_old_reader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
