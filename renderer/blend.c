/*
 * blend - a transition's pictures from two yuv420p pictures (blend.h).
 *
 * A crossfade weighs each sample in 1/256ths, in integers, so the loop is
 * plain enough for the compiler to vectorise; a slide is two row copies
 * per row.  A slide's offset is even in luma so the chroma planes (half
 * size) move by a whole sample with it and colours stay on their shapes.
 */
#include "blend.h"

#include <math.h>
#include <string.h>

size_t yuv_packed_size(int width, int height)
{
	return (size_t)width * (size_t)height + 2 * ((size_t)width / 2) * ((size_t)height / 2);
}

struct yuv_view yuv_packed_view(uint8_t *buf, int width, int height)
{
	size_t luma = (size_t)width * (size_t)height, chroma = ((size_t)width / 2) * ((size_t)height / 2);
	struct yuv_view v = { { buf, buf + luma, buf + luma + chroma }, { width, width / 2, width / 2 }, width,
			      height };

	return v;
}

static int plane_width(const struct yuv_view *v, int plane)
{
	return plane ? v->width / 2 : v->width;
}

static int plane_height(const struct yuv_view *v, int plane)
{
	return plane ? v->height / 2 : v->height;
}

static void mix_row(uint8_t *restrict d, const uint8_t *restrict a, const uint8_t *restrict b, int n,
		    unsigned w)
{
	for (int x = 0; x < n; x++)
		d[x] = (uint8_t)((a[x] * (256u - w) + b[x] * w + 128u) >> 8);
}

void blend_crossfade(const struct yuv_view *dst, const struct yuv_view *from, const struct yuv_view *to,
		     double p)
{
	unsigned w = p <= 0 ? 0 : p >= 1 ? 256 : (unsigned)lround(p * 256);

	for (int pl = 0; pl < 3; pl++)
		for (int y = 0; y < plane_height(dst, pl); y++)
			mix_row(dst->plane[pl] + (size_t)y * (size_t)dst->stride[pl],
				from->plane[pl] + (size_t)y * (size_t)from->stride[pl],
				to->plane[pl] + (size_t)y * (size_t)to->stride[pl], plane_width(dst, pl), w);
}

/* The luma offset p of the way along n samples, even, within 0..n. */
static int even_offset(double p, int n)
{
	long off = lround(p * n / 2) * 2;

	return off < 0 ? 0 : off > n ? n : (int)off;
}

static const uint8_t *row(const struct yuv_view *v, int plane, int y)
{
	return v->plane[plane] + (size_t)y * (size_t)v->stride[plane];
}

void blend_slide(const struct yuv_view *dst, const struct yuv_view *from, const struct yuv_view *to, double p,
		 int vertical)
{
	int off = even_offset(p, vertical ? dst->height : dst->width);

	for (int pl = 0; pl < 3; pl++) {
		int w = plane_width(dst, pl), h = plane_height(dst, pl), o = pl ? off / 2 : off;
		for (int y = 0; y < h; y++) {
			uint8_t *d = dst->plane[pl] + (size_t)y * (size_t)dst->stride[pl];
			if (vertical) {
				memcpy(d, y < h - o ? row(from, pl, y + o) : row(to, pl, y - (h - o)), (size_t)w);
			} else {
				memcpy(d, row(from, pl, y) + o, (size_t)(w - o));
				memcpy(d + (w - o), row(to, pl, y), (size_t)o);
			}
		}
	}
}

void blend_transition(enum transition_type type, const struct yuv_view *dst, const struct yuv_view *from,
		      const struct yuv_view *to, double p)
{
	switch (type) {
	case TRANSITION_CROSSFADE:
		blend_crossfade(dst, from, to, p);
		break;
	case TRANSITION_SLIDE_LEFT:
	case TRANSITION_SLIDE_UP:
		blend_slide(dst, from, to, p, type == TRANSITION_SLIDE_UP);
		break;
	case TRANSITION_CUT:
		blend_crossfade(dst, from, to, 1);
		break;
	}
}
