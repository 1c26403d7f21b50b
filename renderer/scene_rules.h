/*
 * scene_rules - the <style> rules that would silently beat an animation.
 *
 * The evaluator writes each animated value as an attribute, and in SVG
 * (librsvg as browsers) a style sheet's rule beats an attribute: with
 * `.dot { fill: red }`, an <animate attributeName="fill"> on a circle of
 * class dot would show nothing.  Each rule that sets an animated property
 * and whose selector matches the animated element is a problem at the
 * animation's line.  Selectors are matched on their last compound (the
 * element's tag, #id, .classes); the ancestors in a descendant or child
 * selector, attribute selectors and pseudo-classes are taken as matching,
 * so a rule that only might apply is reported too: the fix (take the
 * property out of the rule, set it as an attribute) is cheap, and a
 * silent still frame is not.
 */
#ifndef EXPLAINER_SCENE_RULES_H
#define EXPLAINER_SCENE_RULES_H

#include <libxml/tree.h>

#include "problems.h"
#include "smil.h"

void scene_check_style_rules(xmlDocPtr doc, const struct smil *m, const char *file, struct problems *p);

#endif
