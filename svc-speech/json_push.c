/*
 * json_push - the JSON lexer of json_push.h: a state machine that looks
 * at each byte once, as it comes, so that a piece boundary may fall
 * anywhere (inside an escape, a character, a number, a word).
 *
 * Inside a string the common case, a run of plain characters, skips the
 * state machine: the user may take it raw (take), or it is handed over
 * whole (chars).  Nothing of the text is kept but what a check needs: the
 * open containers' kinds, a pending \u escape or surrogate, the bytes a
 * UTF-8 character still needs, and enough of a number to tell whether
 * jansson would have taken it.
 */
#include "json_push.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum lex {
	L_VALUE,      /* a value must come */
	L_FIRST_ITEM, /* after '[': a value or ']' */
	L_FIRST_KEY,  /* after '{': a key or '}' */
	L_KEY,        /* after ',' in an object */
	L_COLON,
	L_NEXT,       /* after a value: ',' or the closer */
	L_STRING,
	L_UTF8,       /* inside a multi-byte character */
	L_ESC,        /* after a backslash */
	L_HEX,        /* inside \uXXXX */
	L_LOW_BS,     /* after a high surrogate: its low half must follow... */
	L_LOW_U,      /* ...as \u */
	L_NUMBER,
	L_WORD,       /* true, false, null */
	L_END,        /* the value is whole: only blanks may follow */
	L_BAD,
};

enum num { N_START, N_SIGN, N_ZERO, N_INT, N_DOT, N_FRAC, N_E, N_ESIGN, N_EXP };

struct number {
	enum num st;
	int real;
	char intbuf[24];    /* sign and digits of an integer, for the 64-bit check */
	size_t int_digits;
	int int_nonzero;    /* the integer part is not "0" */
	size_t frac_zeros;  /* zeros after the point before the first other digit */
	char sig[21];       /* the first significant digits */
	size_t nsig;
	long exp;           /* saturated */
	int exp_neg;
};

struct json_push {
	const struct json_push_sink *sink;
	void *user;
	enum lex lex;
	unsigned char array[JSON_PUSH_MAX_DEPTH]; /* of each open container */
	size_t depth;
	int is_key;                     /* the string being read is a key */
	unsigned hex, hex_left, high;   /* \u escapes; high: a pending high surrogate */
	unsigned utf8_left, utf8_lo, utf8_hi;
	struct number num;
	enum json_push_kind word_kind;
	const char *word;
	size_t word_at;
};

struct json_push *json_push_new(const struct json_push_sink *sink, void *user)
{
	struct json_push *j = calloc(1, sizeof *j);

	if (!j)
		return NULL;
	j->sink = sink;
	j->user = user;
	j->lex = L_VALUE;
	return j;
}

void json_push_free(struct json_push *j)
{
	free(j);
}

/* ---- structure ----------------------------------------------------------- */

static void bad(struct json_push *j)
{
	j->lex = L_BAD;
}

/* Characters for the user; a refusal stops everything. */
static void emit(struct json_push *j, const unsigned char *s, size_t n)
{
	if (j->sink->chars(j->user, s, n) < 0)
		bad(j);
}

/* The value (or key) of kind is complete. */
static void ends(struct json_push *j, enum json_push_kind kind)
{
	if (j->sink->ends(j->user, kind) < 0)
		bad(j);
	else if (kind == JSON_PUSH_KEY)
		j->lex = L_COLON;
	else
		j->lex = j->depth == 0 ? L_END : L_NEXT;
}

static int top_is_array(const struct json_push *j)
{
	return j->array[j->depth - 1];
}

static void push(struct json_push *j, int array)
{
	if (j->depth == JSON_PUSH_MAX_DEPTH) {
		bad(j);
		return;
	}
	j->array[j->depth++] = (unsigned char)array;
	j->lex = array ? L_FIRST_ITEM : L_FIRST_KEY;
}

static void pop(struct json_push *j)
{
	j->depth--;
	ends(j, j->array[j->depth] ? JSON_PUSH_ARRAY : JSON_PUSH_OBJECT);
}

/* The start of a value: c is its first character. */
static void value_starts(struct json_push *j, unsigned char c)
{
	enum json_push_kind kind;

	if (c == '{')
		kind = JSON_PUSH_OBJECT;
	else if (c == '[')
		kind = JSON_PUSH_ARRAY;
	else if (c == '"')
		kind = JSON_PUSH_STRING;
	else if (c == 't' || c == 'f' || c == 'n')
		kind = c == 't' ? JSON_PUSH_TRUE : c == 'f' ? JSON_PUSH_FALSE : JSON_PUSH_NULL;
	else if (c == '-' || (c >= '0' && c <= '9'))
		kind = JSON_PUSH_NUMBER;
	else {
		bad(j);
		return;
	}
	/* Told before the depth is checked: too deep is bad JSON all the same. */
	if (j->sink->begins(j->user, kind) < 0) {
		bad(j);
		return;
	}
	switch (kind) {
	case JSON_PUSH_OBJECT:
	case JSON_PUSH_ARRAY:
		push(j, kind == JSON_PUSH_ARRAY);
		break;
	case JSON_PUSH_STRING:
		j->is_key = 0;
		j->lex = L_STRING;
		break;
	case JSON_PUSH_NUMBER:
		memset(&j->num, 0, sizeof j->num);
		j->num.st = N_START; /* c itself is read by the caller */
		j->lex = L_NUMBER;
		break;
	default:
		j->word_kind = kind;
		j->word = c == 't' ? "true" : c == 'f' ? "false" : "null";
		j->word_at = 1;
		j->lex = L_WORD;
	}
}

static void key_starts(struct json_push *j)
{
	if (j->sink->begins(j->user, JSON_PUSH_KEY) < 0) {
		bad(j);
		return;
	}
	j->is_key = 1;
	j->lex = L_STRING;
}

/* ---- strings ------------------------------------------------------------- */

static void code_point(struct json_push *j, unsigned long cp)
{
	unsigned char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (unsigned char)(0xc0 | cp >> 6);
		u[1] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (unsigned char)(0xe0 | cp >> 12);
		u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (unsigned char)(0xf0 | cp >> 18);
		u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	emit(j, u, n);
}

/* The four hex digits of a \u escape are read. */
static void escape_ends(struct json_push *j)
{
	unsigned v = j->hex;

	j->lex = L_STRING;
	if (j->high) { /* the low half of a pair must follow its high half */
		if (v < 0xdc00 || v > 0xdfff) {
			bad(j);
			return;
		}
		code_point(j, 0x10000 + ((unsigned long)(j->high - 0xd800) << 10) + (v - 0xdc00));
		j->high = 0;
	} else if (v >= 0xd800 && v <= 0xdbff) {
		j->high = v;
		j->lex = L_LOW_BS;
	} else if ((v >= 0xdc00 && v <= 0xdfff) || v == 0) {
		bad(j); /* a lone low half; \u0000, which jansson refuses by default */
	} else {
		code_point(j, v);
	}
}

static void escape(struct json_push *j, unsigned char c)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *at = c ? strchr(from, c) : NULL;

	if (c == 'u') {
		j->hex = 0;
		j->hex_left = 4;
		j->lex = L_HEX;
	} else if (at) {
		j->lex = L_STRING;
		emit(j, (const unsigned char *)to + (at - from), 1);
	} else {
		bad(j);
	}
}

static int hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A byte of 0x80 or more starting a character: the bytes that may follow
 * (no overlong forms, no surrogates, nothing past U+10FFFF). */
static void utf8_lead(struct json_push *j, unsigned char c)
{
	j->utf8_lo = 0x80;
	j->utf8_hi = 0xbf;
	if (c >= 0xc2 && c <= 0xdf) {
		j->utf8_left = 1;
	} else if (c >= 0xe0 && c <= 0xef) {
		j->utf8_left = 2;
		if (c == 0xe0)
			j->utf8_lo = 0xa0;
		else if (c == 0xed)
			j->utf8_hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		j->utf8_left = 3;
		if (c == 0xf0)
			j->utf8_lo = 0x90;
		else if (c == 0xf4)
			j->utf8_hi = 0x8f;
	} else {
		bad(j);
		return;
	}
	j->lex = L_UTF8;
	emit(j, &c, 1);
}

static void utf8_next(struct json_push *j, unsigned char c)
{
	if (c < j->utf8_lo || c > j->utf8_hi) {
		bad(j);
		return;
	}
	j->utf8_lo = 0x80;
	j->utf8_hi = 0xbf;
	if (--j->utf8_left == 0)
		j->lex = L_STRING;
	emit(j, &c, 1);
}

/* ---- numbers ------------------------------------------------------------- */

/* Too large for jansson (a 64-bit integer, a finite double) means not JSON here either. */
static int number_fits(const struct number *n)
{
	char text[64];
	long e10;
	double d;

	if (!n->real) {
		if (n->int_digits > 19) /* 2^63 has 19 digits */
			return 0;
		errno = 0;
		(void)strtoll(n->intbuf, NULL, 10);
		return errno != ERANGE;
	}
	if (n->nsig == 0)
		return 1; /* zero */
	/* The decimal exponent of the first significant digit decides. */
	e10 = (n->int_nonzero ? (long)n->int_digits - 1 : -(long)n->frac_zeros - 1) + (n->exp_neg ? -n->exp : n->exp);
	if (e10 < 300)
		return 1;
	if (e10 > 400)
		return 0;
	if (snprintf(text, sizeof text, "%c.%se%ld", n->sig[0], n->sig + 1, e10) >= (int)sizeof text)
		return 0; /* cannot happen: 20 digits and a 3-digit exponent */
	errno = 0;
	d = strtod(text, NULL);
	return !(errno == ERANGE && (d == HUGE_VAL || d == -HUGE_VAL));
}

static void significant(struct number *n, unsigned char c)
{
	if (n->nsig < sizeof n->sig - 1)
		n->sig[n->nsig++] = (char)c;
	n->sig[n->nsig] = '\0';
}

/* A digit of the integer part. */
static void int_digit(struct number *n, unsigned char c)
{
	size_t at = strlen(n->intbuf);

	if (n->int_digits > 0 || c != '0') {
		n->int_nonzero = 1;
		significant(n, c);
	}
	if (at + 1 < sizeof n->intbuf) {
		n->intbuf[at] = (char)c;
		n->intbuf[at + 1] = '\0';
	}
	n->int_digits++;
}

/* 1 when c belongs to the number, 0 when the number ended before it, -1
 * when the number is broken. */
static int number_char(struct number *n, unsigned char c)
{
	int digit = c >= '0' && c <= '9';

	switch (n->st) {
	case N_START:
		if (c == '-') {
			n->intbuf[0] = '-';
			n->st = N_SIGN;
			return 1;
		}
		/* fallthrough */
	case N_SIGN:
		if (!digit)
			return -1;
		int_digit(n, c);
		n->st = c == '0' ? N_ZERO : N_INT;
		return 1;
	case N_INT:
		if (digit) {
			int_digit(n, c);
			return 1;
		}
		/* fallthrough */
	case N_ZERO:
		if (digit)
			return -1; /* a leading zero */
		if (c == '.' || c == 'e' || c == 'E') {
			n->st = c == '.' ? N_DOT : N_E;
			n->real = 1;
			return 1;
		}
		return 0;
	case N_DOT:
	case N_FRAC:
		if (digit) {
			n->st = N_FRAC;
			if (!n->int_nonzero && n->nsig == 0 && c == '0')
				n->frac_zeros++;
			else
				significant(n, c);
			return 1;
		}
		if (n->st == N_DOT)
			return -1;
		if (c == 'e' || c == 'E') {
			n->st = N_E;
			return 1;
		}
		return 0;
	case N_E:
		if (c == '+' || c == '-') {
			n->exp_neg = c == '-';
			n->st = N_ESIGN;
			return 1;
		}
		/* fallthrough */
	case N_ESIGN:
	case N_EXP:
		if (digit) {
			n->st = N_EXP;
			if (n->exp < 1000000000L)
				n->exp = n->exp * 10 + (c - '0');
			return 1;
		}
		return n->st == N_EXP ? 0 : -1;
	}
	return -1;
}

/* The number is whole: 1 when jansson would take it too. */
static int number_ends(struct json_push *j)
{
	if (!number_fits(&j->num)) {
		bad(j);
		return 0;
	}
	ends(j, JSON_PUSH_NUMBER);
	return j->lex != L_BAD;
}

/* ---- the lexer ----------------------------------------------------------- */

static int blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Printable ASCII that stands for itself in a JSON string. */
static int plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

static void step(struct json_push *j, unsigned char c);

static void number_step(struct json_push *j, unsigned char c)
{
	int r = number_char(&j->num, c);

	if (r < 0)
		bad(j);
	else if (r > 0)
		emit(j, &c, 1);
	else if (number_ends(j)) /* c follows the number: read it again */
		step(j, c);
}

/* One byte of the strings' slow path: not plain, or after an escape. */
static void string_step(struct json_push *j, unsigned char c)
{
	if (c == '"')
		ends(j, j->is_key ? JSON_PUSH_KEY : JSON_PUSH_STRING);
	else if (c == '\\')
		j->lex = L_ESC;
	else if (c < 0x20)
		bad(j); /* a control character must be escaped */
	else if (c < 0x80)
		emit(j, &c, 1);
	else
		utf8_lead(j, c);
}

/* One byte outside the fast path. */
static void step(struct json_push *j, unsigned char c)
{
	switch (j->lex) {
	case L_VALUE:
	case L_FIRST_ITEM:
		if (c == ']' && j->lex == L_FIRST_ITEM)
			pop(j);
		else if (!blank(c))
			value_starts(j, c);
		if (j->lex == L_NUMBER)
			number_step(j, c);
		return;
	case L_FIRST_KEY:
	case L_KEY:
		if (c == '"')
			key_starts(j);
		else if (c == '}' && j->lex == L_FIRST_KEY)
			pop(j);
		else if (!blank(c))
			bad(j);
		return;
	case L_COLON:
		if (c == ':')
			j->lex = L_VALUE;
		else if (!blank(c))
			bad(j);
		return;
	case L_NEXT:
		if (c == ',')
			j->lex = top_is_array(j) ? L_VALUE : L_KEY;
		else if ((c == '}' && !top_is_array(j)) || (c == ']' && top_is_array(j)))
			pop(j);
		else if (!blank(c))
			bad(j);
		return;
	case L_END:
		if (!blank(c))
			bad(j);
		return;
	case L_STRING:
		string_step(j, c);
		return;
	case L_UTF8:
		utf8_next(j, c);
		return;
	case L_ESC:
		escape(j, c);
		return;
	case L_HEX:
		if (hex_value(c) < 0) {
			bad(j);
			return;
		}
		j->hex = j->hex << 4 | (unsigned)hex_value(c);
		if (--j->hex_left == 0)
			escape_ends(j);
		return;
	case L_LOW_BS:
		if (c == '\\')
			j->lex = L_LOW_U;
		else
			bad(j);
		return;
	case L_LOW_U:
		if (c == 'u') {
			j->hex = 0;
			j->hex_left = 4;
			j->lex = L_HEX;
		} else {
			bad(j);
		}
		return;
	case L_WORD:
		if (c != (unsigned char)j->word[j->word_at])
			bad(j);
		else if (!j->word[++j->word_at])
			ends(j, j->word_kind);
		return;
	case L_NUMBER:
		number_step(j, c);
		return;
	case L_BAD:
		return;
	}
}

int json_push_feed(struct json_push *j, const unsigned char *p, size_t n)
{
	const unsigned char *end = p + n, *run;
	size_t k;

	if (j->lex == L_BAD)
		return -1;
	while (p < end) {
		if (j->lex == L_STRING) {
			if (j->sink->take) {
				k = j->sink->take(j->user, p, (size_t)(end - p));
				if (k == SIZE_MAX) {
					bad(j);
					return -1;
				}
				p += k;
			}
			for (run = p; p < end && plain(*p); p++)
				;
			if (p > run && j->sink->chars(j->user, run, (size_t)(p - run)) < 0) {
				bad(j);
				return -1;
			}
			if (p == end)
				break;
		}
		step(j, *p++);
		if (j->lex == L_BAD)
			return -1;
	}
	return 0;
}

int json_push_end(struct json_push *j)
{
	/* A number alone: a blank after it tells whether it is whole. */
	if (j->lex == L_NUMBER && j->depth == 0) {
		if (number_char(&j->num, ' ') != 0)
			bad(j);
		else
			(void)number_ends(j); /* its verdict is in j->lex */
	}
	return j->lex == L_END ? 0 : -1;
}
