/*
 * blocks_int - what the building blocks' files share (blocks.h is the
 * module's face): the box a block fills, the drawing functions of each
 * kind (blocks_code.c, blocks_chart.c, blocks_shape.c, blocks_emoji.c) and the few SVG
 * writing helpers they all use (blocks_svg.c).  Every drawing function
 * appends one <g> to f, or sets err and leaves f to be thrown away.
 */
#ifndef EXPLAINER_BLOCKS_INT_H
#define EXPLAINER_BLOCKS_INT_H

#include <stddef.h>
#include <stdio.h>

/* The smallest text a block draws: below it a block is refused, as too
 * much for its box, rather than drawn unreadable. */
#define BLOCKS_MIN_FONT 14.0

struct block_box {
	double x, y, w, h; /* h 0: fit the content (code, callout) */
};

struct block_point {
	double x, y;
};

struct block_row {
	const char *label;
	double value;
};

#define BLOCKS_CODE_MAX_BYTES 8192
#define BLOCKS_CODE_MAX_LINES 80
/* code: UTF-8 without control characters but newline and tab; theme
 * "dark" or "light"; font_size the largest size, shrunk to fit. */
int block_code(FILE *f, const struct block_box *b, const char *code, size_t len, const char *language,
	       const char *theme, double font_size, char *err, size_t errlen);

#define BLOCKS_BAR_MAX_ROWS 40
#define BLOCKS_LINE_MAX_ROWS 200
/* line: 0 a bar chart, 1 a line chart.  Every value finite.  theme
 * "dark" (light text, for a dark scene) or "light". */
int block_chart(FILE *f, const struct block_box *b, int line, const struct block_row *rows, size_t n,
		const char *title, const char *colour, const char *theme, char *err, size_t errlen);

int block_arrow(FILE *f, struct block_point from, struct block_point to, const char *colour, char *err,
		size_t errlen);
#define BLOCKS_CALLOUT_MAX_BYTES 600
/* point NULL: a box without a pointer. */
int block_callout(FILE *f, const struct block_box *b, const char *text, const struct block_point *point,
		  double font_size, const char *colour, char *err, size_t errlen);

#define BLOCKS_EMOJI_MAX 8
/* text: one to BLOCKS_EMOJI_MAX emoji (grapheme clusters), else refused
 * with a sentence naming the first that is not; drawn in colour as a PNG
 * image size tall with its top left corner at (x, y) (blocks_emoji.c). */
int block_emoji(FILE *f, double x, double y, double size, const char *text, char *err, size_t errlen);

/* s's first len bytes as XML character data (& < > " escaped). */
void blocks_text(FILE *f, const char *s, size_t len);
/* 1 when s is #rgb or #rrggbb. */
int blocks_colour_ok(const char *s);
/* "#1a1a1a" or "#ffffff": the text colour readable on the colour bg
 * (#rgb or #rrggbb). */
const char *blocks_ink_on(const char *bg);
/* The first character of s's len bytes (UTF-8) that a block cannot
 * draw: a control character (U+0000-U+001F, U+007F) other than those in
 * allowed (say "\n\t"), or U+FFFE / U+FFFF, which XML cannot carry.  Its
 * code point with *at its byte offset, or -1 when there is none. */
long blocks_bad_char(const char *s, size_t len, const char *allowed, size_t *at);
/* Characters (code points) in s's first len bytes of UTF-8. */
size_t blocks_chars(const char *s, size_t len);

#endif
