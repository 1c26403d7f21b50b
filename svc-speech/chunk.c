/*
 * chunk - a greedy splitter: each piece takes as many whole sentences as
 * fit, because every request boundary costs a pause the speaker did not
 * mean, and the fewer there are the more natural the result sounds.
 */
#include "chunk.h"

#include <stdint.h>
#include <stdlib.h>

enum cut_kind { CUT_WORD, CUT_CLAUSE, CUT_SENTENCE, CUT_KINDS };

/* The code point at s (valid UTF-8) and its length in *n. */
static uint32_t decode(const unsigned char *s, size_t left, size_t *n)
{
	if (s[0] < 0x80 || left < 2) {
		*n = 1;
		return s[0];
	}
	if ((s[0] & 0xe0) == 0xc0) {
		*n = 2;
		return (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
	}
	if ((s[0] & 0xf0) == 0xe0 && left >= 3) {
		*n = 3;
		return (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
	}
	if (left >= 4) {
		*n = 4;
		return (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3f) << 12 | (uint32_t)(s[2] & 0x3f) << 6 |
		       (s[3] & 0x3f);
	}
	*n = left; /* cannot happen in valid UTF-8 */
	return 0xfffd;
}

static int is_space(uint32_t c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0x3000 || c == 0x2028 || c == 0x2029;
}

static int is_newline(uint32_t c)
{
	return c == '\n' || c == '\r' || c == 0x2028 || c == 0x2029;
}

/* Quotes and brackets that may close a sentence after its full stop. */
static int is_closer(uint32_t c)
{
	return c == '"' || c == '\'' || c == ')' || c == ']' || c == 0x201d || c == 0x2019 || c == 0xbb ||
	       c == 0x300d || c == 0x300f || c == 0xff09;
}

static int ends_sentence(uint32_t c)
{
	return c == '.' || c == '!' || c == '?' || c == 0x2026 || c == 0x3002 || c == 0xff01 || c == 0xff1f;
}

static int ends_clause(uint32_t c)
{
	return c == ',' || c == ';' || c == ':' || c == 0x2013 || c == 0x2014 || c == 0x3001 || c == 0xff0c ||
	       c == 0xff1b || c == 0xff1a;
}

/* Full-width marks end a sentence or clause with no blank after them. */
static int cjk_mark(uint32_t c)
{
	return c == 0x3002 || c == 0xff01 || c == 0xff1f || c == 0x3001 || c == 0xff0c || c == 0xff1b || c == 0xff1a;
}

/* The kind of a boundary after `core` (and a run of blanks). */
static enum cut_kind kind_after(uint32_t core, int newline)
{
	return newline || ends_sentence(core) ? CUT_SENTENCE : ends_clause(core) ? CUT_CLAUSE : CUT_WORD;
}

int speech_is_blank(const char *s, size_t len)
{
	size_t n;

	for (size_t i = 0; i < len; i += n)
		if (!is_space(decode((const unsigned char *)s + i, len - i, &n)))
			return 0;
	return 1;
}

/* The end (bytes) of the piece that starts at `start`: the last boundary of
 * the strongest kind within `limit` characters. */
static size_t piece_end(const unsigned char *t, size_t len, size_t start, size_t limit)
{
	size_t cut[CUT_KINDS] = { 0, 0, 0 }, i = start, n, chars = 0;
	uint32_t core = 0;   /* the last character before blanks and closers */
	int newline = 0;     /* the current run of blanks holds a line break */

	while (i < len && chars < limit) {
		uint32_t c = decode(t + i, len - i, &n);
		int last;

		i += n;
		chars++;
		last = i >= len || chars == limit;
		if (is_space(c)) {
			newline |= is_newline(c);
			/* A cut goes after a whole run of blanks (or at the window's end). */
			if (last || is_space(decode(t + i, len - i, &n)) == 0) {
				cut[kind_after(core, newline)] = i;
			}
			continue;
		}
		newline = 0;
		if (!is_closer(c))
			core = c;
		if (cjk_mark(c))
			cut[ends_clause(c) ? CUT_CLAUSE : CUT_SENTENCE] = i;
		else if (last && i < len && is_space(decode(t + i, len - i, &n)))
			cut[kind_after(core, 0)] = i; /* the window ends just before a blank */
	}
	if (i >= len)
		return len; /* the rest fits */
	for (int k = CUT_SENTENCE; k >= CUT_WORD; k--)
		if (cut[k] > start)
			return cut[k];
	return i; /* one word longer than the limit: cut it at a character */
}

long speech_chunk_text(const char *text, size_t len, size_t limit, struct speech_chunk **out)
{
	const unsigned char *t = (const unsigned char *)text;
	struct speech_chunk *v = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	if (limit == 0)
		return -1;
	for (size_t start = 0; start < len;) {
		size_t end = piece_end(t, len, start, limit);

		if (n == cap) {
			struct speech_chunk *nv = realloc(v, (cap = cap ? cap * 2 : 8) * sizeof *v);
			if (!nv) {
				free(v);
				return -1;
			}
			v = nv;
		}
		v[n].start = start;
		v[n].len = end - start;
		n++;
		start = end;
	}
	*out = v;
	return (long)n;
}
