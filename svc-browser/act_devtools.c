/*
 * act_devtools - the actions console and network: what the tab's page
 * wrote to its console (and threw without catching), and the requests it
 * made, since it was opened or last navigated, as chrome-devtools-mcp's
 * list_console_messages and list_network_requests show them.  The record
 * is the connection's pagelog (pagelog.h), filled from the DevTools
 * events as they came; the one request's headers and body are
 * act_response.c's.
 *
 * Both lists are oldest first, newest last, and bounded twice: at most
 * SHOW_MAX entries and maxChars characters of them; what is cut is the
 * oldest, and the answer says how many were left out.
 */
#include "act.h"
#include "actions.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pagelog.h"
#include "utf8.h"

#define SHOW_MAX 200            /* entries in one answer */
#define LIST_DEFAULT_CHARS 20000
#define LIST_URL_MAX 300        /* bytes of a url in the network list */

/* One entry as its line (malloc'd), or NULL when out of memory. */
typedef char *(*line_fn)(const json_t *entry);

/* printf into a malloc'd string; NULL when out of memory. */
static char *line_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *line_printf(const char *fmt, ...)
{
	va_list ap;
	char *out;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(out = malloc((size_t)n + 1)))
		return NULL;
	va_start(ap, fmt);
	vsnprintf(out, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return out;
}

static char *console_line(const json_t *e)
{
	const char *level = json_string_value(json_object_get(e, "level"));
	const char *source = json_string_value(json_object_get(e, "source"));
	const char *text = json_string_value(json_object_get(e, "text"));
	const char *where = json_string_value(json_object_get(e, "where"));

	return line_printf("[%s%s%s] %s%s%s%s", level ? level : "log", source ? ", " : "", source ? source : "",
			   text ? text : "", where ? " (" : "", where ? where : "", where ? ")" : "");
}

/* "1.2 kB", "45 B" */
static void size_words(json_int_t n, char *out, size_t outlen)
{
	if (n < 1000)
		snprintf(out, outlen, "%lld B", (long long)n);
	else if (n < 1000000)
		snprintf(out, outlen, "%.1f kB", n / 1000.0);
	else
		snprintf(out, outlen, "%.1f MB", n / 1000000.0);
}

static const char *jstr(const json_t *e, const char *key)
{
	return json_string_value(json_object_get(e, key));
}

static char *request_line(const json_t *e)
{
	const char *url = jstr(e, "url") ? jstr(e, "url") : "", *state = jstr(e, "state") ? jstr(e, "state") : "";
	const char *type = jstr(e, "type"), *mime = jstr(e, "mimeType"), *text = jstr(e, "statusText");
	const json_t *status = json_object_get(e, "status"), *bytes = json_object_get(e, "size");
	char what[200], size[32] = "";
	size_t urllen = strlen(url), keep = hb_utf8_fit(url, urllen, LIST_URL_MAX, LIST_URL_MAX);

	if (bytes)
		size_words(json_integer_value(bytes), size, sizeof size);
	if (strcmp(state, "failed") == 0)
		snprintf(what, sizeof what, "failed (%.100s)", jstr(e, "error") ? jstr(e, "error") : "no reason given");
	else if (strcmp(state, "redirected") == 0)
		snprintf(what, sizeof what, "%lld redirect", (long long)json_integer_value(status));
	else if (status)
		snprintf(what, sizeof what, "%lld%s%.60s%s", (long long)json_integer_value(status), text && *text ? " " : "",
			 text ? text : "", strcmp(state, "pending") == 0 ? " (still loading)" : "");
	else
		snprintf(what, sizeof what, "pending");
	return line_printf("[%lld] %s %.*s%s: %s%s%s%s%.80s%s%s", (long long)json_integer_value(json_object_get(e, "id")),
			   jstr(e, "method") ? jstr(e, "method") : "GET", (int)keep, url, keep < urllen ? "\xe2\x80\xa6" : "",
			   what, type ? ", " : "", type ? type : "", mime ? ", " : "", mime ? mime : "",
			   size[0] ? ", " : "", size);
}

/* Answer with what (and hint) and the newest entries that fit (oldest
 * first), or with empty when there are none. */
struct list_words {
	const char *what, *hint, *empty;
};

static int answer_list(struct act *a, const json_t *entries, unsigned long dropped, line_fn line_of,
		       const struct list_words *w)
{
	json_int_t max = json_integer_value(json_object_get(a->args, "maxChars"));
	size_t n = json_array_size(entries), first = n, used = 0, out_len = 0;
	char tab[1024], **lines = calloc(n ? n : 1, sizeof *lines), *out = NULL;
	FILE *f;
	int rc;

	if (max <= 0)
		max = LIST_DEFAULT_CHARS;
	if (!lines)
		return hb_call_fail(a->call, "Out of memory while listing the page's record.");
	act_tab_line(a, tab, sizeof tab);
	/* from the newest back, while they fit */
	while (first > 0 && n - first < SHOW_MAX) {
		char *l = line_of(json_array_get(entries, first - 1));
		size_t chars = l ? hb_utf8_count(l, strlen(l)) + 1 : 0;

		if (!l || (used + chars > (size_t)max && first < n)) {
			free(l);
			break;
		}
		lines[--first] = l;
		used += chars;
	}
	if (!(f = open_memstream(&out, &out_len))) {
		rc = hb_call_fail(a->call, "Out of memory while listing the page's record.");
		goto done;
	}
	fprintf(f, "%s%s%s\n", a->note, a->note[0] ? "\n" : "", tab);
	if (n == 0)
		fprintf(f, "%s", w->empty);
	else
		fprintf(f, "%s since the page was opened or last navigated (%zu, oldest first%s):", w->what, n, w->hint);
	if (first > 0 || dropped)
		fprintf(f, "\n(%lu earlier not shown: the newest %zu are%s)", first + dropped, n - first,
			first > 0 && n - first < SHOW_MAX ? "; a larger maxChars shows more" : "");
	for (size_t i = first; i < n; i++)
		fprintf(f, "\n%s", lines[i]);
	if (fclose(f) != 0) {
		free(out);
		rc = hb_call_fail(a->call, "Out of memory while listing the page's record.");
		goto done;
	}
	rc = hb_call_succeed(a->call, out);
	free(out);
done:
	for (size_t i = first; i < n; i++)
		free(lines[i]);
	free(lines);
	return rc;
}

/* The tab's console or requests (read from the connection's pagelog),
 * answered as answer_list does. */
static int answer_record(struct act *a, json_t *(*record_of)(struct pagelog *, const char *, unsigned long *),
			 line_fn line_of, const struct list_words *w)
{
	unsigned long dropped;
	json_t *entries = record_of(cdp_pagelog(a->conn.cdp), a->tab.session, &dropped);
	int rc;

	if (!entries)
		return hb_call_fail(a->call, "Out of memory while reading the page's record.");
	rc = answer_list(a, entries, dropped, line_of, w);
	json_decref(entries);
	return rc;
}

int action_console(struct act *a)
{
	static const struct list_words w = {
		"Console messages", "",
		"The page wrote nothing to its console, and threw no uncaught exception, since it was opened or "
		"last navigated.",
	};

	return answer_record(a, pagelog_console, console_line, &w);
}

int action_network(struct act *a)
{
	static const struct list_words w = {
		"Requests", "; action response with request N shows one's headers and body",
		"The page made no request since it was opened or last navigated.",
	};

	return answer_record(a, pagelog_requests, request_line, &w);
}
