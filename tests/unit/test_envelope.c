/*
 * test_envelope - the envelope codec: round trips of what the processes
 * send each other, and the limits on what any local process may send in.
 *
 * Frames are written as hex strings (one byte per pair, spaces ignored) so
 * each case reads like a hexdump.  Key bytes used throughout:
 *   82/83/84  fixmap of 2/3/4     a1 76 = "v"     a2 6f 70 = "op"
 *   a1 78 = "x"   a3 65 72 72 = "err"   a4 63 6f 64 65 = "code"
 * The minimal valid envelope {"v":1,"op":"x"} is  82 a1 76 01 a2 6f 70 a1 78.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "envelope.h"

#define VALID "82 a1 76 01 a2 6f 70 a1 78"

/* Decode a hex string into out; returns the byte count. */
static size_t unhex(const char *hex, unsigned char *out, size_t cap)
{
	size_t n = 0;

	while (*hex) {
		unsigned hi, lo;

		if (*hex == ' ') {
			hex++;
			continue;
		}
		assert_true(hex[1] != '\0');
		assert_int_equal(sscanf(hex, "%1x%1x", &hi, &lo), 2);
		assert_true(n < cap);
		out[n++] = (unsigned char)(hi << 4 | lo);
		hex += 2;
	}
	return n;
}

/* Encode e and decode the result into *out (must succeed). */
static void round_trip(const struct hb_env *e, struct hb_env *out)
{
	char *buf = NULL, err[256] = "";
	size_t len = 0;

	assert_int_equal(hb_env_encode(e, &buf, &len), 0);
	assert_non_null(buf);
	if (hb_env_decode(out, buf, len, err, sizeof err) != 0)
		fail_msg("decode of an encoded envelope failed: %s", err);
	free(buf);
}

static void test_round_trip(void **state)
{
	struct hb_env e, d;
	int64_t i;

	(void)state;
	hb_env_init(&e);
	assert_int_equal(hb_env_set_str(&e, "op", "call"), 0);
	assert_int_equal(hb_env_set_str(&e, "id", "r-17"), 0);
	assert_int_equal(hb_env_set_str(&e, "json", "{\"a\":[1,2,\"\\u00e9\"]}"), 0);
	assert_int_equal(hb_env_set_strn(&e, "part", "abcdef", 3), 0);
	assert_int_equal(hb_env_set_str(&e, "empty", ""), 0);
	assert_int_equal(hb_env_set_int(&e, "small", 5), 0);
	assert_int_equal(hb_env_set_int(&e, "neg", -40000), 0);
	assert_int_equal(hb_env_set_int(&e, "big", INT64_MAX), 0);
	assert_int_equal(hb_env_set_int(&e, "min", INT64_MIN), 0);
	assert_int_equal(hb_env_set_bool(&e, "yes", 7), 0);
	assert_int_equal(hb_env_set_bool(&e, "no", 0), 0);
	assert_int_equal(hb_env_set_err(&e, "busy", "Service svc-speech is restarting."), 0);

	round_trip(&e, &d);
	assert_string_equal(hb_env_str(&d, "op"), "call");
	assert_string_equal(hb_env_str(&d, "id"), "r-17");
	assert_string_equal(hb_env_str(&d, "json"), "{\"a\":[1,2,\"\\u00e9\"]}");
	assert_string_equal(hb_env_str(&d, "part"), "abc");
	assert_int_equal(hb_env_get(&d, "part")->len, 3);
	assert_string_equal(hb_env_str(&d, "empty"), "");
	assert_int_equal(hb_env_int(&d, "small", &i), 0);
	assert_int_equal(i, 5);
	assert_int_equal(hb_env_int(&d, "neg", &i), 0);
	assert_int_equal(i, -40000);
	assert_int_equal(hb_env_int(&d, "big", &i), 0);
	assert_true(i == INT64_MAX);
	assert_int_equal(hb_env_int(&d, "min", &i), 0);
	assert_true(i == INT64_MIN);
	assert_int_equal(hb_env_bool(&d, "yes", -1), 1);
	assert_int_equal(hb_env_bool(&d, "no", -1), 0);
	assert_string_equal(hb_env_str(&d, "err.code"), "busy");
	assert_string_equal(hb_env_str(&d, "err.msg"), "Service svc-speech is restarting.");
	/* v was added by the encoder. */
	assert_int_equal(hb_env_int(&d, "v", &i), 0);
	assert_int_equal(i, HB_PROTO_VERSION);
	assert_int_equal(d.n, e.n + 1);

	/* Accessors on absent keys and wrong types. */
	assert_null(hb_env_get(&d, "nope"));
	assert_null(hb_env_str(&d, "small"));
	assert_string_equal(hb_env_str_or(&d, "nope", "dflt"), "dflt");
	assert_int_equal(hb_env_int(&d, "op", &i), -1);
	assert_int_equal(hb_env_int(&d, "nope", &i), -1);
	assert_int_equal(hb_env_bool(&d, "op", 7), 7);
	assert_int_equal(hb_env_bool(&d, "nope", 8), 8);
	hb_env_free(&d);
	hb_env_free(&d); /* freeing twice is harmless */
}

static void test_nested_map_written_once(void **state)
{
	struct hb_env e, d;
	char *buf;
	size_t len;

	(void)state;
	/* Members of one nested map, interleaved with other keys, end up in one map. */
	hb_env_init(&e);
	hb_env_set_str(&e, "ctx.session", "s1");
	hb_env_set_str(&e, "op", "call");
	hb_env_set_str(&e, "ctx.run", "r1");
	hb_env_set_int(&e, "ctx.n", 3);
	assert_int_equal(hb_env_encode(&e, &buf, &len), 0);
	/* {v, ctx:{...}, op}: a fixmap of 3 at top. */
	assert_int_equal((unsigned char)buf[0], 0x83);
	free(buf);
	round_trip(&e, &d);
	assert_string_equal(hb_env_str(&d, "ctx.session"), "s1");
	assert_string_equal(hb_env_str(&d, "ctx.run"), "r1");
	assert_string_equal(hb_env_str(&d, "op"), "call");
	hb_env_free(&d);
}

static void test_replace_existing_key(void **state)
{
	struct hb_env e, d;
	int64_t i;

	(void)state;
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "first");
	hb_env_set_str(&e, "op", "second");
	assert_int_equal(e.n, 1);
	hb_env_set_str(&e, "id", "a");
	hb_env_set_int(&e, "id", 9); /* a replacement may change the type */
	hb_env_set_err(&e, "one", "first error");
	hb_env_set_err(&e, "two", "second error");
	assert_int_equal(e.n, 4);
	round_trip(&e, &d);
	assert_string_equal(hb_env_str(&d, "op"), "second");
	assert_null(hb_env_str(&d, "id"));
	assert_int_equal(hb_env_int(&d, "id", &i), 0);
	assert_int_equal(i, 9);
	assert_string_equal(hb_env_str(&d, "err.code"), "two");
	assert_string_equal(hb_env_str(&d, "err.msg"), "second error");
	hb_env_free(&d);
}

static void test_explicit_v_not_doubled(void **state)
{
	struct hb_env e, d;
	char *buf;
	size_t len;
	int64_t i;

	(void)state;
	hb_env_init(&e);
	hb_env_set_int(&e, "v", HB_PROTO_VERSION);
	hb_env_set_str(&e, "op", "x");
	assert_int_equal(hb_env_encode(&e, &buf, &len), 0);
	assert_int_equal((unsigned char)buf[0], 0x82);
	free(buf);
	round_trip(&e, &d);
	assert_int_equal(d.n, 2);
	assert_int_equal(hb_env_int(&d, "v", &i), 0);
	assert_int_equal(i, 1);
	hb_env_free(&d);
}

static void test_setters_refuse_when_full(void **state)
{
	struct hb_env e;
	char keys[HB_MAX_FIELDS][16];

	(void)state;
	hb_env_init(&e);
	for (int k = 0; k < HB_MAX_FIELDS; k++) {
		snprintf(keys[k], sizeof keys[k], "k%d", k);
		assert_int_equal(hb_env_set_int(&e, keys[k], k), 0);
	}
	assert_int_equal(hb_env_set_int(&e, "one_more", 1), -1);
	assert_int_equal(hb_env_set_int(&e, "k3", 33), 0); /* replacing still works */
	assert_int_equal(hb_env_set_str(&e, "a_key_longer_than_thirty_two_bytes", "x"), -1);
}

/* Frames that decode, and one field each to look at. */
struct accept_case {
	const char *name;
	const char *hex;
	const char *key;
	const char *str;   /* expected string, or NULL for an integer */
	int64_t num;
};

static const struct accept_case accept_cases[] = {
	{ "minimal", VALID, "op", "x", 0 },
	{ "positive fixint", "83 a1 76 01 a2 6f 70 a1 78 a1 6e 7f", "n", NULL, 127 },
	{ "negative fixint", "83 a1 76 01 a2 6f 70 a1 78 a1 6e e0", "n", NULL, -32 },
	{ "uint8", "83 a1 76 01 a2 6f 70 a1 78 a1 6e cc ff", "n", NULL, 255 },
	{ "uint16", "83 a1 76 01 a2 6f 70 a1 78 a1 6e cd 01 00", "n", NULL, 256 },
	{ "uint32", "83 a1 76 01 a2 6f 70 a1 78 a1 6e ce ff ff ff ff", "n", NULL, 4294967295 },
	{ "uint64 max int64", "83 a1 76 01 a2 6f 70 a1 78 a1 6e cf 7f ff ff ff ff ff ff ff",
	  "n", NULL, INT64_MAX },
	{ "int8", "83 a1 76 01 a2 6f 70 a1 78 a1 6e d0 80", "n", NULL, -128 },
	{ "int16", "83 a1 76 01 a2 6f 70 a1 78 a1 6e d1 80 00", "n", NULL, -32768 },
	{ "int32", "83 a1 76 01 a2 6f 70 a1 78 a1 6e d2 80 00 00 00", "n", NULL, INT32_MIN },
	{ "int64", "83 a1 76 01 a2 6f 70 a1 78 a1 6e d3 80 00 00 00 00 00 00 00", "n", NULL, INT64_MIN },
	{ "v as uint8", "82 a1 76 cc 01 a2 6f 70 a1 78", "op", "x", 0 },
	{ "str8", "82 a1 76 01 a2 6f 70 d9 03 61 62 63", "op", "abc", 0 },
	{ "str16", "82 a1 76 01 a2 6f 70 da 00 02 68 69", "op", "hi", 0 },
	{ "str32", "82 a1 76 01 a2 6f 70 db 00 00 00 01 7a", "op", "z", 0 },
	{ "map16 at top", "de 00 02 a1 76 01 a2 6f 70 a1 78", "op", "x", 0 },
	{ "nested err map", "83 a1 76 01 a2 6f 70 a1 78 a3 65 72 72 82 a4 63 6f 64 65 a1 63 a3 6d 73 67 a1 6d",
	  "err.msg", "m", 0 },
	{ "empty nested map", "83 a1 76 01 a2 6f 70 a1 78 a1 61 80", "op", "x", 0 },
	{ "nil is absent", "83 a1 76 01 a2 6f 70 a1 78 a1 61 c0", "op", "x", 0 },
	{ "16-byte key", "83 a1 76 01 a2 6f 70 a1 78 b0 61 61 61 61 61 61 61 61 61 61 61 61 61 61 61 61 01",
	  "aaaaaaaaaaaaaaaa", NULL, 1 },
};

static void test_accepted_frames(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof accept_cases / sizeof accept_cases[0]; c++) {
		const struct accept_case *t = &accept_cases[c];
		unsigned char buf[256];
		size_t len = unhex(t->hex, buf, sizeof buf);
		struct hb_env e;
		char err[256] = "";
		int64_t i;

		if (hb_msgpack_check(buf, len, HB_MAX_DEPTH, err, sizeof err) != 0)
			fail_msg("%s: check refused a valid frame: %s", t->name, err);
		if (hb_env_decode(&e, buf, len, err, sizeof err) != 0)
			fail_msg("%s: decode refused a valid frame: %s", t->name, err);
		if (t->str) {
			assert_non_null(hb_env_str(&e, t->key));
			assert_string_equal(hb_env_str(&e, t->key), t->str);
		} else {
			assert_int_equal(hb_env_int(&e, t->key, &i), 0);
			if (i != t->num)
				fail_msg("%s: got %lld, want %lld", t->name, (long long)i, (long long)t->num);
		}
		hb_env_free(&e);
	}
	/* nil means absent. */
	{
		unsigned char buf[64];
		size_t len = unhex("83 a1 76 01 a2 6f 70 a1 78 a1 61 c0", buf, sizeof buf);
		struct hb_env e;
		char err[256];

		assert_int_equal(hb_env_decode(&e, buf, len, err, sizeof err), 0);
		assert_null(hb_env_get(&e, "a"));
		assert_int_equal(e.n, 2);
		hb_env_free(&e);
	}
}

/* Frames that must be refused.  check: what hb_msgpack_check alone says
 * (-1 for a structural fault, 0 when only the envelope schema is wrong);
 * why: a piece of the expected reason. */
struct reject_case {
	const char *name;
	const char *hex;
	int check;
	const char *why;
};

static const struct reject_case reject_cases[] = {
	/* Counts that exceed the bytes left: refused by the pre-walk, before
	 * msgpack-c could reserve 24 bytes per announced element. */
	{ "array32 of 2^32-1", "dd ff ff ff ff", -1, "claims 4294967295 elements" },
	{ "map32 of 2^32-1", "df ff ff ff ff", -1, "claims 8589934590 elements" },
	{ "array16 of 1525, 3 bytes", "dc 05 f5 01 02 03", -1, "claims 1525 elements" },
	{ "array32 of 10^8", "dd 05 f5 e1 00 c0 c0", -1, "claims 100000000 elements" },
	{ "map16 of 16, 4 bytes", "de 00 10 a1 76 01 c0", -1, "claims 32 elements" },
	{ "fixmap of 3, 2 pairs", "83 a1 76 01 a2 6f 70 a1 78", -1, "truncated" },
	{ "nested array count", "83 a1 76 01 a2 6f 70 a1 78 a1 61 dd 00 01 00 00 01", -1, "claims" },
	{ "nested map count", "83 a1 76 01 a2 6f 70 a1 78 a1 61 df 00 01 00 00 01", -1, "claims" },
	/* Nesting. */
	{ "depth HB_MAX_DEPTH+1", "91 91 91 91 91 c0", -1, "deeper than 4" },
	/* Trailing bytes. */
	{ "one trailing byte", VALID " 00", -1, "1 trailing bytes" },
	{ "two values", VALID " " VALID, -1, "trailing" },
	/* 0xc1, wherever it is. */
	{ "0xc1 alone", "c1", -1, "0xc1" },
	{ "0xc1 as value", "82 a1 76 01 a2 6f 70 c1", -1, "0xc1" },
	{ "0xc1 as key", "83 a1 76 01 a2 6f 70 a1 78 c1 01", -1, "0xc1" },
	{ "0xc1 in nested map", "83 a1 76 01 a2 6f 70 a1 78 a3 65 72 72 81 a4 63 6f 64 65 c1", -1, "0xc1" },
	{ "0xc1 in array", "83 a1 76 01 a2 6f 70 a1 78 a1 61 92 01 c1", -1, "0xc1" },
	/* Extension types. */
	{ "fixext1 alone", "d4 01 00", -1, "extension" },
	{ "fixext1 as value", "83 a1 76 01 a2 6f 70 a1 78 a1 61 d4 01 00", -1, "extension" },
	{ "fixext2", "83 a1 76 01 a2 6f 70 a1 78 a1 61 d5 01 00 00", -1, "extension" },
	{ "fixext16", "83 a1 76 01 a2 6f 70 a1 78 a1 61 d8 01"
	  " 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", -1, "extension" },
	{ "ext8", "83 a1 76 01 a2 6f 70 a1 78 a1 61 c7 01 05 00", -1, "extension" },
	{ "ext8 length 0", "83 a1 76 01 a2 6f 70 a1 78 a1 61 c7 00 05", -1, "extension" },
	{ "ext16", "83 a1 76 01 a2 6f 70 a1 78 a1 61 c8 00 01 05 00", -1, "extension" },
	{ "ext32", "83 a1 76 01 a2 6f 70 a1 78 a1 61 c9 00 00 00 01 05 00", -1, "extension" },
	/* Truncation. */
	{ "fixstr 5 with 1 byte", "82 a1 76 01 a2 6f 70 a5 78", -1, "claims 5 bytes" },
	{ "str8 16 with 2 bytes", "82 a1 76 01 a2 6f 70 d9 10 41 41", -1, "claims 16 bytes" },
	{ "str16 header cut", "82 a1 76 01 a2 6f 70 da 00", -1, "inside an item header" },
	{ "str32 256 with 1 byte", "82 a1 76 01 a2 6f 70 db 00 00 01 00 41", -1, "claims 256 bytes" },
	{ "str32 of 2^32-1", "82 a1 76 01 a2 6f 70 db ff ff ff ff 41", -1, "claims 4294967295 bytes" },
	{ "bin8 8 with 1 byte", "83 a1 76 01 a2 6f 70 a1 78 a1 62 c4 08 00", -1, "claims 8 bytes" },
	{ "bin32 huge", "83 a1 76 01 a2 6f 70 a1 78 a1 62 c6 ff ff ff ff", -1, "claims" },
	{ "uint64 cut", "83 a1 76 01 a2 6f 70 a1 78 a1 6e cf 00 00", -1, "inside an item header" },
	{ "map missing value", "82 a1 76 01 a2 6f 70", -1, "truncated" },
	{ "key cut", "82 a1 76 01 a2 6f", -1, "claims 2 bytes" },
	/* Keys. */
	{ "int key", "83 a1 76 01 a2 6f 70 a1 78 01 01", 0, "not a string" },
	{ "nil key", "83 a1 76 01 a2 6f 70 a1 78 c0 01", 0, "not a string" },
	{ "bin key", "83 a1 76 01 a2 6f 70 a1 78 c4 01 61 01", 0, "not a string" },
	{ "int key in nested map", "83 a1 76 01 a2 6f 70 a1 78 a3 65 72 72 81 01 01", 0, "not a string" },
	{ "empty key", "83 a1 76 01 a2 6f 70 a1 78 a0 01", 0, "key is empty" },
	{ "17-byte key", "83 a1 76 01 a2 6f 70 a1 78 b1 61 61 61 61 61 61 61 61 61 61 61 61 61 61 61 61 61 01",
	  0, "too long" },
	{ "key with NUL", "83 a1 76 01 a2 6f 70 a1 78 a2 6b 00 01", 0, "NUL" },
	{ "key with dot", "83 a1 76 01 a2 6f 70 a1 78 a3 61 2e 62 01", 0, "dot" },
	{ "duplicate op", "83 a1 76 01 a2 6f 70 a1 78 a2 6f 70 a1 79", 0, "appears twice" },
	{ "duplicate v", "83 a1 76 01 a2 6f 70 a1 78 a1 76 01", 0, "appears twice" },
	{ "duplicate nested key", "83 a1 76 01 a2 6f 70 a1 78 a3 65 72 72 82 a1 63 01 a1 63 02", 0, "twice" },
	/* nil means absent, but a nil first value still takes the key. */
	{ "duplicate nested key, nil first", "83 a1 76 01 a2 6f 70 a1 78 a3 65 72 72 82 a1 63 c0 a1 63 02", 0,
	  "twice" },
	{ "duplicate nested key, nil both", "83 a1 76 01 a2 6f 70 a1 78 a3 65 72 72 82 a1 63 c0 a1 63 c0", 0,
	  "twice" },
	{ "duplicate key, nil first", "84 a1 76 01 a2 6f 70 a1 78 a1 78 c0 a1 78 01", 0, "twice" },
	/* Values. */
	{ "NUL in string", "82 a1 76 01 a2 6f 70 a3 61 00 62", 0, "NUL" },
	{ "NUL in nested string", "83 a1 76 01 a2 6f 70 a1 78 a3 65 72 72 81 a1 6d a1 00", 0, "NUL" },
	{ "float64 value", "83 a1 76 01 a2 6f 70 a1 78 a1 66 cb 3f f0 00 00 00 00 00 00", 0, "type" },
	{ "float32 value", "83 a1 76 01 a2 6f 70 a1 78 a1 66 ca 3f 80 00 00", 0, "type" },
	{ "bin value", "83 a1 76 01 a2 6f 70 a1 78 a1 62 c4 01 61", 0, "type" },
	{ "array value", "83 a1 76 01 a2 6f 70 a1 78 a1 61 92 01 02", 0, "type" },
	{ "array in nested map", "83 a1 76 01 a2 6f 70 a1 78 a1 61 81 a1 62 90", 0, "type" },
	{ "uint64 over int64", "83 a1 76 01 a2 6f 70 a1 78 a1 6e cf 80 00 00 00 00 00 00 00", 0, "out of range" },
	{ "map in map in map", "83 a1 76 01 a2 6f 70 a1 78 a1 61 81 a1 62 81 a1 63 01", 0, "nests deeper" },
	/* Shape of the envelope. */
	{ "top-level array", "92 a1 76 01", 0, "not a map" },
	{ "top-level string", "a2 6f 70", 0, "not a map" },
	{ "top-level int", "01", 0, "not a map" },
	{ "top-level nil", "c0", 0, "not a map" },
	{ "empty map", "80", 0, "\"v\"" },
	{ "missing v", "81 a2 6f 70 a1 78", 0, "\"v\"" },
	{ "v is a string", "82 a1 76 a1 31 a2 6f 70 a1 78", 0, "\"v\"" },
	{ "v is nil", "82 a1 76 c0 a2 6f 70 a1 78", 0, "\"v\"" },
	{ "v = 2", "82 a1 76 02 a2 6f 70 a1 78", 0, "version 2" },
	{ "v = 0", "82 a1 76 00 a2 6f 70 a1 78", 0, "version 0" },
	{ "v = -1", "82 a1 76 ff a2 6f 70 a1 78", 0, "version -1" },
	{ "v in a nested map only", "82 a1 61 81 a1 76 01 a2 6f 70 a1 78", 0, "\"v\"" },
	{ "missing op", "81 a1 76 01", 0, "\"op\"" },
	{ "op is an int", "82 a1 76 01 a2 6f 70 01", 0, "\"op\"" },
	{ "op is a bool", "82 a1 76 01 a2 6f 70 c3", 0, "\"op\"" },
	{ "op in a nested map only", "82 a1 76 01 a1 61 81 a2 6f 70 a1 78", 0, "\"op\"" },
};

/* 1 when buf is refused as the case says, else 0 after printing why. */
static int refused(const char *name, const unsigned char *buf, size_t len, int check, const char *why)
{
	struct hb_env e;
	char err[256] = "";
	int rc;

	rc = hb_msgpack_check(buf, len, HB_MAX_DEPTH, err, sizeof err);
	if (rc != check) {
		print_error("%s: hb_msgpack_check returned %d, want %d (%s)\n", name, rc, check, err);
		return 0;
	}
	if (check < 0 && why && !strstr(err, why)) {
		print_error("%s: check said \"%s\", want it to mention \"%s\"\n", name, err, why);
		return 0;
	}
	err[0] = '\0';
	e.n = 99;
	e.arena = (char *)&e; /* decode must reset these, never free them */
	if (hb_env_decode(&e, buf, len, err, sizeof err) != -1) {
		print_error("%s: decoded a frame that must be refused\n", name);
		hb_env_free(&e);
		return 0;
	}
	if (err[0] == '\0') {
		print_error("%s: refused without a reason\n", name);
		return 0;
	}
	if (why && !strstr(err, why)) {
		print_error("%s: decode said \"%s\", want it to mention \"%s\"\n", name, err, why);
		return 0;
	}
	if (e.arena != NULL || e.n != 0) {
		print_error("%s: refused but left state behind\n", name);
		return 0;
	}
	return 1;
}

static void expect_rejected(const char *name, const unsigned char *buf, size_t len, int check,
			    const char *why)
{
	if (!refused(name, buf, len, check, why))
		fail_msg("%s: see above", name);
}

/* Run a table of refused frames; every case runs, failures are listed. */
static void run_reject_table(const struct reject_case *cases, size_t n)
{
	int failed = 0;

	for (size_t c = 0; c < n; c++) {
		unsigned char buf[512];
		size_t len = unhex(cases[c].hex, buf, sizeof buf);

		failed += !refused(cases[c].name, buf, len, cases[c].check, cases[c].why);
	}
	if (failed)
		fail_msg("%d of %zu cases failed", failed, n);
}

static void test_rejected_frames(void **state)
{
	(void)state;
	run_reject_table(reject_cases, sizeof reject_cases / sizeof reject_cases[0]);
}

static void test_too_many_fields(void **state)
{
	unsigned char buf[512];
	size_t len = 0;

	(void)state;
	/* A map16 of 33 pairs: v, op and "kA".."k_" with small ints. */
	buf[len++] = 0xde;
	buf[len++] = 0x00;
	buf[len++] = 33;
	len += unhex("a1 76 01 a2 6f 70 a1 78", buf + len, sizeof buf - len);
	for (int k = 0; k < 31; k++) {
		buf[len++] = 0xa2;
		buf[len++] = 'k';
		buf[len++] = (unsigned char)('A' + k);
		buf[len++] = (unsigned char)k;
	}
	expect_rejected("33 fields", buf, len, 0, "more than 32 fields");
	/* 32 fields are fine. */
	buf[2] = 32;
	len -= 4;
	{
		struct hb_env e;
		char err[256];

		if (hb_env_decode(&e, buf, len, err, sizeof err) != 0)
			fail_msg("32 fields refused: %s", err);
		assert_int_equal(e.n, 32);
		hb_env_free(&e);
	}
}

/* A top-level key is a duplicate whether its values are scalars or maps. */
static const struct reject_case duplicate_across_nesting[] = {
	{ "duplicate key, scalar then map", "84 a1 76 01 a2 6f 70 a1 78 a3 65 72 72 a1 78"
	  " a3 65 72 72 81 a1 63 01", 0, "twice" },
	{ "duplicate key, map then scalar", "84 a1 76 01 a2 6f 70 a1 78 a3 65 72 72 81 a1 63 01"
	  " a3 65 72 72 a1 78", 0, "twice" },
	{ "duplicate key, map then map", "84 a1 76 01 a2 6f 70 a1 78 a3 65 72 72 81 a1 63 01"
	  " a3 65 72 72 81 a1 6d 01", 0, "twice" },
	{ "duplicate key, empty map then scalar", "84 a1 76 01 a2 6f 70 a1 78 a3 65 72 72 80"
	  " a3 65 72 72 01", 0, "twice" },
};

static void test_duplicate_keys_across_nesting(void **state)
{
	(void)state;
	run_reject_table(duplicate_across_nesting,
			 sizeof duplicate_across_nesting / sizeof duplicate_across_nesting[0]);
}

/* A chain of `depth` one-element arrays (or maps) around a nil. */
static size_t nest(unsigned char *buf, int depth, int maps)
{
	size_t n = 0;

	for (int i = 0; i < depth; i++) {
		buf[n++] = maps ? 0x81 : 0x91;
		if (maps)
			buf[n++] = 0x01; /* key */
	}
	buf[n++] = 0xc0;
	return n;
}

static void test_depth(void **state)
{
	unsigned char buf[128];
	char err[256];
	size_t len;

	(void)state;
	for (int maps = 0; maps <= 1; maps++) {
		for (int depth = 0; depth <= HB_MAX_DEPTH; depth++) {
			len = nest(buf, depth, maps);
			if (hb_msgpack_check(buf, len, HB_MAX_DEPTH, err, sizeof err) != 0)
				fail_msg("depth %d (maps %d) refused: %s", depth, maps, err);
		}
		for (int depth = HB_MAX_DEPTH + 1; depth <= 40; depth++) {
			len = nest(buf, depth, maps);
			assert_int_equal(hb_msgpack_check(buf, len, HB_MAX_DEPTH, err, sizeof err), -1);
			assert_non_null(strstr(err, "deeper"));
			expect_rejected("deep", buf, len, -1, "deeper");
		}
		/* Depth 33 is where msgpack-c itself fails with NOMEM; a caller asking
		 * for more than HB_MAX_DEPTH still gets HB_MAX_DEPTH. */
		len = nest(buf, 33, maps);
		assert_int_equal(hb_msgpack_check(buf, len, 64, err, sizeof err), -1);
		len = nest(buf, HB_MAX_DEPTH + 1, maps);
		assert_int_equal(hb_msgpack_check(buf, len, 1000, err, sizeof err), -1);
		/* A smaller limit is honoured. */
		len = nest(buf, 2, maps);
		assert_int_equal(hb_msgpack_check(buf, len, 2, err, sizeof err), 0);
		len = nest(buf, 3, maps);
		assert_int_equal(hb_msgpack_check(buf, len, 2, err, sizeof err), -1);
		len = nest(buf, 1, maps);
		assert_int_equal(hb_msgpack_check(buf, len, 0, err, sizeof err), -1);
	}
	/* Depth counts nesting, not siblings: many shallow containers are fine. */
	len = unhex("94 91 c0 91 c0 91 c0 91 91 91 c0", buf, sizeof buf);
	assert_int_equal(hb_msgpack_check(buf, len, HB_MAX_DEPTH, err, sizeof err), 0);
}

static void test_empty_and_oversized(void **state)
{
	static const unsigned char small[] = { 0x82, 0xa1, 0x76, 0x01, 0xa2, 0x6f, 0x70, 0xa1, 0x78 };
	struct hb_env e;
	char err[256] = "";

	(void)state;
	assert_int_equal(hb_env_decode(&e, small, 0, err, sizeof err), -1);
	assert_true(err[0] != '\0');
	assert_int_equal(hb_msgpack_check(small, 0, HB_MAX_DEPTH, err, sizeof err), -1);

	/* The length is checked before a byte is read, so a small buffer with a
	 * huge claimed length is safe to pass here. */
	err[0] = '\0';
	assert_int_equal(hb_env_decode(&e, small, (size_t)HB_MAX_FRAME + 1, err, sizeof err), -1);
	assert_non_null(strstr(err, "limit"));
	err[0] = '\0';
	assert_int_equal(hb_env_decode(&e, small, SIZE_MAX, err, sizeof err), -1);
	assert_non_null(strstr(err, "limit"));

	/* A frame of exactly HB_MAX_FRAME bytes is not refused for its size. */
	{
		size_t len = HB_MAX_FRAME, pos = 0, body;
		unsigned char *buf = malloc(len);

		assert_non_null(buf);
		pos += unhex("83 a1 76 01 a2 6f 70 a1 78 a4 6a 73 6f 6e db", buf, len);
		body = len - pos - 4;
		buf[pos++] = (unsigned char)(body >> 24);
		buf[pos++] = (unsigned char)(body >> 16);
		buf[pos++] = (unsigned char)(body >> 8);
		buf[pos++] = (unsigned char)body;
		memset(buf + pos, 'j', body);
		if (hb_env_decode(&e, buf, len, err, sizeof err) != 0)
			fail_msg("frame of HB_MAX_FRAME bytes refused: %s", err);
		assert_int_equal(hb_env_get(&e, "json")->len, body);
		hb_env_free(&e);
		free(buf);
	}
}

/* Small error buffers are never overrun and still NUL-terminated. */
static void test_short_error_buffer(void **state)
{
	unsigned char buf[64];
	size_t len = unhex("dd ff ff ff ff", buf, sizeof buf);
	struct hb_env e;
	char err[8];

	(void)state;
	memset(err, 'Z', sizeof err);
	assert_int_equal(hb_env_decode(&e, buf, len, err, 5), -1);
	assert_int_equal(err[4], '\0');
	assert_int_equal(err[5], 'Z');
}

/* The longest keys a nested map allows (16 + 1 + 16 bytes dotted) must
 * either be refused or be kept whole: two such keys that differ only in the
 * last byte must not collapse into one name. */
static void test_long_nested_keys_stay_distinct(void **state)
{
	unsigned char buf[256];
	size_t len = unhex("83 a1 76 01 a2 6f 70 a1 78"
			   " b0 61 61 61 61 61 61 61 61 61 61 61 61 61 61 61 61 82"
			   " b0 62 62 62 62 62 62 62 62 62 62 62 62 62 62 62 31 01"
			   " b0 62 62 62 62 62 62 62 62 62 62 62 62 62 62 62 32 02", buf, sizeof buf);
	struct hb_env e;
	char err[256];
	int64_t one = 0, two = 0;
	int rc1, rc2;

	(void)state;
	if (hb_env_decode(&e, buf, len, err, sizeof err) != 0)
		return; /* refusing is fine */
	for (int i = 0; i < e.n; i++)
		for (int j = i + 1; j < e.n; j++)
			if (strcmp(e.f[i].key, e.f[j].key) == 0)
				print_error("two fields are both named \"%s\"\n", e.f[i].key);
	rc1 = hb_env_int(&e, "aaaaaaaaaaaaaaaa.bbbbbbbbbbbbbbb1", &one);
	rc2 = hb_env_int(&e, "aaaaaaaaaaaaaaaa.bbbbbbbbbbbbbbb2", &two);
	hb_env_free(&e);
	if (rc1 != 0 || rc2 != 0 || one != 1 || two != 2)
		fail_msg("the two 33-byte keys were not kept whole and apart");
}

/* xorshift64*: the same sequence on every libc. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

/* Decode buf; it must either decode into a well-formed envelope (which
 * re-encodes and decodes again) or be refused with a reason. */
static int fuzz_one(const unsigned char *buf, size_t len)
{
	struct hb_env e, d;
	char err[256];
	int64_t v;

	err[0] = '\0';
	if (hb_env_decode(&e, buf, len, err, sizeof err) != 0) {
		if (err[0] == '\0')
			fail_msg("refused without a reason (len %zu)", len);
		if (e.arena != NULL || e.n != 0)
			fail_msg("refused but left state behind");
		return 0;
	}
	assert_int_equal(hb_env_int(&e, "v", &v), 0);
	assert_int_equal(v, HB_PROTO_VERSION);
	assert_non_null(hb_env_str(&e, "op"));
	for (int i = 0; i < e.n; i++)
		if (e.f[i].type == HB_VAL_STR)
			assert_int_equal(strlen(e.f[i].s), e.f[i].len);
	round_trip(&e, &d);
	assert_string_equal(hb_env_str(&d, "op"), hb_env_str(&e, "op"));
	hb_env_free(&d);
	hb_env_free(&e);
	return 1;
}

static void test_fuzz(void **state)
{
	/* A valid envelope with every kind of value, to mutate. */
	struct hb_env e;
	char *seed;
	size_t seedlen;
	unsigned char buf[160];
	/* Bytes that matter to the parser, more likely than chance. */
	static const unsigned char special[] = { 0x00, 0x01, 0x7f, 0x80, 0x81, 0x8f, 0x90, 0x91, 0x9f,
		0xa0, 0xa1, 0xbf, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc7, 0xca, 0xcb, 0xcc, 0xcf, 0xd0,
		0xd3, 0xd4, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0xe0, 0xff };
	int decoded = 0;

	(void)state;
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "call");
	hb_env_set_str(&e, "id", "abc");
	hb_env_set_int(&e, "n", -300);
	hb_env_set_int(&e, "big", 1ll << 40);
	hb_env_set_bool(&e, "ok", 1);
	hb_env_set_err(&e, "x", "y");
	assert_int_equal(hb_env_encode(&e, &seed, &seedlen), 0);
	assert_true(seedlen < sizeof buf / 2);
	decoded += fuzz_one((unsigned char *)seed, seedlen);
	assert_int_equal(decoded, 1);

	for (int iter = 0; iter < 200000; iter++) {
		size_t len;

		if (iter % 2 == 0) {
			/* Random bytes, lengths 0..64, biased to format bytes. */
			len = rnd() % 65;
			for (size_t i = 0; i < len; i++)
				buf[i] = rnd() % 4 ? (unsigned char)rnd() : special[rnd() % sizeof special];
		} else {
			/* The seed with 1..4 edits: replace, insert, delete, truncate. */
			int edits = 1 + (int)(rnd() % 4);

			memcpy(buf, seed, seedlen);
			len = seedlen;
			for (int k = 0; k < edits; k++) {
				size_t at = len ? rnd() % len : 0;
				unsigned char b = rnd() % 2 ? (unsigned char)rnd() : special[rnd() % sizeof special];

				switch (rnd() % 4) {
				case 0:
					if (len)
						buf[at] = b;
					break;
				case 1:
					if (len < sizeof buf) {
						memmove(buf + at + 1, buf + at, len - at);
						buf[at] = b;
						len++;
					}
					break;
				case 2:
					if (len) {
						memmove(buf + at, buf + at + 1, len - at - 1);
						len--;
					}
					break;
				default:
					len = at;
					break;
				}
			}
		}
		/* An exact-size heap copy, so ASan sees any read past the end. */
		{
			unsigned char *copy = malloc(len ? len : 1);

			assert_non_null(copy);
			memcpy(copy, buf, len);
			decoded += fuzz_one(copy, len);
			free(copy);
		}
	}
	free(seed);
	/* The mutations must have exercised the success path too. */
	assert_true(decoded > 100);
	print_message("fuzz: %d of 200001 inputs decoded\n", decoded);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_nested_map_written_once),
		cmocka_unit_test(test_replace_existing_key),
		cmocka_unit_test(test_explicit_v_not_doubled),
		cmocka_unit_test(test_setters_refuse_when_full),
		cmocka_unit_test(test_accepted_frames),
		cmocka_unit_test(test_rejected_frames),
		cmocka_unit_test(test_too_many_fields),
		cmocka_unit_test(test_duplicate_keys_across_nesting),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_empty_and_oversized),
		cmocka_unit_test(test_short_error_buffer),
		cmocka_unit_test(test_long_nested_keys_stay_distinct),
		cmocka_unit_test(test_fuzz),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
