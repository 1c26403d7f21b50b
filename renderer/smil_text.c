/*
 * smil_text - the text primitives every part of the SMIL evaluator reads
 * and writes values with: SVG numbers and number lists in, and a growing
 * buffer out whose numbers carry four decimals at most, trailing zeros
 * trimmed, so the same number is always the same bytes (the pipeline
 * compares serialized frames to skip identical ones).
 */
#include "smil_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void smil_buf_add(struct smil_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort(); /* only a bad format string fails here */
	if (b->len + (size_t)n + 1 > b->cap) {
		size_t cap = (b->len + (size_t)n + 1) * 2;
		char *s = realloc(b->s, cap);
		if (!s)
			abort(); /* smil_apply cannot report, and a stale frame would be wrong */
		b->s = s;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void smil_buf_number(struct smil_buf *b, double v)
{
	char text[48];
	size_t len;

	snprintf(text, sizeof text, "%.4f", v);
	len = strlen(text);
	while (len > 0 && text[len - 1] == '0')
		text[--len] = '\0';
	if (len > 0 && text[len - 1] == '.')
		text[--len] = '\0';
	smil_buf_add(b, "%s", strcmp(text, "-0") == 0 ? "0" : text);
}

/* An SVG number (sign, digits, fraction, exponent); none of strtod's hex,
 * inf or nan, and within SMIL_NUMBER_MAX.  Advances *s past it. */
int smil_number_scan(const char **s, double *v)
{
	const char *p = *s, *start = *s;
	char copy[64];
	int digits = 0;

	if (*p == '+' || *p == '-')
		p++;
	for (; *p >= '0' && *p <= '9'; p++)
		digits++;
	if (*p == '.' && p[1] >= '0' && p[1] <= '9')
		for (p++; *p >= '0' && *p <= '9'; p++)
			digits++;
	if (!digits)
		return -1;
	if ((*p == 'e' || *p == 'E') &&
	    ((p[1] >= '0' && p[1] <= '9') || ((p[1] == '+' || p[1] == '-') && p[2] >= '0' && p[2] <= '9'))) {
		p += 2;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if ((size_t)(p - start) >= sizeof copy)
		return -1;
	memcpy(copy, start, (size_t)(p - start));
	copy[p - start] = '\0';
	*v = strtod(copy, NULL);
	if (!isfinite(*v) || fabs(*v) > SMIL_NUMBER_MAX)
		return -1;
	*s = p;
	return 0;
}

const char *smil_skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

int smil_numbers_parse(const char *s, double **out, size_t *n)
{
	double *v = NULL;
	size_t count = 0, cap = 0;

	s = smil_skip_space(s);
	while (*s) {
		if (count == cap) {
			double *grown = realloc(v, (cap = cap ? cap * 2 : 8) * sizeof *v);
			if (!grown)
				goto fail;
			v = grown;
		}
		if (smil_number_scan(&s, &v[count]) < 0)
			goto fail;
		count++;
		s = smil_skip_space(s);
		if (*s == ',') {
			s = smil_skip_space(s + 1);
			if (!*s)
				goto fail; /* a trailing comma */
		}
	}
	*out = v;
	*n = count;
	return 0;
fail:
	free(v);
	return -1;
}
