/*
 * json_push - a validating JSON lexer fed in pieces of any size, which
 * tells its user what it reads as it reads it (a push parser).
 *
 * Speech answers are megabytes of JSON that arrive from the network and
 * are read on the way (answer.c); the JSON itself is never kept.  This
 * file knows only JSON, the user only what the values mean.  What is
 * accepted is what jansson accepts (json_loadb, flags 0): nesting up to
 * JSON_PUSH_MAX_DEPTH, no \u0000, valid UTF-8 and surrogate pairs,
 * integers that fit 64 bits, reals that fit a double, nothing but blanks
 * after the value.  Unlike jansson, any value may be the outer one: a
 * user that wants an object refuses the others when they begin.
 */
#ifndef SPEECH_JSON_PUSH_H
#define SPEECH_JSON_PUSH_H

#include <stddef.h>

#define JSON_PUSH_MAX_DEPTH 2048 /* jansson's JSON_PARSER_MAX_DEPTH */

enum json_push_kind {
	JSON_PUSH_OBJECT,
	JSON_PUSH_ARRAY,
	JSON_PUSH_KEY, /* an object's key: a string, but not a value */
	JSON_PUSH_STRING,
	JSON_PUSH_NUMBER,
	JSON_PUSH_TRUE,
	JSON_PUSH_FALSE,
	JSON_PUSH_NULL,
};

/* What the user hears.  A function returning -1 (or take SIZE_MAX) stops
 * the lexer for good: json_push_feed then says -1, as for bad JSON, and
 * the user keeps why. */
struct json_push_sink {
	/* A value or key begins; kind's first character is read. */
	int (*begins)(void *user, enum json_push_kind kind);
	/* The next characters of the string or key being read (escapes
	 * undone, so they are UTF-8), or of the number (as written).  A
	 * string's run of plain characters comes whole; other characters may
	 * come one by one, and a multi-byte one may be split. */
	int (*chars)(void *user, const unsigned char *s, size_t n);
	/* The value or key that began last (containers: the innermost open)
	 * is complete.  A number's end is seen at the byte after it, or, for
	 * a number alone, at json_push_end. */
	int (*ends)(void *user, enum json_push_kind kind);
	/* May be NULL.  Where the input inside a string is about to be read,
	 * the user may take the first of s[0..n) itself, with no copy and no
	 * check: the lexer trusts that they are plain characters (printable
	 * ASCII other than '"' and '\\'), as if they had come through chars.
	 * Returns how many it took.  For a user that checks them anyway, as
	 * the base64 decoder does, this reads the audio in one pass. */
	size_t (*take)(void *user, const unsigned char *s, size_t n);
};

struct json_push;

/* A lexer that tells sink, passing it user; NULL when memory runs out. */
struct json_push *json_push_new(const struct json_push_sink *sink, void *user);
/* The next n bytes.  0, or -1 once the input is not JSON (or the sink
 * stopped): from then on every feed says -1. */
int json_push_feed(struct json_push *j, const unsigned char *p, size_t n);
/* After the last byte: 0 when the input held exactly one whole value
 * (a number alone ends here), -1 otherwise. */
int json_push_end(struct json_push *j);
void json_push_free(struct json_push *j);

#endif
