/*
 * synth - synthesize the pieces of a text, SYNTH_PARALLEL requests at a
 * time, and hand their audio to the caller strictly in order.
 *
 * Each piece gets SYNTH_ATTEMPTS tries (the first and two retries) with a
 * growing wait between them, longer when Gemini's 429 asks for it.  The
 * first piece that fails for good stops the others (their requests in
 * flight are aborted), and so does the caller's cancel.  The caller's
 * emit runs on the calling thread only, so it may use the call's socket
 * (progress lines) and write the file without a lock.
 */
#ifndef SPEECH_SYNTH_H
#define SPEECH_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "chunk.h"
#include "gemini.h"

#define SYNTH_PARALLEL 3
#define SYNTH_ATTEMPTS 3
/* Pieces done ahead of the one the caller waits for, at most: bounds the
 * audio held in memory when an early piece is slow. */
#define SYNTH_AHEAD 8

typedef int (*synth_emit_fn)(void *arg, size_t index, const int16_t *samples, size_t n, char *err,
			     size_t errlen);

struct synth_request {
	const struct hb_gemini *gemini;  /* its own cancel test is not used */
	const char *model, *voice, *style;
	const char *text;
	const struct speech_chunk *pieces;
	size_t count;
	long backoff_ms;                 /* the wait before the first retry */
	int (*cancelled)(void *arg);
	void *cancel_arg;
	synth_emit_fn emit;
	void *emit_arg;
	const char *log_key;             /* the call key, for log lines */
};

enum synth_result { SYNTH_OK, SYNTH_FAILED, SYNTH_CANCELLED };

enum synth_result synth_run(const struct synth_request *r, char *err, size_t errlen);

#endif
