/*
 * utf8 - strict UTF-8 checks and repair of text that goes to a model.
 *
 * An answer's text travels as a JSON string to Codex and Claude, so it
 * must be UTF-8; handlers build it with printf, whose %.Ns cuts by bytes
 * and may cut a character in two, and may quote what a caller sent.
 */
#ifndef HB_UTF8_H
#define HB_UTF8_H

#include <stddef.h>

/* Whether s (len bytes) is strict UTF-8: no overlong forms, surrogates
 * or code points past U+10FFFF. */
int hb_utf8_valid(const char *s, size_t len);
/* The characters (code points) of the NUL-terminated s, or -1 when it is
 * not strict UTF-8: what a limit "in characters" counts. */
long hb_utf8_chars(const char *s);
/* For text already known to be UTF-8 (it came from JSON): the
 * characters of s[0..len), the byte offset just past the first n of them
 * (len when there are fewer), and the bytes of its longest prefix of whole
 * characters with at most max_chars characters and max_bytes bytes. */
size_t hb_utf8_count(const char *s, size_t len);
size_t hb_utf8_advance(const char *s, size_t len, size_t n);
size_t hb_utf8_fit(const char *s, size_t len, size_t max_chars, size_t max_bytes);
/* A malloc'd copy of the NUL-terminated s with every byte that does not
 * start a valid sequence replaced by U+FFFD; NULL when out of memory. */
char *hb_utf8_repair(const char *s);

#endif
