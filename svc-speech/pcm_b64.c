/*
 * pcm_b64 - the decoder.  Almost every character of an answer goes
 * through the loop of eight characters (three samples) at a time, so that
 * reading 7.5 MB of base64 costs a few milliseconds; the character-by-
 * character path handles what is left at the edges of a piece and the
 * end of the text.
 */
#include "pcm_b64.h"

#include <stdlib.h>

#define BAD 0x80

/* The value of each byte in the base64 alphabet; BAD for any other. */
static const unsigned char sextet[256] = {
	BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD,
	BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD,
	BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD,  62, BAD, BAD, BAD,  63,
	 52,  53,  54,  55,  56,  57,  58,  59,  60,  61, BAD, BAD, BAD, BAD, BAD, BAD,
	BAD,   0,   1,   2,   3,   4,   5,   6,   7,   8,   9,  10,  11,  12,  13,  14,
	 15,  16,  17,  18,  19,  20,  21,  22,  23,  24,  25, BAD, BAD, BAD, BAD, BAD,
	BAD,  26,  27,  28,  29,  30,  31,  32,  33,  34,  35,  36,  37,  38,  39,  40,
	 41,  42,  43,  44,  45,  46,  47,  48,  49,  50,  51, BAD, BAD, BAD, BAD, BAD,
	BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD,
	BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD,
	BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD,
	BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD,
	BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD,
	BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD,
	BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD,
	BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD,
};

void speech_b64_start(struct speech_b64 *d)
{
	d->bits = 0;
	d->quad = d->pads = d->odd = d->low = 0;
	d->bad = 0;
}

int speech_pcm_reserve(struct speech_pcm *p, size_t extra)
{
	size_t cap;
	int16_t *s;

	if (p->cap - p->n >= extra)
		return 0;
	if (extra > SIZE_MAX / 4 - p->n)
		return -1;
	cap = p->cap ? p->cap : 4096;
	while (cap < p->n + extra)
		cap *= 2;
	if (!(s = realloc(p->s, cap * sizeof *s)))
		return -1;
	p->s = s;
	p->cap = cap;
	return 0;
}

/* One byte of audio: every second one completes a sample (room reserved). */
static void put_byte(struct speech_b64 *d, unsigned b, struct speech_pcm *out)
{
	if (d->odd) {
		out->s[out->n++] = (int16_t)(uint16_t)(d->low | (b & 0xff) << 8);
		d->odd = 0;
	} else {
		d->low = b & 0xff;
		d->odd = 1;
	}
}

/* One character of the alphabet or '=' (room reserved for its bytes). */
static void one(struct speech_b64 *d, unsigned char c, struct speech_pcm *out)
{
	if (d->pads) {
		/* After the first '=' only a second one may come. */
		if (c == '=' && d->pads < 2)
			d->pads++;
		else
			d->bad = 1;
		return;
	}
	if (c == '=') {
		d->pads = 1;
		return;
	}
	d->bits = d->bits << 6 | sextet[c];
	if (++d->quad == 4) {
		put_byte(d, d->bits >> 16, out);
		put_byte(d, d->bits >> 8, out);
		put_byte(d, d->bits, out);
		d->bits = 0;
		d->quad = 0;
	}
}

size_t speech_b64_take(struct speech_b64 *d, const unsigned char *t, size_t n, struct speech_pcm *out)
{
	size_t i = 0;
	int16_t *s;

	if (d->bad)
		return 0;
	/* n characters (and three held over) carry at most 3(n+3)/4 bytes. */
	if (speech_pcm_reserve(out, n / 8 * 3 + 8) < 0)
		return SIZE_MAX;
	while (i < n) {
		s = out->s + out->n;
		/* Nothing pending: eight characters make three whole samples. */
		while (d->quad == 0 && !d->odd && !d->pads && n - i >= 8) {
			unsigned a = sextet[t[i]], b = sextet[t[i + 1]], c = sextet[t[i + 2]], e = sextet[t[i + 3]];
			unsigned f = sextet[t[i + 4]], g = sextet[t[i + 5]], h = sextet[t[i + 6]], k = sextet[t[i + 7]];
			uint32_t w1, w2;

			if ((a | b | c | e | f | g | h | k) & BAD)
				break;
			w1 = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)c << 6 | e;
			w2 = (uint32_t)f << 18 | (uint32_t)g << 12 | (uint32_t)h << 6 | k;
			/* bytes w1>>16, w1>>8, w1, w2>>16, w2>>8, w2: little-endian pairs */
			*s++ = (int16_t)(uint16_t)((w1 >> 16) | (w1 & 0xff00));
			*s++ = (int16_t)(uint16_t)((w1 & 0xff) | (w2 >> 16) << 8);
			*s++ = (int16_t)(uint16_t)(((w2 >> 8) & 0xff) | (w2 & 0xff) << 8);
			i += 8;
		}
		out->n = (size_t)(s - out->s);
		if (i >= n || ((sextet[t[i]] & BAD) && t[i] != '='))
			break;
		one(d, t[i++], out);
		if (d->bad)
			break;
	}
	return i;
}

int speech_b64_char(struct speech_b64 *d, unsigned char c, struct speech_pcm *out)
{
	if (d->bad)
		return 0;
	if ((sextet[c] & BAD) && c != '=') {
		d->bad = 1;
		return 0;
	}
	if (speech_pcm_reserve(out, 2) < 0)
		return -1;
	one(d, c, out);
	return 0;
}

int speech_b64_end(struct speech_b64 *d, struct speech_pcm *out, enum speech_b64_end *verdict)
{
	if (speech_pcm_reserve(out, 2) < 0)
		return -1;
	/* One character cannot carry a whole byte. */
	if (d->bad || d->quad == 1) {
		*verdict = SPEECH_B64_BAD;
		return 0;
	}
	if (d->quad == 2) {
		put_byte(d, d->bits >> 4, out);
	} else if (d->quad == 3) {
		put_byte(d, d->bits >> 10, out);
		put_byte(d, d->bits >> 2, out);
	}
	d->quad = 0;
	*verdict = d->odd ? SPEECH_B64_ODD : SPEECH_B64_OK;
	return 0;
}
