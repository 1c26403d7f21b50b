/*
 * answer - what Gemini's speech answer means, read while it arrives: the
 * JSON is json_push.c's, which tells this file each value, key and run of
 * characters as it passes.  Of every open object or array only what it is
 * on the path to the audio (the "role") is known.  The few values that
 * matter are caught as they pass: short strings into small buffers, the
 * audio's base64 straight into the decoder, which takes its runs from the
 * input itself (json_push's take), so the audio is read in one pass.
 *
 * A part's samples are decoded before its mimeType may have been seen
 * (JSON does not order an object's fields), so they are held as
 * "pending" after the parts already taken, and the part is judged when
 * its object closes, in the order the old reader judged it: type, rate,
 * base64, byte count.  A duplicated key drops what its earlier value
 * gave, as jansson's later-wins did.
 */
#include "answer.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_push.h"
#include "pcm_b64.h"

#define FIELD_MAX 256  /* longer strings are kept cut: audio.c's checks fail on them alike */
#define KEY_MAX 16     /* the longest key looked for is "promptFeedback" */
#define ROLE_DEPTH 8   /* the deepest role, inlineData, is the 7th container */

/* What a value is on the way to the audio; R_NONE for everything else,
 * and for everything inside an R_NONE container. */
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

/* A short string value: set when the value was a string. */
struct field {
	char text[FIELD_MAX + 1];
	size_t len;
	int set;
};

struct speech_answer {
	size_t max, bytes;
	int stop, too_large, no_memory;
	struct json_push *json;

	/* where the reading is */
	unsigned char roles[ROLE_DEPTH]; /* of the open containers; deeper ones are R_NONE */
	size_t depth;
	enum role next_role;            /* of the value after the key just read */
	size_t cand_index;              /* items of the open candidates array */
	enum dest dest;
	struct field *field;            /* D_FIELD's */
	int data_open;
	char key[KEY_MAX];
	size_t key_len;
	int key_over;

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

static int on_begins(void *user, enum json_push_kind kind);
static int on_chars(void *user, const unsigned char *s, size_t n);
static int on_ends(void *user, enum json_push_kind kind);
static size_t on_take(void *user, const unsigned char *s, size_t n);

static const struct json_push_sink sink = { on_begins, on_chars, on_ends, on_take };

struct speech_answer *speech_answer_new(size_t max_bytes)
{
	struct speech_answer *a = calloc(1, sizeof *a);

	if (!a)
		return NULL;
	if (!(a->json = json_push_new(&sink, a))) {
		free(a);
		return NULL;
	}
	a->max = max_bytes;
	a->failed = SPEECH_AUDIO_OK;
	return a;
}

void speech_answer_free(struct speech_answer *a)
{
	if (!a)
		return;
	json_push_free(a->json);
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

/* ---- where the reading is ------------------------------------------------ */

static enum role top_role(const struct speech_answer *a)
{
	return a->depth <= ROLE_DEPTH ? (enum role)a->roles[a->depth - 1] : R_NONE;
}

static void enter(struct speech_answer *a, enum role r)
{
	if (a->depth < ROLE_DEPTH)
		a->roles[a->depth] = (unsigned char)r;
	a->depth++;
}

/* The role of a value that begins inside the open container. */
static enum role child_role(struct speech_answer *a)
{
	switch (top_role(a)) {
	case R_NONE:
		return R_NONE;
	case R_CANDS:
		return a->cand_index++ == 0 ? R_CAND0 : R_NONE;
	case R_PARTS:
		return R_PART;
	default: /* an object with a role: its key said */
		return a->next_role;
	}
}

static void string_begins(struct speech_answer *a, enum role r)
{
	struct field *f = r == R_MIME ? &a->mime : r == R_FINISH ? &a->finish : r == R_BLOCK ? &a->block : NULL;

	a->dest = D_SKIP;
	a->field = f;
	if (f) {
		a->dest = D_FIELD;
		f->len = 0;
		f->set = 1;
	} else if (r == R_DATA && a->failed == SPEECH_AUDIO_OK) {
		/* After a bad part nothing more is taken: no need to decode. */
		a->dest = D_DATA;
		a->data_string = 1;
	}
	a->data_open = a->dest == D_DATA;
}

static int on_begins(void *user, enum json_push_kind kind)
{
	struct speech_answer *a = user;
	enum role r;

	if (kind == JSON_PUSH_KEY) {
		a->dest = D_KEY;
		a->key_len = 0;
		a->key_over = 0;
		return 0;
	}
	if (a->depth == 0) { /* the answer itself: an object, as before */
		if (kind != JSON_PUSH_OBJECT)
			return -1;
		enter(a, R_ROOT);
		return 0;
	}
	r = child_role(a);
	value_begins(a, r);
	a->dest = D_SKIP;
	switch (kind) {
	case JSON_PUSH_OBJECT:
		if (r == R_PART)
			a->part_text = a->part_inline = 0;
		enter(a, r == R_CAND0 || r == R_CONTENT || r == R_PART || r == R_INLINE || r == R_FEEDBACK ? r : R_NONE);
		break;
	case JSON_PUSH_ARRAY:
		if (r == R_CANDS)
			a->cand_index = 0;
		enter(a, r == R_CANDS || r == R_PARTS ? r : R_NONE);
		break;
	case JSON_PUSH_STRING:
		string_begins(a, r);
		break;
	default: /* numbers and words say nothing here */
		break;
	}
	return 0;
}

static int on_chars(void *user, const unsigned char *s, size_t n)
{
	struct speech_answer *a = user;
	size_t i, k;

	switch (a->dest) {
	case D_KEY:
		k = n < KEY_MAX - a->key_len ? n : KEY_MAX - a->key_len;
		memcpy(a->key + a->key_len, s, k);
		a->key_len += k;
		a->key_over |= k < n;
		break;
	case D_FIELD:
		k = n < FIELD_MAX - a->field->len ? n : FIELD_MAX - a->field->len;
		memcpy(a->field->text + a->field->len, s, k);
		a->field->len += k;
		break;
	case D_DATA:
		/* What the decoder did not take: escapes, or not base64. */
		for (i = 0; i < n; i++)
			if (speech_b64_char(&a->b64, s[i], &a->pcm) < 0) {
				a->no_memory = 1;
				return -1;
			}
		if (a->b64.bad)
			a->dest = D_SKIP; /* the rest is only checked as JSON */
		break;
	case D_SKIP:
		break;
	}
	return 0;
}

static size_t on_take(void *user, const unsigned char *s, size_t n)
{
	struct speech_answer *a = user;
	size_t k;

	if (a->dest != D_DATA)
		return 0;
	/* Base64's alphabet and '=' are all plain characters. */
	k = speech_b64_take(&a->b64, s, n, &a->pcm);
	if (k == SIZE_MAX) {
		a->no_memory = 1;
		return SIZE_MAX;
	}
	if (a->b64.bad)
		a->dest = D_SKIP;
	return k;
}

static int on_ends(void *user, enum json_push_kind kind)
{
	struct speech_answer *a = user;
	enum role r;

	switch (kind) {
	case JSON_PUSH_KEY:
		a->next_role = key_role(a, top_role(a));
		break;
	case JSON_PUSH_STRING:
		if (a->dest == D_FIELD)
			a->field->text[a->field->len] = '\0';
		if (a->data_open) {
			a->data_open = 0;
			if (speech_b64_end(&a->b64, &a->pcm, &a->data_verdict) < 0) {
				a->no_memory = 1;
				return -1;
			}
		}
		break;
	case JSON_PUSH_OBJECT:
	case JSON_PUSH_ARRAY:
		r = top_role(a);
		a->depth--;
		if (r == R_PART)
			part_ends(a);
		break;
	default:
		break;
	}
	return 0;
}

/* ---- the reader ---------------------------------------------------------- */

int speech_answer_feed(struct speech_answer *a, const void *data, size_t n)
{
	if (a->stop)
		return -1;
	if (n > a->max - a->bytes) {
		a->too_large = a->stop = 1;
		return -1;
	}
	a->bytes += n;
	if (json_push_feed(a->json, data, n) < 0) {
		a->stop = 1;
		return -1;
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
	if (json_push_end(a->json) < 0) {
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
