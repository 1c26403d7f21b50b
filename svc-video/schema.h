/*
 * schema - what Gemini must return for each intent, as one table: the
 * JSON schema sent as responseJsonSchema, the check of the answer and the
 * Markdown (render.c) all read it, so they cannot drift apart.
 *
 * Every intent's answer is an object {summary, gaps, <sections>}: each
 * section an array of entries {timestamp, <fields>}, every field a string
 * (steps: an array of strings); gaps are {topic, detail}, untimed (they
 * are what the video does not show).  No field may be missing or extra:
 * an answer that breaks the schema is an error, never repaired.
 */
#ifndef VIDEO_SCHEMA_H
#define VIDEO_SCHEMA_H

#include <jansson.h>
#include <stddef.h>

enum video_intent { VIDEO_TUTORIAL, VIDEO_MEETING };

enum video_field_kind {
	FIELD_TITLE,     /* bold, first on the line */
	FIELD_TEXT,      /* plain; left out when empty */
	FIELD_LABELED,   /* "label: value"; left out when empty */
	FIELD_COMMAND,   /* inline code */
	FIELD_LANGUAGE,  /* the fence language of the entry's FIELD_CODE */
	FIELD_CODE,      /* a fenced block under the line */
	FIELD_STEPS,     /* an array of strings: a numbered list under the line */
};

#define VIDEO_MAX_FIELDS 3

struct video_field {
	const char *name;
	enum video_field_kind kind;
	const char *label;        /* FIELD_LABELED */
	const char *description;  /* for Gemini */
};

struct video_section {
	const char *key, *heading, *description;
	struct video_field fields[VIDEO_MAX_FIELDS];  /* unused ones have no name */
};

struct video_intent_def {
	const char *name;   /* tutorial | meeting */
	const char *focus;  /* a sentence of the prompt */
	const struct video_section *sections;
	size_t nsections;
};

const struct video_intent_def *video_intent_def(enum video_intent intent);
/* The gaps "section" (topic, detail; no timestamp). */
const struct video_section *video_gaps_def(void);
/* The JSON schema of an intent's answer (new reference). */
json_t *video_schema(enum video_intent intent);
/* 0 when answer follows the schema exactly; -1 with the first break in
 * err ("commands[2].timestamp is \"5 min\", not MM:SS or H:MM:SS"). */
int video_schema_check(enum video_intent intent, const json_t *answer, char *err, size_t errlen);
/* Seconds of "MM:SS" (minutes may pass 59) or "H:MM:SS"; -1 otherwise. */
long video_timestamp_seconds(const char *ts);

#endif
