/*
 * png - a drawn frame as PNG with the fastest settings, in memory (png.h);
 * a file of it is written whole through output.h.
 */
#include "png.h"

#include <cairo.h>
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libpng reports errors by longjmp; this keeps its message for err. */
struct png_failure {
	char text[256];
};

/* The PNG's bytes as they come, for the in-memory writer. */
struct png_memory {
	unsigned char *data;
	size_t len, cap;
};

static void on_png_error(png_structp png, png_const_charp msg)
{
	struct png_failure *f = png_get_error_ptr(png);

	snprintf(f->text, sizeof f->text, "%s", msg);
	png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

static void on_memory_write(png_structp png, png_bytep bytes, size_t len)
{
	struct png_memory *m = png_get_io_ptr(png);

	if (len > m->cap - m->len) {
		size_t cap = m->cap ? m->cap : 1 << 16;
		unsigned char *data;

		while (cap - m->len < len)
			cap *= 2;
		if (!(data = realloc(m->data, cap)))
			png_error(png, "out of memory");
		m->data = data;
		m->cap = cap;
	}
	memcpy(m->data + m->len, bytes, len);
	m->len += len;
}

static void on_memory_flush(png_structp png)
{
	(void)png;
}

/* Cairo keeps pixels as native-endian 32-bit 0xAARRGGBB; the frame is
 * opaque, so the colour needs no un-premultiplying. */
static void row_to_rgb(const uint8_t *src, uint8_t *dst, int width)
{
	const uint32_t *px = (const uint32_t *)(const void *)src;

	for (int x = 0; x < width; x++) {
		dst[3 * x] = (uint8_t)(px[x] >> 16);
		dst[3 * x + 1] = (uint8_t)(px[x] >> 8);
		dst[3 * x + 2] = (uint8_t)px[x];
	}
}

/* Encodes surface into mem.  On -1, err says why. */
static int encode(cairo_surface_t *surface, struct png_memory *mem, char *err, size_t errlen)
{
	const char *what = "the PNG";
	int w = cairo_image_surface_get_width(surface), h = cairo_image_surface_get_height(surface);
	int stride = cairo_image_surface_get_stride(surface);
	const uint8_t *data;
	struct png_failure failure = { "" };
	png_structp png = NULL;
	png_infop info = NULL;
	uint8_t *volatile row = NULL;
	int rc = -1;

	cairo_surface_flush(surface);
	data = cairo_image_surface_get_data(surface);
	if (!data || (row = malloc((size_t)w * 3)) == NULL) {
		snprintf(err, errlen, "cannot write %s: %s", what, data ? "out of memory" : "no image");
		goto done;
	}
	if (!(png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &failure, on_png_error, on_png_warning)) ||
	    !(info = png_create_info_struct(png))) {
		snprintf(err, errlen, "cannot write %s: out of memory", what);
		goto done;
	}
	if (setjmp(png_jmpbuf(png))) {
		snprintf(err, errlen, "cannot write %s: %s", what, failure.text);
		goto done;
	}
	png_set_write_fn(png, mem, on_memory_write, on_memory_flush);
	png_set_compression_level(png, 1);
	png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
	png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
	png_write_info(png, info);
	for (int y = 0; y < h; y++) {
		row_to_rgb(data + (size_t)y * (size_t)stride, row, w);
		png_write_row(png, row);
	}
	png_write_end(png, NULL);
	rc = 0;
done:
	if (png)
		png_destroy_write_struct(&png, info ? &info : NULL);
	free(row);
	return rc;
}

int png_encode_surface(cairo_surface_t *surface, unsigned char **png, size_t *len, char *err, size_t errlen)
{
	struct png_memory mem = { NULL, 0, 0 };

	if (encode(surface, &mem, err, errlen) < 0) {
		free(mem.data);
		return -1;
	}
	*png = mem.data;
	*len = mem.len;
	return 0;
}
