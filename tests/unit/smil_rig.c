/*
 * smil_rig - see smil_rig.h.
 */
#include "smil_rig.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../renderer/smil.h"

xmlDocPtr parse(const char *svg)
{
	xmlDocPtr doc = xmlReadMemory(svg, (int)strlen(svg), "scene.svg", NULL, XML_PARSE_NONET);

	assert_non_null(doc);
	return doc;
}

struct scene load(const char *svg)
{
	struct problems p = { 0 };
	struct scene s = { parse(svg), NULL };

	s.m = smil_build(s.doc, "scene.svg", &p);
	if (!s.m) {
		problems_print(&p, stderr);
		fail_msg("smil_build refused a valid scene");
	}
	assert_int_equal(p.n, 0);
	problems_free(&p);
	return s;
}

void unload(struct scene *s)
{
	smil_free(s->m);
	xmlFreeDoc(s->doc);
}

xmlNodePtr by_id(xmlNodePtr node, const char *id)
{
	for (; node; node = node->next) {
		xmlNodePtr found;
		xmlChar *have;
		if (node->type != XML_ELEMENT_NODE)
			continue;
		have = xmlGetProp(node, BAD_CAST "id");
		if (have && strcmp((const char *)have, id) == 0) {
			xmlFree(have);
			return node;
		}
		xmlFree(have);
		if ((found = by_id(node->children, id)))
			return found;
	}
	return NULL;
}

/* The attribute after smil_apply(t), or "(absent)". */
void expect_at(struct scene *s, double t, const char *id, const char *attr, const char *want)
{
	xmlNodePtr node = by_id(xmlDocGetRootElement(s->doc), id);
	xmlChar *got;

	assert_non_null(node);
	smil_apply(s->m, t);
	got = xmlGetNoNsProp(node, BAD_CAST attr);
	if (strcmp(got ? (const char *)got : "(absent)", want) != 0)
		fail_msg("at t=%g, %s's %s is \"%s\", want \"%s\"", t, id, attr, got ? (const char *)got : "(absent)",
			 want);
	xmlFree(got);
}

double number_at(struct scene *s, double t, const char *id, const char *attr)
{
	xmlNodePtr node = by_id(xmlDocGetRootElement(s->doc), id);
	xmlChar *got;
	double v;

	assert_non_null(node);
	smil_apply(s->m, t);
	assert_non_null(got = xmlGetNoNsProp(node, BAD_CAST attr));
	v = strtod((const char *)got, NULL);
	xmlFree(got);
	return v;
}

char *serialize(xmlDocPtr doc)
{
	xmlChar *text;
	int len;
	char *copy;

	xmlDocDumpMemory(doc, &text, &len);
	assert_non_null(text);
	assert_non_null(copy = strdup((const char *)text));
	xmlFree(text);
	return copy;
}
