/*
 * base64 - a strict decoder: a payload that is not clean base64 is a
 * broken answer, and guessing at it would turn noise into audio.
 */
#include "base64.h"

#include <errno.h>
#include <stdlib.h>

/* 0..63 for an alphabet character, -1 otherwise. */
static int sextet(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

unsigned char *hb_base64_decode(const char *text, size_t len, size_t *outlen)
{
	const unsigned char *t = (const unsigned char *)text;
	unsigned char *out;
	size_t n = 0, i = 0;

	if (len >= 1 && text[len - 1] == '=')
		len--;
	if (len >= 1 && text[len - 1] == '=')
		len--;
	if (len % 4 == 1) { /* one character cannot carry a whole byte */
		errno = EINVAL;
		return NULL;
	}
	if (!(out = malloc(len / 4 * 3 + 3)))
		return NULL;
	/* Four characters make three bytes: megabytes of audio go this way. */
	for (; i + 4 <= len; i += 4) {
		int a = sextet(t[i]), b = sextet(t[i + 1]), c = sextet(t[i + 2]), d = sextet(t[i + 3]);
		unsigned long w;

		if ((a | b | c | d) < 0)
			goto bad;
		w = (unsigned long)a << 18 | (unsigned long)b << 12 | (unsigned long)c << 6 | (unsigned long)d;
		out[n++] = (unsigned char)(w >> 16);
		out[n++] = (unsigned char)(w >> 8);
		out[n++] = (unsigned char)w;
	}
	if (len - i >= 2) { /* the last two or three characters */
		int a = sextet(t[i]), b = sextet(t[i + 1]), c = len - i == 3 ? sextet(t[i + 2]) : 0;

		if ((a | b | c) < 0)
			goto bad;
		out[n++] = (unsigned char)(a << 2 | b >> 4);
		if (len - i == 3)
			out[n++] = (unsigned char)((b & 15) << 4 | c >> 2);
	}
	*outlen = n;
	return out;
bad:
	free(out);
	errno = EINVAL;
	return NULL;
}
