/*
 * gemini_answer - read a Gemini answer without putting megabytes of base64
 * through the JSON parser: every string value of at least BLOB_MIN bytes
 * made only of base64 characters is cut out first (a memchr-speed scan),
 * replaced by a short placeholder, and read back from the original text
 * with hb_gemini_string.  Part of the client declared in gemini.h.
 */
#include "gemini.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOB_MIN 4096
/* Never in Gemini's text: a control character (escaped in JSON). */
#define MARK "\001blob:"

static int base64_char(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/' ||
	       c == '=';
}

static int all_base64(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!base64_char((unsigned char)s[i]))
			return 0;
	return 1;
}

/* The index of the quote that closes the string whose content starts at
 * `start`, or len when there is none. */
static size_t string_end(const char *t, size_t len, size_t start)
{
	for (size_t i = start; i < len;) {
		const char *q = memchr(t + i, '"', len - i);
		size_t k, slashes = 0;

		if (!q)
			return len;
		k = (size_t)(q - t);
		while (k - slashes > start && t[k - slashes - 1] == '\\')
			slashes++;
		if (slashes % 2 == 0)
			return k;
		i = k + 1;
	}
	return len;
}

/* Copy t to out with the long base64 strings replaced; returns out's length. */
static size_t cut_blobs(struct hb_gemini_reply *r, const char *t, size_t len, char *out)
{
	size_t i = 0, o = 0;

	while (i < len) {
		const char *q = memchr(t + i, '"', len - i);
		size_t start, end;

		if (!q)
			break;
		start = (size_t)(q - t) + 1;
		end = string_end(t, len, start);
		memcpy(out + o, t + i, start - i);
		o += start - i;
		if (end - start >= BLOB_MIN && end < len && r->nblobs < HB_GEMINI_MAX_BLOBS &&
		    all_base64(t + start, end - start)) {
			r->blobs[r->nblobs].off = start;
			r->blobs[r->nblobs].len = end - start;
			o += (size_t)sprintf(out + o, "\\u0001blob:%d", r->nblobs++);
		} else {
			memcpy(out + o, t + start, end - start);
			o += end - start;
		}
		i = end;
		if (i < len)
			out[o++] = t[i++]; /* the closing quote */
	}
	memcpy(out + o, t + i, len - i);
	return o + (len - i);
}

int hb_gemini_parse_answer(struct hb_gemini_reply *r, char *text, size_t len)
{
	char *small = malloc(len + 1);
	size_t n;

	r->text = text;
	r->nblobs = 0;
	if (!small)
		return -1;
	n = cut_blobs(r, text, len, small);
	r->body = json_loadb(small, n, 0, NULL);
	free(small);
	if (!json_is_object(r->body)) {
		json_decref(r->body);
		r->body = NULL;
		return -1;
	}
	return 0;
}

const char *hb_gemini_string(const struct hb_gemini_reply *r, const json_t *v, size_t *len)
{
	const char *s = json_string_value(v);
	int i;

	if (!s)
		return NULL;
	if (strncmp(s, MARK, strlen(MARK)) == 0 && sscanf(s + strlen(MARK), "%d", &i) == 1 && i >= 0 &&
	    i < r->nblobs) {
		*len = r->blobs[i].len;
		return r->text + r->blobs[i].off;
	}
	*len = json_string_length(v);
	return s;
}

void hb_gemini_reply_free(struct hb_gemini_reply *r)
{
	json_decref(r->body);
	r->body = NULL;
	free(r->text);
	r->text = NULL;
	r->nblobs = 0;
}
