/*
 * test_speech_answer - the streaming reader of Gemini's TTS answer
 * (svc-speech/answer.c, pcm_b64.c): the same samples and the same verdict
 * whatever the pieces the answer arrives in (one byte at a time, every
 * split point, random ones), for escapes, blanks, field orders, several
 * parts, repeated keys; bad base64, truncated and oversized answers.
 *
 * Two references keep "the same acceptance rules" honest: jansson itself
 * for what is JSON (every edge case below and thousands of mutations of
 * an answer), and the reading the service did before (the whole text
 * parsed with the base64 cut out, common/gemini_answer.c, then the old
 * part-by-part checks, written out again here) for the verdict and the
 * samples of thousands of randomly built answers.
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

#define NOT_JSON "Gemini's answer is not a JSON object"

/* ---- helpers --------------------------------------------------------------- */

/* A small deterministic generator (xorshift64*), state passed around. */
static uint32_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (uint32_t)((*s * 2685821657736338717ull) >> 32);
}

struct buf {
	char *s;
	size_t n, cap;
};

static void put(struct buf *b, const char *fmt, ...)
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

static int16_t sample_at(size_t i, int seed)
{
	return (int16_t)(uint16_t)((i * 2654435761u + (unsigned)seed * 40503u) >> 11);
}

/* n samples (of pattern seed) as base64, padded. */
static char *b64_of(size_t n, int seed)
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
static char *audio_answer(size_t n, int seed)
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
static enum speech_audio_result read_cut(const char *text, size_t len, const size_t *cuts, size_t ncuts,
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

static enum speech_audio_result read_all(const char *text, size_t len, struct speech_audio *out, char *err,
					 size_t errlen)
{
	return read_cut(text, len, NULL, 0, SPEECH_ANSWER_MAX, out, err, errlen);
}

static enum speech_audio_result read_bytewise(const char *text, size_t len, struct speech_audio *out, char *err,
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

static void expect_samples(const struct speech_audio *a, size_t n, int seed)
{
	assert_int_equal(a->n, n);
	for (size_t i = 0; i < n; i++)
		if (a->samples[i] != sample_at(i, seed))
			fail_msg("sample %zu is %d, not %d", i, a->samples[i], sample_at(i, seed));
}

/* text must give n samples of seed, fed in any pieces. */
static void expect_audio(const char *text, size_t n, int seed)
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
static void expect_verdict(const char *text, enum speech_audio_result r, const char *want)
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

/* ---- splits ------------------------------------------------------------------ */

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

/* ---- the text of an answer --------------------------------------------------- */

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

/* ---- what is not audio ------------------------------------------------------- */

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

/* ---- the references ---------------------------------------------------------- */

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
		cmocka_unit_test(test_json_as_jansson),
		cmocka_unit_test(test_json_mutations),
		cmocka_unit_test(test_same_as_the_old_reader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
