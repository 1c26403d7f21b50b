/*
 * scene_rules - style rules that would beat an animation (scene_rules.h).
 *
 * A small reader of rule sets: comments and strings are skipped as units,
 * @media and @supports blocks are read into (their rules apply too), any
 * other at-rule is skipped.  It only has to find selectors and property
 * names; scene_css.c has already checked the sheet's values.
 */
#include "scene_rules.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct rules_walk {
	xmlDocPtr doc;
	const struct smil *m;
	const char *file;
	struct problems *p;
};

/* The sheet with comments blanked (strings kept), so the rest of the
 * reader never meets one.  Caller frees. */
static char *without_comments(const char *css)
{
	char *s = strdup(css);

	for (char *c = s, quote = 0; c && *c; c++) {
		if (quote) {
			if (*c == '\\' && c[1])
				c++;
			else if (*c == quote)
				quote = 0;
		} else if (*c == '"' || *c == '\'') {
			quote = *c;
		} else if (c[0] == '/' && c[1] == '*') {
			char *end = strstr(c + 2, "*/");
			size_t n = end ? (size_t)(end + 2 - c) : strlen(c);
			memset(c, ' ', n);
			c += n - 1;
		}
	}
	return s;
}

/* The index of the '}' that closes the block opened at s[open]. */
static size_t block_end(const char *s, size_t open)
{
	int depth = 0;
	char quote = 0;

	for (size_t i = open; s[i]; i++) {
		if (quote) {
			if (s[i] == '\\' && s[i + 1])
				i++;
			else if (s[i] == quote)
				quote = 0;
		} else if (s[i] == '"' || s[i] == '\'') {
			quote = s[i];
		} else if (s[i] == '{') {
			depth++;
		} else if (s[i] == '}' && --depth == 0) {
			return i;
		}
	}
	return strlen(s);
}

/* Whether the declarations [a, b) set property name. */
static int sets_property(const char *s, size_t a, size_t b, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = a; i < b;) {
		while (i < b && (isspace((unsigned char)s[i]) || s[i] == ';'))
			i++;
		if (i + len < b && strncasecmp(s + i, name, len) == 0) {
			size_t j = i + len;
			while (j < b && isspace((unsigned char)s[j]))
				j++;
			if (j < b && s[j] == ':')
				return 1;
		}
		while (i < b && s[i] != ';')
			i++;
	}
	return 0;
}

static int has_class(const xmlNode *el, const char *cls, size_t len)
{
	xmlChar *attr = xmlGetNoNsProp(el, BAD_CAST "class");
	int found = 0;

	for (const char *c = (const char *)attr; c && *c && !found;) {
		while (*c && isspace((unsigned char)*c))
			c++;
		size_t n = strcspn(c, " \t\r\n");
		found = n == len && strncmp(c, cls, len) == 0;
		c += n;
	}
	xmlFree(attr);
	return found;
}

/* Whether the last compound of selector [a, b) may match el. */
static int may_match(const char *s, size_t a, size_t b, const xmlNode *el)
{
	size_t i = b, depth = 0;

	while (i > a && isspace((unsigned char)s[i - 1]))
		i--;
	b = i;
	/* back to the last combinator outside brackets */
	while (i > a) {
		char ch = s[i - 1];
		if (ch == ']' || ch == ')')
			depth++;
		else if ((ch == '[' || ch == '(') && depth)
			depth--;
		else if (!depth && (isspace((unsigned char)ch) || ch == '>' || ch == '+' || ch == '~'))
			break;
		i--;
	}
	while (i < b) {
		size_t n;
		char kind = s[i];
		if (kind == '[') { /* an attribute selector: taken as matching */
			while (i < b && s[i] != ']')
				i++;
			i++;
			continue;
		}
		if (kind == '.' || kind == '#' || kind == ':')
			i++;
		for (n = 0; i + n < b && (isalnum((unsigned char)s[i + n]) || s[i + n] == '-' || s[i + n] == '_' ||
					  (unsigned char)s[i + n] >= 0x80);
		     n++)
			;
		if (kind == '.' && !has_class(el, s + i, n))
			return 0;
		if (kind == '#') {
			xmlChar *id = xmlGetNoNsProp(el, BAD_CAST "id");
			int same = id && strlen((const char *)id) == n && strncmp((const char *)id, s + i, n) == 0;
			xmlFree(id);
			if (!same)
				return 0;
		}
		if (kind != '.' && kind != '#' && kind != ':' && kind != '*' && n &&
		    (strlen((const char *)el->name) != n || strncmp((const char *)el->name, s + i, n) != 0))
			return 0;
		/* a pseudo-class's argument, :not(...): taken as matching */
		if (kind == ':' && i + n < b && s[i + n] == '(') {
			size_t close = i + n;
			while (close < b && s[close] != ')')
				close++;
			n = close - i + 1;
		}
		i += n ? n : 1;
	}
	return 1;
}

/* Rule [sel, sel_end) { [dec, dec_end) } against every animated attribute. */
static void check_rule(const struct rules_walk *w, const char *s, size_t sel, size_t sel_end, size_t dec,
		       size_t dec_end)
{
	for (size_t t = 0; t < smil_tracks(w->m); t++) {
		const xmlNode *target;
		const char *attr, *element;
		int line;

		smil_track_info(w->m, t, &target, &attr, &line, &element);
		if (!sets_property(s, dec, dec_end, attr))
			continue;
		for (size_t a = sel; a < sel_end;) {
			size_t b = a;
			while (b < sel_end && s[b] != ',')
				b++;
			if (may_match(s, a, b, target)) {
				while (a < b && isspace((unsigned char)s[a]))
					a++;
				problems_add(w->p, w->file, line, "<%s> animates %s of <%s>, but the <style> rule \"%.*s\" "
					     "sets %s too, and a style rule wins over the animated attribute; take %s out "
					     "of that rule and set it as an attribute of the element", element, attr,
					     (const char *)target->name, (int)(b - a > 80 ? 80 : b - a), s + a, attr, attr);
				break;
			}
			a = b + 1;
		}
	}
}

static void read_rules(const struct rules_walk *w, const char *s, size_t i, size_t end)
{
	while (i < end) {
		while (i < end && (isspace((unsigned char)s[i]) || s[i] == ';' || s[i] == '}'))
			i++;
		if (i >= end)
			return;
		size_t start = i, open;
		while (i < end && s[i] != '{' && !(s[start] == '@' && s[i] == ';'))
			i++;
		if (i >= end)
			return;
		if (s[i] == ';') { /* @import and its kind: checked elsewhere */
			i++;
			continue;
		}
		open = i;
		size_t close = block_end(s, open);
		if (close > end)
			close = end;
		if (s[start] == '@') {
			if (strncasecmp(s + start, "@media", 6) == 0 || strncasecmp(s + start, "@supports", 9) == 0)
				read_rules(w, s, open + 1, close);
		} else {
			check_rule(w, s, start, open, open + 1, close);
		}
		i = close + 1;
	}
}

static void walk_styles(const struct rules_walk *w, const xmlNode *n)
{
	for (; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (xmlStrcmp(n->name, BAD_CAST "style") == 0) {
			xmlChar *css = xmlNodeGetContent(n);
			char *s = css ? without_comments((const char *)css) : NULL;
			if (s)
				read_rules(w, s, 0, strlen(s));
			free(s);
			xmlFree(css);
		}
		walk_styles(w, n->children);
	}
}

void scene_check_style_rules(xmlDocPtr doc, const struct smil *m, const char *file, struct problems *p)
{
	const struct rules_walk w = { doc, m, file, p };

	if (smil_tracks(m) > 0)
		walk_styles(&w, xmlDocGetRootElement(doc));
}
