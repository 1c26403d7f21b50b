/*
 * smil_rig - what the tests of the explainer renderer's SMIL evaluator
 * (test_explainer_smil.c, test_explainer_smil_rules.c) share: a scene
 * parsed and its animations loaded, an element found by id, and the value
 * of one of its attributes at a scene time.
 */
#ifndef TEST_SMIL_RIG_H
#define TEST_SMIL_RIG_H

#include <libxml/tree.h>

#include "../../renderer/smil.h"

/* The body starts on line 2 of the document. */
#define SVG(body) "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" " \
	"viewBox=\"0 0 1920 1080\">\n" body "</svg>\n"

struct scene {
	xmlDocPtr doc;
	struct smil *m;
};

xmlDocPtr parse(const char *svg);
struct scene load(const char *svg);
void unload(struct scene *s);
xmlNodePtr by_id(xmlNodePtr node, const char *id);
/* The attribute after smil_apply(t), or "(absent)". */
void expect_at(struct scene *s, double t, const char *id, const char *attr, const char *want);
double number_at(struct scene *s, double t, const char *id, const char *attr);
char *serialize(xmlDocPtr doc);

#endif
