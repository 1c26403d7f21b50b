/*
 * prompt - the generateContent request for one piece of the text.
 *
 * Gemini's 3.1 TTS model reads style notes aloud or answers with text when
 * a prompt is vague (gemini.md, "Limits"), so the prompt says plainly that
 * this is speech synthesis, keeps the director's notes in their own
 * section outside the transcript, labels where the transcript starts and,
 * when the text has several parts, tells the model not to say which part
 * it is reading.
 */
#ifndef SPEECH_PROMPT_H
#define SPEECH_PROMPT_H

#include <stddef.h>

/* The heading after which the words to speak follow, to the end. */
#define SPEECH_TRANSCRIPT_HEADING "### TRANSCRIPT\n"

/* The JSON body for piece `index` (0-based) of `count`: piece is len bytes
 * of UTF-8 (surrounding blanks are dropped), style may be NULL.  malloc'd;
 * NULL when memory runs out. */
char *speech_request_body(const char *piece, size_t len, size_t index, size_t count, const char *voice,
			  const char *style);

#endif
