/*
 * answer - a push parser for JSON with a short memory: a byte-at-a-time
 * state machine (structure, strings, escapes, UTF-8, numbers, words)
 * that knows, for every open object or array, only what it is on the
 * path to the audio (the "role").  The few values that matter are caught
 * as they pass: short strings into small buffers, the audio's base64
 * straight into the decoder.  Inside a string the common case (plain
 * characters) skips the state machine: a run of base64 goes to the
 * decoder whole, a run of other text is stepped over.
 *
 * A part's samples are decoded before its mimeType may have been seen
 * (JSON does not order an object's fields), so they are held as
 * "pending" after the parts already taken, and the part is judged when
 * its object closes, in the order the old reader judged it: type, rate,
 * base64, byte count.  A duplicated key drops what its earlier value
 * gave, as jansson's later-wins did.
 */
#include "answer.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcm_b64.h"

#define MAX_DEPTH 2048 /* jansson's JSON_PARSER_MAX_DEPTH */
#define FIELD_MAX 256  /* longer strings are kept cut: audio.c's checks fail on them alike */
#define KEY_MAX 16     /* the longest key looked for is "promptFeedback" */
#define ARRAY 0x80     /* on the stack: the container is an array */

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
	L_END,        /* the answer's object closed: only blanks may follow */
	L_BAD,
};

/* What a value is on the way to the audio; R_NONE for everything else. */
enum role {
	R_NONE,
	R_ROOT,
	R_CANDS,    /* candidates */
	R_CAND0,    /* candidates[0] */
	R_CONTENT,  /* candidates[0].content */
	R_FINISH,   /* candidates[0].finishReason */
	R_PARTS,    /* candidates[0].content.parts */
	R_PART,     /* one of them */
	R_INLINE,   /* its inlineData */
	R_TEXT,     /* its text */
	R_MIME,     /* inlineData.mimeType */
	R_DATA,     /* inlineData.data */
	R_FEEDBACK, /* promptFeedback */
	R_BLOCK,    /* promptFeedback.blockReason */
};

/* Where the characters of the string being read go. */
enum dest { D_SKIP, D_KEY, D_FIELD, D_DATA };

enum num { N_START, N_SIGN, N_ZERO, N_INT, N_DOT, N_FRAC, N_E, N_ESIGN, N_EXP };

/* A short string value: set when the value was a string. */
struct field {
	char text[FIELD_MAX + 1];
	size_t len;
	int set;
};

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

struct speech_answer {
	size_t max, bytes;
	int stop, too_large, no_memory;

	/* the lexer */
	enum lex lex;
	unsigned char stack[MAX_DEPTH]; /* role | ARRAY */
	size_t depth;
	enum role next_role;            /* of the value after the key just read */
	size_t cand_index;              /* items of the open candidates array */
	enum dest dest;
	struct field *field;            /* D_FIELD's */
	int is_key, data_open;
	char key[KEY_MAX];
	size_t key_len;
	int key_over;
	unsigned hex, hex_left, high;   /* \u escapes; high: a pending high surrogate */
	unsigned utf8_left, utf8_lo, utf8_hi;
	struct number num;
	const char *word;
	size_t word_at;

	/* what the answer said */
	struct field finish, block, mime;
	int text_seen;
	struct speech_pcm pcm;          /* the parts taken, then the pending part's */
	size_t taken;                   /* samples of the parts taken */
	long rate;                      /* their rate */
	unsigned generation;            /* changes when pcm.n goes back */
	enum speech_audio_result failed;
	char why[512];

	/* the open part */
	int part_text, part_inline, data_string;
	struct speech_b64 b64;
	enum speech_b64_end data_verdict;
};

struct speech_answer *speech_answer_new(size_t max_bytes)
{
	struct speech_answer *a = calloc(1, sizeof *a);

	if (!a)
		return NULL;
	a->max = max_bytes;
	a->lex = L_VALUE;
	a->failed = SPEECH_AUDIO_OK;
	return a;
}

void speech_answer_free(struct speech_answer *a)
{
	if (!a)
		return;
	free(a->pcm.s);
	free(a);
}

/* ---- what the values mean ------------------------------------------------ */

static int key_is(const struct speech_answer *a, const char *k)
{
	return !a->key_over && a->key_len == strlen(k) && memcmp(a->key, k, a->key_len) == 0;
}

/* The role of the value of the key just read, inside a container of role in. */
static enum role key_role(const struct speech_answer *a, enum role in)
{
	switch (in) {
	case R_ROOT:
		return key_is(a, "candidates") ? R_CANDS : key_is(a, "promptFeedback") ? R_FEEDBACK : R_NONE;
	case R_CAND0:
		return key_is(a, "content") ? R_CONTENT : key_is(a, "finishReason") ? R_FINISH : R_NONE;
	case R_CONTENT:
		return key_is(a, "parts") ? R_PARTS : R_NONE;
	case R_PART:
		return key_is(a, "inlineData") ? R_INLINE : key_is(a, "text") ? R_TEXT : R_NONE;
	case R_INLINE:
		return key_is(a, "mimeType") ? R_MIME : key_is(a, "data") ? R_DATA : R_NONE;
	case R_FEEDBACK:
		return key_is(a, "blockReason") ? R_BLOCK : R_NONE;
	default:
		return R_NONE;
	}
}

/* Samples go back to n: whoever read the ones after it must hear of it. */
static void drop_samples(struct speech_answer *a, size_t n)
{
	if (a->pcm.n > n)
		a->generation++;
	a->pcm.n = n;
}

static void forget_parts(struct speech_answer *a)
{
	drop_samples(a, 0);
	a->taken = 0;
	a->rate = 0;
	a->text_seen = 0;
	a->failed = SPEECH_AUDIO_OK;
	a->part_text = a->part_inline = 0;
}

/* The pending part's samples go; the parts taken stay. */
static void forget_data(struct speech_answer *a)
{
	drop_samples(a, a->taken);
	a->data_string = 0;
	speech_b64_start(&a->b64);
}

/* A value of role r begins: a repeated key's new value replaces the old. */
static void value_begins(struct speech_answer *a, enum role r)
{
	switch (r) {
	case R_CANDS:
	case R_CAND0:
		forget_parts(a);
		a->finish.set = 0;
		break;
	case R_CONTENT:
	case R_PARTS:
		forget_parts(a);
		break;
	case R_FINISH:
		a->finish.set = 0;
		break;
	case R_FEEDBACK:
	case R_BLOCK:
		a->block.set = 0;
		break;
	case R_INLINE:
		a->part_inline = 1;
		a->mime.set = 0;
		forget_data(a);
		break;
	case R_TEXT:
		a->part_text = 1;
		break;
	case R_MIME:
		a->mime.set = 0;
		break;
	case R_DATA:
		forget_data(a);
		break;
	default:
		break;
	}
}

/* A part's object closed: take its audio or judge it, as the old reader
 * judged the parts in order and stopped at the first bad one. */
static void part_ends(struct speech_answer *a)
{
	enum speech_audio_result r;
	long rate = 0;

	a->text_seen |= a->part_text;
	if (a->failed == SPEECH_AUDIO_OK && a->part_inline) {
		r = speech_audio_part_type(a->mime.set ? a->mime.text : NULL, a->taken, a->rate, &rate, a->why,
					   sizeof a->why);
		if (r == SPEECH_AUDIO_OK && (!a->data_string || a->data_verdict != SPEECH_B64_OK)) {
			r = SPEECH_AUDIO_RETRY;
			snprintf(a->why, sizeof a->why, "%s",
				 a->data_string && a->data_verdict == SPEECH_B64_ODD ? SPEECH_AUDIO_ODD_BYTES
										     : SPEECH_AUDIO_NOT_BASE64);
		}
		if (r == SPEECH_AUDIO_OK) {
			a->taken = a->pcm.n;
			a->rate = rate;
		}
		a->failed = r;
	}
	drop_samples(a, a->taken);
	a->part_text = a->part_inline = 0;
	a->data_string = 0;
}

/* ---- the lexer ----------------------------------------------------------- */

static void bad(struct speech_answer *a)
{
	a->lex = L_BAD;
}

static void value_done(struct speech_answer *a)
{
	a->lex = a->depth == 0 ? L_END : L_NEXT;
}

static enum role top_role(const struct speech_answer *a)
{
	return (enum role)(a->stack[a->depth - 1] & ~ARRAY);
}

static int top_is_array(const struct speech_answer *a)
{
	return (a->stack[a->depth - 1] & ARRAY) != 0;
}

static void push(struct speech_answer *a, enum role r, int array)
{
	if (a->depth == MAX_DEPTH) {
		bad(a);
		return;
	}
	a->stack[a->depth++] = (unsigned char)(r | (array ? ARRAY : 0));
	a->lex = array ? L_FIRST_ITEM : L_FIRST_KEY;
}

static void pop(struct speech_answer *a)
{
	enum role r = top_role(a);

	a->depth--;
	if (r == R_PART)
		part_ends(a);
	value_done(a);
}

static void string_begins(struct speech_answer *a, enum dest d, struct field *f)
{
	a->dest = d;
	a->field = f;
	a->is_key = d == D_KEY;
	a->key_len = 0;
	a->key_over = 0;
	if (f) {
		f->len = 0;
		f->set = 1;
	}
	a->lex = L_STRING;
}

/* The start of a value: c is its first character. */
static void value_starts(struct speech_answer *a, unsigned char c)
{
	enum role r = R_NONE;

	if (a->depth == 0) { /* the answer itself: an object, as before */
		if (c == '{')
			push(a, R_ROOT, 0);
		else
			bad(a);
		return;
	}
	if (top_is_array(a)) {
		if (top_role(a) == R_CANDS)
			r = a->cand_index++ == 0 ? R_CAND0 : R_NONE;
		else if (top_role(a) == R_PARTS)
			r = R_PART;
	} else {
		r = a->next_role;
	}
	value_begins(a, r);
	switch (c) {
	case '{':
		if (r == R_PART)
			a->part_text = a->part_inline = 0;
		push(a, r == R_CAND0 || r == R_CONTENT || r == R_PART || r == R_INLINE || r == R_FEEDBACK ? r : R_NONE, 0);
		break;
	case '[':
		if (r == R_CANDS)
			a->cand_index = 0;
		push(a, r == R_CANDS || r == R_PARTS ? r : R_NONE, 1);
		break;
	case '"':
		if (r == R_MIME || r == R_FINISH || r == R_BLOCK) {
			string_begins(a, D_FIELD, r == R_MIME ? &a->mime : r == R_FINISH ? &a->finish : &a->block);
		} else if (r == R_DATA && a->failed == SPEECH_AUDIO_OK) {
			/* After a bad part nothing more is taken: no need to decode. */
			string_begins(a, D_DATA, NULL);
			a->data_string = 1;
		} else {
			string_begins(a, D_SKIP, NULL);
		}
		a->data_open = a->dest == D_DATA;
		break;
	case 't':
	case 'f':
	case 'n':
		a->word = c == 't' ? "true" : c == 'f' ? "false" : "null";
		a->word_at = 1;
		a->lex = L_WORD;
		break;
	default:
		if (c == '-' || (c >= '0' && c <= '9')) {
			memset(&a->num, 0, sizeof a->num);
			a->num.st = N_START; /* c itself is read by the caller */
			a->lex = L_NUMBER;
		} else {
			bad(a);
		}
	}
}

/* One character of the string's value (after escapes). */
static void out(struct speech_answer *a, unsigned char c)
{
	switch (a->dest) {
	case D_KEY:
		if (a->key_len < KEY_MAX)
			a->key[a->key_len++] = (char)c;
		else
			a->key_over = 1;
		break;
	case D_FIELD:
		if (a->field->len < FIELD_MAX)
			a->field->text[a->field->len++] = (char)c;
		break;
	case D_DATA:
		if (speech_b64_char(&a->b64, c, &a->pcm) < 0) {
			a->no_memory = 1;
			bad(a);
		}
		break;
	case D_SKIP:
		break;
	}
}

static void out_code_point(struct speech_answer *a, unsigned long cp)
{
	if (cp < 0x80) {
		out(a, (unsigned char)cp);
	} else if (cp < 0x800) {
		out(a, (unsigned char)(0xc0 | cp >> 6));
		out(a, (unsigned char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		out(a, (unsigned char)(0xe0 | cp >> 12));
		out(a, (unsigned char)(0x80 | ((cp >> 6) & 0x3f)));
		out(a, (unsigned char)(0x80 | (cp & 0x3f)));
	} else {
		out(a, (unsigned char)(0xf0 | cp >> 18));
		out(a, (unsigned char)(0x80 | ((cp >> 12) & 0x3f)));
		out(a, (unsigned char)(0x80 | ((cp >> 6) & 0x3f)));
		out(a, (unsigned char)(0x80 | (cp & 0x3f)));
	}
}

static void string_ends(struct speech_answer *a)
{
	if (a->dest == D_FIELD)
		a->field->text[a->field->len] = '\0';
	if (a->data_open) {
		a->data_open = 0;
		if (speech_b64_end(&a->b64, &a->pcm, &a->data_verdict) < 0) {
			a->no_memory = 1;
			bad(a);
			return;
		}
	}
	if (a->is_key) {
		a->next_role = key_role(a, top_role(a));
		a->lex = L_COLON;
	} else {
		value_done(a);
	}
}

/* The four hex digits of a \u escape are read. */
static void escape_ends(struct speech_answer *a)
{
	unsigned v = a->hex;

	a->lex = L_STRING;
	if (a->high) { /* the low half of a pair must follow its high half */
		if (v < 0xdc00 || v > 0xdfff) {
			bad(a);
			return;
		}
		out_code_point(a, 0x10000 + ((unsigned long)(a->high - 0xd800) << 10) + (v - 0xdc00));
		a->high = 0;
	} else if (v >= 0xd800 && v <= 0xdbff) {
		a->high = v;
		a->lex = L_LOW_BS;
	} else if ((v >= 0xdc00 && v <= 0xdfff) || v == 0) {
		bad(a); /* a lone low half; \u0000, which jansson refuses by default */
	} else {
		out_code_point(a, v);
	}
}

static void escape(struct speech_answer *a, unsigned char c)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *at = c ? strchr(from, c) : NULL;

	if (c == 'u') {
		a->hex = 0;
		a->hex_left = 4;
		a->lex = L_HEX;
	} else if (at) {
		out(a, (unsigned char)to[at - from]);
		if (a->lex != L_BAD)
			a->lex = L_STRING;
	} else {
		bad(a);
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
static void utf8_lead(struct speech_answer *a, unsigned char c)
{
	a->utf8_lo = 0x80;
	a->utf8_hi = 0xbf;
	if (c >= 0xc2 && c <= 0xdf) {
		a->utf8_left = 1;
	} else if (c >= 0xe0 && c <= 0xef) {
		a->utf8_left = 2;
		if (c == 0xe0)
			a->utf8_lo = 0xa0;
		else if (c == 0xed)
			a->utf8_hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		a->utf8_left = 3;
		if (c == 0xf0)
			a->utf8_lo = 0x90;
		else if (c == 0xf4)
			a->utf8_hi = 0x8f;
	} else {
		bad(a);
		return;
	}
	out(a, c);
	if (a->lex != L_BAD)
		a->lex = L_UTF8;
}

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
	snprintf(text, sizeof text, "%c.%se%ld", n->sig[0], n->sig + 1, e10);
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
static int number_char(struct speech_answer *a, unsigned char c)
{
	struct number *n = &a->num;
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

static int blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* One byte outside the fast paths. */
static void step(struct speech_answer *a, unsigned char c)
{
	int r;

	switch (a->lex) {
	case L_VALUE:
		if (!blank(c))
			value_starts(a, c);
		if (a->lex == L_NUMBER)
			goto number;
		return;
	case L_FIRST_ITEM:
		if (c == ']')
			pop(a);
		else if (!blank(c))
			value_starts(a, c);
		if (a->lex == L_NUMBER)
			goto number;
		return;
	case L_FIRST_KEY:
	case L_KEY:
		if (c == '"')
			string_begins(a, D_KEY, NULL);
		else if (c == '}' && a->lex == L_FIRST_KEY)
			pop(a);
		else if (!blank(c))
			bad(a);
		return;
	case L_COLON:
		if (c == ':')
			a->lex = L_VALUE;
		else if (!blank(c))
			bad(a);
		return;
	case L_NEXT:
		if (c == ',')
			a->lex = top_is_array(a) ? L_VALUE : L_KEY;
		else if ((c == '}' && !top_is_array(a)) || (c == ']' && top_is_array(a)))
			pop(a);
		else if (!blank(c))
			bad(a);
		return;
	case L_END:
		if (!blank(c))
			bad(a);
		return;
	case L_STRING:
		if (c == '"')
			string_ends(a);
		else if (c == '\\')
			a->lex = L_ESC;
		else if (c < 0x20)
			bad(a); /* a control character must be escaped */
		else if (c < 0x80)
			out(a, c);
		else
			utf8_lead(a, c);
		return;
	case L_UTF8:
		if (c < a->utf8_lo || c > a->utf8_hi) {
			bad(a);
			return;
		}
		out(a, c);
		a->utf8_lo = 0x80;
		a->utf8_hi = 0xbf;
		if (a->lex != L_BAD && --a->utf8_left == 0)
			a->lex = L_STRING;
		return;
	case L_ESC:
		escape(a, c);
		return;
	case L_HEX:
		if (hex_value(c) < 0) {
			bad(a);
			return;
		}
		a->hex = a->hex << 4 | (unsigned)hex_value(c);
		if (--a->hex_left == 0)
			escape_ends(a);
		return;
	case L_LOW_BS:
		if (c == '\\')
			a->lex = L_LOW_U;
		else
			bad(a);
		return;
	case L_LOW_U:
		if (c == 'u') {
			a->hex = 0;
			a->hex_left = 4;
			a->lex = L_HEX;
		} else {
			bad(a);
		}
		return;
	case L_WORD:
		if (c != (unsigned char)a->word[a->word_at])
			bad(a);
		else if (!a->word[++a->word_at])
			value_done(a);
		return;
	case L_NUMBER:
		goto number;
	case L_BAD:
		return;
	}
	return;
number:
	r = number_char(a, c);
	if (r < 0) {
		bad(a);
	} else if (r == 0) { /* c follows the number: read it again */
		if (!number_fits(&a->num)) {
			bad(a);
			return;
		}
		value_done(a);
		step(a, c);
	}
}

/* ---- the reader ---------------------------------------------------------- */

/* Printable ASCII that stands for itself in a JSON string. */
static int plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

int speech_answer_feed(struct speech_answer *a, const void *data, size_t n)
{
	const unsigned char *p = data, *end = p + n;

	if (a->stop)
		return -1;
	if (n > a->max - a->bytes) {
		a->too_large = a->stop = 1;
		return -1;
	}
	a->bytes += n;
	while (p < end) {
		if (a->lex == L_STRING && a->dest == D_DATA) {
			size_t k = speech_b64_take(&a->b64, p, (size_t)(end - p), &a->pcm);

			if (k == SIZE_MAX) {
				a->no_memory = a->stop = 1;
				return -1;
			}
			p += k;
			if (a->b64.bad)
				a->dest = D_SKIP; /* the rest is only checked as JSON */
		}
		if (a->lex == L_STRING && a->dest == D_SKIP)
			while (p < end && plain(*p))
				p++;
		if (p == end)
			break;
		step(a, *p++);
		if (a->lex == L_BAD) {
			a->stop = 1;
			return -1;
		}
	}
	return 0;
}

const int16_t *speech_answer_samples(const struct speech_answer *a, size_t *n, unsigned *generation)
{
	*n = a->pcm.n;
	*generation = a->generation;
	return a->pcm.s;
}

enum speech_audio_result speech_answer_end(struct speech_answer *a, struct speech_audio *out, char *err,
					   size_t errlen)
{
	memset(out, 0, sizeof *out);
	if (a->no_memory) {
		snprintf(err, errlen, "%s", SPEECH_AUDIO_NO_MEMORY);
		return SPEECH_AUDIO_FAIL;
	}
	if (a->too_large) {
		if (a->max >= (1u << 20))
			snprintf(err, errlen, "Gemini's answer is larger than %zu MiB", a->max >> 20);
		else
			snprintf(err, errlen, "Gemini's answer is larger than %zu bytes", a->max);
		return SPEECH_AUDIO_FAIL;
	}
	if (a->lex != L_END) {
		snprintf(err, errlen, "Gemini's answer is not a JSON object");
		return SPEECH_AUDIO_RETRY;
	}
	if (a->failed != SPEECH_AUDIO_OK) {
		snprintf(err, errlen, "%s", a->why);
		return a->failed;
	}
	if (a->taken == 0)
		return speech_audio_none(a->block.set ? a->block.text : NULL, a->finish.set ? a->finish.text : NULL,
					 a->text_seen, err, errlen);
	out->samples = a->pcm.s;
	out->n = a->taken;
	out->source_rate = a->rate;
	a->pcm.s = NULL;
	a->pcm.n = a->pcm.cap = a->taken = 0;
	if (speech_audio_to_rate(out, err, errlen) < 0)
		return SPEECH_AUDIO_FAIL;
	return SPEECH_AUDIO_OK;
}
