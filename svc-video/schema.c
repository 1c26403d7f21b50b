/*
 * schema - the two intents' tables, the JSON schema built from them and
 * the strict check.  The descriptions are written for Gemini: they are
 * the only instructions a structured-output model reads per field.
 */
#include "schema.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define TS_DESCRIPTION "When it happens in the video: MM:SS, or H:MM:SS after the first hour"

static const struct video_section tutorial[] = {
	{ "concepts", "Concepts", "Ideas the video explains that matter for the goal.",
	  { { "name", FIELD_TITLE, NULL, "The concept's name." },
	    { "explanation", FIELD_TEXT, NULL, "What the video says about it, in one or two sentences." } } },
	{ "procedures", "Procedures", "Step-by-step procedures the video shows or describes.",
	  { { "title", FIELD_TITLE, NULL, "What the procedure achieves." },
	    { "steps", FIELD_STEPS, NULL, "The steps in order, as the video does them." } } },
	{ "commands", "Commands", "Commands typed or shown (shell, CLI, tools), each copied exactly.",
	  { { "command", FIELD_COMMAND, NULL, "The command exactly as shown, on one line." },
	    { "purpose", FIELD_TEXT, NULL, "What it does here." } } },
	{ "code", "Code", "Code shown on screen, copied exactly.",
	  { { "language", FIELD_LANGUAGE, NULL, "The language, e.g. python; empty when unclear." },
	    { "code", FIELD_CODE, NULL, "The code exactly as shown, its lines kept." },
	    { "purpose", FIELD_TEXT, NULL, "What the code does or shows." } } },
	{ "onScreenText", "On-screen text",
	  "Text on screen that matters for the goal (slides, error messages, settings, URLs), verbatim.",
	  { { "text", FIELD_TEXT, NULL, "The text as shown." } } },
	{ "caveats", "Caveats", "Warnings, pitfalls, version requirements and limits the video mentions.",
	  { { "text", FIELD_TEXT, NULL, "The caveat." } } },
};

static const struct video_section meeting[] = {
	{ "decisions", "Decisions", "Decisions the participants made.",
	  { { "decision", FIELD_TITLE, NULL, "What was decided." },
	    { "rationale", FIELD_TEXT, NULL, "Why, as said in the meeting; empty when no reason was given." } } },
	{ "requirements", "Requirements", "Requirements and constraints stated.",
	  { { "requirement", FIELD_TEXT, NULL, "The requirement." },
	    { "source", FIELD_LABELED, "stated by", "Who stated it; empty when unclear." } } },
	{ "blockers", "Blockers", "What blocks progress.",
	  { { "blocker", FIELD_TEXT, NULL, "The blocker." },
	    { "owner", FIELD_LABELED, "owner", "Who deals with it; empty when nobody was named." } } },
	{ "actionItems", "Action items", "Tasks someone agreed to do.",
	  { { "task", FIELD_TEXT, NULL, "The task." },
	    { "owner", FIELD_LABELED, "owner", "Who does it; empty when nobody was named." },
	    { "due", FIELD_LABELED, "due", "When it is due, as said; empty when no date was given." } } },
	{ "openQuestions", "Open questions", "Questions raised and left unanswered.",
	  { { "question", FIELD_TEXT, NULL, "The question." } } },
};

static const struct video_section gaps = {
	"gaps", "Gaps",
	"What the goal needs that the video does not show or say, or that cannot be read or heard clearly.",
	{ { "topic", FIELD_TITLE, NULL, "What is missing." },
	  { "detail", FIELD_TEXT, NULL, "Why it is a gap: not covered, cut off, unreadable or inaudible." } },
};

static const struct video_intent_def intents[] = {
	{ "tutorial", "Treat the video as a tutorial: extract concepts, procedures, commands, code, on-screen "
		      "text and caveats.",
	  tutorial, sizeof tutorial / sizeof tutorial[0] },
	{ "meeting", "Treat the video as a meeting recording: extract decisions, requirements, blockers, action "
		     "items and open questions.",
	  meeting, sizeof meeting / sizeof meeting[0] },
};

const struct video_intent_def *video_intent_def(enum video_intent intent)
{
	return &intents[intent == VIDEO_MEETING ? 1 : 0];
}

const struct video_section *video_gaps_def(void)
{
	return &gaps;
}

static size_t nfields(const struct video_section *s)
{
	size_t n = 0;

	while (n < VIDEO_MAX_FIELDS && s->fields[n].name)
		n++;
	return n;
}

/* {"type":"array","description":…,"items":{entry object}}; with_time adds the timestamp. */
static json_t *section_schema(const struct video_section *s, int with_time)
{
	json_t *props = json_object(), *required = json_array(), *item;

	if (with_time) {
		json_object_set_new(props, "timestamp", json_pack("{s:s, s:s}", "type", "string", "description",
								  TS_DESCRIPTION));
		json_array_append_new(required, json_string("timestamp"));
	}
	for (size_t i = 0; i < nfields(s); i++) {
		const struct video_field *f = &s->fields[i];
		json_t *t = f->kind == FIELD_STEPS
				    ? json_pack("{s:s, s:{s:s}, s:s}", "type", "array", "items", "type", "string",
						"description", f->description)
				    : json_pack("{s:s, s:s}", "type", "string", "description", f->description);
		json_object_set_new(props, f->name, t);
		json_array_append_new(required, json_string(f->name));
	}
	item = json_pack("{s:s, s:o, s:o, s:b}", "type", "object", "properties", props, "required", required,
			 "additionalProperties", 0);
	return json_pack("{s:s, s:s, s:o}", "type", "array", "description", s->description, "items", item);
}

json_t *video_schema(enum video_intent intent)
{
	const struct video_intent_def *d = video_intent_def(intent);
	json_t *props = json_object(), *required = json_array();

	json_object_set_new(props, "summary",
			    json_pack("{s:s, s:s}", "type", "string", "description",
				      "What the video offers for the goal, in two to four sentences."));
	json_array_append_new(required, json_string("summary"));
	for (size_t i = 0; i < d->nsections; i++) {
		json_object_set_new(props, d->sections[i].key, section_schema(&d->sections[i], 1));
		json_array_append_new(required, json_string(d->sections[i].key));
	}
	json_object_set_new(props, gaps.key, section_schema(&gaps, 0));
	json_array_append_new(required, json_string(gaps.key));
	return json_pack("{s:s, s:o, s:o, s:b}", "type", "object", "properties", props, "required", required,
			 "additionalProperties", 0);
}

/* n digits at s; -1 when not all digits. */
static long digits(const char *s, size_t n)
{
	long v = 0;

	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

long video_timestamp_seconds(const char *ts)
{
	const char *c1 = strchr(ts, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	size_t len = strlen(ts);
	long h = 0, m, s;

	if (len < 4 || !c1 || strchr(ts + len - 2, ':'))
		return -1;
	s = digits(ts + len - 2, 2);
	if (c2) { /* H:MM:SS */
		if (c1 - ts < 1 || c1 - ts > 2 || c2 - c1 != 3 || ts + len - c2 != 3)
			return -1;
		h = digits(ts, (size_t)(c1 - ts));
		m = digits(c1 + 1, 2);
		if (m > 59)
			return -1;
	} else { /* MM:SS */
		if (c1 - ts < 1 || c1 - ts > 3 || ts + len - c1 != 3)
			return -1;
		m = digits(ts, (size_t)(c1 - ts));
	}
	if (h < 0 || m < 0 || s < 0 || s > 59)
		return -1;
	return h * 3600 + m * 60 + s;
}

static int check_keys(const json_t *obj, const struct video_section *s, int with_time, const char *where,
		      char *err, size_t errlen)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)obj, key, v) {
		int known = with_time && strcmp(key, "timestamp") == 0;
		for (size_t i = 0; !known && s && i < nfields(s); i++)
			known = strcmp(key, s->fields[i].name) == 0;
		if (!known) {
			snprintf(err, errlen, "%s has a field \"%.60s\" the schema does not have", where, key);
			return -1;
		}
	}
	return 0;
}

static int check_entry(const struct video_section *s, const json_t *e, size_t idx, int with_time, char *err,
		       size_t errlen)
{
	char where[160];
	const json_t *ts = json_object_get(e, "timestamp");

	snprintf(where, sizeof where, "%s[%zu]", s->key, idx);
	if (!json_is_object(e)) {
		snprintf(err, errlen, "%s is not an object", where);
		return -1;
	}
	if (with_time && !json_is_string(ts)) {
		snprintf(err, errlen, "%s has no timestamp", where);
		return -1;
	}
	if (with_time && video_timestamp_seconds(json_string_value(ts)) < 0) {
		snprintf(err, errlen, "%s.timestamp is \"%.40s\", not MM:SS or H:MM:SS", where, json_string_value(ts));
		return -1;
	}
	for (size_t i = 0; i < nfields(s); i++) {
		const json_t *v = json_object_get(e, s->fields[i].name);
		int ok = s->fields[i].kind == FIELD_STEPS ? json_is_array(v) : json_is_string(v);
		for (size_t k = 0; ok && s->fields[i].kind == FIELD_STEPS && k < json_array_size(v); k++)
			ok = json_is_string(json_array_get(v, k));
		if (!ok) {
			snprintf(err, errlen, "%s.%s is missing or not %s", where, s->fields[i].name,
				 s->fields[i].kind == FIELD_STEPS ? "an array of strings" : "a string");
			return -1;
		}
	}
	return check_keys(e, s, with_time, where, err, errlen);
}

static int check_section(const struct video_section *s, const json_t *arr, int with_time, char *err,
			 size_t errlen)
{
	const json_t *e;
	size_t i;

	if (!json_is_array(arr)) {
		snprintf(err, errlen, "\"%s\" is missing or not an array", s->key);
		return -1;
	}
	json_array_foreach(arr, i, e)
		if (check_entry(s, e, i, with_time, err, errlen) < 0)
			return -1;
	return 0;
}

int video_schema_check(enum video_intent intent, const json_t *answer, char *err, size_t errlen)
{
	const struct video_intent_def *d = video_intent_def(intent);
	const char *key;
	json_t *v;

	if (!json_is_object(answer)) {
		snprintf(err, errlen, "the answer is not a JSON object");
		return -1;
	}
	if (!json_is_string(json_object_get(answer, "summary"))) {
		snprintf(err, errlen, "\"summary\" is missing or not a string");
		return -1;
	}
	for (size_t i = 0; i < d->nsections; i++)
		if (check_section(&d->sections[i], json_object_get(answer, d->sections[i].key), 1, err, errlen) < 0)
			return -1;
	if (check_section(&gaps, json_object_get(answer, gaps.key), 0, err, errlen) < 0)
		return -1;
	json_object_foreach((json_t *)answer, key, v) {
		int known = strcmp(key, "summary") == 0 || strcmp(key, gaps.key) == 0;
		for (size_t i = 0; !known && i < d->nsections; i++)
			known = strcmp(key, d->sections[i].key) == 0;
		if (!known) {
			snprintf(err, errlen, "the answer has a field \"%.60s\" the %s schema does not have", key,
				 d->name);
			return -1;
		}
	}
	return 0;
}
