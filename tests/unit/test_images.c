/*
 * test_images - the images of a tool answer (common/images.c) and the
 * base64 they travel in (lib/base64.c): RFC 4648's test vectors, every
 * length of a round trip through the strict decoder, the check that
 * passes base64 on without decoding it, the wire form byte for byte and
 * of the size the answer limit counts, and each image a service may get
 * wrong refused with a sentence that names it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "images.h"

static const unsigned char png[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0x00, 0x01 };
static const unsigned char jpeg[] = { 0xff, 0xd8, 0xff, 0xe0 };

static void test_base64_vectors(void **state)
{
	static const char *const plain[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
	static const char *const coded[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy" };

	(void)state;
	for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
		char *out = hb_base64_encode((const unsigned char *)plain[i], strlen(plain[i]));
		size_t bytes = 99;

		assert_non_null(out);
		assert_string_equal(out, coded[i]);
		assert_int_equal(hb_base64_encoded_len(strlen(plain[i])), strlen(coded[i]));
		assert_int_equal(hb_base64_check(out, strlen(out), &bytes), 0);
		assert_int_equal(bytes, strlen(plain[i]));
		free(out);
	}
}

/* Every byte value, every length up to 300, back as it went. */
static void test_base64_round_trip(void **state)
{
	unsigned char data[300];

	(void)state;
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (unsigned char)(i * 151 + 7);
	for (size_t len = 0; len <= sizeof data; len++) {
		char *text = hb_base64_encode(data, len);
		unsigned char *back;
		size_t n = 0;

		assert_non_null(text);
		assert_non_null(back = hb_base64_decode(text, strlen(text), &n));
		assert_int_equal(n, len);
		assert_memory_equal(back, data, len);
		free(back);
		free(text);
	}
}

static void test_base64_check_refuses(void **state)
{
	static const char *const bad[] = { "Zg", "Zg=", "Zm9", "Z===", "Zm9v!A==", "Zm=v", "Zm 9v", "====" };
	size_t bytes;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (hb_base64_check(bad[i], strlen(bad[i]), &bytes) == 0)
			fail_msg("\"%s\" passed the check", bad[i]);
}

static void test_wire_form(void **state)
{
	const struct hb_image two[] = { { "image/png", png, sizeof png }, { "image/jpeg", jpeg, sizeof jpeg } };
	char err[256], *wire;
	json_t *all;

	(void)state;
	wire = hb_images_encode(two, 2, err, sizeof err);
	assert_non_null(wire);
	assert_string_equal(wire, "[{\"mimeType\":\"image/png\",\"data\":\"iVBORw0KGgoAAQ==\"},"
				  "{\"mimeType\":\"image/jpeg\",\"data\":\"/9j/4A==\"}]");
	/* The size the answer limit counts is the size written. */
	assert_int_equal(hb_images_wire_size(two, 2), strlen(wire));
	assert_int_equal(hb_images_wire_size(two, 1),
			 strlen("[{\"mimeType\":\"image/png\",\"data\":\"iVBORw0KGgoAAQ==\"}]"));
	all = hb_images_parse(wire, err, sizeof err);
	assert_non_null(all);
	assert_int_equal(json_array_size(all), 2);
	assert_string_equal(hb_image_mime(json_array_get(all, 0)), "image/png");
	assert_string_equal(hb_image_data(json_array_get(all, 0)), "iVBORw0KGgoAAQ==");
	assert_int_equal(hb_image_size(json_array_get(all, 0)), sizeof png);
	assert_string_equal(hb_image_mime(json_array_get(all, 1)), "image/jpeg");
	assert_int_equal(hb_image_size(json_array_get(all, 1)), sizeof jpeg);
	json_decref(all);
	free(wire);
}

static void test_encode_refuses(void **state)
{
	static const unsigned char gif[] = { 'G', 'I', 'F', '8', '9', 'a' };
	static const struct {
		struct hb_image image;
		const char *says;
	} cases[] = {
		{ { "image/gif", gif, sizeof gif },
		  "image 2 is of type \"image/gif\"; an answer carries only image/png and image/jpeg" },
		{ { NULL, png, sizeof png }, "image 2 is of type \"(none)\"" },
		{ { "image/png", jpeg, sizeof jpeg }, "image 2 is declared image/png, but its bytes are not a PNG" },
		{ { "image/jpeg", png, sizeof png }, "image 2 is declared image/jpeg, but its bytes are not a JPEG" },
		{ { "image/png", png, 7 }, "image 2 is declared image/png, but its bytes are not a PNG" },
		{ { "image/jpeg", jpeg, 0 }, "image 2 is declared image/jpeg, but its bytes are not a JPEG" },
	};
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		/* The good first image does not hide a bad second one. */
		const struct hb_image two[] = { { "image/png", png, sizeof png }, cases[i].image };
		char *wire = hb_images_encode(two, 2, err, sizeof err);

		if (wire)
			fail_msg("case %zu was encoded: %s", i, wire);
		if (strncmp(err, cases[i].says, strlen(cases[i].says)) != 0)
			fail_msg("case %zu says \"%s\", not \"%s\"", i, err, cases[i].says);
	}
}

static void test_parse_refuses(void **state)
{
	static const struct {
		const char *wire, *says;
	} cases[] = {
		{ "{}", "the images are not a JSON array" },
		{ "[1]", "image 1 is not an object of exactly mimeType and data" },
		{ "[{\"mimeType\":\"image/png\",\"data\":\"iVBORw0KGgoAAQ\"}]", "image 1's data is not padded base64" },
		{ "[{\"mimeType\":\"image/png\",\"data\":\"iVBORw0KGgoAAQ==\"},"
		  "{\"mimeType\":\"image/webp\",\"data\":\"UklGRg==\"}]", "image 2 is of type \"image/webp\"" },
		{ "[{\"mimeType\":\"image/png\",\"data\":\"iVBORw0KGgoAAQ==\",\"data\":\"/9j/4A==\"}]",
		  "the images are not a JSON array: duplicate object key" },
	};
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		json_t *all = hb_images_parse(cases[i].wire, err, sizeof err);

		if (all)
			fail_msg("case %zu was read", i);
		if (strncmp(err, cases[i].says, strlen(cases[i].says)) != 0)
			fail_msg("case %zu says \"%s\", not \"%s\"", i, err, cases[i].says);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base64_vectors),
		cmocka_unit_test(test_base64_round_trip),
		cmocka_unit_test(test_base64_check_refuses),
		cmocka_unit_test(test_wire_form),
		cmocka_unit_test(test_encode_refuses),
		cmocka_unit_test(test_parse_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
