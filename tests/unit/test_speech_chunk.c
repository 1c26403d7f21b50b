/*
 * test_speech_chunk - how synthesize_speech cuts a text into requests.
 *
 * Properties on many generated texts (mixed scripts, 2-, 3- and 4-byte
 * characters, runs of blanks, words longer than the limit): no piece over
 * the limit in characters, no cut inside a UTF-8 sequence, the pieces
 * joined give back the text.  Then where the cuts fall: after sentences,
 * else after clauses, else between words, else inside a word; and the
 * prompt that carries a piece.
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

#include "../../svc-speech/chunk.h"
#include "../../svc-speech/prompt.h"
#include "utf8.h"

/* A small deterministic generator: the same texts on every run. */
static uint32_t next_random(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static const char *const tokens[] = {
	"word", "Über", "naïve", "日本語", "の", "文", "🙂", "emoji🎉s", "x", "longerwordhere", "ça", "Ж",
	".", "!", "?", "…", "。", "、", ",", ";", ":", "—", "\"", "»", ")", " ", " ", " ", "  ", "\n", "\n\n",
	"\t", "　",
};

/* A text of about n tokens; sometimes with a very long word in it. */
static char *random_text(uint32_t *seed, size_t n)
{
	size_t cap = n * 16 + 8000, len = 0;
	char *t = malloc(cap);

	assert_non_null(t);
	for (size_t i = 0; i < n; i++) {
		const char *tok = tokens[next_random(seed) % (sizeof tokens / sizeof tokens[0])];
		if (next_random(seed) % 400 == 0) /* a "word" of 2,000 to 4,000 letters */
			for (uint32_t k = 2000 + next_random(seed) % 2000; k > 0; k--)
				t[len++] = 'a';
		memcpy(t + len, tok, strlen(tok));
		len += strlen(tok);
	}
	t[len] = '\0';
	return t;
}

/* The three properties, for one text and limit. */
static void check_properties(const char *text, size_t limit)
{
	struct speech_chunk *c;
	long n = speech_chunk_text(text, strlen(text), limit, &c);
	size_t at = 0;

	assert_true(n >= 0);
	for (long i = 0; i < n; i++) {
		assert_int_equal(c[i].start, at); /* contiguous: joined they are the text */
		assert_true(c[i].len > 0);
		if (hb_utf8_count(text + c[i].start, c[i].len) > limit)
			fail_msg("piece %ld has %zu characters (limit %zu)", i,
				 hb_utf8_count(text + c[i].start, c[i].len), limit);
		/* Never a cut inside a UTF-8 sequence. */
		assert_true(((unsigned char)text[c[i].start] & 0xc0) != 0x80);
		at += c[i].len;
	}
	assert_int_equal(at, strlen(text));
	free(c);
}

static void test_properties_on_generated_texts(void **state)
{
	uint32_t seed = 0x5eed1234;

	(void)state;
	for (int round = 0; round < 300; round++) {
		char *t = random_text(&seed, 50 + next_random(&seed) % 3000);
		check_properties(t, SPEECH_CHUNK_CHARS);
		check_properties(t, 1 + next_random(&seed) % 200);
		free(t);
	}
}

static void test_empty_and_short(void **state)
{
	struct speech_chunk *c;

	(void)state;
	assert_int_equal(speech_chunk_text("", 0, SPEECH_CHUNK_CHARS, &c), 0);
	free(c);
	assert_int_equal(speech_chunk_text("Hello.", 6, SPEECH_CHUNK_CHARS, &c), 1);
	assert_int_equal(c[0].len, 6);
	free(c);
	assert_int_equal(speech_chunk_text("Hello.", 6, 0, &c), -1);
}

/* Pieces of a text, as strings, for the cases below. */
static size_t pieces(const char *text, size_t limit, char out[][2048], size_t max)
{
	struct speech_chunk *c;
	long n = speech_chunk_text(text, strlen(text), limit, &c);

	assert_true(n >= 0 && (size_t)n <= max);
	for (long i = 0; i < n; i++) {
		assert_true(c[i].len < 2048);
		memcpy(out[i], text + c[i].start, c[i].len);
		out[i][c[i].len] = '\0';
	}
	free(c);
	return (size_t)n;
}

static void test_cuts_after_sentences(void **state)
{
	char p[8][2048];

	(void)state;
	/* Whole sentences, as many as fit; the blank goes with its sentence. */
	assert_int_equal(pieces("One two. Three four! Five six? Seven.", 15, p, 8), 4);
	assert_string_equal(p[0], "One two. ");
	assert_string_equal(p[1], "Three four! ");
	assert_string_equal(p[2], "Five six? ");
	assert_string_equal(p[3], "Seven.");
	/* A piece may end at the limit on a sentence end, its blank after it. */
	assert_int_equal(pieces("One two. Three four! Five six? Seven.", 20, p, 8), 2);
	assert_string_equal(p[0], "One two. Three four!");
	/* A closing quote after the full stop; a line break ends a line. */
	assert_int_equal(pieces("He said \"stop.\" Then left", 18, p, 8), 2);
	assert_string_equal(p[0], "He said \"stop.\" ");
	assert_int_equal(pieces("a heading\nand its text", 16, p, 8), 2);
	assert_string_equal(p[0], "a heading\n");
	/* A decimal point is no sentence end: without one, a cut between words. */
	assert_int_equal(pieces("Pi is 3.14 and e is 2.71 today", 16, p, 8), 2);
	assert_string_equal(p[0], "Pi is 3.14 and e");
	/* Full-width marks need no blank after them. */
	assert_int_equal(pieces("今日は晴れ。明日は雨です。", 8, p, 8), 2);
	assert_string_equal(p[0], "今日は晴れ。");
	assert_string_equal(p[1], "明日は雨です。");
	/* A sentence that ends exactly at the limit, before a blank. */
	assert_int_equal(pieces("Abc def. Ghi", 8, p, 8), 2);
	assert_string_equal(p[0], "Abc def.");
	assert_string_equal(p[1], " Ghi");
}

static void test_long_sentences_split_at_clauses_then_words(void **state)
{
	char p[8][2048], word[4001];

	(void)state;
	assert_int_equal(pieces("first part, second part and more words", 20, p, 8), 3);
	assert_string_equal(p[0], "first part, ");
	assert_string_equal(p[1], "second part and more");
	assert_string_equal(p[2], " words");
	/* The last clause boundary that fits wins over a later word boundary. */
	assert_int_equal(pieces("a; b c d e f g h i j", 12, p, 8), 3);
	assert_string_equal(p[0], "a; ");
	assert_string_equal(p[1], "b c d e f g ");
	/* One word longer than the limit: cut at a character, never inside
	 * a multi-byte one. */
	memset(word, 'w', 4000);
	word[4000] = '\0';
	assert_int_equal(pieces(word, SPEECH_CHUNK_CHARS, p, 8), 3);
	assert_int_equal(strlen(p[0]), 1800);
	assert_int_equal(strlen(p[2]), 400);
	assert_int_equal(pieces("ééééé", 2, p, 8), 3);
	assert_string_equal(p[0], "éé");
	assert_string_equal(p[2], "é");
}

static void test_character_count_and_blanks(void **state)
{
	(void)state;
	assert_int_equal(hb_utf8_count("aé日🙂", strlen("aé日🙂")), 4);
	assert_true(speech_is_blank(" \n\t　", strlen(" \n\t　")));
	assert_false(speech_is_blank(" a ", 3));
	assert_true(speech_is_blank("", 0));
}

/* The text part of a request body, after checking its shape. */
static char *prompt_of(const char *body)
{
	json_t *j = json_loads(body, 0, NULL);
	const char *modality, *voice, *text;
	char *t;

	assert_non_null(j);
	if (json_unpack(j, "{s:[{s:[{s:s}]}], s:{s:[s], s:{s:{s:{s:s}}}}}", "contents", "parts", "text", &text,
			"generationConfig", "responseModalities", &modality, "speechConfig", "voiceConfig",
			"prebuiltVoiceConfig", "voiceName", &voice) < 0)
		fail_msg("the request does not have the generateContent TTS shape: %s", body);
	assert_string_equal(modality, "AUDIO");
	assert_string_equal(voice, "Kore");
	t = strdup(text);
	json_decref(j);
	return t;
}

static void test_prompt(void **state)
{
	char *body, *t, *tr;

	(void)state;
	/* Several parts: the notes before the transcript, the part number
	 * named with the instruction not to say it, the words trimmed. */
	body = speech_request_body("  Say \"this\".\n", 14, 1, 3, "Kore", "Calm, low voice.");
	assert_non_null(body);
	t = prompt_of(body);
	assert_non_null(strstr(t, "Synthesize speech"));
	assert_non_null(tr = strstr(t, SPEECH_TRANSCRIPT_HEADING));
	assert_string_equal(tr + strlen(SPEECH_TRANSCRIPT_HEADING), "Say \"this\".");
	assert_true(strstr(t, "Calm, low voice.") < tr);
	assert_true(strstr(t, "part 2 of 3") < tr);
	assert_non_null(strstr(t, "Do not say the part number"));
	free(t);
	free(body);
	/* One part and no notes: neither section. */
	body = speech_request_body("Hello.", 6, 0, 1, "Kore", NULL);
	t = prompt_of(body);
	assert_null(strstr(t, "part"));
	assert_null(strstr(t, "NOTES"));
	free(t);
	free(body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_properties_on_generated_texts),
		cmocka_unit_test(test_empty_and_short),
		cmocka_unit_test(test_cuts_after_sentences),
		cmocka_unit_test(test_long_sentences_split_at_clauses_then_words),
		cmocka_unit_test(test_character_count_and_blanks),
		cmocka_unit_test(test_prompt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
