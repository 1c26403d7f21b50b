/*
 * problems - the list of everything wrong with an explainer folder.
 *
 * `hb-explainer check` must name every problem at once (file:line and a
 * sentence a scene author understands), not stop at the first, so each
 * checker appends here and the caller prints the whole list.
 */
#ifndef EXPLAINER_PROBLEMS_H
#define EXPLAINER_PROBLEMS_H

#include <stddef.h>
#include <stdio.h>

struct problem {
	char *file;   /* the file's name inside the folder ("scene1.svg"), or "" */
	int line;     /* 1-based; 0 when the problem has no line */
	char *text;   /* one sentence, no trailing newline */
};

struct problems {
	struct problem *v;
	size_t n, cap;
};

/* Appends one problem (copies file and the formatted text). */
void problems_add(struct problems *p, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* One line per problem: "FILE:LINE: TEXT" (or "FILE: TEXT" without a line). */
void problems_print(const struct problems *p, FILE *out);
/* The first problem as "FILE:LINE: TEXT" in buf (for one-line errors). */
void problems_first(const struct problems *p, char *buf, size_t len);
void problems_free(struct problems *p);

#endif
