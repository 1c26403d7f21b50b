/*
 * soundtrack - the video's one audio track: every scene's 24 kHz narration
 * resampled to 48 kHz with libsamplerate (SRC_SINC_MEDIUM_QUALITY),
 * followed by silence to the scene's end, so the track is exactly as long
 * as the video (1600 samples per frame at 30 fps, 800 at 60) and both
 * streams end together.
 * The track is built whole and encoded once: AAC frames of 1024 samples
 * cannot be cut at scene boundaries.
 */
#ifndef RENDERER_SOUNDTRACK_H
#define RENDERER_SOUNDTRACK_H

#include <stddef.h>
#include <stdint.h>

#define AUDIO_RATE 48000
/* At 30 or 60 fps: a whole number. */
#define AUDIO_SAMPLES_PER_FRAME(fps) (AUDIO_RATE / (fps))

struct audio_part {
	const int16_t *pcm;   /* 24 kHz mono; NULL with n 0 for a silent scene */
	size_t n;
	long frames;          /* the scene's length in video frames */
};

/* *out (caller frees) holds frames_total * AUDIO_SAMPLES_PER_FRAME(fps)
 * float samples in [-1, 1] for a video of fps frames a second.  A part
 * whose narration is longer than its scene is an error.  0, or -1 with
 * err. */
int audio_track(const struct audio_part *parts, size_t nparts, int fps, float **out, size_t *n, char *err,
		size_t errlen);

#endif
