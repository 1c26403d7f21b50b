/*
 * utf8 - strict UTF-8 checks and repair (see utf8.h).
 *
 * A bad byte becomes U+FFFD on its own and the next byte is judged
 * afresh, so one cut character costs one mark and nothing after it.
 */
#include "utf8.h"

#include <stdlib.h>
#include <string.h>

/* The length of the valid sequence at p (n bytes left), or 0. */
static size_t seq_len(const unsigned char *p, size_t n)
{
	size_t want = p[0] < 0x80 ? 1 : (p[0] & 0xe0) == 0xc0 ? 2 : (p[0] & 0xf0) == 0xe0 ? 3 : (p[0] & 0xf8) == 0xf0 ? 4 : 0;
	unsigned long cp;

	if (want == 0 || want > n)
		return 0;
	if (want == 1)
		return 1;
	cp = p[0] & (0x7fu >> want);
	for (size_t i = 1; i < want; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3fu);
	}
	if ((want == 2 && cp < 0x80) || (want == 3 && cp < 0x800) || (want == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return want;
}

int hb_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0, k; i < len; i += k)
		if (!(k = seq_len(p + i, len - i)))
			return 0;
	return 1;
}

long hb_utf8_chars(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s);
	long n = 0;

	for (size_t i = 0, k; i < len; i += k, n++)
		if (!(k = seq_len(p + i, len - i)))
			return -1;
	return n;
}

static int continues(const char *s, size_t i)
{
	return ((unsigned char)s[i] & 0xc0) == 0x80;
}

size_t hb_utf8_count(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += !continues(s, i);
	return n;
}

size_t hb_utf8_advance(const char *s, size_t len, size_t n)
{
	size_t i = 0;

	while (i < len && n > 0) {
		i++;
		while (i < len && continues(s, i))
			i++;
		n--;
	}
	return i;
}

size_t hb_utf8_fit(const char *s, size_t len, size_t max_chars, size_t max_bytes)
{
	size_t i = 0, next;

	while (i < len && max_chars > 0) {
		next = i + 1;
		while (next < len && continues(s, next))
			next++;
		if (next > max_bytes)
			break;
		i = next;
		max_chars--;
	}
	return i;
}

char *hb_utf8_repair(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), n = 0;
	char *out = malloc(len * 3 + 1); /* each bad byte grows to three */

	if (!out)
		return NULL;
	for (size_t i = 0, k; i < len; i += k ? k : 1) {
		if ((k = seq_len(p + i, len - i))) {
			memcpy(out + n, s + i, k);
			n += k;
		} else {
			memcpy(out + n, "\xef\xbf\xbd", 3);
			n += 3;
		}
	}
	out[n] = '\0';
	return out;
}
