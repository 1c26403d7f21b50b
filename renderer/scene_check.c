/*
 * scene_check - the walk over a parsed scene that finds everything a scene
 * may not contain (scene.h lists it).
 *
 * The rules exist because the video must be made from the folder alone,
 * the same on every machine: librsvg would otherwise load files and URLs
 * it is pointed at (href, url(), xml-stylesheet, XInclude), and text in a
 * family that is not installed would silently come out in another face.
 * Each problem says what to write instead, since the reader is a scene
 * author, not a librsvg developer.
 */
#include "scene_check.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scene_refs.h"

#define SVG_NS "http://www.w3.org/2000/svg"
#define XINCLUDE_NS "http://www.w3.org/2001/XInclude"
struct walk {
	const char *file;
	struct problems *p;
	int width, height; /* the video's canvas */
};

static int line_of(xmlNodePtr n)
{
	long line = xmlGetLineNo(n);

	return line > 0 && line <= 0x7fffffff ? (int)line : 0;
}

static int in_ns(xmlNodePtr n, const char *ns)
{
	return n->ns && n->ns->href && strcmp((const char *)n->ns->href, ns) == 0;
}

/* viewBox is four numbers, separated by spaces and/or a comma: the canvas's. */
static int viewbox_is_video(const struct walk *w, const char *v)
{
	const double want[4] = { 0, 0, w->width, w->height };
	const char *s = v;

	for (int i = 0; i < 4; i++) {
		char *end;
		while (isspace((unsigned char)*s) || (i > 0 && *s == ','))
			s++;
		double d = strtod(s, &end);
		if (end == s || d != want[i])
			return 0;
		s = end;
	}
	while (isspace((unsigned char)*s))
		s++;
	return *s == '\0';
}

static void check_root(const struct walk *w, xmlNodePtr root)
{
	char viewbox[64];
	xmlChar *vb;

	snprintf(viewbox, sizeof viewbox, "0 0 %d %d", w->width, w->height);
	if (!root) {
		problems_add(w->p, w->file, 0, "has no <svg> element; a scene is <svg xmlns=\"" SVG_NS "\" "
			     "viewBox=\"%s\">...</svg>", viewbox);
		return;
	}
	if (strcmp((const char *)root->name, "svg") != 0) {
		problems_add(w->p, w->file, line_of(root), "the root element is <%s>, not <svg>; a scene is "
			     "<svg xmlns=\"" SVG_NS "\" viewBox=\"%s\">...</svg>", root->name, viewbox);
		return;
	}
	if (!in_ns(root, SVG_NS))
		problems_add(w->p, w->file, line_of(root), "<svg> is not in the SVG namespace, so librsvg "
			     "would draw nothing; add xmlns=\"" SVG_NS "\"");
	vb = xmlGetNoNsProp(root, (const xmlChar *)"viewBox");
	if (!vb)
		problems_add(w->p, w->file, line_of(root), "<svg> has no viewBox; give it viewBox=\"%s\" and draw "
			     "in those units (the video is %dx%d)", viewbox, w->width, w->height);
	else if (!viewbox_is_video(w, (const char *)vb))
		problems_add(w->p, w->file, line_of(root), "viewBox is \"%s\"; a scene's viewBox must be \"%s\" "
			     "(the video is %dx%d: draw in those units)", (const char *)vb, viewbox, w->width, w->height);
	xmlFree(vb);
}

static void check_attribute(const struct walk *w, xmlNodePtr el, xmlAttrPtr a)
{
	const char *name = (const char *)a->name;
	xmlChar *content = xmlNodeGetContent((xmlNodePtr)a);
	const char *v = content ? (const char *)content : "";
	int line = line_of(el);
	char qname[128];

	if (a->ns && a->ns->prefix)
		snprintf(qname, sizeof qname, "%s:%s", (const char *)a->ns->prefix, name);
	else
		snprintf(qname, sizeof qname, "%s", name);
	if (!a->ns && strncasecmp(name, "on", 2) == 0)
		problems_add(w->p, w->file, line, "the event attribute %s is not allowed: a video has no events "
			     "and runs no code; remove it (animate with <animate>, <set> or "
			     "<animateTransform>)", qname);
	else if (strcmp(name, "href") == 0)
		scene_check_reference(qname, v, strlen(v), w->file, line, w->p);
	else if (!a->ns && strcmp(name, "style") == 0)
		scene_css_declarations(v, w->file, line, w->p);
	else if (!a->ns && strcmp(name, "font-family") == 0)
		scene_check_family(v, w->file, line, w->p);
	else if (!a->ns && strcmp(name, "font") == 0)
		problems_add(w->p, w->file, line, "the font attribute (a shorthand) is not allowed, its family "
			     "cannot be checked; write font-family, font-size and font-weight separately");
	else
		scene_css_urls(v, w->file, line, w->p);
	xmlFree(content);
}

/* Checks one element; whether its children are worth checking (not those
 * of an element refused whole). */
static int check_element(const struct walk *w, xmlNodePtr el)
{
	const char *name = (const char *)el->name;
	int line = line_of(el);

	if (strcmp(name, "script") == 0) {
		problems_add(w->p, w->file, line, "<script> is not allowed: nothing runs in a scene; animate "
			     "with <animate>, <set> or <animateTransform>");
		return 0;
	}
	if (strcmp(name, "foreignObject") == 0) {
		problems_add(w->p, w->file, line, "<foreignObject> is not allowed: librsvg does not draw its "
			     "HTML; use <text> and SVG shapes");
		return 0;
	}
	if (strcmp(name, "include") == 0 && in_ns(el, XINCLUDE_NS)) {
		problems_add(w->p, w->file, line, "XInclude is not allowed: a scene is one file; paste the "
			     "included content into it");
		return 0;
	}
	for (xmlAttrPtr a = el->properties; a; a = a->next)
		check_attribute(w, el, a);
	if (strcmp(name, "style") == 0) {
		xmlChar *css = xmlNodeGetContent(el);
		if (css)
			scene_css_sheet((const char *)css, w->file, line, w->p);
		xmlFree(css);
	}
	return 1;
}

static void walk(const struct walk *w, xmlNodePtr n)
{
	for (; n; n = n->next) {
		if (n->type == XML_ELEMENT_NODE) {
			if (check_element(w, n))
				walk(w, n->children);
		} else if (n->type == XML_PI_NODE && strcmp((const char *)n->name, "xml-stylesheet") == 0) {
			problems_add(w->p, w->file, line_of(n), "<?xml-stylesheet?> loads a style sheet from "
				     "outside the scene; put the rules in a <style> element");
		}
	}
}

void scene_check_document(xmlDocPtr doc, const char *file, int width, int height, struct problems *p)
{
	struct walk w = { file, p, width, height };

	check_root(&w, xmlDocGetRootElement(doc));
	walk(&w, doc->children);
}
