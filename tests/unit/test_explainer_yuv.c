/*
 * test_explainer_yuv - the conversion of drawn frames to the encoder's
 * yuv420p (renderer/yuv_convert.h): flat colours give BT.709
 * limited-range values (those swscale gives for them too), chroma is the
 * mean of its 2x2 block, and a rectangle converted alone gives exactly
 * the samples of the whole frame's conversion there, touching nothing
 * else; and under AddressSanitizer, whose checks the loops leave to one
 * check a row (lib/asan_rows.h), a frame one row short is still reported
 * as a heap-buffer-overflow.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/wait.h>
#include <unistd.h>

#include "asan_rows.h"
#include "../../renderer/yuv_convert.h"

#define W 16
#define H 8

static void fill(uint8_t *bgra, int r, int g, int b)
{
	for (int i = 0; i < W * H; i++) {
		bgra[4 * i] = (uint8_t)b;
		bgra[4 * i + 1] = (uint8_t)g;
		bgra[4 * i + 2] = (uint8_t)r;
		bgra[4 * i + 3] = 255;
	}
}

static void test_flat_colours(void **state)
{
	/* R G B -> Y U V, as swscale's BT.709 full-to-limited conversion gives them. */
	static const int table[][6] = { { 255, 0, 0, 63, 102, 240 },    { 0, 255, 0, 173, 42, 26 },
					{ 0, 0, 255, 32, 240, 118 },    { 255, 255, 255, 235, 128, 128 },
					{ 0, 0, 0, 16, 128, 128 },      { 128, 64, 200, 91, 181, 151 },
					{ 15, 39, 64, 47, 141, 116 },   { 239, 71, 111, 110, 129, 200 } };
	uint8_t bgra[W * H * 4], yuv[W * H * 3 / 2];
	struct yuv_view v = yuv_packed_view(yuv, W, H);

	(void)state;
	for (size_t k = 0; k < sizeof table / sizeof table[0]; k++) {
		fill(bgra, table[k][0], table[k][1], table[k][2]);
		yuv_convert_rect(bgra, W * 4, &v, 0, 0, W, H);
		for (int i = 0; i < W * H; i++)
			assert_int_equal(yuv[i], table[k][3]);
		for (int i = 0; i < W * H / 4; i++) {
			assert_int_equal(v.plane[1][i], table[k][4]);
			assert_int_equal(v.plane[2][i], table[k][5]);
		}
	}
}

static void test_chroma_is_the_block_mean(void **state)
{
	uint8_t bgra[W * H * 4], yuv[W * H * 3 / 2];
	struct yuv_view v = yuv_packed_view(yuv, W, H);

	(void)state;
	fill(bgra, 255, 255, 255);
	/* One block of the top-left: two white pixels and two pure blue. */
	memcpy(bgra + 4 * W, "\xff\x00\x00\xff\xff\x00\x00\xff", 8);
	yuv_convert_rect(bgra, W * 4, &v, 0, 0, W, H);
	assert_int_equal(yuv[0], 235);
	assert_int_equal(yuv[W], 32);
	assert_int_equal(yuv[W + 2], 235);
	/* The mean colour (127.5, 127.5, 255): U and V between white's and blue's. */
	assert_int_equal(v.plane[1][0], 184);
	assert_int_equal(v.plane[2][0], 123);
	assert_int_equal(v.plane[1][1], 128);
}

static void test_rectangle_as_whole(void **state)
{
	uint8_t bgra[W * H * 4], whole[W * H * 3 / 2], part[W * H * 3 / 2];
	struct yuv_view vw = yuv_packed_view(whole, W, H), vp = yuv_packed_view(part, W, H);

	(void)state;
	srand(36);
	for (size_t i = 0; i < sizeof bgra; i++)
		bgra[i] = (i % 4 == 3) ? 255 : (uint8_t)rand();
	yuv_convert_rect(bgra, W * 4, &vw, 0, 0, W, H);
	memset(part, 0x5a, sizeof part);
	yuv_convert_rect(bgra, W * 4, &vp, 4, 2, 6, 4);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			int inside = x >= 4 && x < 10 && y >= 2 && y < 6;
			assert_int_equal(part[y * W + x], inside ? whole[y * W + x] : 0x5a);
		}
	for (int p = 1; p < 3; p++)
		for (int y = 0; y < H / 2; y++)
			for (int x = 0; x < W / 2; x++) {
				int inside = x >= 2 && x < 5 && y >= 1 && y < 3;
				assert_int_equal(vp.plane[p][y * W / 2 + x], inside ? vw.plane[p][y * W / 2 + x] : 0x5a);
			}
}

static void test_overflow_found(void **state)
{
#ifdef HB_ASAN_ROWS
	int fds[2], status;
	char report[8192];
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* One row short of the frame it is converted as. */
		uint8_t *bgra = malloc(W * 4 * (H - 1)), out[W * H * 3 / 2];
		struct yuv_view v = yuv_packed_view(out, W, H);

		dup2(fds[1], 2);
		close(fds[0]);
		if (!bgra)
			_exit(3);
		memset(bgra, 0, W * 4 * (H - 1));
		yuv_convert_rect(bgra, W * 4, &v, 0, 0, W, H);
		free(bgra);
		_exit(0);
	}
	close(fds[1]);
	while (got < sizeof report - 1 && (n = read(fds[0], report + got, sizeof report - 1 - got)) > 0)
		got += (size_t)n;
	report[got] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_false(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (!strstr(report, "heap-buffer-overflow"))
		fail_msg("no ASan report of the overflow; the child wrote: %.500s", report);
#else
	(void)state;
	skip(); /* the row checks exist only under ASan */
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flat_colours),
		cmocka_unit_test(test_chroma_is_the_block_mean),
		cmocka_unit_test(test_rectangle_as_whole),
		cmocka_unit_test(test_overflow_found),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
