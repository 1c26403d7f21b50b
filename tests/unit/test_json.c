/*
 * test_json - the argument checks every tool handler runs on the agent's
 * JSON: each failure must name the field and say what would be accepted,
 * because a model reads the message and tries again.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "json.h"

static json_t *parse(const char *text)
{
	char err[256] = "";
	json_t *v = hb_json_parse_object(text, strlen(text), err, sizeof err);

	if (!v)
		fail_msg("parse of %s failed: %s", text, err);
	return v;
}

static void assert_contains(const char *haystack, const char *needle)
{
	if (!strstr(haystack, needle))
		fail_msg("\"%s\" does not mention \"%s\"", haystack, needle);
}

static void test_parse_object(void **state)
{
	static const struct {
		const char *text;
		const char *why; /* NULL: accepted */
	} cases[] = {
		{ "{}", NULL },
		{ " {\"a\": 1, \"b\": [true, null], \"c\": {\"d\": \"e\"}} ", NULL },
		{ "", "not valid JSON" },
		{ "{", "not valid JSON" },
		{ "{\"a\":}", "not valid JSON" },
		{ "{'a': 1}", "not valid JSON" },
		{ "{\"a\": 1} x", "not valid JSON" },
		{ "{\"a\": 1, \"a\": 2}", "not valid JSON" }, /* duplicate keys */
		{ "[]", "must be a JSON object" },
		{ "[{\"a\":1}]", "must be a JSON object" },
		/* jansson already refuses a bare scalar, with its own message. */
		{ "\"text\"", "JSON" },
		{ "42", "JSON" },
		{ "null", "JSON" },
		{ "true", "JSON" },
		{ "{\"a\":\"x\\u0000y\"}", "must not hold \\u0000" }, /* NUL in a string */
	};

	(void)state;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		char err[256] = "";
		json_t *v = hb_json_parse_object(cases[c].text, strlen(cases[c].text), err, sizeof err);

		if (!cases[c].why) {
			if (!v)
				fail_msg("%s refused: %s", cases[c].text, err);
			assert_true(json_is_object(v));
			json_decref(v);
			continue;
		}
		if (v)
			fail_msg("%s accepted", cases[c].text);
		assert_contains(err, cases[c].why);
	}
	/* The length is honoured: only the first bytes are parsed. */
	{
		char err[256];
		json_t *v = hb_json_parse_object("{\"a\":1}GARBAGE", 7, err, sizeof err);

		assert_non_null(v);
		json_decref(v);
	}
	/* The duplicate-key error says which key, with a position. */
	{
		char err[256] = "";

		assert_null(hb_json_parse_object("{\"dup\":1,\"dup\":2}", 17, err, sizeof err));
		assert_contains(err, "dup");
		assert_contains(err, "line 1");
	}
}

static void test_only_fields(void **state)
{
	static const char *const allowed[] = { "text", "voice", "speed", NULL };
	static const char *const none[] = { NULL };
	json_t *ok = parse("{\"text\":\"hi\",\"speed\":2}");
	json_t *bad = parse("{\"text\":\"hi\",\"sessionId\":\"s1\"}");
	json_t *empty = parse("{}");
	char err[256] = "";

	(void)state;
	assert_int_equal(hb_json_only_fields(ok, allowed, err, sizeof err), 0);
	assert_int_equal(hb_json_only_fields(empty, none, err, sizeof err), 0);
	assert_int_equal(hb_json_only_fields(bad, allowed, err, sizeof err), -1);
	assert_contains(err, "unknown field \"sessionId\"");
	assert_contains(err, "text voice speed");
	assert_int_equal(hb_json_only_fields(ok, none, err, sizeof err), -1);
	assert_contains(err, "unknown field");

	/* A short buffer is truncated, never overrun. */
	{
		char small[24];

		memset(small, 'Z', sizeof small);
		assert_int_equal(hb_json_only_fields(bad, allowed, small, 20), -1);
		assert_int_equal(small[19], '\0');
		assert_int_equal(small[20], 'Z');
		memset(small, 'Z', sizeof small);
		assert_int_equal(hb_json_only_fields(bad, allowed, small, 23), -1);
		assert_int_equal(strlen(small), 22);
		assert_int_equal(small[23], 'Z');
	}
	json_decref(ok);
	json_decref(bad);
	json_decref(empty);
}

static void test_strings(void **state)
{
	json_t *o = parse("{\"name\":\"abc\",\"empty\":\"\",\"num\":5,"
			  "\"null\":null,\"utf\":\"\xc3\xa9t\xc3\xa9\"}");
	static const struct {
		const char *key;
		size_t maxlen;
		int required;     /* req_string instead of opt_string */
		int nonempty;     /* opt_string only */
		int rc;
		const char *want; /* value on success (NULL: absent), or a piece of the error */
	} cases[] = {
		{ "name", 10, 0, 0, 0, "abc" },
		{ "name", 3, 0, 1, 0, "abc" },     /* exactly maxlen */
		{ "name", 2, 0, 0, -1, "too long (at most 2 bytes)" },
		{ "name", 3, 1, 0, 0, "abc" },
		{ "name", 2, 1, 0, -1, "\"name\" is too long" },
		{ "utf", 5, 0, 0, 0, "\xc3\xa9t\xc3\xa9" }, /* bytes, not characters */
		{ "utf", 4, 0, 0, -1, "too long" },
		{ "empty", 10, 0, 0, 0, "" },
		{ "empty", 10, 0, 1, -1, "\"empty\" must not be empty" },
		{ "empty", 10, 1, 0, -1, "\"empty\" must not be empty" },
		{ "missing", 10, 0, 1, 0, NULL },
		{ "missing", 10, 1, 0, -1, "\"missing\" is required" },
		{ "num", 10, 0, 0, -1, "\"num\" must be a string" },
		{ "num", 10, 1, 0, -1, "\"num\" must be a string" },
		{ "null", 10, 0, 0, -1, "\"null\" must be a string" },
		{ "nul", 10, 0, 0, -1, "\"nul\" must not contain NUL" },
		{ "nul", 10, 1, 0, -1, "NUL" },
	};

	(void)state;
	/* The parser refuses \u0000, but an object built in code can hold a NUL. */
	json_object_set_new(o, "nul", json_stringn("a\0b", 3));
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		const char *out = (const char *)&c; /* must be overwritten */
		char err[256] = "";
		int rc = cases[c].required
			 ? hb_json_req_string(o, cases[c].key, cases[c].maxlen, &out, err, sizeof err)
			 : hb_json_opt_string(o, cases[c].key, cases[c].maxlen, cases[c].nonempty, &out,
					      err, sizeof err);

		if (rc != cases[c].rc)
			fail_msg("case %zu (%s): rc %d, want %d (%s)", c, cases[c].key, rc, cases[c].rc, err);
		if (rc == 0) {
			if (cases[c].want)
				assert_string_equal(out, cases[c].want);
			else
				assert_null(out);
		} else {
			assert_contains(err, cases[c].want);
		}
	}
	json_decref(o);
}

static void test_opt_int(void **state)
{
	json_t *o = parse("{\"n\":5,\"neg\":-3,\"big\":9223372036854775807,\"f\":1.0,\"s\":\"5\","
			  "\"b\":true,\"z\":null}");
	static const struct {
		const char *key;
		long long min, max, dflt;
		int rc;
		long long out;
		const char *why;
	} cases[] = {
		{ "n", 0, 10, 7, 0, 5, NULL },
		{ "n", 5, 5, 7, 0, 5, NULL },           /* bounds are inclusive */
		{ "n", 6, 10, 7, -1, 7, "\"n\" is 5; it must be from 6 to 10" },
		{ "n", 0, 4, 7, -1, 7, "\"n\" is 5; it must be from 0 to 4" },
		{ "neg", -3, 0, 0, 0, -3, NULL },
		{ "neg", 0, 10, 1, -1, 1, "\"neg\" is -3" },
		{ "big", 0, 1000, 1, -1, 1, "is 9223372036854775807" },
		{ "big", 0, INT64_MAX, 1, 0, INT64_MAX, NULL },
		{ "missing", 0, 10, 7, 0, 7, NULL },
		{ "f", 0, 10, 7, -1, 7, "\"f\" must be an integer from 0 to 10" },
		{ "s", 0, 10, 7, -1, 7, "\"s\" must be an integer" },
		{ "b", 0, 10, 7, -1, 7, "must be an integer" },
		{ "z", 0, 10, 7, -1, 7, "must be an integer" },
	};

	(void)state;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		long long out = 12345;
		char err[256] = "";
		int rc = hb_json_opt_int(o, cases[c].key, cases[c].min, cases[c].max, cases[c].dflt,
					 &out, err, sizeof err);

		if (rc != cases[c].rc)
			fail_msg("case %zu (%s): rc %d, want %d (%s)", c, cases[c].key, rc, cases[c].rc, err);
		if (rc == 0)
			assert_true(out == cases[c].out);
		else
			assert_contains(err, cases[c].why);
	}
	json_decref(o);
}

static void test_opt_bool(void **state)
{
	json_t *o = parse("{\"t\":true,\"f\":false,\"one\":1,\"s\":\"true\",\"z\":null}");
	static const struct {
		const char *key;
		int dflt, rc, out;
	} cases[] = {
		{ "t", 0, 0, 1 },
		{ "f", 1, 0, 0 },
		{ "missing", 1, 0, 1 },
		{ "missing", 0, 0, 0 },
		{ "one", 0, -1, 0 },
		{ "s", 0, -1, 0 },
		{ "z", 0, -1, 0 },
	};

	(void)state;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		int out = 99;
		char err[256] = "";
		int rc = hb_json_opt_bool(o, cases[c].key, cases[c].dflt, &out, err, sizeof err);

		if (rc != cases[c].rc)
			fail_msg("case %zu (%s): rc %d, want %d", c, cases[c].key, rc, cases[c].rc);
		if (rc == 0) {
			assert_int_equal(out, cases[c].out);
		} else {
			char want[64];

			snprintf(want, sizeof want, "\"%s\" must be true or false", cases[c].key);
			assert_string_equal(err, want);
		}
	}
	json_decref(o);
}

static void test_check_choice(void **state)
{
	static const char *const voices[] = { "Kore", "Puck", "Charon", NULL };
	static const char *const one[] = { "only", NULL };
	char err[256] = "";

	(void)state;
	assert_int_equal(hb_json_check_choice("voice", "Puck", voices, err, sizeof err), 0);
	assert_int_equal(hb_json_check_choice("voice", "Charon", voices, err, sizeof err), 0);
	assert_int_equal(hb_json_check_choice("voice", "puck", voices, err, sizeof err), -1);
	assert_string_equal(err, "\"voice\" must be one of: Kore, Puck, Charon");
	assert_int_equal(hb_json_check_choice("voice", "", voices, err, sizeof err), -1);
	assert_int_equal(hb_json_check_choice("mode", "x", one, err, sizeof err), -1);
	assert_string_equal(err, "\"mode\" must be one of: only");
	/* A short buffer is truncated, never overrun. */
	{
		char small[16];

		memset(small, 'Z', sizeof small);
		assert_int_equal(hb_json_check_choice("voice", "x", voices, small, 12), -1);
		assert_int_equal(small[11], '\0');
		assert_int_equal(small[12], 'Z');
	}
}

static void test_dump(void **state)
{
	json_t *o = parse("{\"a\": [1, 2], \"b\": \"c\"}");
	json_t *s = json_string("plain");
	char *text;

	(void)state;
	text = hb_json_dump(o);
	assert_string_equal(text, "{\"a\":[1,2],\"b\":\"c\"}");
	free(text);
	text = hb_json_dump(s); /* not only objects */
	assert_string_equal(text, "\"plain\"");
	free(text);
	json_decref(o);
	json_decref(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_object),
		cmocka_unit_test(test_only_fields),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_opt_int),
		cmocka_unit_test(test_opt_bool),
		cmocka_unit_test(test_check_choice),
		cmocka_unit_test(test_dump),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
