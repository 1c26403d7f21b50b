/*
 * answer - Gemini's generateContent answer for speech, read while it
 * arrives from the network, in pieces of any size.
 *
 * A full piece's answer is 7.5 MB of JSON, nearly all of it one base64
 * string (candidates[0].content.parts[].inlineData.data).  Holding the
 * whole text and parsing it after the last byte cost memory and, worse,
 * time on the path of every call; here each byte is looked at once, as it
 * comes, and the audio is decoded into samples on the way (pcm_b64.c).
 * Only the samples and a few short strings are kept, never the JSON.
 *
 * What is accepted is what the service accepted when it parsed the whole
 * text with jansson: the same JSON (nesting up to 2,048, no \u0000, valid
 * UTF-8 and surrogates, integers that fit 64 bits, no trailing garbage;
 * the later of two equal keys wins), the same reading of the parts
 * (audio.c words every verdict), the same base64 rules.
 */
#ifndef SPEECH_ANSWER_H
#define SPEECH_ANSWER_H

#include <stddef.h>

#include "audio.h"

/* An answer larger than this is not a TTS answer: stop reading.  The
 * limit of the shared Gemini client (gemini/gemini.c). */
#define SPEECH_ANSWER_MAX ((size_t)64 << 20)

struct speech_answer;

/* A reader for one answer of at most max_bytes; NULL when memory runs out. */
struct speech_answer *speech_answer_new(size_t max_bytes);
/* The next n bytes of the answer.  0, or -1 once reading further cannot
 * change the verdict (not JSON, too large, out of memory): stop the
 * transfer and ask speech_answer_end. */
int speech_answer_feed(struct speech_answer *a, const void *data, size_t n);
/* The samples decoded so far, valid until the next feed: a caller may
 * write them out before the verdict, at its own risk.  They are at the
 * rate of the part's mimeType, which may come after them, and can still
 * be dropped (a part refused, a repeated key): *generation changes
 * whenever samples reported before are no longer there. */
const int16_t *speech_answer_samples(const struct speech_answer *a, size_t *n, unsigned *generation);
/* After the last byte: SPEECH_AUDIO_OK with the samples (at SPEECH_RATE,
 * malloc'd) in out, or the verdict in err. */
enum speech_audio_result speech_answer_end(struct speech_answer *a, struct speech_audio *out, char *err,
					   size_t errlen);
void speech_answer_free(struct speech_answer *a);

#endif
