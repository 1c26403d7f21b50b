/*
 * scene_glyphs - the check that every character a scene draws as text is
 * in an installed font (scene_check.h).
 *
 * fontconfig and pango never fail on a character no font has: they draw
 * an empty box, and the video ships with it.  So the text of every <text>,
 * <tspan> and <textPath> (the content only, not <title> or <desc>, which
 * are not drawn) is collected once per scene, each distinct character with
 * the line it first appears on, and the whole set is asked of the fonts at
 * once (fonts_missing).  Whitespace, control characters and the
 * default-ignorable ones (joiners, variation selectors, direction marks)
 * draw nothing and are left out.
 */
#include "scene_check.h"

#include <fontconfig/fontconfig.h>
#include <stdlib.h>

#include "fonts.h"

/* At most this many characters named per scene; the rest are counted. */
#define GLYPHS_REPORTED 16

struct seen {
	FcCharSet *set;
	unsigned *cp; /* in order of first appearance */
	int *line;
	size_t n, cap;
	int oom;
};

static int is_text_element(const xmlNode *n)
{
	return n->type == XML_ELEMENT_NODE && (xmlStrcmp(n->name, (const xmlChar *)"text") == 0 ||
					      xmlStrcmp(n->name, (const xmlChar *)"tspan") == 0 ||
					      xmlStrcmp(n->name, (const xmlChar *)"textPath") == 0);
}

/* Elements inside a text whose content is not drawn. */
static int is_undrawn(const xmlNode *n)
{
	static const char *const undrawn[] = { "title", "desc", "metadata", "style", "script", NULL };

	for (const char *const *u = undrawn; *u; u++)
		if (xmlStrcmp(n->name, (const xmlChar *)*u) == 0)
			return 1;
	return 0;
}

/* Characters that draw nothing: a missing glyph for them is no box. */
static int draws_nothing(unsigned c)
{
	return c < 0x21 || (c >= 0x7f && c <= 0xa0) || c == 0xad || c == 0x34f || c == 0x61c ||
	       (c >= 0x115f && c <= 0x1160) || c == 0x1680 || (c >= 0x17b4 && c <= 0x17b5) ||
	       (c >= 0x180b && c <= 0x180f) || (c >= 0x2000 && c <= 0x200f) || (c >= 0x2028 && c <= 0x202f) ||
	       (c >= 0x205f && c <= 0x206f) || c == 0x3000 || c == 0x3164 || (c >= 0xfe00 && c <= 0xfe0f) ||
	       c == 0xfeff || c == 0xffa0 || (c >= 0x1bca0 && c <= 0x1bca3) || (c >= 0x1d173 && c <= 0x1d17a) ||
	       (c >= 0xe0000 && c <= 0xe0fff);
}

static void remember(struct seen *s, unsigned c, int line)
{
	if (s->oom || draws_nothing(c) || FcCharSetHasChar(s->set, c))
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		unsigned *cp = realloc(s->cp, cap * sizeof *cp);
		if (cp)
			s->cp = cp;
		int *ln = cp ? realloc(s->line, cap * sizeof *ln) : NULL;
		if (!ln) {
			s->oom = 1;
			return;
		}
		s->line = ln;
		s->cap = cap;
	}
	if (!FcCharSetAddChar(s->set, c)) {
		s->oom = 1;
		return;
	}
	s->cp[s->n] = c;
	s->line[s->n++] = line;
}

/* The UTF-8 text of one node (libxml2 has checked it) beginning on LINE. */
static void read_text(struct seen *s, const xmlChar *t, int line)
{
	while (*t) {
		FcChar32 c;
		int len = FcUtf8ToUcs4(t, &c, 4);
		if (len <= 0)
			return;
		line += c == '\n' && line > 0;
		remember(s, c, line);
		t += len;
	}
}

static int line_of(xmlNode *n)
{
	long line = xmlGetLineNo(n);

	return line > 0 && line <= 0x7fffffff ? (int)line : 0;
}

/* The line a text node begins on.  libxml2 gives a text node the line the
 * parser was on when it made the node, after the text's first piece (all
 * of it, or up to the first character reference); so it is the node's
 * line less its newlines, but no earlier than its element's. */
static int text_start_line(xmlNode *text, int element_line)
{
	int line = line_of(text);

	if (line == 0)
		return element_line;
	for (const xmlChar *c = text->content; *c; c++)
		line -= *c == '\n';
	return line < element_line ? element_line : line;
}

static void collect(struct seen *s, xmlNode *n, int in_text)
{
	for (; n; n = n->next) {
		if (n->type == XML_ELEMENT_NODE) {
			if (!is_undrawn(n))
				collect(s, n->children, in_text || is_text_element(n));
		} else if (in_text && (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) && n->content) {
			read_text(s, n->content, text_start_line(n, n->parent ? line_of(n->parent) : 0));
		}
	}
}

void scene_check_glyphs(xmlDocPtr doc, const char *file, struct problems *p)
{
	struct seen s = { FcCharSetCreate(), NULL, NULL, 0, 0, 0 };
	FcCharSet *missing = NULL;
	size_t named = 0, more = 0;

	if (!s.set) {
		problems_add(p, file, 0, "out of memory checking the text's characters against the fonts");
		return;
	}
	collect(&s, xmlDocGetRootElement(doc), 0);
	if (!s.oom && s.n > 0 && !(missing = fonts_missing(s.set)))
		s.oom = 1;
	if (s.oom)
		problems_add(p, file, 0, "out of memory checking the text's characters against the fonts");
	for (size_t i = 0; missing && i < s.n; i++) {
		char utf8[8];
		int len;
		if (!FcCharSetHasChar(missing, s.cp[i]))
			continue;
		if (named == GLYPHS_REPORTED) {
			more++;
			continue;
		}
		len = FcUcs4ToUtf8(s.cp[i], (FcChar8 *)utf8);
		problems_add(p, file, s.line[i], "U+%04X (%.*s) is in no installed font; it would be drawn as an "
			     "empty box: write another character, or draw it with shapes", s.cp[i], len, utf8);
		named++;
	}
	if (more)
		problems_add(p, file, 0, "%zu more characters are in no installed font (only the first %d are "
			     "named)", more, GLYPHS_REPORTED);
	if (missing)
		FcCharSetDestroy(missing);
	FcCharSetDestroy(s.set);
	free(s.cp);
	free(s.line);
}
