/*
 * render - Markdown from the checked answer, built in an open_memstream.
 * One-line fields have their line breaks folded to blanks so that a list
 * item stays one item; the summary keeps its paragraphs.
 */
#include "render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	long seconds;
	size_t index;
};

static int by_time(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->seconds != y->seconds)
		return x->seconds < y->seconds ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index; /* stable */
}

/* s with every run of line breaks and tabs as one blank, trimmed. */
static void put_line(FILE *f, const char *s)
{
	int space = 0, any = 0;

	for (; *s; s++) {
		if (*s == '\n' || *s == '\r' || *s == '\t' || *s == ' ') {
			space = any;
			continue;
		}
		if (space)
			fputc(' ', f);
		fputc(*s, f);
		space = 0;
		any = 1;
	}
}

static size_t longest_backtick_run(const char *s)
{
	size_t best = 0, run = 0;

	for (; *s; s++) {
		run = *s == '`' ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best;
}

static void put_ticks(FILE *f, size_t n)
{
	while (n--)
		fputc('`', f);
}

/* A code span that holds s exactly (CommonMark: a longer backtick run;
 * blanks around a content that starts or ends with a backtick). */
static void put_code_span(FILE *f, const char *s)
{
	size_t ticks = longest_backtick_run(s) + 1, len = strlen(s);
	int pad = len > 0 && (s[0] == '`' || s[len - 1] == '`');

	put_ticks(f, ticks);
	if (pad)
		fputc(' ', f);
	put_line(f, s);
	if (pad)
		fputc(' ', f);
	put_ticks(f, ticks);
}

/* A fenced block indented under a list item; the language only when it
 * is a plain word (it lands in the info string). */
static void put_code_block(FILE *f, const char *lang, const char *code)
{
	size_t ticks = longest_backtick_run(code) + 1;
	int plain = 1;

	if (ticks < 3)
		ticks = 3;
	for (const char *c = lang; *c && plain; c++)
		plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
			strchr("+#._-", *c);
	fputs("\n  ", f);
	put_ticks(f, ticks);
	if (plain)
		fputs(lang, f);
	fputs("\n  ", f);
	for (const char *c = code; *c; c++) {
		if (*c == '\r')
			continue;
		fputc(*c, f);
		if (*c == '\n' && c[1])
			fputs("  ", f);
	}
	if (!*code || code[strlen(code) - 1] != '\n')
		fputc('\n', f);
	fputs("  ", f);
	put_ticks(f, ticks);
}

static const char *field(const json_t *e, const struct video_field *f)
{
	const char *v = json_string_value(json_object_get(e, f->name));

	return v ? v : "";
}

static int blank(const char *s)
{
	return s[strspn(s, " \t\r\n")] == '\0';
}

/* One entry: "- **[MM:SS]** " and its inline fields joined by " — ",
 * then its steps or code under it. */
static void put_entry(FILE *f, const struct video_section *s, const json_t *e, int with_time)
{
	const char *lang = "";
	int first = 1;

	fputs("- ", f);
	if (with_time)
		fprintf(f, "**[%s]** ", json_string_value(json_object_get(e, "timestamp")));
	for (size_t i = 0; i < VIDEO_MAX_FIELDS && s->fields[i].name; i++) {
		const struct video_field *fd = &s->fields[i];
		const char *v = field(e, fd);

		if (fd->kind == FIELD_LANGUAGE)
			lang = v;
		if (fd->kind == FIELD_LANGUAGE || fd->kind == FIELD_CODE || fd->kind == FIELD_STEPS || blank(v))
			continue;
		if (!first)
			fputs(" — ", f);
		first = 0;
		if (fd->kind == FIELD_TITLE)
			fputs("**", f);
		if (fd->kind == FIELD_LABELED)
			fprintf(f, "%s: ", fd->label);
		if (fd->kind == FIELD_COMMAND)
			put_code_span(f, v);
		else
			put_line(f, v);
		if (fd->kind == FIELD_TITLE)
			fputs("**", f);
	}
	for (size_t i = 0; i < VIDEO_MAX_FIELDS && s->fields[i].name; i++) {
		const json_t *steps = json_object_get(e, s->fields[i].name), *st;
		size_t k;

		if (s->fields[i].kind == FIELD_CODE)
			put_code_block(f, lang, field(e, &s->fields[i]));
		if (s->fields[i].kind != FIELD_STEPS)
			continue;
		json_array_foreach(steps, k, st) {
			fprintf(f, "\n  %zu. ", k + 1);
			put_line(f, json_string_value(st));
		}
	}
	fputc('\n', f);
}

static int put_section(FILE *f, const struct video_section *s, const json_t *arr, int with_time,
		       const char *none)
{
	size_t n = json_array_size(arr);
	struct entry *order = calloc(n ? n : 1, sizeof *order);

	if (!order)
		return -1;
	for (size_t i = 0; i < n; i++) {
		order[i].index = i;
		order[i].seconds =
			with_time ? video_timestamp_seconds(json_string_value(
					    json_object_get(json_array_get(arr, i), "timestamp")))
				  : 0;
	}
	if (with_time)
		qsort(order, n, sizeof *order, by_time);
	fprintf(f, "\n## %s\n\n", s->heading);
	if (n == 0)
		fprintf(f, "%s\n", none);
	for (size_t i = 0; i < n; i++)
		put_entry(f, s, json_array_get(arr, order[i].index), with_time);
	free(order);
	return 0;
}

/* The summary keeps its paragraphs; blank lines inside are squeezed. */
static void put_paragraphs(FILE *f, const char *s)
{
	const char *end = s + strlen(s);

	while (s < end && strchr(" \t\r\n", *s))
		s++;
	while (end > s && strchr(" \t\r\n", end[-1]))
		end--;
	for (int newlines = 0; s < end; s++) {
		if (*s == '\r')
			continue;
		newlines = *s == '\n' ? newlines + 1 : 0;
		if (newlines <= 2)
			fputc(*s, f);
	}
	fputc('\n', f);
}

char *video_render(const struct video_render_info *info, const json_t *answer)
{
	const struct video_intent_def *d = video_intent_def(info->intent);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	int rc = 0;

	if (!f)
		return NULL;
	fprintf(f, "# Video notes (%s)\n\n- Source: ", d->name);
	put_line(f, info->source);
	fputs("\n- Goal: ", f);
	put_line(f, info->goal);
	fprintf(f, "\n- Watched by: %s\n\n## Summary\n\n", info->model);
	put_paragraphs(f, json_string_value(json_object_get(answer, "summary")));
	rc |= put_section(f, video_gaps_def(), json_object_get(answer, "gaps"), 0,
			  "None: the video covers what the goal asks for.");
	for (size_t i = 0; i < d->nsections; i++)
		rc |= put_section(f, &d->sections[i], json_object_get(answer, d->sections[i].key), 1,
				  "None in the video.");
	rc |= ferror(f); /* the stream's writes are checked once, here */
	if (fclose(f) != 0 || rc != 0) {
		free(out);
		return NULL;
	}
	return out;
}
