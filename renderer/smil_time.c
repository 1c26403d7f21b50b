/*
 * smil_time - when each animation runs: clock values ("2s", "1.5",
 * "00:01.2", "300ms"), begin and end lists with syncbases ("intro.end",
 * "step1.begin+0.5s"), their resolution into one interval per animation,
 * and the simple progress of an animation at scene time t.
 *
 * SMIL simplified: one interval per animation, from the earliest time of
 * its begin list; it lasts dur x repeatCount, or repeatDur, or until the
 * earliest end at or after the begin, whichever is smallest.  Syncbases
 * chain to any length; they are resolved with an explicit stack (a scene
 * may chain thousands of steps) and a cycle is a problem, not a hang.
 */
#include "smil_int.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

static const char *digits(const char *s, double *v, int *count)
{
	*v = 0;
	*count = 0;
	for (; *s >= '0' && *s <= '9'; s++, (*count)++)
		*v = *v * 10 + (*s - '0');
	return s;
}

/* ".25" after a whole number of seconds; "" is no fraction. */
static const char *fraction(const char *s, double *v)
{
	double scale = 0.1;

	*v = 0;
	if (*s != '.' || !(s[1] >= '0' && s[1] <= '9'))
		return s;
	for (s++; *s >= '0' && *s <= '9'; s++, scale /= 10)
		*v += (*s - '0') * scale;
	return s;
}

int smil_clock_parse(const char *text, double *seconds)
{
	static const struct { const char *name; double scale; } metrics[] = {
		{ "h", 3600 }, { "min", 60 }, { "s", 1 }, { "ms", 0.001 }, { "", 1 },
	};
	const char *s = skip_space(text);
	size_t len;
	double whole, frac, b, c, f;
	int count, nb, nc;

	s = digits(s, &whole, &count);
	if (!count)
		return -1;
	if (*s == ':') {
		/* hh:mm:ss(.f) or mm:ss(.f): minutes and seconds are two digits, under 60 */
		s = digits(s + 1, &b, &nb);
		c = -1;
		nc = 2;
		if (*s == ':')
			s = digits(s + 1, &c, &nc);
		s = fraction(s, &f);
		if (*skip_space(s) || nb != 2 || nc != 2 || b > 59 || c > 59)
			return -1;
		*seconds = c < 0 ? whole * 60 + b + f : whole * 3600 + b * 60 + c + f;
		return *seconds <= SMIL_NUMBER_MAX ? 0 : -1;
	}
	s = fraction(s, &frac);
	for (len = 0; s[len] >= 'a' && s[len] <= 'z'; len++)
		;
	if (*skip_space(s + len))
		return -1;
	for (size_t i = 0; i < sizeof metrics / sizeof metrics[0]; i++)
		if (strlen(metrics[i].name) == len && strncmp(metrics[i].name, s, len) == 0) {
			*seconds = (whole + frac) * metrics[i].scale;
			return *seconds <= SMIL_NUMBER_MAX ? 0 : -1;
		}
	return -1;
}

static int is_event_name(const char *s, size_t len)
{
	static const char *const events[] = {
		"click", "dblclick", "mousedown", "mouseup", "mouseover", "mousemove", "mouseout",
		"mouseenter", "mouseleave", "focus", "blur", "focusin", "focusout", "activate",
		"keydown", "keyup", "load", "beginEvent", "endEvent", "repeatEvent", "touchstart",
		"touchend", NULL,
	};
	if (len > 7 && strncmp(s, "repeat(", 7) == 0)
		return 1;
	for (size_t i = 0; events[i]; i++)
		if (strlen(events[i]) == len && strncmp(events[i], s, len) == 0)
			return 1;
	return 0;
}

#define USE_INSTEAD "use a clock value (\"2s\") or a syncbase (\"intro.end\", \"step1.begin+0.5s\")"

/* An offset after a syncbase or alone: [+|-] clock value. */
static int parse_offset(const char *s, double *offset)
{
	double sign = 1;

	s = skip_space(s);
	if (*s == '+' || *s == '-') {
		sign = *s == '-' ? -1 : 1;
		s = skip_space(s + 1);
	}
	if (smil_clock_parse(s, offset) < 0)
		return -1;
	*offset *= sign;
	return 0;
}

/* Where "ID.begin" / "ID.end" ends its id: the dot, or NULL. */
static const char *syncbase_dot(const char *s, int *is_end)
{
	for (const char *dot = strchr(s, '.'); dot; dot = strchr(dot + 1, '.')) {
		size_t len = strncmp(dot + 1, "begin", 5) == 0 ? 5 : strncmp(dot + 1, "end", 3) == 0 ? 3 : 0;
		char next = len ? dot[1 + len] : 'x';
		if (dot > s && (next == '\0' || strchr(" \t\r\n+-", next))) {
			*is_end = len == 3;
			return dot;
		}
	}
	return NULL;
}

static int parse_item(const char *item, const struct smil_ids *ids, struct smil_time *out, char *why,
		      size_t whylen)
{
	const char *dot;
	int is_end = 0;

	out->ref = -1;
	out->ref_end = 0;
	if (strcmp(item, "indefinite") == 0) {
		snprintf(why, whylen, "\"indefinite\" waits for a script, which a rendered video never runs; %s", USE_INSTEAD);
		return -1;
	}
	if (strncmp(item, "wallclock(", 10) == 0 || strncmp(item, "accessKey(", 10) == 0) {
		snprintf(why, whylen, "\"%s\" waits for a date or a key press, which a rendered video never has; %s",
			 item, USE_INSTEAD);
		return -1;
	}
	if ((*item >= '0' && *item <= '9') || *item == '+' || *item == '-' || *item == '.') {
		if (parse_offset(item, &out->offset) == 0)
			return 0;
		snprintf(why, whylen, "\"%s\" is not a clock value (write \"2s\", \"1.5\", \"00:01.2\" or \"300ms\")", item);
		return -1;
	}
	if ((dot = syncbase_dot(item, &is_end))) {
		const char *rest = dot + 1 + (is_end ? 3 : 5);
		size_t idlen = (size_t)(dot - item);
		out->offset = 0;
		if (*skip_space(rest) && parse_offset(rest, &out->offset) < 0) {
			snprintf(why, whylen, "\"%s\" has an offset that is not a clock value (write e.g. \"%.*s.%s+0.5s\")",
				 item, (int)idlen, item, is_end ? "end" : "begin");
			return -1;
		}
		char *id = strndup(item, idlen);
		uintptr_t found = id ? (uintptr_t)hb_map_get(&ids->anims, id) : 0;
		free(id);
		if (!id) {
			snprintf(why, whylen, "could not be read: out of memory");
			return -1;
		}
		if (found) {
			out->ref = (long)(found - 1);
			out->ref_end = is_end;
			return 0;
		}
		snprintf(why, whylen, "\"%s\" names no animation: no animate, set or animateTransform has id=\"%.*s\"",
			 item, (int)idlen, item);
		return -1;
	}
	dot = strrchr(item, '.');
	if (is_event_name(dot ? dot + 1 : item, strlen(dot ? dot + 1 : item)))
		snprintf(why, whylen, "\"%s\" is an event, which never happens in a rendered video; %s", item, USE_INSTEAD);
	else
		snprintf(why, whylen, "\"%s\" is neither a clock value nor a syncbase; %s", item, USE_INSTEAD);
	return -1;
}

int smil_times_parse(const char *text, const struct smil_ids *ids, struct smil_times *out, char *why,
		     size_t whylen)
{
	char *copy = strdup(text), *item, *next;

	out->v = NULL;
	out->n = 0;
	if (!copy)
		goto nomem;
	for (item = copy; item; item = next) {
		size_t len;
		if ((next = strchr(item, ';')))
			*next++ = '\0';
		item = (char *)skip_space(item);
		for (len = strlen(item); len > 0 && strchr(" \t\r\n", item[len - 1]); len--)
			item[len - 1] = '\0';
		if (!*item && !next && out->n > 0)
			break; /* "1s;" - a trailing semicolon */
		if (!*item) {
			snprintf(why, whylen, "an empty time; %s", USE_INSTEAD);
			goto fail;
		}
		struct smil_time *grown = realloc(out->v, (out->n + 1) * sizeof *grown);
		if (!grown)
			goto nomem;
		out->v = grown;
		if (parse_item(item, ids, &out->v[out->n], why, whylen) < 0)
			goto fail;
		out->n++;
	}
	free(copy);
	return 0;
nomem:
	snprintf(why, whylen, "could not be read: out of memory");
fail:
	free(copy);
	free(out->v);
	out->v = NULL;
	out->n = 0;
	return -1;
}

/* dur, repeatDur: a clock value above 0 ("indefinite" never ends, and a scene does). */
static int read_duration(struct smil_anim *a, const char *name, double *out, const struct smil_report *r)
{
	xmlChar *text = xmlGetNoNsProp(a->node, BAD_CAST name);
	int rc = 0;

	*out = INFINITY;
	if (!text)
		return 0;
	if (strcmp((const char *)text, "indefinite") == 0 || strcmp((const char *)text, "media") == 0) {
		smil_refuse(r, a, "has %s=\"%s\", which never ends, and a scene does; give a clock value such as "
			    "%s=\"2s\"", name, (const char *)text, name);
		rc = -1;
	} else if (smil_clock_parse((const char *)text, out) < 0 || *out <= 0) {
		smil_refuse(r, a, "has %s=\"%s\"; give a clock value above 0 such as \"2s\", \"1.5\", \"00:01.2\" or "
			    "\"300ms\"", name, (const char *)text);
		rc = -1;
	}
	xmlFree(text);
	return rc;
}

static int read_repeat_count(struct smil_anim *a, const struct smil_report *r)
{
	xmlChar *text = xmlGetNoNsProp(a->node, BAD_CAST "repeatCount");
	const char *s = (const char *)text;
	int rc = 0;

	a->repeat_count = 0;
	if (!text)
		return 0;
	if (strcmp(s, "indefinite") == 0) {
		smil_refuse(r, a, "has repeatCount=\"indefinite\", which never ends, and a scene does; give a number "
			    "of repeats such as repeatCount=\"3\"");
		rc = -1;
	} else if (smil_number_scan(&s, &a->repeat_count) < 0 || *skip_space(s) || a->repeat_count <= 0) {
		smil_refuse(r, a, "has repeatCount=\"%s\"; give a number of repeats above 0 such as \"3\" or \"1.5\"",
			    (const char *)text);
		rc = -1;
	}
	xmlFree(text);
	return rc;
}

static int read_list(struct smil_anim *a, const struct smil_ids *ids, const char *name, struct smil_times *out,
		     const struct smil_report *r)
{
	xmlChar *text = xmlGetNoNsProp(a->node, BAD_CAST name);
	char why[SMIL_WHY_MAX + 200];
	int rc = 0;

	if (text && smil_times_parse((const char *)text, ids, out, why, sizeof why) < 0) {
		smil_refuse(r, a, "has %s=\"%s\": %s", name, (const char *)text, why);
		rc = -1;
	}
	xmlFree(text);
	return rc;
}

static int read_fill(struct smil_anim *a, const struct smil_report *r)
{
	xmlChar *fill = xmlGetNoNsProp(a->node, BAD_CAST "fill");
	int rc = 0;

	a->freeze = fill && strcmp((const char *)fill, "freeze") == 0;
	if (fill && !a->freeze && strcmp((const char *)fill, "remove") != 0) {
		smil_refuse(r, a, "has fill=\"%s\"; on an animation, fill says what happens after it: \"freeze\" or "
			    "\"remove\" (to animate the colour, use attributeName=\"fill\")", (const char *)fill);
		rc = -1;
	}
	xmlFree(fill);
	return rc;
}

int smil_read_timing(struct smil_anim *a, const struct smil_ids *ids, const struct smil_report *r)
{
	int rc = 0;

	rc |= read_list(a, ids, "begin", &a->begin, r);
	rc |= read_list(a, ids, "end", &a->end, r);
	rc |= read_duration(a, "dur", &a->dur, r);
	rc |= read_duration(a, "repeatDur", &a->repeat_dur, r);
	rc |= read_repeat_count(a, r);
	rc |= read_fill(a, r);
	if (rc == 0 && a->type != SMIL_SET && isinf(a->dur) && !xmlHasProp(a->node, BAD_CAST "end")) {
		smil_refuse(r, a, "has no dur; give it one, e.g. dur=\"1s\" (or an end)");
		rc = -1;
	}
	return rc;
}
