/*
 * smil_curve - how an animation moves through its values over its simple
 * duration: keyTimes (when each value is reached), calcMode (discrete
 * jumps, linear, or spline easing) and keySplines (one cubic bezier per
 * interval, solved for x by Newton's method with bisection as the
 * fallback, so a flat or steep curve still gives a value).
 */
#include "smil_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "a;b;c" with per_item numbers in each item; one trailing ';' is allowed. */
static int parse_list(const char *text, size_t per_item, double **out, size_t *items)
{
	char *copy = strdup(text), *item, *next;
	double *v = NULL;
	size_t count = 0;

	if (!copy)
		return -1;
	for (item = copy; item; item = next) {
		double *nums, *grown;
		size_t n;
		if ((next = strchr(item, ';')))
			*next++ = '\0';
		if (!next && count > 0 && item[strspn(item, " \t\r\n")] == '\0')
			break;
		if (smil_numbers_parse(item, &nums, &n) < 0)
			goto fail;
		if (n != per_item || !(grown = realloc(v, (count + 1) * per_item * sizeof *v))) {
			free(nums);
			goto fail;
		}
		v = grown;
		memcpy(v + count * per_item, nums, per_item * sizeof *v);
		free(nums);
		count++;
	}
	free(copy);
	*out = v;
	*items = count;
	return 0;
fail:
	free(copy);
	free(v);
	return -1;
}

static int read_key_times(struct smil_anim *a, const char *text, const struct smil_report *r)
{
	size_t n;
	double *kt;

	if (parse_list(text, 1, &kt, &n) < 0) {
		smil_refuse(r, a, "keyTimes=\"%s\" is not a list of numbers separated by ';' (write e.g. \"0;0.3;1\")",
			    text);
		return -1;
	}
	a->key_times = kt;
	if (n != a->nvalues) {
		smil_refuse(r, a, "keyTimes=\"%s\" has %zu time%s for %zu values; give one time per value", text, n,
			    n == 1 ? "" : "s", a->nvalues);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (kt[i] < 0 || kt[i] > 1 || (i > 0 && kt[i] < kt[i - 1])) {
			smil_refuse(r, a, "keyTimes=\"%s\" must rise from 0 to at most 1", text);
			return -1;
		}
	if (kt[0] != 0 || (a->calc != SMIL_DISCRETE && kt[n - 1] != 1)) {
		smil_refuse(r, a, "keyTimes=\"%s\" must start at 0%s", text,
			    a->calc != SMIL_DISCRETE ? " and end at 1" : "");
		return -1;
	}
	return 0;
}

static int read_key_splines(struct smil_anim *a, const char *text, const struct smil_report *r)
{
	size_t n;
	double *ks;

	if (parse_list(text, 4, &ks, &n) < 0) {
		smil_refuse(r, a, "keySplines=\"%s\" is not a list of \"x1 y1 x2 y2\" separated by ';' "
			    "(write e.g. \"0.42 0 0.58 1\")", text);
		return -1;
	}
	a->key_splines = ks;
	if (n + 1 != a->nvalues) {
		smil_refuse(r, a, "keySplines=\"%s\" has %zu curve%s for %zu intervals; give one curve between each "
			    "two values", text, n, n == 1 ? "" : "s", a->nvalues - 1);
		return -1;
	}
	for (size_t i = 0; i < 4 * n; i++)
		if (ks[i] < 0 || ks[i] > 1) {
			smil_refuse(r, a, "keySplines=\"%s\" has a control point outside 0..1", text);
			return -1;
		}
	return 0;
}

int smil_curve_read(struct smil_anim *a, const struct smil_report *r)
{
	xmlChar *times = xmlGetNoNsProp(a->node, BAD_CAST "keyTimes");
	xmlChar *splines = xmlGetNoNsProp(a->node, BAD_CAST "keySplines");
	int rc = 0;

	if (times && read_key_times(a, (const char *)times, r) < 0)
		rc = -1;
	if (splines && a->calc != SMIL_SPLINE) {
		smil_refuse(r, a, "has keySplines but calcMode is not \"spline\"; add calcMode=\"spline\" or drop "
			    "keySplines");
		rc = -1;
	} else if (splines && read_key_splines(a, (const char *)splines, r) < 0) {
		rc = -1;
	} else if (!splines && a->calc == SMIL_SPLINE) {
		smil_refuse(r, a, "has calcMode=\"spline\" without keySplines; add one \"x1 y1 x2 y2\" curve per "
			    "interval, e.g. keySplines=\"0.42 0 0.58 1\"");
		rc = -1;
	}
	xmlFree(times);
	xmlFree(splines);
	return rc;
}

/* One coordinate of the curve from (0,0) to (1,1) with control points p1, p2. */
static double bezier(double p1, double p2, double s)
{
	return 3 * (1 - s) * (1 - s) * s * p1 + 3 * (1 - s) * s * s * p2 + s * s * s;
}

static double bezier_slope(double p1, double p2, double s)
{
	return 3 * (1 - s) * (1 - s) * p1 + 6 * (1 - s) * s * (p2 - p1) + 3 * s * s * (1 - p2);
}

double smil_spline(const double *c, double x)
{
	double s = x, lo = 0, hi = 1;

	for (int i = 0; i < 8; i++) {
		double err = bezier(c[0], c[2], s) - x, slope = bezier_slope(c[0], c[2], s);
		if (fabs(err) < 1e-10)
			return bezier(c[1], c[3], s);
		if (fabs(slope) < 1e-6)
			break;
		s -= err / slope;
		if (s < 0 || s > 1)
			break;
	}
	/* x(s) rises from 0 to 1 when x1 and x2 are in [0,1], so bisection always converges */
	s = x;
	for (int i = 0; i < 64 && fabs(bezier(c[0], c[2], s) - x) >= 1e-12; i++) {
		if (bezier(c[0], c[2], s) < x)
			lo = s;
		else
			hi = s;
		s = (lo + hi) / 2;
	}
	return bezier(c[1], c[3], s);
}

void smil_curve_at(const struct smil_anim *a, double p, size_t *i, double *f)
{
	size_t n = a->nvalues, k = 0;

	*f = 0;
	if (a->calc == SMIL_DISCRETE) {
		if (a->key_times)
			while (k + 1 < n && a->key_times[k + 1] <= p)
				k++;
		else
			k = p * (double)n < (double)n ? (size_t)(p * (double)n) : n - 1;
		*i = k;
		return;
	}
	if (n == 1 || p >= 1) {
		*i = n - 1;
		return;
	}
	if (a->key_times) {
		while (k + 2 < n && a->key_times[k + 1] <= p)
			k++;
		double span = a->key_times[k + 1] - a->key_times[k];
		*f = span > 0 ? (p - a->key_times[k]) / span : 1;
	} else {
		double at = p * (double)(n - 1);
		k = (size_t)at < n - 2 ? (size_t)at : n - 2;
		*f = at - (double)k;
	}
	if (a->calc == SMIL_SPLINE)
		*f = smil_spline(a->key_splines + 4 * k, *f);
	*i = k;
}
