/*
 * blocks - make_block's arguments read and checked, and the block of their
 * kind made (see blocks.h; each kind is drawn in blocks_code.c,
 * blocks_chart.c, blocks_shape.c or blocks_emoji.c).  Each kind names the arguments it
 * takes, so a stray one (code given to a chart) is a sentence, not a
 * silently ignored wish.
 */
#include "blocks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blocks_int.h"

/* Scene units: generous bounds that catch nonsense, whatever the canvas. */
#define MAX_COORD 100000.0
#define MAX_TITLE 200
#define DEFAULT_COLOUR "#4e9af1"
#define DEFAULT_CALLOUT "#fff3b0"
#define DEFAULT_ARROW "#ff7a45"

/* An emoji block's height: readable at the least, a canvas at the most. */
#define EMOJI_MIN_SIZE 16.0
#define EMOJI_MAX_SIZE 1080.0
#define EMOJI_MAX_BYTES 256

enum kind { CODE, BAR, LINE, ARROW, CALLOUT, EMOJI };

struct kind_def {
	const char *name;
	enum kind kind;
	const char *const args[12];
};

static const struct kind_def kinds[] = {
	{ "code", CODE, { "kind", "x", "y", "width", "height", "code", "language", "theme", "font_size", NULL } },
	{ "bar_chart", BAR, { "kind", "x", "y", "width", "height", "data", "title", "colour", "theme", NULL } },
	{ "line_chart", LINE, { "kind", "x", "y", "width", "height", "data", "title", "colour", "theme", NULL } },
	{ "arrow", ARROW, { "kind", "from", "to", "colour", NULL } },
	{ "callout", CALLOUT, { "kind", "x", "y", "width", "height", "text", "point", "font_size", "colour", NULL } },
	{ "emoji", EMOJI, { "kind", "x", "y", "size", "text", NULL } },
};

/* A number argument: absent leaves *out (and is an error when required). */
static int number(const json_t *a, const char *key, int required, double lo, double hi, double *out, char *err,
		  size_t errlen)
{
	json_t *v = json_object_get(a, key);

	if (!v) {
		if (required)
			snprintf(err, errlen, "%s is required", key);
		return required ? -1 : 0;
	}
	if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < lo ||
	    json_number_value(v) > hi) {
		snprintf(err, errlen, "%s must be a number from %g to %g", key, lo, hi);
		return -1;
	}
	*out = json_number_value(v);
	return 0;
}

static int point(const json_t *a, const char *key, struct block_point *p, char *err, size_t errlen)
{
	json_t *v = json_object_get(a, key);

	if (!json_is_array(v) || json_array_size(v) != 2 || !json_is_number(json_array_get(v, 0)) ||
	    !json_is_number(json_array_get(v, 1)) || fabs(json_number_value(json_array_get(v, 0))) > MAX_COORD ||
	    fabs(json_number_value(json_array_get(v, 1))) > MAX_COORD) {
		snprintf(err, errlen, "%s must be a point [x, y] of two numbers", key);
		return -1;
	}
	p->x = json_number_value(json_array_get(v, 0));
	p->y = json_number_value(json_array_get(v, 1));
	return 0;
}

/* A string's characters: control characters but tab, newline and
 * carriage return (the code and callout blocks refuse more) and what XML
 * cannot carry are refused here, U+0000 first of all. */
static int checked(const char *key, const char *s, size_t len, const char **out, char *err, size_t errlen)
{
	size_t at;
	long bad = blocks_bad_char(s, len, "\t\n\r", &at);

	if (bad >= 0) {
		snprintf(err, errlen, "%s has the character U+%04lX at byte %zu, which cannot be drawn", key,
			 (unsigned long)bad, at);
		return -1;
	}
	*out = s;
	return 0;
}

static int string(const json_t *a, const char *key, int required, const char *dflt, size_t max, const char **out,
		  char *err, size_t errlen)
{
	json_t *v = json_object_get(a, key);

	*out = dflt;
	if (!v && !required)
		return 0;
	if (!json_is_string(v) || json_string_length(v) > max) {
		snprintf(err, errlen, v ? "%s must be a string of at most %zu bytes" : "%s is required", key, max);
		return -1;
	}
	return checked(key, json_string_value(v), json_string_length(v), out, err, errlen);
}

static int colour(const json_t *a, const char *dflt, const char **out, char *err, size_t errlen)
{
	if (string(a, "colour", 0, dflt, 16, out, err, errlen) < 0)
		return -1;
	if (!blocks_colour_ok(*out)) {
		snprintf(err, errlen, "colour must be written #rrggbb or #rgb");
		return -1;
	}
	return 0;
}

static int theme(const json_t *a, const char **out, char *err, size_t errlen)
{
	if (string(a, "theme", 0, "dark", 16, out, err, errlen) < 0)
		return -1;
	if (strcmp(*out, "dark") != 0 && strcmp(*out, "light") != 0) {
		snprintf(err, errlen, "theme must be dark or light");
		return -1;
	}
	return 0;
}

static int box(const json_t *a, struct block_box *b, char *err, size_t errlen)
{
	b->h = 0;
	return number(a, "x", 1, -MAX_COORD, MAX_COORD, &b->x, err, errlen) < 0 ||
			       number(a, "y", 1, -MAX_COORD, MAX_COORD, &b->y, err, errlen) < 0 ||
			       number(a, "width", 1, 1, MAX_COORD, &b->w, err, errlen) < 0 ||
			       number(a, "height", 0, 1, MAX_COORD, &b->h, err, errlen) < 0
		       ? -1 : 0;
}

/* data's rows (pointing into a), at most max + 1 read so too many is seen. */
static int rows_of(const json_t *a, size_t max, struct block_row **rows, size_t *n, char *err, size_t errlen)
{
	json_t *data = json_object_get(a, "data"), *row;
	size_t i;

	*rows = NULL;
	*n = 0;
	if (!json_is_array(data)) {
		snprintf(err, errlen, "data must be an array of rows {\"label\": \"...\", \"value\": 12}");
		return -1;
	}
	if (json_array_size(data) == 0 || json_array_size(data) > max) {
		snprintf(err, errlen, "data has %zu rows; this chart takes 1 to %zu", json_array_size(data), max);
		return -1;
	}
	if (!(*rows = calloc(json_array_size(data), sizeof **rows))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	json_array_foreach(data, i, row) {
		json_t *label = json_object_get(row, "label"), *value = json_object_get(row, "value");
		char key[48];
		if (!json_is_object(row) || json_object_size(row) != 2 || !json_is_string(label) ||
		    json_string_length(label) > MAX_TITLE || !json_is_number(value)) {
			snprintf(err, errlen, "data row %zu must be {\"label\": a string of at most %d bytes, \"value\": "
				 "a number} and nothing else", i + 1, MAX_TITLE);
			free(*rows);
			*rows = NULL;
			return -1;
		}
		snprintf(key, sizeof key, "data row %zu's label", i + 1);
		(*rows)[i].value = json_number_value(value);
		if (checked(key, json_string_value(label), json_string_length(label), &(*rows)[i].label, err, errlen) < 0) {
			free(*rows);
			*rows = NULL;
			return -1;
		}
	}
	*n = json_array_size(data);
	return 0;
}

static int chart(FILE *f, const json_t *a, int line, char *err, size_t errlen)
{
	struct block_box b;
	struct block_row *rows;
	size_t n;
	const char *title, *fill, *th;
	int r;

	if (box(a, &b, err, errlen) < 0 || string(a, "title", 0, NULL, MAX_TITLE, &title, err, errlen) < 0 ||
	    colour(a, DEFAULT_COLOUR, &fill, err, errlen) < 0 || theme(a, &th, err, errlen) < 0 ||
	    rows_of(a, line ? BLOCKS_LINE_MAX_ROWS : BLOCKS_BAR_MAX_ROWS, &rows, &n, err, errlen) < 0)
		return -1;
	r = block_chart(f, &b, line, rows, n, title, fill, th, err, errlen);
	free(rows);
	return r;
}

static int make(FILE *f, enum kind k, const json_t *a, char *err, size_t errlen)
{
	struct block_box b;
	struct block_point from, to;
	const char *s, *lang, *th, *fill;
	double size = 36;

	switch (k) {
	case CODE:
		if (box(a, &b, err, errlen) < 0 || string(a, "code", 1, NULL, BLOCKS_CODE_MAX_BYTES, &s, err, errlen) < 0 ||
		    string(a, "language", 1, NULL, 64, &lang, err, errlen) < 0 || theme(a, &th, err, errlen) < 0 ||
		    number(a, "font_size", 0, BLOCKS_MIN_FONT, 200, &size, err, errlen) < 0)
			return -1;
		return block_code(f, &b, s, strlen(s), lang, th, size, err, errlen);
	case BAR:
	case LINE:
		return chart(f, a, k == LINE, err, errlen);
	case ARROW:
		if (point(a, "from", &from, err, errlen) < 0 || point(a, "to", &to, err, errlen) < 0 ||
		    colour(a, DEFAULT_ARROW, &fill, err, errlen) < 0)
			return -1;
		return block_arrow(f, from, to, fill, err, errlen);
	case EMOJI:
		if (number(a, "x", 1, -MAX_COORD, MAX_COORD, &b.x, err, errlen) < 0 ||
		    number(a, "y", 1, -MAX_COORD, MAX_COORD, &b.y, err, errlen) < 0 ||
		    number(a, "size", 1, EMOJI_MIN_SIZE, EMOJI_MAX_SIZE, &size, err, errlen) < 0 ||
		    string(a, "text", 1, NULL, EMOJI_MAX_BYTES, &s, err, errlen) < 0)
			return -1;
		return block_emoji(f, b.x, b.y, size, s, err, errlen);
	case CALLOUT:
	default:
		if (box(a, &b, err, errlen) < 0 ||
		    string(a, "text", 1, NULL, BLOCKS_CALLOUT_MAX_BYTES, &s, err, errlen) < 0 ||
		    number(a, "font_size", 0, BLOCKS_MIN_FONT, 200, &size, err, errlen) < 0 ||
		    colour(a, DEFAULT_CALLOUT, &fill, err, errlen) < 0 ||
		    (json_object_get(a, "point") && point(a, "point", &from, err, errlen) < 0))
			return -1;
		return block_callout(f, &b, s, json_object_get(a, "point") ? &from : NULL, size, fill, err, errlen);
	}
}

/* The kind's definition; NULL with err naming the kinds. */
static const struct kind_def *kind_of(const json_t *args, char *err, size_t errlen)
{
	const char *name = json_string_value(json_object_get(args, "kind")), *key;
	const struct kind_def *d = NULL;
	json_t *v;

	for (size_t i = 0; name && i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(kinds[i].name, name) == 0)
			d = &kinds[i];
	if (!d) {
		snprintf(err, errlen, "kind must be one of code, bar_chart, line_chart, arrow, callout, emoji");
		return NULL;
	}
	json_object_foreach((json_t *)args, key, v) {
		size_t i = 0;
		while (d->args[i] && strcmp(d->args[i], key) != 0)
			i++;
		if (!d->args[i]) {
			snprintf(err, errlen, "%.64s is not an argument of a %s block", key, d->name);
			return NULL;
		}
	}
	return d;
}

int blocks_make(const json_t *args, char **svg, char *err, size_t errlen)
{
	const struct kind_def *d = kind_of(args, err, errlen);
	size_t len = 0;
	FILE *f;
	int r;

	*svg = NULL;
	if (!d)
		return -1;
	if (!(f = open_memstream(svg, &len))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	r = make(f, d->kind, args, err, errlen);
	if (fclose(f) != 0 && r == 0) {
		snprintf(err, errlen, "out of memory");
		r = -1;
	}
	if (r < 0) {
		free(*svg);
		*svg = NULL;
	}
	return r;
}
