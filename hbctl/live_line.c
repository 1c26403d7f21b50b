/*
 * live_line - the one line of each row and card the live view shows (see
 * live_line.h).  A line is a head (time, title, agent, the subagent's
 * indent), a body (what happened: the command, the tool with its
 * arguments, the text) and a tail (the outcome: running 3s, ok, error and
 * its sentence, declined; a card's answer commands).  The body is cut so
 * the tail always shows: on a narrow terminal the arguments shorten, the
 * outcome stays.  Colour marks only the tail, whose words say the same,
 * or a whole row that is an outcome: a turn that failed (red), a retry or
 * a rate limit the turn waits on (yellow).
 */
#include "live_line.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live_text.h"
#include "../timeline/row_words.h"

#define GREEN  "\033[32m"
#define RED    "\033[31m"
#define YELLOW "\033[33m"
#define RESET  "\033[0m"

#define TAIL_COLS 72	/* an outcome's sentence at most */

struct parts {
	FILE *body;
	char tail[512];
	const char *ink;	/* the tail's colour */
	const char *body_ink;	/* the body's, for a row that is all outcome (a turn's end, a wait) */
	int depth;
};

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* The first line of s, cut to TAIL_COLS columns, after prefix. */
static void tail_sentence(struct parts *p, const char *ink, const char *prefix, const char *s)
{
	char line[TAIL_COLS * 4 + 8];
	size_t n = strcspn(s, "\n");
	char *first = strndup(s, n);

	line[0] = '\0';
	if (first)
		live_fit(line, sizeof line, first, TAIL_COLS);
	free(first);
	snprintf(p->tail, sizeof p->tail, "%s%s%s", prefix, *line ? ": " : "", line);
	p->ink = ink;
}

static void put_value(FILE *f, const json_t *v)
{
	char cut[LIVE_ARG_COLS * 4 + 8];
	char *text;

	if (json_is_string(v)) {
		live_fit(cut, sizeof cut, json_string_value(v), LIVE_ARG_COLS);
		fprintf(f, "\"%s\"", cut);
	} else if (json_is_object(v)) {
		fputs(json_object_size(v) ? "{…}" : "{}", f);
	} else if (json_is_array(v)) {
		fputs(json_array_size(v) ? "[…]" : "[]", f);
	} else if ((text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT))) {
		live_fit(cut, sizeof cut, text, LIVE_ARG_COLS);
		fputs(cut, f);
		free(text);
	}
}

char *live_args(const json_t *input)
{
	char *text = NULL;
	size_t len = 0, i = 0;
	FILE *f = open_memstream(&text, &len);
	const char *key;
	const json_t *v;

	if (!f)
		return NULL;
	if (json_is_object(input) && json_object_size(input)) {
		fputc('{', f);
		json_object_foreach((json_t *)input, key, v) {
			fprintf(f, "%s%s: ", i++ ? ", " : "", key);
			put_value(f, v);
		}
		fputc('}', f);
	} else if (input && !json_is_null(input) && !json_is_object(input)) {
		put_value(f, input);
	}
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* A tool's name: an MCP tool as server.tool (Claude's mcp__server__tool,
 * Codex's "server: tool" label), another by its title ("Read main.c"). */
static void tool_name(FILE *f, const json_t *row)
{
	const char *tool = str(row, "tool"), *label = str(row, "label"), *sep;

	if (strncmp(tool, "mcp__", 5) == 0 && (sep = strstr(tool + 5, "__")))
		fprintf(f, "%.*s.%s", (int)(sep - tool - 5), tool + 5, sep + 2);
	else if ((sep = strstr(label, ": ")) && !*str(row, "path"))
		fprintf(f, "%.*s.%s", (int)(sep - label), label, sep + 2);
	else
		fputs(*str(row, "title") ? str(row, "title") : *label ? label : tool, f);
}

/* The outcome of a tool-like row: running with its time, ok, error with
 * its sentence, declined. */
static void outcome(struct parts *p, const json_t *row, const struct live_head *h, int *running)
{
	const char *st = str(row, "status"), *out = str(row, "output");
	const json_t *exit = json_object_get(row, "exitCode");

	if (!*st || strcmp(st, "call") == 0 || strcmp(st, "running") == 0) {
		*running = 1;
		snprintf(p->tail, sizeof p->tail, "running %llds", h->elapsed_ms / 1000);
		p->ink = YELLOW;
	} else if (strcmp(st, "error") == 0 || strcmp(st, "failed") == 0) {
		tail_sentence(p, RED, st, *out ? out : str(row, "summary"));
	} else if (strcmp(st, "declined") == 0) {
		tail_sentence(p, RED, "declined", out);
	} else if (json_is_integer(exit) && json_integer_value(exit) != 0) {
		snprintf(p->tail, sizeof p->tail, "exit %lld", (long long)json_integer_value(exit));
		p->ink = RED;
	} else {
		snprintf(p->tail, sizeof p->tail, "%s", strcmp(st, "output") == 0 ? "ok" : st);
		p->ink = GREEN;
	}
}

static void spawn(struct parts *p, const json_t *row, const struct live_head *h, int *running)
{
	fprintf(p->body, "Subagent %s", str(row, "title"));
	if (*str(row, "agentType"))
		fprintf(p->body, " (%s)", str(row, "agentType"));
	if (json_is_true(json_object_get(row, "background")))
		fputs(" in the background", p->body);
	if (json_is_integer(json_object_get(row, "toolUses")))
		fprintf(p->body, ", %lld tool uses", (long long)json_integer_value(json_object_get(row, "toolUses")));
	if (*str(row, "lastTool"))
		fprintf(p->body, ", last %s", str(row, "lastTool"));
	outcome(p, row, h, running);
}

static void plan(struct parts *p, const json_t *row)
{
	const json_t *steps = json_object_get(row, "steps"), *s;
	const char *now = NULL;
	size_t i, done = 0;

	json_array_foreach(steps, i, s) {
		if (strcmp(str(s, "status"), "completed") == 0)
			done++;
		else if (!now && strncmp(str(s, "status"), "in", 2) == 0)
			now = str(s, "step");
	}
	if (json_array_size(steps))
		fprintf(p->body, "Plan: %zu of %zu done%s%s", done, json_array_size(steps), now ? ", now: " : "",
			now ? now : "");
	else
		fprintf(p->body, "Plan: %s", str(row, "markdown"));
}

static void row_body(struct parts *p, const json_t *row, const struct live_head *h, int *running)
{
	const char *kind = str(row, "kind"), *agent = str(row, "agent");
	char *args;

	p->depth = (int)json_integer_value(json_object_get(row, "depth"));
	if (strcmp(kind, "user") == 0)
		fprintf(p->body, "You: %s", str(row, "text"));
	else if (strcmp(kind, "assistant") == 0)
		fprintf(p->body, "%s: %s", strcmp(agent, "codex") == 0 ? "Codex" : "Claude", str(row, "text"));
	else if (strcmp(kind, "reasoning") == 0)
		fprintf(p->body, "Thinking: %s", str(row, "text"));
	else if (strcmp(kind, "command") == 0) {
		fprintf(p->body, "$ %s", str(row, "command"));
		outcome(p, row, h, running);
	} else if (strcmp(kind, "file_change") == 0) {
		fprintf(p->body, "%s %s", *str(row, "tool") ? str(row, "tool") : "Edit", str(row, "title"));
		outcome(p, row, h, running);
	} else if (strcmp(kind, "tool") == 0) {
		tool_name(p->body, row);
		args = live_args(json_object_get(row, json_object_get(row, "input") ? "input" : "arguments"));
		if (args && *args)
			fprintf(p->body, " %s", args);
		free(args);
		outcome(p, row, h, running);
	} else if (strcmp(kind, "spawn") == 0)
		spawn(p, row, h, running);
	else if (strcmp(kind, "plan") == 0)
		plan(p, row);
	else if (strcmp(kind, "image") == 0)
		fprintf(p->body, "Image: %s", *str(row, "path") ? str(row, "path") : str(row, "mediaType"));
	else if (strcmp(kind, "turn_started") == 0)
		fputs("— turn started", p->body);
	else if (strcmp(kind, "turn_completed") == 0) {
		fputs("— turn ", p->body);
		tl_turn_words(p->body, row);
		p->body_ink = tl_turn_went_wrong(row) ? RED : NULL;
	} else if (strcmp(kind, "retry") == 0 || strcmp(kind, "rate_limit") == 0) {
		fputs("— ", p->body);
		(strcmp(kind, "retry") == 0 ? tl_retry_words : tl_rate_limit_words)(p->body, row);
		p->body_ink = YELLOW;
	} else if (strcmp(kind, "turn_aborted") == 0)
		fputs("— turn aborted", p->body);
	else if (strcmp(kind, "compacted") == 0)
		fputs("— conversation compacted", p->body);
	else if (strcmp(kind, "slash_command") == 0) {
		fprintf(p->body, "%s %s", str(row, "command"), str(row, "args"));
		if (*str(row, "output"))
			tail_sentence(p, GREEN, "ok", str(row, "output"));
	}
	else if (strcmp(kind, "agent_message") == 0)
		fprintf(p->body, "Message from %s: %s",
			*str(row, "fromTitle") ? str(row, "fromTitle") : str(row, "fromSession"), str(row, "text"));
	else if (strcmp(kind, "system") == 0) {
		fprintf(p->body, "System: %s", str(row, "text"));
		if (json_is_integer(json_object_get(row, "resetsAt"))) {
			time_t at = (time_t)json_integer_value(json_object_get(row, "resetsAt"));
			struct tm tm;

			if (localtime_r(&at, &tm) && strftime(p->tail, sizeof p->tail, "waits until %H:%M", &tm))
				p->ink = YELLOW;
		}
	} else
		fprintf(p->body, "%s: %s", kind, str(row, "text"));
}

/* An approval card (broker/approvals.c): what asks, and how to answer. */
static void card_body(struct parts *p, const char *topic, const json_t *card)
{
	const json_t *input = json_object_get(card, "input");
	const char *kind = str(card, "kind"), *command = str(card, "command"), *id = str(card, "id");
	char *args;

	fputs("Approve? ", p->body);
	if (*str(card, "subagent"))
		fprintf(p->body, "subagent %s: ", str(card, "subagent"));
	if (!*command && strcmp(str(card, "tool"), "Bash") == 0)
		command = str(input, "command");
	if (*command) {
		fprintf(p->body, "$ %s", command);
		if (*str(card, "cwd"))
			fprintf(p->body, " (in %s)", str(card, "cwd"));
	} else if (strcmp(kind, "file") == 0 || *str(card, "path")) {
		fprintf(p->body, "%s %s", str(card, "tool"), *str(card, "path") ? str(card, "path") : str(input, "file_path"));
	} else {
		json_t *row = json_pack("{s:s}", "tool", str(card, "tool"));

		if (*str(card, "displayName"))
			fputs(str(card, "displayName"), p->body);
		else if (row)
			tool_name(p->body, row);
		json_decref(row);
		if ((args = live_args(input)) && *args)
			fprintf(p->body, " %s", args);
		free(args);
	}
	if (*str(card, "decisionReason"))
		fprintf(p->body, " — %s", str(card, "decisionReason"));
	if (strcmp(topic, "approval.requested") == 0) {
		snprintf(p->tail, sizeof p->tail, "hbctl approve %s | hbctl decline %s", id, id);
		p->ink = YELLOW;
	} else if (strcmp(topic, "approval.resolved") == 0 && strcmp(str(card, "decision"), "allow") == 0) {
		snprintf(p->tail, sizeof p->tail, "approved");
		p->ink = GREEN;
	} else {
		snprintf(p->tail, sizeof p->tail, "%s", strcmp(topic, "approval.resolved") == 0 ? "declined" : "cancelled");
		p->ink = RED;
	}
}

/* A session message the agent sent (svc-messages' timeline.message). */
static void message_body(struct parts *p, const json_t *m)
{
	const char *signal = str(m, "signal");

	fputs(*str(m, "title") ? str(m, "title") : "Message", p->body);
	if (*str(m, "reason"))
		tail_sentence(p, RED, signal, str(m, "reason"));
	else
		snprintf(p->tail, sizeof p->tail, "%s", signal);
	p->ink = strcmp(signal, "Sent") == 0 ? GREEN : strcmp(signal, "Not sent") == 0 ? RED : YELLOW;
}

/* head + body cut to what width leaves + tail, the tail coloured when
 * colour. */
static char *compose(const struct parts *p, const char *body, const struct live_head *h, const char *agent, int width,
		     int colour)
{
	char when[16] = "--:--:--", title[LIVE_TITLE_COLS * 4 + 8], head[LIVE_TITLE_COLS * 4 + 96];
	char who[32], tail[sizeof p->tail];
	char *line = NULL, *cut;
	size_t len = 0, head_cols, tail_cols, room = 0;
	int indent = p->depth < 0 ? 0 : p->depth > 8 ? 8 : p->depth;	/* two spaces a subagent level */
	struct tm tm;
	FILE *f;

	/* every text of an event passes live_fit, which turns a control
	 * character (an escape sequence's ESC) into a space */
	live_fit(tail, sizeof tail, p->tail, 0);
	tail_cols = *tail ? live_cols(tail) + 2 : 0;
	live_fit(who, sizeof who, agent, 6);
	if (localtime_r(&h->when, &tm))
		strftime(when, sizeof when, "%H:%M:%S", &tm);
	live_fit(title, sizeof title, h->title ? h->title : h->session ? h->session : "", LIVE_TITLE_COLS);
	snprintf(head, sizeof head, "%s  %s%*s  %-6s  %*s", when, title,
		 (int)(LIVE_TITLE_COLS - live_cols(title)), "", who, 2 * indent, "");
	head_cols = live_cols(head);
	if (width > 0)
		room = (size_t)width > head_cols + tail_cols + 8 ? (size_t)width - head_cols - tail_cols : 8;
	if (!(cut = malloc(strlen(body) + 8)))
		return NULL;
	live_fit(cut, strlen(body) + 8, body, room);
	if ((f = open_memstream(&line, &len))) {
		fputs(head, f);
		fprintf(f, "%s%s%s", colour && p->body_ink ? p->body_ink : "", cut, colour && p->body_ink ? RESET : "");
		if (*tail)
			fprintf(f, "  %s%s%s", colour && p->ink ? p->ink : "", tail, colour && p->ink ? RESET : "");
		if (fclose(f) != 0) {
			free(line);
			line = NULL;
		}
	}
	free(cut);
	return line;
}

char *live_line(const char *topic, const json_t *event, const struct live_head *h, int width, int *running)
{
	struct parts p = { 0 };
	const json_t *row = json_object_get(event, "row");
	const char *agent = h->agent ? h->agent : "";
	char *body = NULL, *line;
	size_t len = 0;

	*running = 0;
	if (strcmp(topic, "timeline.row") == 0) {
		if (!json_is_object(row) || strcmp(str(row, "kind"), "hidden") == 0)
			return strdup("");
		if (*str(row, "agent"))
			agent = str(row, "agent");
	}
	if (!(p.body = open_memstream(&body, &len)))
		return NULL;
	if (strcmp(topic, "timeline.row") == 0)
		row_body(&p, row, h, running);
	else if (strncmp(topic, "approval.", 9) == 0)
		card_body(&p, topic, event);
	else if (strcmp(topic, "timeline.message") == 0)
		message_body(&p, event);
	if (fclose(p.body) != 0) {
		free(body);
		return NULL;
	}
	line = *body ? compose(&p, body, h, agent, width, 0) : strdup("");
	/* a head and an outcome wider than the terminal (a narrow one): the
	 * whole line cut, uncoloured, so it stays one screen line */
	if (line && width > 0 && live_cols(line) > (size_t)width) {
		char *cut = malloc(strlen(line) + 8);

		if (cut)
			live_fit(cut, strlen(line) + 8, line, (size_t)width);
		free(line);
		line = cut;
	} else if (line && *line && h->colour && (p.ink || p.body_ink)) {
		free(line);
		line = compose(&p, body, h, agent, width, 1);
	}
	free(body);
	return line;
}

void live_key(const char *topic, const json_t *event, char *key, size_t len)
{
	const char *id = strcmp(topic, "timeline.row") == 0	    ? str(json_object_get(event, "row"), "id")
			 : strcmp(topic, "timeline.message") == 0 ? str(event, "row")
			 : strncmp(topic, "approval.", 9) == 0    ? str(event, "id")
								  : "";
	const char *prefix = strcmp(topic, "timeline.row") == 0 ? "row" : strcmp(topic, "timeline.message") == 0 ? "message" : "approval";

	snprintf(key, len, "%s%s%s", *id ? prefix : "", *id ? ":" : "", id);
}
