/*
 * row_text - rows into terminal text (see row_text.h).  Colour only marks
 * what plain text already says (a status word, a diff's +/-), so a piped
 * copy loses nothing.
 */
#include "row_text.h"

#include "row_words.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BOLD   "\033[1m"
#define DIM    "\033[2m"
#define RED    "\033[31m"
#define GREEN  "\033[32m"
#define YELLOW "\033[33m"
#define BLUE   "\033[34m"
#define CYAN   "\033[36m"
#define RESET  "\033[0m"

struct out { FILE *f; int colour; int depth; int update; };

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static void ink(struct out *o, const char *code)
{
	if (o->colour)
		fputs(code, o->f);
}

static void indent(struct out *o)
{
	for (int i = 0; i < o->depth && i < 16; i++)
		fputs("  ", o->f);
}

/* Header text: the rest of the first line, further lines indented. */
static void body(struct out *o, const char *s)
{
	for (; *s; s++) {
		fputc(*s, o->f);
		if (*s == '\n' && s[1]) {
			indent(o);
			fputs("  ", o->f);
		}
	}
	fputc('\n', o->f);
}

/* Detail lines under a header, at most TL_RENDER_LINES; a diff's lines
 * are coloured by their first character. */
static void detail(struct out *o, const char *s, int diff)
{
	int n = 0, more = 0;

	while (*s) {
		const char *nl = strchr(s, '\n');
		int len = nl ? (int)(nl - s) : (int)strlen(s);

		if (n++ < TL_RENDER_LINES) {
			const char *c = !diff ? NULL : *s == '+' ? GREEN : *s == '-' ? RED : *s == '@' ? CYAN : NULL;

			indent(o);
			fputs("  │ ", o->f);
			if (c)
				ink(o, c);
			fprintf(o->f, "%.*s", len, s);
			if (c)
				ink(o, RESET);
			fputc('\n', o->f);
		} else {
			more++;
		}
		s += len + (nl ? 1 : 0);
	}
	if (more) {
		indent(o);
		fprintf(o->f, "  │ … %d more line%s\n", more, more == 1 ? "" : "s");
	}
}

static void head(struct out *o, const char *colour, const char *label)
{
	indent(o);
	if (o->update) {
		ink(o, DIM);
		fputs(TL_RENDER_UPDATE, o->f);
		ink(o, RESET);
	}
	ink(o, BOLD);
	if (colour)
		ink(o, colour);
	fputs(label, o->f);
	ink(o, RESET);
}

/* "Tool call" … "Tool declined": the status word, red when it failed. */
static void status(struct out *o, const char *prefix, const char *st)
{
	int bad = strcmp(st, "error") == 0 || strcmp(st, "declined") == 0 || strcmp(st, "failed") == 0;

	head(o, bad ? RED : BLUE, prefix);
	if (*st) {
		fputc(' ', o->f);
		ink(o, bad ? RED : DIM);
		fputs(st, o->f);
		ink(o, RESET);
	}
	fputs(": ", o->f);
}

static void plan(struct out *o, const json_t *row)
{
	const json_t *s;
	size_t i;

	head(o, BLUE, "Plan");
	fputc('\n', o->f);
	json_array_foreach(json_object_get(row, "steps"), i, s) {
		const char *st = str(s, "status");

		indent(o);
		fprintf(o->f, "  [%s] %s\n", strcmp(st, "completed") == 0 ? "x" : strncmp(st, "in", 2) == 0 ? ">" : " ",
			str(s, "step"));
	}
	if (*str(row, "markdown"))
		detail(o, str(row, "markdown"), 0);
}

static void tool_like(struct out *o, const json_t *row, const char *kind)
{
	const char *st = str(row, "status");

	if (strcmp(kind, "command") == 0) {
		status(o, "Command", st);
		fprintf(o->f, "$ %s", str(row, "command"));
		if (json_is_integer(json_object_get(row, "exitCode")))
			fprintf(o->f, " (exit %lld)", (long long)json_integer_value(json_object_get(row, "exitCode")));
		fputc('\n', o->f);
		detail(o, str(row, "output"), 0);
		if (*str(row, "outputRef") && *str(row, "output")) {
			indent(o);
			fprintf(o->f, "  (full output: %s)\n", str(row, "outputRef"));
		}
	} else if (strcmp(kind, "file_change") == 0) {
		const json_t *c;
		size_t i;

		status(o, "File change", st);
		body(o, str(row, "title"));
		json_array_foreach(json_object_get(row, "changes"), i, c)
			detail(o, str(c, "diff"), 1);
	} else if (strcmp(kind, "spawn") == 0) {
		status(o, "Subagent", st);
		fprintf(o->f, "%s", str(row, "title"));
		if (*str(row, "agentType"))
			fprintf(o->f, " (%s)", str(row, "agentType"));
		if (json_is_true(json_object_get(row, "background")))
			fputs(" in the background", o->f);
		if (*str(json_object_get(row, "link"), "thread"))
			fprintf(o->f, " → thread %s", str(json_object_get(row, "link"), "thread"));
		if (json_is_integer(json_object_get(row, "toolUses")))
			fprintf(o->f, " · %lld tool uses%s%s", (long long)json_integer_value(json_object_get(row, "toolUses")),
				*str(row, "lastTool") ? ", last " : "", str(row, "lastTool"));
		fputc('\n', o->f);
		detail(o, str(row, "summary"), 0);
	} else {
		status(o, "Tool", *st ? st : "call");
		body(o, *str(row, "title") ? str(row, "title") : str(row, "tool"));
		detail(o, str(row, "output"), 0);
	}
}

/* "— Turn completed · 1.4 s · 220 in (15 cached) / 30 out tokens · $0.0015 —":
 * what each agent reported of the turn (row_words.c). */
static void turn_end(struct out *o, const json_t *row)
{
	head(o, tl_turn_went_wrong(row) ? RED : YELLOW, "— Turn ");
	tl_turn_words(o->f, row);
	fputs(" —\n", o->f);
}

/* A retry or a rate limit: the turn waits (row_words.c). */
static void wait_row(struct out *o, const json_t *row, int retry)
{
	head(o, YELLOW, "— ");
	(retry ? tl_retry_words : tl_rate_limit_words)(o->f, row);
	fputs(" —\n", o->f);
	if (retry && *str(row, "detail"))
		detail(o, str(row, "detail"), 0);
}

static void render(struct out *o, const json_t *row)
{
	const char *kind = str(row, "kind"), *agent = str(row, "agent");

	if (strcmp(kind, "user") == 0)
		head(o, GREEN, "You: "), body(o, str(row, "text"));
	else if (strcmp(kind, "assistant") == 0)
		head(o, CYAN, strcmp(agent, "codex") == 0 ? "Codex: " : "Claude: "), body(o, str(row, "text"));
	else if (strcmp(kind, "reasoning") == 0) {
		head(o, DIM, "Reasoning: ");
		ink(o, DIM);
		body(o, str(row, "text"));
		ink(o, RESET);
	} else if (strcmp(kind, "plan") == 0)
		plan(o, row);
	else if (strcmp(kind, "image") == 0) {
		head(o, BLUE, "Image: ");
		if (*str(row, "path"))
			fprintf(o->f, "%s\n", str(row, "path"));
		else
			fprintf(o->f, "%s, %lld bytes\n", str(row, "mediaType"), (long long)json_integer_value(json_object_get(row, "bytes")));
	} else if (strcmp(kind, "turn_started") == 0)
		head(o, YELLOW, "— Turn started —"), fputc('\n', o->f);
	else if (strcmp(kind, "turn_completed") == 0)
		turn_end(o, row);
	else if (strcmp(kind, "retry") == 0 || strcmp(kind, "rate_limit") == 0)
		wait_row(o, row, strcmp(kind, "retry") == 0);
	else if (strcmp(kind, "turn_aborted") == 0)
		head(o, YELLOW, "— Turn aborted —"), fputc('\n', o->f);
	else if (strcmp(kind, "compacted") == 0)
		head(o, YELLOW, "— Conversation compacted —"), fputc('\n', o->f);
	else if (strcmp(kind, "slash_command") == 0) {
		head(o, BLUE, str(row, "command"));
		fprintf(o->f, "%s%s\n", *str(row, "args") ? " " : "", str(row, "args"));
		detail(o, str(row, "output"), 0);
	} else if (strcmp(kind, "agent_message") == 0) {
		head(o, GREEN, "Message from ");
		fprintf(o->f, "%s (%s): ", *str(row, "fromTitle") ? str(row, "fromTitle") : "another session",
			str(row, "fromSession"));
		body(o, str(row, "text"));
	} else if (strcmp(kind, "system") == 0)
		head(o, YELLOW, "System: "), body(o, str(row, "text"));
	else
		tool_like(o, row, kind);
}

char *tl_render(const json_t *row, int colour)
{
	return tl_render_as(row, colour, 0);
}

char *tl_render_as(const json_t *row, int colour, int update)
{
	struct out o = { NULL, colour, (int)json_integer_value(json_object_get(row, "depth")), update };
	char *text = NULL;
	size_t len = 0;

	if (strcmp(str(row, "kind"), "hidden") == 0)
		return strdup("");
	if (!(o.f = open_memstream(&text, &len)))
		return NULL;
	render(&o, row);
	if (fclose(o.f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}
