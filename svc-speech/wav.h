/*
 * wav - write one mono 16-bit WAV file piece by piece: under a temporary
 * name in the target folder, renamed to its final name only when whole,
 * so a failed or cancelled synthesis never leaves a half file behind.
 * What is written may be flushed to disk early (speech_wav_sync), while
 * the writer waits for the next piece, so that the flush before the
 * rename has only the last pieces left to do.
 */
#ifndef SPEECH_WAV_H
#define SPEECH_WAV_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "paths.h"

struct speech_wav {
	int fd;
	long rate;
	uint64_t samples;           /* written so far */
	int dirty;                  /* written since the last flush */
	int advise;                 /* posix_fadvise is taken */
	off_t advised;              /* the file up to here is on its way to disk */
	char tmp[HB_PATH_MAX];
	char path[HB_PATH_MAX];     /* the final name, set by open */
};

/* Create dir (0700) if needed and a temporary file in it whose final name
 * will be prefix-YYYYmmdd-HHMMSS-XXXXXX.wav.  0 or -1 with err. */
int speech_wav_open(struct speech_wav *w, const char *dir, const char *prefix, long rate, char *err,
		    size_t errlen);
int speech_wav_append(struct speech_wav *w, const int16_t *s, size_t n, char *err, size_t errlen);
int speech_wav_silence(struct speech_wav *w, size_t n, char *err, size_t errlen);
/* Cut the file back to its first `samples` samples (what was written
 * after them is dropped).  0 or -1 with err. */
int speech_wav_rewind(struct speech_wav *w, uint64_t samples, char *err, size_t errlen);
/* Flush what is written so far to disk.  0 or -1 with err. */
int speech_wav_sync(struct speech_wav *w, char *err, size_t errlen);
/* Write the header, flush to disk and rename to w->path.  0 or -1 (the
 * temporary file is removed either way when it fails). */
int speech_wav_finish(struct speech_wav *w, char *err, size_t errlen);
/* Remove the temporary file (after a failure or a cancel). */
void speech_wav_abort(struct speech_wav *w);

#endif
