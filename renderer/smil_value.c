/*
 * smil_value - the attribute kinds the SMIL subset animates (smil_int.h):
 * which attributes we take, how their values are read, how two values are
 * interpolated, and how the result is written back.
 *
 * Written numbers carry four decimals at most, trailing zeros trimmed:
 * enough for 1920-px coordinates (%.4g would round 1234.5 to 1234) and
 * always the same bytes for the same number, since the pipeline compares
 * serialized frames to skip identical ones.
 */
#include "smil_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const visibility_words[] = { "visible", "hidden", "collapse", "inherit", NULL };
static const char *const display_words[] = { "none", "inline", "block", "inherit", NULL };

static const struct smil_attr attrs[] = {
	{ "x", SMIL_LENGTH, 0, NULL },          { "y", SMIL_LENGTH, 0, NULL },
	{ "x1", SMIL_LENGTH, 0, NULL },         { "y1", SMIL_LENGTH, 0, NULL },
	{ "x2", SMIL_LENGTH, 0, NULL },         { "y2", SMIL_LENGTH, 0, NULL },
	{ "cx", SMIL_LENGTH, 0, NULL },         { "cy", SMIL_LENGTH, 0, NULL },
	{ "r", SMIL_LENGTH, 0, NULL },          { "rx", SMIL_LENGTH, 0, NULL },
	{ "ry", SMIL_LENGTH, 0, NULL },         { "fx", SMIL_LENGTH, 0, NULL },
	{ "fy", SMIL_LENGTH, 0, NULL },         { "width", SMIL_LENGTH, 0, NULL },
	{ "height", SMIL_LENGTH, 0, NULL },     { "offset", SMIL_LENGTH, 0, NULL },
	{ "stroke-width", SMIL_LENGTH, 1, NULL }, { "stroke-dashoffset", SMIL_LENGTH, 1, NULL },
	{ "font-size", SMIL_LENGTH, 1, NULL },
	{ "opacity", SMIL_NUMBER, 1, NULL },    { "fill-opacity", SMIL_NUMBER, 1, NULL },
	{ "stroke-opacity", SMIL_NUMBER, 1, NULL }, { "stop-opacity", SMIL_NUMBER, 1, NULL },
	{ "flood-opacity", SMIL_NUMBER, 1, NULL }, { "stroke-miterlimit", SMIL_NUMBER, 1, NULL },
	{ "fill", SMIL_COLOUR, 1, NULL },       { "stroke", SMIL_COLOUR, 1, NULL },
	{ "stop-color", SMIL_COLOUR, 1, NULL }, { "flood-color", SMIL_COLOUR, 1, NULL },
	{ "lighting-color", SMIL_COLOUR, 1, NULL },
	{ "points", SMIL_POINTS, 0, NULL },     { "stroke-dasharray", SMIL_NUMBERS, 1, NULL },
	{ "d", SMIL_PATH, 0, NULL },
	{ "visibility", SMIL_KEYWORD, 1, visibility_words },
	{ "display", SMIL_KEYWORD, 1, display_words },
	{ "transform", SMIL_TRANSFORM, 1, NULL },
	{ "gradientTransform", SMIL_TRANSFORM, 0, NULL },
	{ "patternTransform", SMIL_TRANSFORM, 0, NULL },
};

static const char *const length_units[] = { "", "px", "%", "em", "ex", "pt", "pc", "cm", "mm", "in", NULL };

const struct smil_attr *smil_attr_find(const char *name)
{
	for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
		if (strcmp(attrs[i].name, name) == 0)
			return &attrs[i];
	return NULL;
}

static int parse_length(const struct smil_attr *attr, const char *text, struct smil_value *out,
			char *why, size_t whylen)
{
	const char *unit = text; /* trimmed by smil_value_parse: the unit is what follows the number */
	double v;

	if (smil_number_scan(&unit, &v) < 0 || (attr->kind == SMIL_NUMBER && *unit))
		goto bad;
	for (size_t i = 0; length_units[i]; i++)
		if (strcmp(length_units[i], unit) == 0) {
			snprintf(out->unit, sizeof out->unit, "%s", unit);
			if (!(out->num = malloc(sizeof *out->num)))
				return -1;
			out->num[0] = v;
			out->n = 1;
			return 0;
		}
bad:
	if (attr->kind == SMIL_NUMBER)
		snprintf(why, whylen, "is not a number (write e.g. 0.5)");
	else
		snprintf(why, whylen, "is not a length (a number with an optional unit: px, %%, em, ex, pt, pc, cm, mm, in)");
	return -1;
}

static int parse_transform(enum smil_transform type, const char *text, struct smil_value *out,
			   char *why, size_t whylen)
{
	static const size_t least[] = { 1, 1, 1, 1, 1 }, most[] = { 2, 2, 3, 1, 1 };
	static const char *const forms[] = { "\"tx\" or \"tx ty\"", "\"s\" or \"sx sy\"",
					     "\"angle\" or \"angle cx cy\"", "\"angle\"", "\"angle\"" };
	double *v, full[3] = { 0, 0, 0 };
	size_t n, want = type == SMIL_ROTATE ? 3 : type == SMIL_TRANSLATE || type == SMIL_SCALE ? 2 : 1;

	if (smil_numbers_parse(text, &v, &n) < 0)
		goto bad;
	if (n < least[type] || n > most[type] || (type == SMIL_ROTATE && n == 2)) {
		free(v);
		goto bad;
	}
	memcpy(full, v, n * sizeof *v);
	if (type == SMIL_SCALE && n == 1)
		full[1] = full[0]; /* scale(s) is scale(s s) */
	free(v);
	if (!(out->num = malloc(want * sizeof *out->num)))
		return -1;
	memcpy(out->num, full, want * sizeof *out->num);
	out->n = want;
	return 0;
bad:
	snprintf(why, whylen, "does not fit this type: write %s", forms[type]);
	return -1;
}

static int parse_numbers(const struct smil_attr *attr, const char *text, struct smil_value *out,
			 char *why, size_t whylen)
{
	if (attr->kind == SMIL_NUMBERS && strcmp(text, "none") == 0)
		return 0; /* a step to no dashes */
	if (smil_numbers_parse(text, &out->num, &out->n) == 0 &&
	    (attr->kind != SMIL_POINTS || out->n % 2 == 0))
		return 0;
	free(out->num);
	out->num = NULL;
	if (attr->kind == SMIL_POINTS)
		snprintf(why, whylen, "is not a list of points (write \"x1,y1 x2,y2 ...\")");
	else
		snprintf(why, whylen, "is not a list of numbers (write e.g. \"10 5\")");
	return -1;
}

static int parse_kind(const struct smil_attr *attr, enum smil_transform type, const char *text,
		      struct smil_value *out, char *why, size_t whylen)
{
	double rgb[3];
	int rc;

	switch (attr->kind) {
	case SMIL_LENGTH:
	case SMIL_NUMBER:
		return parse_length(attr, text, out, why, whylen);
	case SMIL_COLOUR:
		if ((rc = smil_colour_parse(text, rgb)) < 0) {
			snprintf(why, whylen, "is not a colour (write #rrggbb, #rgb, rgb(r, g, b) or a colour name)");
			return -1;
		}
		if (rc == 1)
			return 0;
		if (!(out->num = malloc(3 * sizeof *out->num)))
			return -1;
		memcpy(out->num, rgb, sizeof rgb);
		out->n = 3;
		return 0;
	case SMIL_POINTS:
	case SMIL_NUMBERS:
		return parse_numbers(attr, text, out, why, whylen);
	case SMIL_PATH:
		return smil_path_parse(text, &out->letters, &out->num, &out->n, why, whylen);
	case SMIL_KEYWORD:
		for (size_t i = 0; attr->keywords[i]; i++)
			if (strcmp(attr->keywords[i], text) == 0)
				return 0;
		snprintf(why, whylen, "is not a value of %s (use %s or %s)", attr->name, attr->keywords[0],
			 attr->keywords[1]);
		return -1;
	case SMIL_TRANSFORM:
		return parse_transform(type, text, out, why, whylen);
	}
	return -1;
}

int smil_value_parse(const struct smil_attr *attr, enum smil_transform type, const char *text,
		     struct smil_value *out, char *why, size_t whylen)
{
	const char *start = smil_skip_space(text);
	size_t len = strlen(start);

	memset(out, 0, sizeof *out);
	why[0] = '\0';
	while (len > 0 && strchr(" \t\r\n", start[len - 1]))
		len--;
	if (!(out->text = strndup(start, len))) {
		snprintf(why, whylen, "could not be read: out of memory");
		return -1;
	}
	if (parse_kind(attr, type, out->text, out, why, whylen) == 0)
		return 0;
	if (!why[0])
		snprintf(why, whylen, "could not be read: out of memory");
	smil_value_free(out);
	return -1;
}

int smil_values_match(const struct smil_attr *attr, const struct smil_value *a,
		      const struct smil_value *b, char *why, size_t whylen)
{
	if (!a->num || !b->num) {
		snprintf(why, whylen, "\"%.40s\" cannot be interpolated", a->num ? b->text : a->text);
		return -1;
	}
	if (attr->kind == SMIL_PATH && strcmp(a->letters, b->letters) != 0) {
		snprintf(why, whylen, "two of its paths have different commands (%.60s and %.60s)", a->letters,
			 b->letters);
		return -1;
	}
	if (a->n != b->n) {
		int points = attr->kind == SMIL_POINTS;
		snprintf(why, whylen, "\"%.40s\" has %zu %s and \"%.40s\" has %zu", a->text, points ? a->n / 2 : a->n,
			 points ? "points" : "numbers", b->text, points ? b->n / 2 : b->n);
		return -1;
	}
	if (a->unit[0] && b->unit[0] && strcmp(a->unit, b->unit) != 0 &&
	    !(strcmp(a->unit, "px") == 0 && !b->unit[0]) && !(strcmp(b->unit, "px") == 0 && !a->unit[0])) {
		snprintf(why, whylen, "\"%.40s\" and \"%.40s\" have different units", a->text, b->text);
		return -1;
	}
	return 0;
}

void smil_value_write(struct smil_buf *b, const struct smil_attr *attr, enum smil_transform type,
		      const struct smil_value *a, const struct smil_value *to, double f)
{
	static const char *const names[] = { "translate", "scale", "rotate", "skewX", "skewY" };
	double v[3];

	if (!a->num) {
		smil_buf_add(b, "%s", a->text);
		return;
	}
#define AT(i) (to ? a->num[i] + (to->num[i] - a->num[i]) * f : a->num[i])
	switch (attr->kind) {
	case SMIL_COLOUR:
		for (int i = 0; i < 3; i++)
			v[i] = fmin(255, fmax(0, round(AT(i))));
		smil_buf_add(b, "#%02x%02x%02x", (unsigned)v[0], (unsigned)v[1], (unsigned)v[2]);
		break;
	case SMIL_PATH:
		smil_path_write(b, a->letters, a->num, to ? to->num : NULL, to ? f : 0);
		break;
	case SMIL_TRANSFORM:
		smil_buf_add(b, "%s(", names[type]);
		for (size_t i = 0; i < a->n; i++) {
			if (i)
				smil_buf_add(b, " ");
			smil_buf_number(b, AT(i));
		}
		smil_buf_add(b, ")");
		break;
	default: /* lengths, numbers, points, number lists */
		for (size_t i = 0; i < a->n; i++) {
			if (i)
				smil_buf_add(b, "%s", attr->kind == SMIL_POINTS && i % 2 ? "," : " ");
			smil_buf_number(b, AT(i));
		}
		smil_buf_add(b, "%s", a->unit[0] ? a->unit : to ? to->unit : "");
	}
#undef AT
}

int smil_value_sum(const struct smil_attr *attr, enum smil_transform type, const struct smil_value *a,
		   const struct smil_value *by, struct smil_value *out)
{
	struct smil_buf text = { 0 };

	memset(out, 0, sizeof *out);
	if (!(out->num = malloc((a->n ? a->n : 1) * sizeof *out->num)) ||
	    (a->letters && !(out->letters = strdup(a->letters)))) {
		smil_value_free(out);
		return -1;
	}
	for (size_t i = 0; i < a->n; i++)
		out->num[i] = a->num[i] + by->num[i];
	out->n = a->n;
	memcpy(out->unit, a->unit[0] ? a->unit : by->unit, sizeof out->unit);
	smil_value_write(&text, attr, type, out, NULL, 0);
	out->text = text.s;
	return 0;
}

void smil_value_free(struct smil_value *v)
{
	free(v->text);
	free(v->num);
	free(v->letters);
	memset(v, 0, sizeof *v);
}
