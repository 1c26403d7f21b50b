/*
 * speech - the synthesize_speech tool: text in, one WAV file under
 * <cache>/agent-speech/ out, through Gemini text-to-speech.
 *
 * The answer is a JSON object {file, durationSeconds, parts, voice, model}
 * so that a model reads it as easily as the explainer, which reaches the
 * same tool as a subcall for its narration.
 */
#ifndef SPEECH_SPEECH_H
#define SPEECH_SPEECH_H

#include <jansson.h>

#include "service.h"

#define SPEECH_DIR "agent-speech"
/* The pause between two parts. */
#define SPEECH_GAP_MS 180

int speech_synthesize(struct hb_call *call, const json_t *args);

#endif
