/*
 * smil - the SMIL animation subset, evaluated as a pure function of scene
 * time t.
 *
 * Supported: <animate> (from/to/by/values, keyTimes, calcMode discrete |
 * linear | spline with keySplines; paced is refused), <set>,
 * <animateTransform> (translate, scale, rotate, skewX, skewY); `begin` as a
 * list of clock values ("2s", "1.5", "00:01.2", "300ms") and syncbases
 * with offsets ("intro.end", "step1.begin+0.5s"); `dur`, `end` (a list
 * like begin), `repeatCount` (a number; "indefinite" is refused),
 * `repeatDur`, `fill="freeze|remove"`; target by parent or by href="#id"
 * (or xlink:href).  Attribute
 * kinds: numbers, lengths (with a unit, kept), colours (#rgb, #rrggbb,
 * rgb(), names), opacity / fill-opacity / stroke-opacity,
 * stroke-dashoffset, `points`, and path `d` between paths of the same
 * command structure.  Anything else (indefinite, event begins such as
 * "click", additive="sum", accumulate="sum", animateMotion, an attribute
 * of another kind) is a problem naming the file, the line, the element and
 * what to use instead.
 *
 * Also visibility and display, by <set> or in discrete steps.  A style=""
 * on the target that sets the animated property is a problem too (style
 * would win over the attribute written here): move it into an attribute.
 *
 * Timing, simplified: one interval per animation, from the earliest time
 * of its begin list (default 0) for dur x repeatCount, or repeatDur, or
 * until the earliest end at or after the begin, whichever is smallest; an
 * end list wholly before the begin, a syncbase that never comes and a
 * cycle of syncbases are problems.  <animate> and <animateTransform> need
 * dur (or end); a <set> without dur holds from its begin on.  Before the
 * interval, and after it with fill="remove", the base value applies; with
 * fill="freeze" the value at the end of the interval stays.
 *
 * smil_build removes the animation elements from the document (only when
 * it succeeds: a refused document is left as it was) and keeps, per
 * animation, its target element and the attribute's base value; the model
 * borrows those elements, so free it before the document.  smil_apply(t)
 * sets every animated attribute to its value at t (the base value when no
 * animation applies, or no attribute when there was none), so the result
 * never depends on which t came before.  Values are written the same way
 * for the same t (colours as #rrggbb, numbers with at most four decimals),
 * so identical frames serialize to identical bytes.  Several animations of
 * one attribute: the one that began last wins, at equal begins the later
 * one in the file (SMIL's sandwich, without additive).  animateTransform
 * writes the target's transform attribute as its base transform followed
 * by the animated one.
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
/* The animated attributes, one "track" per element and attribute: for
 * i < smil_tracks(m), the element, the attribute's name, and the line and
 * name of its first animation element. */
size_t smil_tracks(const struct smil *m);
void smil_track_info(const struct smil *m, size_t i, const xmlNode **target, const char **attr, int *line,
		     const char **element);
/* Whether an animation of the model changes node or anything inside it. */
int smil_animates_within(const struct smil *m, const xmlNode *node);
void smil_free(struct smil *m);

#endif
