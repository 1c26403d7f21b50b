/*
 * blocks_shape - the arrow and the callout.  The arrow is a line and a
 * filled head (a polygon, not a marker: a marker is a reference by id,
 * and two blocks' ids could clash); the callout is a rounded box of
 * wrapped text with, when it points at something, a triangle from the box
 * side facing the point to the point, in the box's colour.
 */
#include <math.h>
#include <string.h>

#include "blocks_int.h"

#define ARROW_WIDTH 8.0
#define ARROW_HEAD 36.0
/* DejaVu Sans' widest common letters: wrapping on 0.6 em keeps lines in. */
#define SANS_ADVANCE 0.6
#define LINE_HEIGHT 1.3

int block_arrow(FILE *f, struct block_point from, struct block_point to, const char *colour, char *err,
		size_t errlen)
{
	double dx = to.x - from.x, dy = to.y - from.y, len = hypot(dx, dy), ux, uy, bx, by;

	if (len < ARROW_HEAD * 1.5) {
		snprintf(err, errlen, "the arrow is %.0f long; it needs at least %.0f from from to to", len,
			 ARROW_HEAD * 1.5);
		return -1;
	}
	ux = dx / len;
	uy = dy / len;
	bx = to.x - ux * ARROW_HEAD;
	by = to.y - uy * ARROW_HEAD;
	fprintf(f, "<g class=\"block-arrow\">\n<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		   "stroke-width=\"%.1f\" stroke-linecap=\"round\"/>\n", from.x, from.y, bx + ux, by + uy, colour,
		ARROW_WIDTH);
	fprintf(f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\"/>\n</g>\n", to.x, to.y,
		bx - uy * ARROW_HEAD * 0.55, by + ux * ARROW_HEAD * 0.55, bx + uy * ARROW_HEAD * 0.55,
		by - ux * ARROW_HEAD * 0.55, colour);
	return 0;
}

/* The end of the line that starts at s and is at most cols characters:
 * after the last space that fits, or at cols for one long word. */
static size_t line_end(const char *s, size_t len, size_t cols)
{
	size_t chars = 0, space = 0;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			return i;
		if (((unsigned char)s[i] & 0xc0) == 0x80)
			continue;
		if (chars == cols)
			return space ? space : i;
		if (s[i] == ' ')
			space = i;
		chars++;
	}
	return len;
}

/* Lines of text wrapped at cols characters (the lines of the layout are
 * counted, not stored: draw_text wraps the same way). */
static size_t count_lines(const char *text, size_t cols)
{
	size_t n = 0, len = strlen(text);

	for (const char *s = text; ; n++) {
		size_t end = line_end(s, len - (size_t)(s - text), cols);
		s += end;
		while (*s == ' ' || *s == '\n')
			s++;
		if (!*s)
			return n + 1;
	}
}

static void draw_text(FILE *f, const char *text, double x, double y, double size, size_t cols, const char *ink)
{
	size_t len = strlen(text);

	for (const char *s = text; *s; y += size * LINE_HEIGHT) {
		size_t end = line_end(s, len - (size_t)(s - text), cols);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-family=\"DejaVu Sans\" font-size=\"%.1f\" fill=\"%s\">", x,
			y, size, ink);
		blocks_text(f, s, end);
		fputs("</text>\n", f);
		s += end;
		while (*s == ' ' || *s == '\n')
			s++;
	}
}

/* The pointer: a triangle whose base is on the box side facing p (the
 * side p is furthest beyond); -1 when p is inside the box. */
static int draw_pointer(FILE *f, const struct block_box *b, double h, struct block_point p, const char *colour)
{
	double base = fmin(fmin(b->w, h) * 0.3, 60), r = fmin(fmin(b->w, h) * 0.15, 24);
	double ax, ay, cx, cy;
	/* how far outside the box the point is, across and down */
	double out_x = fmax(fmax(b->x - p.x, p.x - b->x - b->w), 0), out_y = fmax(fmax(b->y - p.y, p.y - b->y - h), 0);

	if (out_x == 0 && out_y == 0)
		return -1;
	if (out_y >= out_x) {
		double x = fmin(fmax(p.x, b->x + r + base / 2), b->x + b->w - r - base / 2);
		double edge = p.y > b->y + h ? b->y + h - 1 : b->y + 1;
		ax = x - base / 2, ay = edge, cx = x + base / 2, cy = edge;
	} else {
		double y = fmin(fmax(p.y, b->y + r + base / 2), b->y + h - r - base / 2);
		double edge = p.x > b->x + b->w ? b->x + b->w - 1 : b->x + 1;
		ax = edge, ay = y - base / 2, cx = edge, cy = y + base / 2;
	}
	fprintf(f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\"/>\n", ax, ay, p.x, p.y, cx, cy,
		colour);
	return 0;
}

int block_callout(FILE *f, const struct block_box *b, const char *text, const struct block_point *point,
		  double font_size, const char *colour, char *err, size_t errlen)
{
	size_t len = strlen(text), cols, lines, at;
	double size = font_size, pad, h;
	long bad;

	if (len == 0 || len > BLOCKS_CALLOUT_MAX_BYTES) {
		snprintf(err, errlen, "text must be 1 to %d bytes", BLOCKS_CALLOUT_MAX_BYTES);
		return -1;
	}
	if ((bad = blocks_bad_char(text, len, "\n", &at)) >= 0) {
		snprintf(err, errlen, "text has the character U+%04lX at byte %zu; a callout holds printable text and "
			 "newlines", (unsigned long)bad, at);
		return -1;
	}
	/* Shrink until the wrapped text fits the height given (if any). */
	for (;; size *= 0.9) {
		pad = size * 0.7;
		cols = (size_t)fmax(1, floor((b->w - 2 * pad) / (size * SANS_ADVANCE)));
		lines = count_lines(text, cols);
		h = (double)lines * size * LINE_HEIGHT + 2 * pad - size * (LINE_HEIGHT - 1);
		if (size < BLOCKS_MIN_FONT) {
			snprintf(err, errlen, "the text does not fit a %.0fx%.0f callout at a readable size; give it more "
				 "room or fewer words", b->w, b->h);
			return -1;
		}
		if ((b->h <= 0 || h <= b->h) && cols >= 4)
			break;
	}
	h = b->h > 0 ? b->h : h;
	fprintf(f, "<g class=\"block-callout\">\n");
	if (point && draw_pointer(f, b, h, *point, colour) < 0) {
		snprintf(err, errlen, "point (%.0f, %.0f) is inside the callout's box; it must be outside, where the "
			 "pointer points", point->x, point->y);
		return -1;
	}
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"%.1f\" fill=\"%s\"/>\n", b->x,
		b->y, b->w, h, fmin(pad, 24), colour);
	draw_text(f, text, b->x + pad, b->y + pad + size * 0.85, size, cols, blocks_ink_on(colour));
	fputs("</g>\n", f);
	return 0;
}
