/*
 * smil_read - one animation element read into the model (smil_int.h): its
 * target, the attribute it animates, its calcMode, and a problem for
 * every construct outside the subset, each saying what to use instead.
 * Its timing is read by smil_time.c, its values by smil_frames.c and its
 * easing by smil_curve.c.
 */
#include "smil_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SVG_NS "http://www.w3.org/2000/svg"
#define XLINK_NS "http://www.w3.org/1999/xlink"
#define SUPPORTED_ATTRIBUTES "lengths and numbers (x, y, cx, cy, r, width, height, stroke-width, " \
	"stroke-dashoffset, ...), opacity, fill-opacity, stroke-opacity, colours (fill, stroke, stop-color), " \
	"points, d, visibility and display"

int smil_is_animation(const xmlNode *node)
{
	static const char *const names[] = { "animate", "set", "animateTransform", "animateMotion",
					     "animateColor", "discard", NULL };

	if (node->type != XML_ELEMENT_NODE || (node->ns && strcmp((const char *)node->ns->href, SVG_NS) != 0))
		return 0;
	for (size_t i = 0; names[i]; i++)
		if (strcmp((const char *)node->name, names[i]) == 0)
			return 1;
	return 0;
}

static xmlChar *prop(const struct smil_anim *a, const char *name)
{
	return xmlGetNoNsProp(a->node, BAD_CAST name);
}

static int read_target(struct smil_anim *a, const struct smil_ids *ids, const struct smil_report *r)
{
	xmlChar *href = prop(a, "href");
	int rc = 0;

	if (!href)
		href = xmlGetNsProp(a->node, BAD_CAST "href", BAD_CAST XLINK_NS);
	if (!href) {
		a->target = a->node->parent;
	} else if (href[0] != '#') {
		smil_refuse(r, a, "has href=\"%s\"; name an element of this file as href=\"#id\"", (const char *)href);
		rc = -1;
	} else if (!(a->target = hb_map_get(&ids->elements, (const char *)href + 1))) {
		smil_refuse(r, a, "has href=\"%s\", but no element has id=\"%s\"; give the element to animate that "
			    "id, or put the animation inside it", (const char *)href, (const char *)href + 1);
		rc = -1;
	}
	xmlFree(href);
	if (rc == 0 && (!a->target || a->target->type != XML_ELEMENT_NODE)) {
		smil_refuse(r, a, "has no element to animate; put it inside one, or give it href=\"#id\"");
		rc = -1;
	} else if (rc == 0 && smil_is_animation(a->target)) {
		smil_refuse(r, a, "animates another animation element (<%s>); animate a shape or a group",
			    (const char *)a->target->name);
		rc = -1;
	}
	return rc;
}

/* Whether the target's style="" sets property name (which would override
 * the attribute we write: librsvg, like browsers, lets style win). */
static int style_sets(const xmlNode *target, const char *name)
{
	xmlChar *style = xmlGetNoNsProp(target, BAD_CAST "style");
	const char *s = (const char *)style;
	size_t len = strlen(name);
	int found = 0;

	while (s && *s && !found) {
		s += strspn(s, " \t\r\n;");
		const char *end = s + strcspn(s, ":;");
		const char *last = end;
		while (last > s && strchr(" \t\r\n", last[-1]))
			last--;
		found = *end == ':' && (size_t)(last - s) == len && strncasecmp(s, name, len) == 0;
		s = end + strcspn(end, ";");
	}
	xmlFree(style);
	return found;
}

static int read_transform_type(struct smil_anim *a, const struct smil_report *r)
{
	static const char *const types[] = { "translate", "scale", "rotate", "skewX", "skewY" };
	xmlChar *type = prop(a, "type");
	int rc = -1;

	a->transform = SMIL_TRANSLATE;
	if (!type)
		return 0;
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (strcmp((const char *)type, types[i]) == 0) {
			a->transform = (enum smil_transform)i;
			rc = 0;
		}
	if (rc < 0)
		smil_refuse(r, a, "has type=\"%s\"; animate translate, scale, rotate, skewX or skewY (a matrix "
			    "cannot be interpolated: split it into those)", (const char *)type);
	xmlFree(type);
	return rc;
}

static int check_attribute_type(struct smil_anim *a, const struct smil_report *r)
{
	xmlChar *type = prop(a, "attributeType");
	int rc = 0;

	if (type && strcmp((const char *)type, "XML") != 0 && strcmp((const char *)type, "auto") != 0) {
		if (strcmp((const char *)type, "CSS") != 0) {
			smil_refuse(r, a, "has attributeType=\"%s\"; drop it (or use XML)", (const char *)type);
			rc = -1;
		} else if (!a->attr->presentation) {
			smil_refuse(r, a, "has attributeType=\"CSS\", but %s is not a CSS property; drop attributeType",
				    a->attr->name);
			rc = -1;
		}
	}
	xmlFree(type);
	return rc;
}

static int read_attribute(struct smil_anim *a, const struct smil_report *r)
{
	xmlChar *name = prop(a, "attributeName");
	int rc = -1;

	if (!name)
		smil_refuse(r, a, "has no attributeName; name the attribute to animate, e.g. attributeName=\"%s\"",
			    a->type == SMIL_ANIMATE_TRANSFORM ? "transform" : "opacity");
	else if (!(a->attr = smil_attr_find((const char *)name)))
		smil_refuse(r, a, "animates %s, which the renderer cannot animate; animate %s, or transform with "
			    "<animateTransform>", (const char *)name, SUPPORTED_ATTRIBUTES);
	else if (a->attr->kind == SMIL_TRANSFORM && a->type != SMIL_ANIMATE_TRANSFORM)
		smil_refuse(r, a, "animates %s; use <animateTransform attributeName=\"%s\" type=\"translate\"> (or "
			    "scale, rotate, skewX, skewY)", a->attr->name, a->attr->name);
	else if (a->attr->kind != SMIL_TRANSFORM && a->type == SMIL_ANIMATE_TRANSFORM)
		smil_refuse(r, a, "animates %s; animateTransform animates transform, gradientTransform or "
			    "patternTransform: use <animate attributeName=\"%s\">", a->attr->name, a->attr->name);
	else if (style_sets(a->target, a->attr->name))
		smil_refuse(r, a, "animates %s, but the style attribute of <%s> sets %s too and would override it; "
			    "move %s out of style into a %s=\"...\" attribute", a->attr->name,
			    (const char *)a->target->name, a->attr->name, a->attr->name, a->attr->name);
	else
		rc = 0;
	xmlFree(name);
	if (rc == 0 && check_attribute_type(a, r) < 0)
		rc = -1;
	if (rc == 0 && a->type == SMIL_ANIMATE_TRANSFORM && read_transform_type(a, r) < 0)
		rc = -1;
	return rc;
}

static int refuse_unsupported(struct smil_anim *a, const struct smil_report *r)
{
	xmlChar *additive = prop(a, "additive"), *accumulate = prop(a, "accumulate");
	xmlChar *min = prop(a, "min"), *max = prop(a, "max");
	int rc = 0;

	if (additive && strcmp((const char *)additive, "replace") != 0) {
		smil_refuse(r, a, "has additive=\"%s\"; each animation replaces the value below it, so write the "
			    "sums into values= (to add motions, wrap the element in a <g> per animation)",
			    (const char *)additive);
		rc = -1;
	}
	if (accumulate && strcmp((const char *)accumulate, "none") != 0) {
		smil_refuse(r, a, "has accumulate=\"%s\"; write the growing values out in values= over one longer dur",
			    (const char *)accumulate);
		rc = -1;
	}
	if (min || max) {
		smil_refuse(r, a, "has %s=; set how long it runs with dur, repeatCount, repeatDur or end", min ? "min" : "max");
		rc = -1;
	}
	xmlFree(additive);
	xmlFree(accumulate);
	xmlFree(min);
	xmlFree(max);
	return rc;
}

static int read_calc_mode(struct smil_anim *a, const struct smil_report *r)
{
	xmlChar *mode = prop(a, "calcMode");
	int rc = 0;

	a->calc = SMIL_LINEAR;
	if (!mode || strcmp((const char *)mode, "linear") == 0)
		;
	else if (strcmp((const char *)mode, "discrete") == 0)
		a->calc = SMIL_DISCRETE;
	else if (strcmp((const char *)mode, "spline") == 0)
		a->calc = SMIL_SPLINE;
	else {
		smil_refuse(r, a, "has calcMode=\"%s\"; use discrete, linear or spline (for uneven speeds, linear "
			    "with keyTimes)", (const char *)mode);
		rc = -1;
	}
	/* a <set> holds one value; visibility and display have no in-between */
	if (a->type == SMIL_SET || (a->attr && a->attr->kind == SMIL_KEYWORD))
		a->calc = SMIL_DISCRETE;
	xmlFree(mode);
	return rc;
}

void smil_read_anim(struct smil_anim *a, const struct smil_ids *ids, const struct smil_report *r)
{
	int ok = refuse_unsupported(a, r) == 0;
	int attr_ok = read_target(a, ids, r) == 0 && read_attribute(a, r) == 0;

	ok &= smil_read_timing(a, ids, r) == 0;
	ok &= read_calc_mode(a, r) == 0;
	if (attr_ok && ok) {
		ok = smil_frames_read(a, r) == 0;
		if (ok && a->type != SMIL_SET)
			ok = smil_curve_read(a, r) == 0;
	}
	a->ok = ok && attr_ok;
}
