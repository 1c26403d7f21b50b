/*
 * scene_css - the CSS a scene may carry (style attributes and <style>
 * sheets), read far enough to check it: no @import, no @font-face, no CSS
 * animation, font families from the fixed set, and url() targets inside
 * the scene.  Names are read with their CSS escapes decoded, as the
 * renderer reads them, so an escaped spelling is refused like the plain.
 *
 * This is not a full CSS parser; it only has to find at-rules, blocks and
 * declarations the way a browser would, so strings, comments and
 * parentheses are skipped as units: a ';' inside url(data:...;base64,...)
 * or a '}' inside a string does not end anything.
 */
#include "scene_check.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fonts.h"
#include "scene_refs.h"

#define ANIMATE_INSTEAD "animate with <animate>, <set> or <animateTransform> instead"

struct css {
	const char *s;
	size_t n;
	const char *file;
	int line;       /* of s[0] */
	int fixed_line; /* a style attribute: every problem on its element's line */
	struct problems *p;
	size_t counted;  /* lines are counted up to here ... */
	int counted_line; /* ... where this line is */
};

/* Problems come in the order of the text, so lines are counted on from the
 * last one: a sheet with many problems is still read once. */
static int line_at(struct css *c, size_t off)
{
	if (c->fixed_line)
		return c->line;
	if (off < c->counted) {
		c->counted = 0;
		c->counted_line = c->line;
	}
	for (; c->counted < off && c->counted < c->n; c->counted++)
		c->counted_line += c->s[c->counted] == '\n';
	return c->counted_line;
}

static int is_ident(char ch)
{
	return isalnum((unsigned char)ch) || ch == '-' || ch == '_';
}

/* The name (an identifier) at k, lowercased into out, with CSS escapes
 * decoded as a browser decodes them ("\69" or "\i" is "i"), so that
 * "@\69mport" is seen as the @import it is; the index after it.  A name
 * longer than out is cut (it matches nothing we look for). */
static size_t read_name(const struct css *c, size_t k, size_t end, char *out, size_t outlen)
{
	size_t n = 0;

	while (k < end) {
		unsigned long ch;
		if (is_ident(c->s[k])) {
			ch = (unsigned char)c->s[k++];
		} else if (c->s[k] == '\\' && k + 1 < end && c->s[k + 1] != '\n') {
			int digits = 0;
			ch = 0;
			for (k++; k < end && digits < 6 && isxdigit((unsigned char)c->s[k]); k++, digits++)
				ch = ch * 16 + (unsigned long)(isdigit((unsigned char)c->s[k]) ? c->s[k] - '0'
								     : (tolower((unsigned char)c->s[k]) - 'a' + 10));
			if (digits == 0)
				ch = (unsigned char)c->s[k++];
			else if (k < end && isspace((unsigned char)c->s[k]))
				k++; /* one white space ends a hex escape */
		} else {
			break;
		}
		/* Only ASCII names matter here; anything else stands as '?'. */
		if (n + 1 < outlen)
			out[n++] = ch > 0 && ch < 128 ? (char)tolower((int)ch) : '?';
	}
	out[n] = '\0';
	return k;
}

/* The index just after a comment or a string starting at i; i when there
 * is none there. */
static size_t skip_unit(struct css *c, size_t i, size_t end)
{
	if (i + 1 < end && c->s[i] == '/' && c->s[i + 1] == '*') {
		for (i += 2; i + 1 < end; i++)
			if (c->s[i] == '*' && c->s[i + 1] == '/')
				return i + 2;
		return end;
	}
	if (i < end && (c->s[i] == '"' || c->s[i] == '\'')) {
		char quote = c->s[i];
		for (i++; i < end && c->s[i] != quote; i++)
			if (c->s[i] == '\\' && i + 1 < end)
				i++;
		return i < end ? i + 1 : end;
	}
	return i;
}

/* The first character of STOPS at nesting depth 0 from i, or end. */
static size_t scan_to(struct css *c, size_t i, size_t end, const char *stops)
{
	int depth = 0;

	while (i < end) {
		size_t j = skip_unit(c, i, end);
		if (j != i) {
			i = j;
			continue;
		}
		char ch = c->s[i];
		if (depth == 0 && ch && strchr(stops, ch))
			return i;
		if (ch == '(' || ch == '{' || ch == '[')
			depth++;
		else if ((ch == ')' || ch == '}' || ch == ']') && depth > 0)
			depth--;
		i++;
	}
	return end;
}

static size_t skip_blank(struct css *c, size_t i, size_t end)
{
	for (;;) {
		while (i < end && isspace((unsigned char)c->s[i]))
			i++;
		size_t j = skip_unit(c, i, end);
		if (j == i || c->s[i] != '/') /* a comment, not a string */
			return i;
		i = j;
	}
}

static void check_urls(struct css *c, size_t i, size_t end)
{
	while (i < end) {
		size_t j = skip_unit(c, i, end);
		if (j != i) {
			i = j;
			continue;
		}
		char name[8];
		size_t k = read_name(c, i, end, name, sizeof name);
		if (k == i) {
			i++;
			continue;
		}
		if (strcmp(name, "url") != 0 || k >= end || c->s[k] != '(') {
			i = k; /* another name, skipped whole: "xurl(" is not url() */
			continue;
		}
		size_t a = k + 1, close = scan_to(c, a, end, ")");
		while (a < close && isspace((unsigned char)c->s[a]))
			a++;
		size_t b = close;
		while (b > a && isspace((unsigned char)c->s[b - 1]))
			b--;
		if (b > a + 1 && (c->s[a] == '"' || c->s[a] == '\'') && c->s[b - 1] == c->s[a]) {
			a++;
			b--;
		}
		scene_check_reference(NULL, c->s + a, b - a, c->file, line_at(c, i), c->p);
		i = close + 1;
	}
}

/* The value of a declaration without comments, spaces around it or
 * !important; caller frees. */
static char *value_text(struct css *c, size_t a, size_t b)
{
	char *v = malloc(b - a + 1);
	size_t n = 0;

	if (!v)
		return NULL;
	while (a < b) {
		size_t j = skip_unit(c, a, b);
		if (j != a && c->s[a] == '/') {
			a = j;
			continue;
		}
		size_t stop = j != a ? j : a + 1; /* a whole string, or one character */
		memcpy(v + n, c->s + a, stop - a);
		n += stop - a;
		a = stop;
	}
	v[n] = '\0';
	char *bang = strrchr(v, '!');
	if (bang && strncasecmp(bang + 1 + strspn(bang + 1, " \t\r\n\f"), "important", 9) == 0)
		*bang = '\0';
	while (n > 0 && isspace((unsigned char)v[n - 1]))
		v[--n] = '\0';
	size_t lead = strspn(v, " \t\r\n\f");
	memmove(v, v + lead, strlen(v + lead) + 1);
	return v;
}

/* The property name without a vendor prefix ("-webkit-animation" -> "animation"). */
static const char *unprefixed(const char *name)
{
	if (name[0] == '-' && name[1] != '-') {
		const char *dash = strchr(name + 1, '-');
		if (dash)
			return dash + 1;
	}
	return name;
}

static void declaration(struct css *c, size_t a, size_t b)
{
	size_t start = skip_blank(c, a, b), colon = scan_to(c, start, b, ":"), k = start;
	char name[64];

	if (colon >= b)
		return;
	read_name(c, k, colon, name, sizeof name);
	const char *prop = unprefixed(name);
	int line = line_at(c, start);

	if (strcmp(name, "font-family") == 0) {
		char *v = value_text(c, colon + 1, b);
		if (v)
			scene_check_family(v, c->file, line, c->p);
		free(v);
	} else if (strcmp(name, "font") == 0) {
		problems_add(c->p, c->file, line, "the CSS font shorthand is not allowed (its family cannot be "
			     "checked); write font-family, font-size and font-weight separately");
	} else if (strncmp(prop, "animation", 9) == 0 || strncmp(prop, "transition", 10) == 0) {
		problems_add(c->p, c->file, line, "CSS animation (the %s property) is not rendered into the "
			     "video; " ANIMATE_INSTEAD, name);
	}
	check_urls(c, colon + 1, b);
}

static void declarations(struct css *c, size_t i, size_t end)
{
	while (i < end) {
		size_t j = scan_to(c, i, end, ";");
		declaration(c, i, j);
		i = j + 1;
	}
}

static void sheet(struct css *c, size_t i, size_t end);

/* The at-rule at i (its '@'); returns where the next rule starts. */
static size_t at_rule(struct css *c, size_t i, size_t end)
{
	char name[64];
	size_t prelude_end = scan_to(c, i, end, ";{");
	int line = line_at(c, i);

	read_name(c, i + 1, end, name, sizeof name);
	const char *rule = unprefixed(name);
	int refused = 1, nested = 0;

	if (strcmp(rule, "import") == 0)
		problems_add(c->p, c->file, line, "@import loads another style sheet; put its rules in this "
			     "<style> element");
	else if (strcmp(rule, "font-face") == 0)
		problems_add(c->p, c->file, line, "@font-face loads a font file; use one of the installed "
			     "families: %s", fonts_family_list());
	else if (strcmp(rule, "keyframes") == 0)
		problems_add(c->p, c->file, line, "CSS animation (@%s) is not rendered into the video; "
			     ANIMATE_INSTEAD, name);
	else
		refused = 0;
	if (!refused && strcmp(rule, "namespace") != 0) /* a namespace's url() is a name, not a load */
		check_urls(c, i, prelude_end);
	nested = strcmp(rule, "media") == 0 || strcmp(rule, "supports") == 0 || strcmp(rule, "layer") == 0 ||
		 strcmp(rule, "container") == 0 || strcmp(rule, "document") == 0;
	if (prelude_end >= end || c->s[prelude_end] == ';')
		return prelude_end + 1;
	size_t close = scan_to(c, prelude_end + 1, end, "}");
	if (nested)
		sheet(c, prelude_end + 1, close);
	else if (!refused)
		declarations(c, prelude_end + 1, close); /* @page and the like */
	return close + 1;
}

static void sheet(struct css *c, size_t i, size_t end)
{
	while (i < end) {
		i = skip_blank(c, i, end);
		if (i + 4 <= end && strncmp(c->s + i, "<!--", 4) == 0) {
			i += 4;
			continue;
		}
		if (i + 3 <= end && strncmp(c->s + i, "-->", 3) == 0) {
			i += 3;
			continue;
		}
		if (i >= end)
			return;
		if (c->s[i] == '@') {
			i = at_rule(c, i, end);
			continue;
		}
		size_t open = scan_to(c, i, end, "{");
		if (open >= end)
			return;
		size_t close = scan_to(c, open + 1, end, "}");
		declarations(c, open + 1, close);
		i = close + 1;
	}
}

void scene_css_declarations(const char *css, const char *file, int line, struct problems *p)
{
	struct css c = { css, strlen(css), file, line, 1, p, 0, line };

	declarations(&c, 0, c.n);
}

void scene_css_sheet(const char *css, const char *file, int line, struct problems *p)
{
	struct css c = { css, strlen(css), file, line, 0, p, 0, line };

	sheet(&c, 0, c.n);
}

void scene_css_urls(const char *value, const char *file, int line, struct problems *p)
{
	struct css c = { value, strlen(value), file, line, 1, p, 0, line };

	check_urls(&c, 0, c.n);
}
