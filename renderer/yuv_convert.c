/*
 * yuv_convert - BGRA to yuv420p, BT.709 limited range (yuv_convert.h).
 *
 * Fixed point in 1/65536ths, rounded, computed one pair of rows at a
 * time: the four luma samples of a 2x2 block and its one U and V from the
 * block's summed colour.  The loops are plain so the compiler vectorises
 * them (the file is built with -O3, see the Makefile); this replaces
 * swscale, whose generic path took a fifth of the render's time.  Under
 * ASan each row's extent is checked once (lib/asan_rows.h).
 */
#include "yuv_convert.h"

#include <limits.h>

#include "asan_rows.h"

/* 219/255 * (0.2126, 0.7152, 0.0722) */
#define YR 11966
#define YG 40254
#define YB 4064
/* 224/255 * (-0.2126, -0.7152, 0.9278) / 1.8556 */
#define UR (-6596)
#define UG (-22189)
#define UB 28784
/* 224/255 * (0.7874, -0.7152, -0.0722) / 1.5748 */
#define VR 28784
#define VG (-26145)
#define VB (-2639)
#define ONE_HALF (1 << 15)

/* No sum below can overflow an int (the loops are not checked by UBSan
 * under the sanitizers, lib/asan_rows.h): bytes are at most 255, and the
 * chroma sums of four at most 1020. */
_Static_assert(255L * (YR + YG + YB) + (16L << 16) + ONE_HALF <= INT_MAX, "luma fits an int");
_Static_assert(1020L * (-UR - UG + UB) + (128L << 18) + (1L << 17) <= INT_MAX, "U fits an int");
_Static_assert(1020L * (VR - VG - VB) + (128L << 18) + (1L << 17) <= INT_MAX, "V fits an int");

HB_ROW_LOOP static void luma_row(const uint8_t *restrict p, uint8_t *restrict y, int w)
{
	for (int i = 0; i < w; i++) {
		int b = p[4 * i], g = p[4 * i + 1], r = p[4 * i + 2];
		y[i] = (uint8_t)((YR * r + YG * g + YB * b + (16 << 16) + ONE_HALF) >> 16);
	}
}

/* U and V of w/2 blocks of the two rows a and b. */
HB_ROW_LOOP static void chroma_rows(const uint8_t *restrict a, const uint8_t *restrict b, uint8_t *restrict u,
			uint8_t *restrict v, int half)
{
	for (int i = 0; i < half; i++) {
		int bs = a[8 * i] + a[8 * i + 4] + b[8 * i] + b[8 * i + 4];
		int gs = a[8 * i + 1] + a[8 * i + 5] + b[8 * i + 1] + b[8 * i + 5];
		int rs = a[8 * i + 2] + a[8 * i + 6] + b[8 * i + 2] + b[8 * i + 6];
		/* The sums are 4 times the mean: 2 more bits to shift. */
		u[i] = (uint8_t)((UR * rs + UG * gs + UB * bs + (128 << 18) + (1 << 17)) >> 18);
		v[i] = (uint8_t)((VR * rs + VG * gs + VB * bs + (128 << 18) + (1 << 17)) >> 18);
	}
}

void yuv_convert_rect(const uint8_t *bgra, int stride, const struct yuv_view *dst, int x, int y, int w, int h)
{
	for (int row = y; row < y + h; row += 2) {
		const uint8_t *a = bgra + (size_t)row * (size_t)stride + 4 * (size_t)x, *b = a + stride;
		uint8_t *ya = dst->plane[0] + (size_t)row * (size_t)dst->stride[0] + x, *yb = ya + dst->stride[0];
		uint8_t *u = dst->plane[1] + (size_t)(row / 2) * (size_t)dst->stride[1] + x / 2;
		uint8_t *v = dst->plane[2] + (size_t)(row / 2) * (size_t)dst->stride[2] + x / 2;

		hb_asan_row(a, 4 * (size_t)w);
		hb_asan_row(b, 4 * (size_t)w);
		hb_asan_row(ya, (size_t)w);
		hb_asan_row(yb, (size_t)w);
		hb_asan_row(u, (size_t)w / 2);
		hb_asan_row(v, (size_t)w / 2);
		luma_row(a, ya, w);
		luma_row(b, yb, w);
		chroma_rows(a, b, u, v, w / 2);
	}
}
