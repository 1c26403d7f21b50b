/*
 * pcm_b64 - base64 text to 16-bit little-endian samples, fed in pieces
 * of any size: Gemini's audio is decoded while its answer arrives, so no
 * piece boundary (inside a group of four characters, inside a sample)
 * may matter.
 *
 * The rules are those of the whole-text decoder the service used before
 * (lib/base64.c): the standard alphabet, no blanks, up to two '=' at
 * the very end, a count of characters (without the '=') that is not 1
 * more than a multiple of 4, and bits left over ignored.
 */
#ifndef SPEECH_PCM_B64_H
#define SPEECH_PCM_B64_H

#include <stddef.h>
#include <stdint.h>

/* Samples, growing. */
struct speech_pcm {
	int16_t *s;  /* malloc'd */
	size_t n, cap;
};

struct speech_b64 {
	uint32_t bits;      /* the sextets of the group so far */
	unsigned quad;      /* how many of them (0..3) */
	unsigned pads;      /* '=' seen (0..2): only '=' may follow */
	unsigned odd;       /* 1 when a byte waits for its partner... */
	unsigned low;       /* ...this one, the low half of a sample */
	int bad;            /* not base64: the rest is not decoded */
};

enum speech_b64_end { SPEECH_B64_OK, SPEECH_B64_BAD, SPEECH_B64_ODD };

void speech_b64_start(struct speech_b64 *d);
/* Decode the longest prefix of t[0..n) made of base64 characters ('='
 * included), appending whole samples to out; returns how many characters
 * it took (the one after them is the caller's: a quote, an escape), or
 * SIZE_MAX when memory runs out.  Takes nothing once the text is bad. */
size_t speech_b64_take(struct speech_b64 *d, const unsigned char *t, size_t n, struct speech_pcm *out);
/* One character that did not come plainly (the result of a JSON escape,
 * or any character outside the alphabet).  0, or -1 when memory runs out. */
int speech_b64_char(struct speech_b64 *d, unsigned char c, struct speech_pcm *out);
/* The end of the text: the last bytes decoded, and the verdict.  -1 when
 * memory runs out. */
int speech_b64_end(struct speech_b64 *d, struct speech_pcm *out, enum speech_b64_end *verdict);
/* Room for extra more samples in p.  0 or -1. */
int speech_pcm_reserve(struct speech_pcm *p, size_t extra);

#endif
