/*
 * chunk - split the text to speak into the pieces one TTS request takes.
 *
 * Pieces end at sentence boundaries where they can (a sentence longer than
 * the limit ends at a clause, then a word, and only as a last resort
 * inside a word), hold at most `limit` characters (Unicode code points,
 * not bytes; never a cut inside a UTF-8 sequence) and, joined in order,
 * give back the text exactly: the blanks after a sentence go with it.
 */
#ifndef SPEECH_CHUNK_H
#define SPEECH_CHUNK_H

#include <stddef.h>

/* The product's limit per TTS request. */
#define SPEECH_CHUNK_CHARS 1800

struct speech_chunk {
	size_t start, len; /* bytes of the text */
};

/* text is valid UTF-8 of len bytes (jansson guarantees it for a JSON
 * string).  *out is malloc'd (NULL for an empty text); returns the count,
 * or -1 when memory runs out or limit is 0. */
long speech_chunk_text(const char *text, size_t len, size_t limit, struct speech_chunk **out);
/* 1 when the bytes hold nothing but blanks (nothing to speak). */
int speech_is_blank(const char *s, size_t len);

#endif
