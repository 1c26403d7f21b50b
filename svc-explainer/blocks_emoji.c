/*
 * blocks_emoji - the emoji block: one to eight emoji drawn in colour by
 * pango-cairo into a PNG, embedded in the block as a data: URI <image>.
 *
 * librsvg 2.54 fills text's glyph outlines, so an emoji in <text> comes
 * out as a one-colour silhouette; pango_cairo_show_layout draws Noto
 * Color Emoji's bitmaps in colour (docs/explainer-folder.md, "Fonts").
 * The drawing goes through the renderer's private fontconfig
 * configuration (fonts_setup must have run before a thread's first emoji:
 * pango's default map reads the configuration current then),
 * at twice the block's height for sharpness, but never taller than
 * EMOJI_MAX_PX: the font has one 109-pixel bitmap strike, so more pixels
 * add bytes to the scene, not detail.  The variation selectors are left
 * out of what is drawn: the font lacks them, so pango would draw a
 * cluster holding one (❤️, ©️, 1️⃣) in a text face, black; without them
 * the font's own sequences (the keycaps) still form.
 */
#include <math.h>
#include <string.h>

#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <pango/pangocairo.h>

#include "../lib/base64.h"
#include "blocks_int.h"

#define EMOJI_FAMILY "Noto Color Emoji"
#define EMOJI_MAX_PX 256.0
/* A width no eight emoji reach at EMOJI_MAX_PX; past it, something else
 * was laid out. */
#define EMOJI_MAX_WIDTH_PX 4096
/* The PNG's bytes at most (the scene holds it in base64, a third more). */
#define EMOJI_MAX_PNG (4u << 20)
/* The font size the layout is measured at before it is scaled to fit. */
#define MEASURE_PX 100.0

/* Code points that join, select or modify the emoji before them: a
 * cluster may hold them but never start with one. */
static int is_modifier(gunichar c)
{
	return c == 0x200d || c == 0xfe0e || c == 0xfe0f || c == 0x20e3 || (c >= 0x1f3fb && c <= 0x1f3ff) ||
	       (c >= 0xe0020 && c <= 0xe007f);
}

/* The emoji font's characters in the current configuration (the caller
 * destroys the copy); NULL when the font is not there. */
static FcCharSet *emoji_charset(void)
{
	FcPattern *want = FcPatternBuild(NULL, FC_FAMILY, FcTypeString, EMOJI_FAMILY, (char *)NULL);
	FcObjectSet *os = FcObjectSetBuild(FC_CHARSET, (char *)NULL);
	FcFontSet *fonts = want && os ? FcFontList(NULL, want, os) : NULL;
	FcCharSet *has = NULL, *copy = NULL;

	if (fonts && fonts->nfont > 0 && FcPatternGetCharSet(fonts->fonts[0], FC_CHARSET, 0, &has) == FcResultMatch)
		copy = FcCharSetCopy(has);
	if (fonts)
		FcFontSetDestroy(fonts);
	if (os)
		FcObjectSetDestroy(os);
	if (want)
		FcPatternDestroy(want);
	return copy;
}

/* One cluster (len bytes at s) is an emoji: every code point but the
 * modifiers in the emoji font (U+FE0F is not in it: shaping drops it),
 * the first not a modifier, and either outside ASCII or made
 * an emoji by U+FE0F or the keycap U+20E3 ("1", "#" alone are text). */
static int cluster_is_emoji(const char *s, size_t len, const FcCharSet *font)
{
	gunichar first = g_utf8_get_char(s);
	int presented = first > 0x7f;

	if (is_modifier(first))
		return 0;
	for (const char *p = s; p < s + len; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);
		if (!is_modifier(c) && !FcCharSetHasChar(font, c))
			return 0;
		presented |= c == 0xfe0f || c == 0x20e3;
	}
	return presented;
}

/* text is one to BLOCKS_EMOJI_MAX emoji (grapheme clusters, as pango
 * splits them); -1 with err naming the first that is not. */
static int check_emoji(const char *text, char *err, size_t errlen)
{
	glong chars = g_utf8_strlen(text, -1);
	PangoLogAttr *attrs;
	FcCharSet *font;
	size_t clusters = 0;
	int r = 0;

	if (chars <= 0) {
		snprintf(err, errlen, "text must hold one to %d emoji, such as \"🚀\" or \"👩‍💻\"", BLOCKS_EMOJI_MAX);
		return -1;
	}
	if (!(font = emoji_charset())) {
		snprintf(err, errlen, "the emoji font " EMOJI_FAMILY " is not in the font configuration");
		return -1;
	}
	attrs = g_new(PangoLogAttr, (gsize)chars + 1);
	pango_get_log_attrs(text, (int)strlen(text), -1, pango_language_from_string("und"), attrs, (int)chars + 1);
	for (glong i = 0, start = 0; r == 0 && i < chars; i++) {
		if (!attrs[i + 1].is_cursor_position)
			continue;
		const char *a = g_utf8_offset_to_pointer(text, start), *b = g_utf8_offset_to_pointer(text, i + 1);
		if (++clusters > BLOCKS_EMOJI_MAX) {
			snprintf(err, errlen, "text holds more than %d emoji; one block draws %d at most",
				 BLOCKS_EMOJI_MAX, BLOCKS_EMOJI_MAX);
			r = -1;
		} else if (!cluster_is_emoji(a, (size_t)(b - a), font)) {
			snprintf(err, errlen, "text's character %ld, \"%.*s\", is not an emoji; text must hold only "
				 "emoji (one to %d), such as \"🚀\" or \"👩‍💻\"", (long)start + 1,
				 (int)(b - a) > 40 ? 40 : (int)(b - a), a, BLOCKS_EMOJI_MAX);
			r = -1;
		}
		start = i + 1;
	}
	g_free(attrs);
	FcCharSetDestroy(font);
	return r;
}

/* text without U+FE0E and U+FE0F (EF B8 8E, EF B8 8F), in a new string. */
static char *without_selectors(const char *text)
{
	char *out = g_malloc(strlen(text) + 1), *o = out;

	for (const char *p = text; *p; p++) {
		if ((unsigned char)p[0] == 0xef && (unsigned char)p[1] == 0xb8 &&
		    ((unsigned char)p[2] == 0x8e || (unsigned char)p[2] == 0x8f)) {
			p += 2;
			continue;
		}
		*o++ = *p;
	}
	*o = '\0';
	return out;
}

static cairo_status_t append(void *closure, const unsigned char *data, unsigned int len)
{
	return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

/* text laid out in the emoji font at px pixels; its logical size in *w, *h. */
static void lay_out(PangoLayout *layout, double px, int *w, int *h)
{
	PangoFontDescription *fd = pango_font_description_from_string(EMOJI_FAMILY);
	PangoRectangle logical;

	pango_font_description_set_absolute_size(fd, px * PANGO_SCALE);
	pango_layout_set_font_description(layout, fd);
	pango_font_description_free(fd);
	pango_layout_get_pixel_extents(layout, NULL, &logical);
	*w = logical.width;
	*h = logical.height;
}

/* text drawn px_h pixels tall as a PNG in *png (caller frees) of *len
 * bytes, *w x *h pixels; -1 with err. */
static int draw_png(const char *text, double px_h, char **png, size_t *len, int *w, int *h, char *err,
		    size_t errlen)
{
	/* The thread's default map, made once: a new map per block would read
	 * the fonts' configuration again each time. */
	PangoContext *ctx = pango_font_map_create_context(pango_cairo_font_map_get_default());
	PangoLayout *layout = pango_layout_new(ctx);
	char *drawn = without_selectors(text);
	cairo_surface_t *s = NULL;
	cairo_t *cr = NULL;
	FILE *f = NULL;
	int r = -1;

	*png = NULL;
	pango_layout_set_text(layout, drawn, -1);
	lay_out(layout, MEASURE_PX, w, h);
	if (*h > 0)
		lay_out(layout, MEASURE_PX * px_h / *h, w, h);
	if (pango_layout_get_unknown_glyphs_count(layout) > 0 || *w <= 0 || *h <= 0 || *w > EMOJI_MAX_WIDTH_PX) {
		snprintf(err, errlen, "text has a character the emoji font cannot draw");
		goto out;
	}
	s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, *w, *h);
	cr = cairo_create(s);
	pango_cairo_show_layout(cr, layout);
	cairo_surface_flush(s);
	if (cairo_status(cr) != CAIRO_STATUS_SUCCESS || !(f = open_memstream(png, len))) {
		snprintf(err, errlen, "drawing the emoji failed: out of memory");
		goto out;
	}
	if (cairo_surface_write_to_png_stream(s, append, f) != CAIRO_STATUS_SUCCESS) {
		snprintf(err, errlen, "writing the emoji's PNG failed");
		goto out;
	}
	r = 0;
out:
	if (f && fclose(f) != 0 && r == 0) {
		snprintf(err, errlen, "writing the emoji's PNG failed: out of memory");
		r = -1;
	}
	if (r == 0 && *len > EMOJI_MAX_PNG) {
		snprintf(err, errlen, "the emoji's picture is %zu bytes, more than a scene should hold; draw fewer "
			 "or smaller", *len);
		r = -1;
	}
	if (r < 0) {
		free(*png);
		*png = NULL;
	}
	if (cr)
		cairo_destroy(cr);
	if (s)
		cairo_surface_destroy(s);
	g_object_unref(layout);
	g_object_unref(ctx);
	g_free(drawn);
	return r;
}

int block_emoji(FILE *f, double x, double y, double size, const char *text, char *err, size_t errlen)
{
	double px_h = fmin(size * 2, EMOJI_MAX_PX);
	char *png, *b64;
	size_t len;
	int w, h;

	if (check_emoji(text, err, errlen) < 0 || draw_png(text, px_h, &png, &len, &w, &h, err, errlen) < 0)
		return -1;
	b64 = hb_base64_encode((const unsigned char *)png, len);
	free(png);
	if (!b64) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* size is the picture's height; its width keeps the layout's shape */
	fprintf(f, "<g class=\"block-emoji\">\n<image x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		   "preserveAspectRatio=\"none\" href=\"data:image/png;base64,%s\"/>\n</g>\n",
		x, y, size * w / h, size, b64);
	free(b64);
	return 0;
}
