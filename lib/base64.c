/*
 * base64 - a strict decoder: a payload that is not clean base64 is a
 * broken answer, and guessing at it would turn noise into audio.  The
 * encoder always pads, so the check of what it wrote can be exact.
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

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t hb_base64_encoded_len(size_t len)
{
	return (len + 2) / 3 * 4;
}

char *hb_base64_encode(const unsigned char *data, size_t len)
{
	char *out = malloc(hb_base64_encoded_len(len) + 1), *p = out;
	size_t i = 0;

	if (!out)
		return NULL;
	for (; i + 3 <= len; i += 3) {
		unsigned long w = (unsigned long)data[i] << 16 | (unsigned long)data[i + 1] << 8 | data[i + 2];

		*p++ = alphabet[w >> 18];
		*p++ = alphabet[(w >> 12) & 63];
		*p++ = alphabet[(w >> 6) & 63];
		*p++ = alphabet[w & 63];
	}
	if (len - i > 0) { /* one or two bytes left: two or three characters and padding */
		unsigned long w = (unsigned long)data[i] << 16 | (len - i == 2 ? (unsigned long)data[i + 1] << 8 : 0);

		*p++ = alphabet[w >> 18];
		*p++ = alphabet[(w >> 12) & 63];
		*p++ = len - i == 2 ? alphabet[(w >> 6) & 63] : '=';
		*p++ = '=';
	}
	*p = '\0';
	return out;
}

int hb_base64_check(const char *text, size_t len, size_t *decoded)
{
	const unsigned char *t = (const unsigned char *)text;
	size_t pad = 0;

	if (len % 4 != 0)
		return -1;
	while (pad < 2 && pad < len && t[len - 1 - pad] == '=')
		pad++;
	for (size_t i = 0; i < len - pad; i++)
		if (sextet(t[i]) < 0)
			return -1;
	*decoded = len / 4 * 3 - pad;
	return 0;
}
