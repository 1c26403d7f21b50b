/*
 * hidden_chars - characters that change how text reads without showing:
 * the bidirectional controls (U+202E RIGHT-TO-LEFT OVERRIDE makes
 * "txt.exe" show as "exe.txt"), zero-width and other invisible format
 * characters, line and paragraph separators, and the tag characters that
 * can carry whole hidden sentences to a model.  A name a person reads and
 * an agent may set (a session's title) must show what it is.
 *
 * Left alone, for the scripts and emoji that need them: ZERO WIDTH
 * NON-JOINER and JOINER (U+200C, U+200D) and the variation selectors.
 */
#ifndef HB_HIDDEN_CHARS_H
#define HB_HIDDEN_CHARS_H

#include <stddef.h>

struct hb_hidden_char {
	unsigned long cp;        /* the code point */
	size_t at;               /* its place in characters, from 1 */
	const char *name;        /* e.g. "RIGHT-TO-LEFT OVERRIDE" */
};

/* The first hidden character of s (len bytes of valid UTF-8) into *out: 1,
 * or 0 when there is none. */
int hb_hidden_char_find(const char *s, size_t len, struct hb_hidden_char *out);

#endif
