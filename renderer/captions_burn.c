/*
 * captions_burn - a cue as an SVG layer drawn over the frame (captions.h).
 *
 * The layer is a document of its own, drawn after the scene (frame.h), so
 * the scene's text is never edited and the pipeline's reuse of unchanged
 * frames still works: the picture changes only where the cue does.
 *
 * Size and place, relative to the canvas so every format gets the same
 * look: the text is 4.5% of the canvas's shorter side (48.6 px at
 * 1920x1080 and in 9:16), white DejaVu Sans on a black box of 62%
 * opacity with rounded corners; the box's bottom sits on the bottom
 * title-safe margin (10% of the height), and no line is wider than the
 * title-safe width (80% of the width).  Widths are measured with cairo's
 * text API on the same DejaVu Sans the frame is drawn with; glyphs
 * DejaVu has not (CJK, emoji) are drawn by a fallback font whose width
 * cairo's one-font measure does not know, so each code point outside
 * DejaVu's Latin, Greek and Cyrillic ranges counts a full em more: an
 * estimate that errs towards a narrower line, never one off the canvas.
 */
#include "captions.h"

#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_SIZE 0.045     /* of the shorter side */
#define SAFE_MARGIN 0.10    /* title-safe margin, of each dimension */
#define PAD_X 0.5           /* box padding, in ems */
#define PAD_Y 0.3
#define LINE_HEIGHT 1.25    /* in ems */
#define BOX_OPACITY "0.62"
#define MAX_LINES 8

struct measure {
	cairo_surface_t *surface;
	cairo_t *cr;
	double size;
};

static int measure_open(struct measure *m, double size, char *err, size_t errlen)
{
	m->size = size;
	m->surface = cairo_image_surface_create(CAIRO_FORMAT_A8, 1, 1);
	m->cr = cairo_create(m->surface);
	if (cairo_status(m->cr) != CAIRO_STATUS_SUCCESS) {
		snprintf(err, errlen, "cannot measure the captions' text: %s", cairo_status_to_string(cairo_status(m->cr)));
		return -1;
	}
	cairo_select_font_face(m->cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(m->cr, size);
	return 0;
}

static void measure_close(struct measure *m)
{
	cairo_destroy(m->cr);
	cairo_surface_destroy(m->surface);
}

/* Whether the code point whose UTF-8 starts at s (n bytes left) is one
 * DejaVu Sans may not have: from U+0530 on, except General Punctuation
 * (U+2000..U+203F: dashes, quotes, the ellipsis). */
static int maybe_fallback(const unsigned char *s, size_t n)
{
	if (s[0] < 0xD4 || (s[0] & 0xC0) == 0x80 || n < 2)
		return 0;
	if (s[0] == 0xD4)
		return s[1] >= 0xB0;
	return !(s[0] == 0xE2 && s[1] == 0x80);
}

/* The width of n bytes of text, in pixels (see the top of the file). */
static double width_of(struct measure *m, const char *s, size_t n)
{
	char *copy = malloc(n + 1);
	cairo_text_extents_t ext;
	double extra = 0;

	if (!copy)
		return 1e9;
	memcpy(copy, s, n);
	copy[n] = '\0';
	cairo_text_extents(m->cr, copy, &ext);
	free(copy);
	for (size_t i = 0; i < n; i++)
		if (maybe_fallback((const unsigned char *)s + i, n - i))
			extra += m->size;
	return ext.x_advance + extra;
}

/* The cue's lines as they are when each fits max_w pixels, else its
 * words filled again into lines of max_w: byte ranges of the lines. */
static size_t wrap(struct measure *m, const char *text, double max_w, size_t start[], size_t end[])
{
	size_t n = 0, pos = 0, len = strlen(text);
	int own_fit = 1;

	for (const char *p = text; own_fit && *p;) {
		size_t l = strcspn(p, "\n");
		own_fit = width_of(m, p, l) <= max_w;
		p += l + (p[l] == '\n');
	}
	while (pos < len && n < MAX_LINES) {
		size_t line_end = pos + strcspn(text + pos, own_fit ? "\n" : " \n");
		while (!own_fit && line_end < len) {
			size_t next = line_end + 1 + strcspn(text + line_end + 1, " \n");
			if (width_of(m, text + pos, next - pos) > max_w)
				break;
			line_end = next;
		}
		start[n] = pos;
		end[n++] = line_end;
		pos = line_end + (line_end < len);
	}
	return n;
}

/* n bytes of text, escaped for XML character data, a line break a space. */
static void put_text(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '&')
			fputs("&amp;", f);
		else if (s[i] == '<')
			fputs("&lt;", f);
		else if (s[i] == '>')
			fputs("&gt;", f);
		else
			fputc(s[i] == '\n' ? ' ' : s[i], f);
	}
}

char *captions_overlay_svg(const struct caption_cue *cue, int width, int height, size_t *len, char *err,
			   size_t errlen)
{
	double shorter = width < height ? width : height, size = shorter * TEXT_SIZE;
	double max_w = width * (1 - 2 * SAFE_MARGIN), widest = 0;
	size_t start[MAX_LINES], end[MAX_LINES], n;
	struct measure m;
	char *svg = NULL;
	FILE *f;

	if (measure_open(&m, size, err, errlen) < 0) {
		measure_close(&m);
		return NULL;
	}
	n = wrap(&m, cue->text, max_w, start, end);
	for (size_t i = 0; i < n; i++) {
		double w = width_of(&m, cue->text + start[i], end[i] - start[i]);
		widest = w > widest ? w : widest;
	}
	measure_close(&m);
	double box_w = (widest < max_w ? widest : max_w) + 2 * PAD_X * size;
	double box_h = (double)n * LINE_HEIGHT * size + 2 * PAD_Y * size;
	double box_x = (width - box_w) / 2, box_y = height * (1 - SAFE_MARGIN) - box_h;

	if (!(f = open_memstream(&svg, len))) {
		snprintf(err, errlen, "out of memory for a caption's picture");
		return NULL;
	}
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">",
		width, height, width, height);
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"%.1f\" fill=\"#000\" "
		   "fill-opacity=\"" BOX_OPACITY "\"/>", box_x, box_y, box_w, box_h, size * 0.25);
	fprintf(f, "<g font-family=\"DejaVu Sans\" font-size=\"%.1f\" fill=\"#fff\" text-anchor=\"middle\">", size);
	for (size_t i = 0; i < n; i++) {
		/* The baseline sits about 0.95 em below the top of its line. */
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", width / 2.0,
			box_y + PAD_Y * size + ((double)i * LINE_HEIGHT + 0.95) * size);
		put_text(f, cue->text + start[i], end[i] - start[i]);
		fputs("</text>", f);
	}
	fputs("</g></svg>", f);
	if (ferror(f) | fclose(f)) {
		free(svg);
		snprintf(err, errlen, "out of memory for a caption's picture");
		return NULL;
	}
	return svg;
}
