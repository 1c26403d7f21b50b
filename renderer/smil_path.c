/*
 * smil_path - path data (`d`) as command letters and numbers, so that two
 * paths of the same command structure interpolate number by number.
 *
 * Implicit repeats are spelled out ("M0 0 10 10" is M then L), so that
 * "L1 1 2 2" and "L1 1 L2 2" count as the same structure.  Arc flags are
 * read as the single digits SVG allows ("a5 5 0 01 10 10") and written as
 * 0 or 1: between two different flags any fraction is non-zero, so 1.
 */
#include "smil_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char commands[] = "MmLlHhVvCcSsQqTtAaZz";

static size_t arity(char letter)
{
	switch (letter) {
	case 'H': case 'h': case 'V': case 'v':
		return 1;
	case 'M': case 'm': case 'L': case 'l': case 'T': case 't':
		return 2;
	case 'S': case 's': case 'Q': case 'q':
		return 4;
	case 'C': case 'c':
		return 6;
	case 'A': case 'a':
		return 7;
	default:
		return 0;
	}
}

static int is_arc_flag(char letter, size_t k)
{
	return (letter == 'A' || letter == 'a') && (k == 3 || k == 4);
}

static const char *skip_separators(const char *s, int comma)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	if (comma && *s == ',') {
		s++;
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			s++;
	}
	return s;
}

struct path_parse {
	char *letters;
	size_t nletters, letters_cap;
	double *num;
	size_t n, num_cap;
};

static int push(struct path_parse *pp, char letter, const double *v, size_t count)
{
	if (pp->nletters + 2 > pp->letters_cap) {
		char *grown = realloc(pp->letters, pp->letters_cap = pp->letters_cap * 2 + 16);
		if (!grown)
			return -1;
		pp->letters = grown;
	}
	pp->letters[pp->nletters++] = letter;
	pp->letters[pp->nletters] = '\0';
	if (pp->n + count > pp->num_cap) {
		double *grown = realloc(pp->num, (pp->num_cap = pp->num_cap * 2 + 16) * sizeof *grown);
		if (!grown)
			return -1;
		pp->num = grown;
	}
	memcpy(pp->num + pp->n, v, count * sizeof *v);
	pp->n += count;
	return 0;
}

/* The arguments of one segment, after its letter (or after the previous
 * segment, for an implicit repeat). */
static int read_arguments(const char **s, char letter, double *v)
{
	for (size_t k = 0; k < arity(letter); k++) {
		*s = skip_separators(*s, k > 0);
		if (is_arc_flag(letter, k)) {
			if (**s != '0' && **s != '1')
				return -1;
			v[k] = **s - '0';
			(*s)++;
		} else if (smil_number_scan(s, &v[k]) < 0) {
			return -1;
		}
	}
	return 0;
}

int smil_path_parse(const char *text, char **letters, double **num, size_t *n, char *why, size_t whylen)
{
	struct path_parse pp = { 0 };
	const char *s = skip_separators(text, 0);
	char letter = 0;
	double v[7];

	if (*s != 'M' && *s != 'm') {
		snprintf(why, whylen, "is not path data that starts with M");
		return -1;
	}
	while (*s) {
		if (strchr(commands, *s)) {
			letter = *s++;
		} else if (!letter || !arity(letter)) {
			snprintf(why, whylen, "is not path data (\"%.20s\" is no command)", s);
			goto fail;
		} else if (letter == 'M' || letter == 'm') {
			letter = letter == 'M' ? 'L' : 'l'; /* after a moveto, pairs are linetos */
		}
		if (read_arguments(&s, letter, v) < 0) {
			snprintf(why, whylen, "is not path data (%c needs %zu numbers)", letter, arity(letter));
			goto fail;
		}
		if (push(&pp, letter, v, arity(letter)) < 0) {
			snprintf(why, whylen, "could not be read: out of memory");
			goto fail;
		}
		s = skip_separators(s, arity(letter) > 0);
	}
	*letters = pp.letters;
	*num = pp.num;
	*n = pp.n;
	return 0;
fail:
	free(pp.letters);
	free(pp.num);
	return -1;
}

void smil_path_write(struct smil_buf *b, const char *letters, const double *a, const double *to, double f)
{
	size_t i = 0;

	for (const char *l = letters; *l; l++) {
		smil_buf_add(b, "%s%c", l == letters ? "" : " ", *l);
		for (size_t k = 0; k < arity(*l); k++, i++) {
			double v = to ? a[i] + (to[i] - a[i]) * f : a[i];
			smil_buf_add(b, "%s", k ? " " : "");
			if (is_arc_flag(*l, k))
				smil_buf_add(b, "%d", v != 0);
			else
				smil_buf_number(b, v);
		}
	}
}
