/*
 * speech_args - the arguments of synthesize_speech, checked: the text to
 * speak, one of Gemini's thirty prebuilt voices, and optional director's
 * notes (how to speak, never spoken).
 */
#ifndef SPEECH_ARGS_H
#define SPEECH_ARGS_H

#include <jansson.h>
#include <stddef.h>

#define SPEECH_DEFAULT_VOICE "Kore"
/* About 70 minutes of speech; a longer text is a book, not a tool call. */
#define SPEECH_TEXT_MAX_CHARS 60000
#define SPEECH_STYLE_MAX_CHARS 2000

struct speech_args {
	const char *text;   /* borrowed from the arguments */
	size_t text_len;    /* bytes */
	const char *voice;  /* the canonical spelling, from the voice table */
	const char *style;  /* NULL when there are no notes */
};

/* 0, or -1 with a sentence for the model in err. */
int speech_args_parse(const json_t *args, struct speech_args *out, char *err, size_t errlen);
/* The canonical name of voice (any case), or NULL. */
const char *speech_voice_find(const char *voice);

#endif
