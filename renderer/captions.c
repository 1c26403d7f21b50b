/*
 * captions - cues from the scenes' spoken text and the narration's timing,
 * and the WebVTT and SRT writers (the rule is in captions.h).
 *
 * Lengths are counted in code points, not bytes, so a line of accented or
 * CJK text is judged by what a reader sees.  A text is first cut into
 * words (runs between white space; a word longer than a line is cut into
 * line-sized pieces), and cues are ranges of words.
 */
#include "captions.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "narration.h"
#include "output.h"

struct word {
	const char *s;
	size_t bytes, chars;
	int sentence_end, clause_end;
};

struct words {
	struct word *v;
	size_t n;
};

static size_t utf8_chars(const char *s, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xC0) != 0x80;
	return c;
}

/* Whether the word ends with one of the code points in list (UTF-8,
 * space-separated), after any closing quotes or brackets. */
static int ends_with_any(const char *s, size_t n, const char *list)
{
	while (n > 0 && strchr("\"')]", s[n - 1]))
		n--;
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, " ");
		if (len <= n && memcmp(s + n - len, p, len) == 0)
			return 1;
		p += len + (p[len] == ' ');
	}
	return 0;
}

static int push_word(struct words *w, const char *s, size_t bytes)
{
	struct word *v = realloc(w->v, (w->n + 1) * sizeof *v);

	if (!v)
		return -1;
	w->v = v;
	v[w->n].s = s;
	v[w->n].bytes = bytes;
	v[w->n].chars = utf8_chars(s, bytes);
	v[w->n].sentence_end = ends_with_any(s, bytes, ". ! ? \xE2\x80\xA6 \xE3\x80\x82 \xEF\xBC\x81 \xEF\xBC\x9F");
	v[w->n].clause_end = v[w->n].sentence_end ||
			     ends_with_any(s, bytes, ", ; : \xE2\x80\x94 \xE2\x80\x93 \xE3\x80\x81 \xEF\xBC\x8C "
						     "\xEF\xBC\x9B \xEF\xBC\x9A");
	w->n++;
	return 0;
}

/* The words of text (pointing into it); -1 when out of memory. */
static int split_words(const char *text, struct words *w)
{
	const char *p = text;

	memset(w, 0, sizeof *w);
	for (;;) {
		p += strspn(p, " \t\r\n\v\f");
		if (!*p)
			return 0;
		size_t len = strcspn(p, " \t\r\n\v\f");
		/* A word longer than a line (CJK text has no spaces) in pieces. */
		while (utf8_chars(p, len) > CAPTION_LINE_CHARS) {
			size_t cut = 0, chars = 0;
			while (chars < CAPTION_LINE_CHARS) {
				cut++;
				while (cut < len && ((unsigned char)p[cut] & 0xC0) == 0x80)
					cut++;
				chars++;
			}
			if (push_word(w, p, cut) < 0)
				return -1;
			p += cut;
			len -= cut;
		}
		if (push_word(w, p, len) < 0)
			return -1;
		p += len;
	}
}

/* Characters of words [a, b) on one line, spaces included. */
static size_t span_chars(const struct words *w, size_t a, size_t b)
{
	size_t c = 0;

	for (size_t i = a; i < b; i++)
		c += w->v[i].chars + (i > a);
	return c;
}

/* Where words [a, b) break into two balanced lines (the first word of the
 * second line), b when they fit one line, 0 when they fit no cue. */
static size_t line_break(const struct words *w, size_t a, size_t b)
{
	size_t best = 0, best_long = (size_t)-1;

	if (span_chars(w, a, b) <= CAPTION_LINE_CHARS)
		return b;
	for (size_t k = a + 1; k < b; k++) {
		size_t l1 = span_chars(w, a, k), l2 = span_chars(w, k, b), longer = l1 > l2 ? l1 : l2;
		if (l1 <= CAPTION_LINE_CHARS && l2 <= CAPTION_LINE_CHARS && longer < best_long) {
			best = k;
			best_long = longer;
		}
	}
	return best;
}

static int fits(const struct words *w, size_t a, size_t b)
{
	return line_break(w, a, b) != 0;
}

/* One cue's text: words [a, b) on its lines. */
static char *cue_text(const struct words *w, size_t a, size_t b)
{
	size_t brk = line_break(w, a, b), bytes = 0;
	char *s, *p;

	for (size_t i = a; i < b; i++)
		bytes += w->v[i].bytes + 1;
	if (!(s = p = malloc(bytes + 1)))
		return NULL;
	for (size_t i = a; i < b; i++) {
		if (i > a)
			*p++ = i == brk ? '\n' : ' ';
		memcpy(p, w->v[i].s, w->v[i].bytes);
		p += w->v[i].bytes;
	}
	*p = '\0';
	return s;
}

/* A cue's word range. */
struct range {
	size_t a, b;
};

/* Where to end the first cue of words [a, end), which do not fit one:
 * when the rest would fit one cue, the most balanced cut (at a clause
 * boundary when one works); otherwise the last clause boundary that fits,
 * unless it leaves the cue under half full, else the last word that fits. */
static size_t cut_at(const struct words *w, size_t a, size_t end)
{
	size_t last = a + 1, clause = 0, balanced = 0, balanced_clause = 0;
	size_t gap = (size_t)-1, gap_clause = (size_t)-1;

	for (size_t k = a + 1; k < end && fits(w, a, k); k++) {
		size_t first = span_chars(w, a, k);
		last = k;
		if (w->v[k - 1].clause_end)
			clause = k;
		if (!fits(w, k, end))
			continue;
		size_t rest = span_chars(w, k, end), d = first > rest ? first - rest : rest - first;
		if (d < gap)
			gap = d, balanced = k;
		if (w->v[k - 1].clause_end && d < gap_clause)
			gap_clause = d, balanced_clause = k;
	}
	if (balanced_clause)
		return balanced_clause;
	if (balanced)
		return balanced;
	if (clause && span_chars(w, a, clause) >= CAPTION_LINE_CHARS * CAPTION_LINES / 2)
		return clause;
	return last;
}

/* The cue ranges of the words: sentences, cut at clauses or words when
 * too long.  *n ranges into *out (caller frees); -1 when out of memory. */
static int cut_cues(const struct words *w, struct range **out, size_t *n)
{
	struct range *v = calloc(w->n ? w->n : 1, sizeof *v); /* at most one cue a word */
	size_t a = 0;

	if (!v)
		return -1;
	*n = 0;
	while (a < w->n) {
		size_t end = a + 1;
		while (end < w->n && !w->v[end - 1].sentence_end)
			end++;
		while (!fits(w, a, end)) {
			size_t cut = cut_at(w, a, end);
			v[(*n)++] = (struct range){ a, cut };
			a = cut;
		}
		v[(*n)++] = (struct range){ a, end };
		a = end;
	}
	*out = v;
	return 0;
}

/* Merges cues that would be under CAPTION_MIN_S of seconds into a
 * neighbour while the two fit one cue. */
static void merge_short(const struct words *w, struct range *v, size_t *n, double seconds)
{
	size_t total = span_chars(w, 0, w->n);

	for (int merged = 1; merged && *n > 1;) {
		merged = 0;
		for (size_t i = 0; i < *n; i++) {
			if (seconds * (double)span_chars(w, v[i].a, v[i].b) / (double)total >= CAPTION_MIN_S)
				continue;
			/* The shorter neighbour it fits with. */
			size_t with = (size_t)-1;
			if (i + 1 < *n && fits(w, v[i].a, v[i + 1].b))
				with = i + 1;
			if (i > 0 && fits(w, v[i - 1].a, v[i].b) &&
			    (with == (size_t)-1 ||
			     span_chars(w, v[i - 1].a, v[i - 1].b) < span_chars(w, v[i + 1].a, v[i + 1].b)))
				with = i - 1;
			if (with == (size_t)-1)
				continue;
			size_t lo = with < i ? with : i;
			v[lo].b = v[lo + 1].b;
			memmove(&v[lo + 1], &v[lo + 2], (*n - lo - 2) * sizeof *v);
			(*n)--;
			merged = 1;
			break;
		}
	}
}

/* Each cue's seconds: proportional to its characters, none under
 * CAPTION_MIN_S when the span allows (raised ones fixed, the rest
 * shared again until none falls under). */
static void share_time(const struct words *w, const struct range *v, size_t n, double seconds, double *len)
{
	int *fixed = calloc(n, sizeof *fixed);

	if (!fixed || seconds < CAPTION_MIN_S * (double)n) {
		for (size_t i = 0; i < n; i++)
			len[i] = seconds / (double)n;
		free(fixed);
		return;
	}
	for (int changed = 1; changed;) {
		double left = seconds, chars = 0;
		changed = 0;
		for (size_t i = 0; i < n; i++) {
			if (fixed[i])
				left -= CAPTION_MIN_S;
			else
				chars += (double)span_chars(w, v[i].a, v[i].b);
		}
		for (size_t i = 0; i < n; i++) {
			len[i] = fixed[i] ? CAPTION_MIN_S : left * (double)span_chars(w, v[i].a, v[i].b) / chars;
			if (!fixed[i] && len[i] < CAPTION_MIN_S)
				fixed[i] = changed = 1;
		}
	}
	free(fixed);
}

static int push_cue(struct captions *c, double start, double end, char *text)
{
	struct caption_cue *v = realloc(c->v, (c->n + 1) * sizeof *v);

	if (!v)
		return -1;
	c->v = v;
	v[c->n++] = (struct caption_cue){ start, end, text };
	return 0;
}

int captions_add_text(struct captions *c, const char *text, double start, double seconds)
{
	struct words w;
	struct range *v = NULL;
	double *len = NULL, at = start;
	size_t n = 0;
	int rc = -1;

	if (split_words(text, &w) < 0)
		goto out;
	if (w.n == 0 || seconds <= 0) {
		rc = 0;
		goto out;
	}
	if (cut_cues(&w, &v, &n) < 0)
		goto out;
	merge_short(&w, v, &n, seconds);
	if (!(len = calloc(n, sizeof *len)))
		goto out;
	share_time(&w, v, n, seconds, len);
	for (size_t i = 0; i < n; i++) {
		char *t = cue_text(&w, v[i].a, v[i].b);
		/* The last cue ends exactly where the narration does. */
		double end = i + 1 == n ? start + seconds : at + len[i];
		if (!t || push_cue(c, at, end, t) < 0) {
			free(t);
			goto out;
		}
		at = end;
	}
	rc = 0;
out:
	free(len);
	free(v);
	free(w.v);
	return rc;
}

int captions_build(const struct explainer *e, struct captions *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	for (size_t i = 0; i < e->n; i++) {
		const struct explainer_scene *s = &e->scenes[i];
		double seconds = scene_frame_time(s->frames, e->fps);
		size_t samples;

		if (!s->caption)
			continue;
		if (s->wav_path) {
			if (narration_probe(s->wav_path, &samples, err, errlen) < 0)
				goto fail;
			seconds = (double)samples / EXPLAINER_NARRATION_RATE;
		}
		if (captions_add_text(c, s->caption, scene_frame_time(s->first_frame, e->fps), seconds) < 0) {
			snprintf(err, errlen, "out of memory for the captions");
			goto fail;
		}
	}
	return 0;
fail:
	captions_free(c);
	return -1;
}

long captions_index_at(const struct captions *c, double t)
{
	/* A frame's time is rounded from k / fps: a microsecond of slack. */
	for (size_t i = 0; i < c->n; i++)
		if (t + 1e-6 >= c->v[i].start && t + 1e-6 < c->v[i].end)
			return (long)i;
	return -1;
}

void captions_free(struct captions *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].text);
	free(c->v);
	memset(c, 0, sizeof *c);
}

/* ---- the files ----------------------------------------------------------- */

/* HH:MM:SS.mmm (sep '.') or HH:MM:SS,mmm (sep ','). */
static void put_time(FILE *f, double t, char sep)
{
	long long ms = llround(t * 1000);

	fprintf(f, "%02lld:%02lld:%02lld%c%03lld", ms / 3600000, ms / 60000 % 60, ms / 1000 % 60, sep, ms % 1000);
}

/* The text, with WebVTT's three reserved characters escaped. */
static void put_vtt_text(FILE *f, const char *s)
{
	for (; *s; s++)
		fputs(*s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : (char[]){ *s, 0 }, f);
}

/* The cues in WebVTT (vtt set) or SRT, written to target. */
static int write_cues(const struct captions *c, int vtt, const char *target, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc = -1;

	if (!f) {
		snprintf(err, errlen, "out of memory writing %s", target);
		return -1;
	}
	if (vtt)
		fputs("WEBVTT\n\n", f);
	for (size_t i = 0; i < c->n; i++) {
		fprintf(f, "%s%zu\n", i ? "\n" : "", i + 1);
		put_time(f, c->v[i].start, vtt ? '.' : ',');
		fputs(" --> ", f);
		put_time(f, c->v[i].end, vtt ? '.' : ',');
		fputc('\n', f);
		if (vtt)
			put_vtt_text(f, c->v[i].text);
		else
			fputs(c->v[i].text, f);
		fputc('\n', f);
	}
	if (ferror(f) | fclose(f))
		snprintf(err, errlen, "out of memory writing %s", target);
	else
		rc = output_write_file(target, text, len, err, errlen);
	free(text);
	return rc;
}

int captions_write_vtt(const struct captions *c, const char *target, char *err, size_t errlen)
{
	return write_cues(c, 1, target, err, errlen);
}

int captions_write_srt(const struct captions *c, const char *target, char *err, size_t errlen)
{
	return write_cues(c, 0, target, err, errlen);
}

/* path with its extension (after the last "/") replaced by ext. */
static int with_extension(const char *path, const char *ext, char *out, size_t len)
{
	const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
	size_t base = dot && (!slash || dot > slash + 1) ? (size_t)(dot - path) : strlen(path);

	return snprintf(out, len, "%.*s%s", (int)base, path, ext) < (int)len ? 0 : -1;
}

int captions_write_beside(const struct explainer *e, const char *video_path, char *vtt, char *srt, size_t len,
			  int *written, char *err, size_t errlen)
{
	struct captions c;
	int rc = -1;

	*written = 0;
	if (with_extension(video_path, ".vtt", vtt, len) < 0 || with_extension(video_path, ".srt", srt, len) < 0) {
		snprintf(err, errlen, "the path %s is too long for its captions", video_path);
		return -1;
	}
	if (captions_build(e, &c, err, errlen) < 0)
		return -1;
	if (c.n == 0)
		rc = 0;
	else if (captions_write_vtt(&c, vtt, err, errlen) == 0 && captions_write_srt(&c, srt, err, errlen) == 0)
		rc = 0, *written = 1;
	captions_free(&c);
	return rc;
}
