/*
 * test_speech_json_push - the JSON push lexer alone (svc-speech/json_push.c):
 * what a user hears (values, keys, characters, ends) must not depend on
 * the pieces the text arrives in, nor on whether the user takes runs
 * itself; the strings heard are jansson's; what is accepted is what
 * jansson accepts (with JSON_DECODE_ANY, as any value may be the outer
 * one here); a user's refusal stops the lexer for good.
 * test_speech_answer.c checks the same lexer through the answer reader.
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

#include "../../svc-speech/json_push.h"

/* What a user heard, written as text: a mark for each begin and end,
 * the characters as they came. */
struct trace {
	char s[16384];
	size_t n;
	int refuse;          /* begins of this kind say -1... */
	enum json_push_kind refused;
	int take_lower;      /* take runs of lowercase letters */
};

static void add(struct trace *t, const void *s, size_t n)
{
	assert_true(t->n + n < sizeof t->s);
	memcpy(t->s + t->n, s, n);
	t->n += n;
	t->s[t->n] = '\0';
}

static const char begin_mark[] = "{[ks#tfz", end_mark[] = "}]:\"$...";

static int on_begins(void *user, enum json_push_kind kind)
{
	struct trace *t = user;

	if (t->refuse && kind == t->refused)
		return -1;
	add(t, begin_mark + kind, 1);
	return 0;
}

static int on_chars(void *user, const unsigned char *s, size_t n)
{
	assert_true(n > 0);
	add(user, s, n);
	return 0;
}

static int on_ends(void *user, enum json_push_kind kind)
{
	add(user, end_mark + kind, 1);
	return 0;
}

static size_t on_take(void *user, const unsigned char *s, size_t n)
{
	struct trace *t = user;
	size_t k = 0;

	if (!t->take_lower)
		return 0;
	while (k < n && s[k] >= 'a' && s[k] <= 'z')
		k++;
	if (k)
		add(t, s, k);
	return k;
}

static const struct json_push_sink sink = { on_begins, on_chars, on_ends, on_take };

/* Reads text in pieces of at most step bytes (0: cut once at cut). */
static int read_text(const char *text, size_t len, size_t step, size_t cut, struct trace *t)
{
	struct json_push *j = json_push_new(&sink, t);
	int r = 0;

	assert_non_null(j);
	if (step == 0) {
		r = json_push_feed(j, (const unsigned char *)text, cut);
		if (r == 0)
			r = json_push_feed(j, (const unsigned char *)text + cut, len - cut);
	} else {
		for (size_t at = 0; at < len && r == 0; at += step)
			r = json_push_feed(j, (const unsigned char *)text + at, len - at < step ? len - at : step);
	}
	if (r == 0)
		r = json_push_end(j);
	json_push_free(j);
	return r;
}

static void expect_trace(const char *text, const char *want)
{
	size_t len = strlen(text);
	struct trace whole = { 0 }, t;

	assert_int_equal(read_text(text, len, len, 0, &whole), 0);
	assert_string_equal(whole.s, want);
	for (size_t cut = 0; cut <= len; cut++)
		for (int take = 0; take < 2; take++) {
			memset(&t, 0, sizeof t);
			t.take_lower = take;
			assert_int_equal(read_text(text, len, 0, cut, &t), 0);
			assert_string_equal(t.s, want);
		}
	memset(&t, 0, sizeof t);
	assert_int_equal(read_text(text, len, 1, 0, &t), 0);
	assert_string_equal(t.s, want);
}

static void test_events(void **state)
{
	(void)state;
	expect_trace("{}", "{}");
	expect_trace(" [ ] ", "[]");
	expect_trace("{\"ab\":\"cd\",\"e\":[1,-2.5e+3,true,false,null]}",
		     "{kab:scd\"ke:[#1$#-2.5e+3$t.f.z.]}");
	expect_trace("[{\"a\":{}},[[]],\"\"]", "[{ka:{}}[[]]s\"]");
	expect_trace("\"x\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud834\\udd1e\xe2\x82\xacy\"",
		     "sx\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9d\x84\x9e\xe2\x82\xacy\"");
	/* A number alone ends with the text. */
	expect_trace("12", "#12$");
	expect_trace("0 ", "#0$");
	expect_trace("-0.5E-7", "#-0.5E-7$");
}

/* The strings heard are the ones jansson reads. */
static void test_strings_as_jansson(void **state)
{
	static const char *const strings[] = {
		"plain text, with blanks", "\\u0041\\u00e9\\u20ac\\ud83d\\ude00", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
		"a\\nb\\tc\\\"d\\\\e\\/f", "ABCabc+/==", "",
	};
	char text[256];
	struct trace t;

	(void)state;
	for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) {
		json_t *j;
		int n = snprintf(text, sizeof text, "\"%s\"", strings[i]);

		assert_true(n > 0 && (size_t)n < sizeof text);
		assert_non_null(j = json_loads(text, JSON_DECODE_ANY, NULL));
		for (int take = 0; take < 2; take++) {
			memset(&t, 0, sizeof t);
			t.take_lower = take;
			assert_int_equal(read_text(text, (size_t)n, 1, 0, &t), 0);
			/* "s" ... "\"" around the value */
			assert_int_equal(t.n, json_string_length(j) + 2);
			assert_memory_equal(t.s + 1, json_string_value(j), json_string_length(j));
		}
		json_decref(j);
	}
}

static void same_acceptance(const char *text, size_t len)
{
	json_t *j = json_loadb(text, len, JSON_DECODE_ANY, NULL);
	struct trace t;
	int want = j != NULL;

	json_decref(j);
	for (size_t step = 1; step <= len + 1; step += len / 3 + 1) {
		memset(&t, 0, sizeof t);
		if ((read_text(text, len, step, 0, &t) == 0) != want)
			fail_msg("jansson %s, the lexer %s (pieces of %zu): %.*s", want ? "accepts" : "refuses",
				 want ? "refuses" : "accepts", step, (int)(len < 200 ? len : 200), text);
	}
}

static void test_acceptance_as_jansson(void **state)
{
	static const char *const docs[] = {
		"1", "-", "-0", "01", "1.", ".5", "1e", "1e+", "1E+2", " 7 ", "1 2", "1e400", "-1e309", "1e-400",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"true", "tru", "truex", "nul", "null ", "False", "\"", "\"a", "\"a\"", "\"a\" \"b\"", "\"\\u0000\"",
		"\"\\ud834\"", "\"\\udc00\"", "\"\\ud834\\u0041\"", "\"\\x\"", "\"\t\"", "\"\x7f\"", "\"\xc0\x80\"",
		"\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xe2\x82\"", "", " ", "[", "]", "[1,]", "[,1]",
		"{\"a\"}", "{\"a\":}", "{1:2}", "{\"a\":1,}", "[1 2]", "[[]]]", "{}x", "[true,false,null]",
	};
	char deep[2 * 2050 + 2];

	(void)state;
	for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
		same_acceptance(docs[i], strlen(docs[i]));
	/* jansson takes 2,048 levels, not 2,049. */
	for (size_t depth = 2047; depth <= 2050; depth++) {
		memset(deep, '[', depth);
		memset(deep + depth, ']', depth);
		same_acceptance(deep, 2 * depth);
	}
}

/* A user that says -1 stops the lexer, and it stays stopped. */
static void test_refusal(void **state)
{
	struct trace t = { 0 };
	struct json_push *j;

	(void)state;
	t.refuse = 1;
	t.refused = JSON_PUSH_STRING;
	assert_non_null(j = json_push_new(&sink, &t));
	assert_int_equal(json_push_feed(j, (const unsigned char *)"[1,", 3), 0);
	assert_int_equal(json_push_feed(j, (const unsigned char *)"\"a\"]", 4), -1);
	assert_int_equal(json_push_feed(j, (const unsigned char *)" ", 1), -1);
	assert_int_equal(json_push_end(j), -1);
	assert_string_equal(t.s, "[#1$");
	json_push_free(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_strings_as_jansson),
		cmocka_unit_test(test_acceptance_as_jansson),
		cmocka_unit_test(test_refusal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
