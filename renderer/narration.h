/*
 * narration - reading a scene's narration WAV: RIFF with a `fmt ` chunk of
 * PCM (format 1), one channel, 16 bits, 24000 Hz, and a `data` chunk;
 * other chunks (LIST, ...) are skipped.  Anything else is refused with a
 * sentence saying what the file is and what is expected.
 */
#ifndef EXPLAINER_NARRATION_H
#define EXPLAINER_NARRATION_H

#include <stddef.h>
#include <stdint.h>

/* The number of samples, from the header alone.  0, or -1 with err. */
int narration_probe(const char *path, size_t *samples, char *err, size_t errlen);
/* The samples (caller frees *pcm).  0, or -1 with err. */
int narration_read(const char *path, int16_t **pcm, size_t *n, char *err, size_t errlen);

#endif
