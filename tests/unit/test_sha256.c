/*
 * test_sha256 - the FIPS 180-4 / NIST example vectors, one-shot and streamed.
 *
 * The project hash every agent compares is this function's output, so a
 * wrong digest would silently split one project into two.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sha256.h"

static void expect_hex(const char *input, const char *want)
{
	char hex[HB_SHA256_HEX_LEN + 1];
	hb_sha256_hex(input, strlen(input), hex);
	assert_string_equal(hex, want);
}

static void test_empty(void **state)
{
	(void)state;
	expect_hex("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_abc(void **state)
{
	(void)state;
	expect_hex("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void test_448_bits(void **state)
{
	(void)state;
	expect_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		   "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_896_bits(void **state)
{
	(void)state;
	expect_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
		   "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
		   "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

static void test_million_a(void **state)
{
	(void)state;
	static const char want[] = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
	char chunk[1000];
	memset(chunk, 'a', sizeof chunk);

	/* Streamed in pieces that straddle block boundaries. */
	struct hb_sha256 ctx;
	unsigned char digest[HB_SHA256_LEN];
	hb_sha256_init(&ctx);
	for (int i = 0; i < 1000; i++)
		hb_sha256_update(&ctx, chunk, sizeof chunk);
	hb_sha256_final(&ctx, digest);

	char hex[HB_SHA256_HEX_LEN + 1];
	for (int i = 0; i < HB_SHA256_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
	assert_string_equal(hex, want);
}

static void test_streaming_matches_one_shot(void **state)
{
	(void)state;
	unsigned char input[200];
	for (size_t i = 0; i < sizeof input; i++)
		input[i] = (unsigned char)(i * 7 + 3);

	for (size_t len = 0; len <= sizeof input; len++) {
		unsigned char whole[HB_SHA256_LEN], pieces[HB_SHA256_LEN];
		hb_sha256(input, len, whole);

		struct hb_sha256 ctx;
		hb_sha256_init(&ctx);
		for (size_t i = 0; i < len; i += 13)
			hb_sha256_update(&ctx, input + i, len - i < 13 ? len - i : 13);
		hb_sha256_final(&ctx, pieces);
		assert_memory_equal(whole, pieces, HB_SHA256_LEN);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_abc),
		cmocka_unit_test(test_448_bits),
		cmocka_unit_test(test_896_bits),
		cmocka_unit_test(test_million_a),
		cmocka_unit_test(test_streaming_matches_one_shot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
