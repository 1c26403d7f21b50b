/*
 * synth - synthesize the pieces of a text, SYNTH_PARALLEL requests at a
 * time, and hand their audio to the caller strictly in order.
 *
 * Each piece gets SYNTH_ATTEMPTS tries (the first and two retries) with a
 * growing wait between them, longer when Gemini's 429 asks for it.  The
 * first piece that fails for good stops the others (their requests in
 * flight are aborted), and so does the caller's cancel.
 *
 * The audio goes out through the caller's output, in order: for each
 * piece begin, its samples through write (in several calls; a rewind drops
 * those of a failed attempt), then done.  The piece that is next in order
 * is written while its answer arrives, by the thread that reads it, so
 * that little is left to write after Gemini's last byte; every other piece
 * is written when its turn comes.  The callbacks never run two at a time
 * (a lock hands the output from thread to thread), and begin, done and
 * idle run on the calling thread only, so they may use the call's socket
 * (progress lines).
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

/* Each returns 0, or -1 with err (the synthesis then fails with it). */
struct synth_output {
	/* Piece index starts (its samples follow what is written so far). */
	int (*begin)(void *arg, size_t index, char *err, size_t errlen);
	int (*write)(void *arg, const int16_t *samples, size_t n, char *err, size_t errlen);
	/* Drop every sample written since the current piece began. */
	int (*rewind)(void *arg, char *err, size_t errlen);
	/* Piece index is whole. */
	int (*done)(void *arg, size_t index, char *err, size_t errlen);
	/* The next piece is not ready yet: time for deferred work (a flush);
	 * may be NULL. */
	int (*idle)(void *arg, char *err, size_t errlen);
	void *arg;
};

struct synth_request {
	const struct hb_gemini *gemini;  /* its own cancel test is not used */
	const char *model, *voice, *style;
	const char *text;
	const struct speech_chunk *pieces;
	size_t count;
	long backoff_ms;                 /* the wait before the first retry */
	int (*cancelled)(void *arg);
	void *cancel_arg;
	struct synth_output out;
	const char *log_key;             /* the call key, for log lines */
};

enum synth_result { SYNTH_OK, SYNTH_FAILED, SYNTH_CANCELLED };

enum synth_result synth_run(const struct synth_request *r, char *err, size_t errlen);

#endif
