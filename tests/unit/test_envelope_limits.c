/*
 * test_envelope_limits - the limits of the envelope codec on what any
 * local process may send in: the number of fields, keys duplicated across
 * nesting, depth, empty and oversized frames, a short error buffer, long
 * nested keys, and random frames (none crashes or is half-read).
 * Frames are written as hex strings, as in test_envelope.c.
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

#include "envelope_rig.h"

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
