/*
 * problems - the list of everything wrong with an explainer folder (see
 * problems.h): appended by every checker, printed whole by the caller.
 */
#include "problems.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void problems_add(struct problems *p, const char *file, int line, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 8;
		struct problem *v = realloc(p->v, cap * sizeof *v);
		if (!v)
			abort(); /* a checker cannot go on without its list */
		p->v = v;
		p->cap = cap;
	}
	struct problem *pr = &p->v[p->n];
	pr->file = strdup(file ? file : "");
	pr->text = strdup(text);
	if (!pr->file || !pr->text)
		abort();
	pr->line = line;
	p->n++;
}

static void format_problem(const struct problem *pr, char *buf, size_t len)
{
	if (pr->file[0] && pr->line > 0)
		snprintf(buf, len, "%s:%d: %s", pr->file, pr->line, pr->text);
	else if (pr->file[0])
		snprintf(buf, len, "%s: %s", pr->file, pr->text);
	else
		snprintf(buf, len, "%s", pr->text);
}

void problems_print(const struct problems *p, FILE *out)
{
	char line[1400];

	for (size_t i = 0; i < p->n; i++) {
		format_problem(&p->v[i], line, sizeof line);
		fprintf(out, "%s\n", line);
	}
}

void problems_first(const struct problems *p, char *buf, size_t len)
{
	if (p->n == 0)
		snprintf(buf, len, "no problem");
	else
		format_problem(&p->v[0], buf, len);
}

void problems_free(struct problems *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].file);
		free(p->v[i].text);
	}
	free(p->v);
	p->v = NULL;
	p->n = p->cap = 0;
}
