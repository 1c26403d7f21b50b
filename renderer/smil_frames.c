/*
 * smil_frames - the values an animation moves through, from whichever of
 * values / from+to / from+by / by / to it gives, as one list: from+by
 * becomes [from, from+by], and to or by alone start at the target's own
 * value of the attribute (its base value).  Without additive animation
 * the value below an animation is always that base value, so the list is
 * fixed when the scene is read and smil_apply only interpolates.
 */
#include "smil_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP_HINT "use calcMode=\"discrete\" or <set> to step between such values"

static int add_value(struct smil_anim *a, const char *attr_name, const char *text, const struct smil_report *r)
{
	char why[SMIL_WHY_MAX];
	struct smil_value *grown = realloc(a->values, (a->nvalues + 1) * sizeof *grown);

	if (!grown) {
		smil_refuse(r, a, "could not be read: out of memory");
		return -1;
	}
	a->values = grown;
	if (smil_value_parse(a->attr, a->transform, text, &a->values[a->nvalues], why, sizeof why) < 0) {
		smil_refuse(r, a, "%s \"%s\" %s", attr_name, text, why);
		return -1;
	}
	a->nvalues++;
	return 0;
}

static int add_values_list(struct smil_anim *a, const char *text, const struct smil_report *r)
{
	char *copy = strdup(text), *item, *next;
	int rc = 0;

	if (!copy) {
		smil_refuse(r, a, "could not be read: out of memory");
		return -1;
	}
	for (item = copy; item && rc == 0; item = next) {
		if ((next = strchr(item, ';')))
			*next++ = '\0';
		if (!next && a->nvalues > 0 && item[strspn(item, " \t\r\n")] == '\0')
			break; /* "0;1;" */
		rc = add_value(a, "values item", item, r);
	}
	free(copy);
	return rc;
}

/* The target's own value as the first value, for to or by alone. */
static int add_base(struct smil_anim *a, const char *alone, const struct smil_report *r)
{
	xmlChar *base = xmlGetNoNsProp(a->target, BAD_CAST a->attr->name);
	char label[80];
	int rc;

	if (a->type == SMIL_ANIMATE_TRANSFORM) {
		smil_refuse(r, a, "has %s= alone; give animateTransform from= (or values=) as well", alone);
		rc = -1;
	} else if (!base) {
		smil_refuse(r, a, "has %s= alone, which starts from the target's own %s, but <%s> has no %s attribute; "
			    "give it one, or use from= or values=", alone, a->attr->name,
			    (const char *)a->target->name, a->attr->name);
		rc = -1;
	} else {
		snprintf(label, sizeof label, "starts from the target's own %s, but", a->attr->name);
		rc = add_value(a, label, (const char *)base, r);
	}
	xmlFree(base);
	return rc;
}

/* values / from / to / by, read in SMIL's order of precedence. */
static int read_values(struct smil_anim *a, const char *values, const char *from, const char *to,
		       const char *by, const struct smil_report *r)
{
	if (a->type == SMIL_SET) {
		if (values || from || by) {
			smil_refuse(r, a, "takes only to=; use <animate> for values, from or by");
			return -1;
		}
		if (!to) {
			smil_refuse(r, a, "has no to=; give it the value to set, e.g. to=\"visible\"");
			return -1;
		}
		return add_value(a, "to", to, r);
	}
	if (values)
		return add_values_list(a, values, r);
	if (from && to)
		return add_value(a, "from", from, r) < 0 || add_value(a, "to", to, r) < 0 ? -1 : 0;
	if (by)
		return (from ? add_value(a, "from", from, r) : add_base(a, "by", r)) < 0 ||
		       add_value(a, "by", by, r) < 0 ? -1 : 0;
	if (to)
		return add_base(a, "to", r) < 0 || add_value(a, "to", to, r) < 0 ? -1 : 0;
	smil_refuse(r, a, "has no values; give it values=, from= and to=, from= and by=, or to=");
	return -1;
}

/* [from, by] becomes [from, from + by]. */
static int apply_by(struct smil_anim *a, const struct smil_report *r)
{
	char why[SMIL_WHY_MAX];
	struct smil_value sum;

	if (smil_values_match(a->attr, &a->values[0], &a->values[1], why, sizeof why) < 0) {
		smil_refuse(r, a, "cannot add by= to its start: %s", why);
		return -1;
	}
	if (smil_value_sum(a->attr, a->transform, &a->values[0], &a->values[1], &sum) < 0) {
		smil_refuse(r, a, "could not be read: out of memory");
		return -1;
	}
	smil_value_free(&a->values[1]);
	a->values[1] = sum;
	return 0;
}

int smil_frames_read(struct smil_anim *a, const struct smil_report *r)
{
	xmlChar *values = xmlGetNoNsProp(a->node, BAD_CAST "values");
	xmlChar *from = xmlGetNoNsProp(a->node, BAD_CAST "from");
	xmlChar *to = xmlGetNoNsProp(a->node, BAD_CAST "to");
	xmlChar *by = xmlGetNoNsProp(a->node, BAD_CAST "by");
	char why[SMIL_WHY_MAX];
	int rc = read_values(a, (const char *)values, (const char *)from, (const char *)to, (const char *)by, r);

	if (rc == 0 && a->type != SMIL_SET && !values && !(from && to) && by)
		rc = apply_by(a, r);
	if (rc == 0 && a->calc != SMIL_DISCRETE)
		for (size_t i = 1; i < a->nvalues && rc == 0; i++)
			if (smil_values_match(a->attr, &a->values[0], &a->values[i], why, sizeof why) < 0) {
				smil_refuse(r, a, "cannot interpolate %s: %s; %s%s", a->attr->name, why, STEP_HINT,
					    a->attr->kind == SMIL_COLOUR ? " (to fade in or out, animate fill-opacity, "
					    "stroke-opacity or opacity)" : "");
				rc = -1;
			}
	xmlFree(values);
	xmlFree(from);
	xmlFree(to);
	xmlFree(by);
	return rc;
}
