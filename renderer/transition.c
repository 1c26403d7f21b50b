/*
 * transition - reading, checking and writing a scene's "transition"
 * (transition.h).  The manifest and the script share these, so a
 * transition the worker writes is refused with the same sentence the
 * scene folder's check would give.
 */
#include "transition.h"

#include <stdio.h>
#include <string.h>

static const char *const names[] = { "cut", "crossfade", "slide-left", "slide-up" };
#define NAME_COUNT (sizeof names / sizeof names[0])
#define CHOICES "\"cut\", \"crossfade\", \"slide-left\" or \"slide-up\""

const char *transition_name(enum transition_type type)
{
	return (size_t)type < NAME_COUNT ? names[type] : "cut";
}

static const char *read_type(const json_t *v, struct transition *t, char *buf, size_t buflen)
{
	if (!json_is_string(v)) {
		snprintf(buf, buflen, "the transition's type must be a name: " CHOICES);
		return buf;
	}
	for (size_t i = 0; i < NAME_COUNT; i++)
		if (strcmp(json_string_value(v), names[i]) == 0) {
			t->type = (enum transition_type)i;
			t->duration = t->type == TRANSITION_CUT ? 0 : TRANSITION_DEFAULT_S;
			return NULL;
		}
	snprintf(buf, buflen, "\"%.64s\" is not a transition; use " CHOICES, json_string_value(v));
	return buf;
}

static const char *read_duration(const json_t *v, struct transition *t, char *buf, size_t buflen)
{
	double d;

	if (t->type == TRANSITION_CUT) {
		snprintf(buf, buflen, "a cut has no duration; leave \"duration\" out or choose another type");
		return buf;
	}
	if (!json_is_number(v)) {
		snprintf(buf, buflen, "the transition's \"duration\" must be a number of seconds (%g to %g)",
			 TRANSITION_MIN_S, TRANSITION_MAX_S);
		return buf;
	}
	d = json_number_value(v);
	if (!(d >= TRANSITION_MIN_S && d <= TRANSITION_MAX_S)) {
		snprintf(buf, buflen, "the transition's duration is %g s; it must be from %g to %g s", d,
			 TRANSITION_MIN_S, TRANSITION_MAX_S);
		return buf;
	}
	t->duration = d;
	return NULL;
}

const char *transition_read(const json_t *v, struct transition *t, char *buf, size_t buflen)
{
	const char *key;
	json_t *val;

	t->type = TRANSITION_CUT;
	t->duration = 0;
	if (json_is_string(v))
		return read_type(v, t, buf, buflen);
	if (!json_is_object(v)) {
		snprintf(buf, buflen, "\"transition\" must be a type (" CHOICES ") or an object like "
			 "{ \"type\": \"crossfade\", \"duration\": 0.5 }");
		return buf;
	}
	json_object_foreach((json_t *)v, key, val)
		if (strcmp(key, "type") != 0 && strcmp(key, "duration") != 0) {
			snprintf(buf, buflen, "the transition has an unknown key \"%.64s\"; it has \"type\" and "
				 "optionally \"duration\"", key);
			return buf;
		}
	if (!json_object_get(v, "type")) {
		snprintf(buf, buflen, "the transition has no \"type\"; give one of " CHOICES);
		return buf;
	}
	if (read_type(json_object_get(v, "type"), t, buf, buflen))
		return buf;
	if (json_object_get(v, "duration") && read_duration(json_object_get(v, "duration"), t, buf, buflen)) {
		t->type = TRANSITION_CUT;
		t->duration = 0;
		return buf;
	}
	return NULL;
}

const char *transition_fit_problem(const struct transition *t, int first, double prev, double cur, char *buf,
				   size_t buflen)
{
	if (t->type == TRANSITION_CUT)
		return NULL;
	if (first) {
		snprintf(buf, buflen, "the first scene has no scene before it to come from; leave its "
			 "transition out");
		return buf;
	}
	if (t->duration > prev / 2 + 1e-9 || t->duration > cur / 2 + 1e-9) {
		snprintf(buf, buflen, "the %s lasts %g s, more than half of the scene before it (%g s) or of "
			 "this one (%g s); make it at most %g s", transition_name(t->type), t->duration, prev,
			 cur, (prev < cur ? prev : cur) / 2);
		return buf;
	}
	return NULL;
}

json_t *transition_json(const struct transition *t)
{
	if (t->type == TRANSITION_CUT)
		return NULL;
	if (t->duration == TRANSITION_DEFAULT_S)
		return json_string(transition_name(t->type));
	return json_pack("{s:s, s:f}", "type", transition_name(t->type), "duration", t->duration);
}
