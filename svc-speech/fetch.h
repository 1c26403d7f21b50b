/*
 * fetch - one generateContent request of svc-speech, its answer decoded
 * while it arrives (answer.h) instead of after the last byte.
 *
 * The Gemini client (gemini/gemini.c) keeps a whole answer in memory
 * before anyone reads it: right for svc-video's few kilobytes, but for
 * speech it put the parsing of 7.5 MB after the transfer, on the path of
 * every call.  This is the same request (the key only in its header, only
 * to the configured base URL) with the same outcomes and sentences
 * (gemini/gemini_error.h reads the error answers), sent by the shared
 * client's streaming call (hb_http_stream, lib/http.h: its rules,
 * timeouts, cancel test and zeroed header lines), whose sink feeds the
 * reader.
 *
 * A worker keeps one fetch for all its pieces, so the connection to
 * Gemini (its TLS session) is reused from one request to the next.
 */
#ifndef SPEECH_FETCH_H
#define SPEECH_FETCH_H

#include <stddef.h>
#include <stdint.h>

#include "audio.h"
#include "gemini.h"
#include "http.h"

struct speech_fetch {
	struct hb_http_conn *conn; /* kept between requests */
};

/* Told, after each piece of a 200 answer, of the samples decoded so far
 * (speech_answer_samples: provisional until the verdict).  0, or -1 with
 * err to end the request with that error. */
struct speech_fetch_tap {
	int (*fn)(void *arg, const int16_t *samples, size_t n, unsigned generation, char *err, size_t errlen);
	void *arg;
};

/* 0, or -1 when out of memory. */
int speech_fetch_open(struct speech_fetch *f);
void speech_fetch_close(struct speech_fetch *f);

/* POST body to {base}/v1beta/models/{model}:generateContent and read the
 * audio of the answer (tap may be NULL).  HB_GEMINI_OK with out filled
 * (samples at SPEECH_RATE); otherwise err says why, and HB_GEMINI_RETRY
 * means another attempt may help (*retry_after_ms: Gemini's RetryInfo of a
 * 429, or -1). */
enum hb_gemini_outcome speech_fetch_audio(struct speech_fetch *f, const struct hb_gemini *g, const char *model,
					  const char *body, const struct speech_fetch_tap *tap, struct speech_audio *out,
					  long *retry_after_ms, char *err, size_t errlen);

#endif
