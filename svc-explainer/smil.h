/*
 * smil - the SMIL animation subset, evaluated as a pure function of scene
 * time t.
 *
 * Supported: <animate> (from/to/by/values, keyTimes, calcMode discrete |
 * linear | spline with keySplines; paced is refused), <set>,
 * <animateTransform> (translate, scale, rotate, skewX, skewY); `begin` as a
 * list of clock values ("2s", "1.5", "00:01.2", "300ms") and syncbases
 * with offsets ("intro.end", "step1.begin+0.5s"); `dur`, `end`,
 * `repeatCount` (a number; "indefinite" is refused), `repeatDur`,
 * `fill="freeze|remove"`; target by parent or by href="#id".  Attribute
 * kinds: numbers, lengths (with a unit, kept), colours (#rgb, #rrggbb,
 * rgb(), names), opacity / fill-opacity / stroke-opacity,
 * stroke-dashoffset, `points`, and path `d` between paths of the same
 * command structure.  Anything else (indefinite, event begins such as
 * "click", additive="sum", accumulate="sum", animateMotion, an attribute
 * of another kind) is a problem naming the file, the line, the element and
 * what to use instead.
 *
 * smil_build removes the animation elements from the document and keeps,
 * per animation, its target element and the attribute's base value;
 * smil_apply(t) sets every animated attribute to its value at t (the base
 * value when no animation applies), so the result never depends on which
 * t came before.  Several animations of one attribute: the one that began
 * last wins (SMIL's sandwich, without additive).  animateTransform writes
 * the target's transform attribute as its base transform followed by the
 * animated one.
 */
#ifndef EXPLAINER_SMIL_H
#define EXPLAINER_SMIL_H

#include <libxml/tree.h>

#include "problems.h"

struct smil;

/* NULL with every problem appended (name is the file's name for them).
 * A document without animation gives an empty model. */
struct smil *smil_build(xmlDocPtr doc, const char *name, struct problems *p);
void smil_apply(struct smil *m, double t);
/* How many animation elements the model holds. */
size_t smil_count(const struct smil *m);
void smil_free(struct smil *m);

#endif
