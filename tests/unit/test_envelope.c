/*
 * test_envelope - the envelope codec: round trips of what the processes
 * send each other, the frames it accepts, and the table of frames any
 * local process may send in that it refuses (the other limits:
 * test_envelope_limits.c).
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
#include "envelope_rig.h"

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

static void test_rejected_frames(void **state)
{
	(void)state;
	run_reject_table(reject_cases, sizeof reject_cases / sizeof reject_cases[0]);
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
