/*
 * soundtrack - the video's sound track, built whole (see soundtrack.h).  Each scene's
 * narration is resampled on its own, so a scene's sound starts exactly on
 * its first frame whatever came before, and the resampler's output is cut
 * or padded to exactly twice the input: the track's length must not drift
 * from the video's by a sample per scene.  The scenes are resampled at
 * once, one thread per core: the track is built before the first frame is
 * encoded, so its time is the render's own (0.65 s for the 66 s
 * reference on one core).
 */
#include "soundtrack.h"

#include <limits.h>
#include <pthread.h>
#include <samplerate.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_RESAMPLERS 8

/* The scenes still to resample, taken one at a time by each thread. */
struct resampling {
	pthread_mutex_t lock;
	const struct audio_part *parts;
	size_t nparts, next;
	int fps;
	float *track;
	int failed;
	char err[256];
};

#define NARRATION_RATE 24000

/* Resamples one scene's narration into out, which holds exactly 2 * n
 * zeroed samples; what the resampler does not fill stays silent. */
static int resample_part(const int16_t *pcm, size_t n, float *out, size_t scene, char *err, size_t errlen)
{
	float *in = malloc(n * sizeof *in);
	SRC_DATA d = { 0 };
	int rc;

	if (!in) {
		snprintf(err, errlen, "out of memory while resampling the narration of scene %zu", scene);
		return -1;
	}
	src_short_to_float_array(pcm, in, (int)n);
	d.data_in = in;
	d.input_frames = (long)n;
	d.data_out = out;
	d.output_frames = (long)(2 * n);
	d.src_ratio = (double)AUDIO_RATE / NARRATION_RATE;
	d.end_of_input = 1;
	rc = src_simple(&d, SRC_SINC_MEDIUM_QUALITY, 1);
	free(in);
	if (rc != 0) {
		snprintf(err, errlen, "cannot resample the narration of scene %zu: %s", scene, src_strerror(rc));
		return -1;
	}
	/* A sinc filter overshoots near full scale; AAC takes [-1, 1]. */
	for (long i = 0; i < d.output_frames_gen; i++)
		out[i] = out[i] > 1.0f ? 1.0f : out[i] < -1.0f ? -1.0f : out[i];
	return 0;
}

/* Checks every part before any work, so a bad one costs no resampling. */
static int check_parts(const struct audio_part *parts, size_t nparts, int fps, size_t *total, char *err,
		       size_t errlen)
{
	const size_t per_frame = AUDIO_SAMPLES_PER_FRAME(fps);
	size_t frames = 0;

	for (size_t i = 0; i < nparts; i++) {
		const struct audio_part *p = &parts[i];
		size_t room;

		if (p->frames < 0 || (size_t)p->frames > SIZE_MAX / per_frame - frames) {
			snprintf(err, errlen, "scene %zu has an impossible length of %ld frames", i + 1, p->frames);
			return -1;
		}
		if (p->n && !p->pcm) {
			snprintf(err, errlen, "scene %zu has %zu narration samples but no data", i + 1, p->n);
			return -1;
		}
		room = (size_t)p->frames * per_frame / 2;
		if (p->n > room || p->n > INT_MAX) {
			snprintf(err, errlen, "the narration of scene %zu lasts %.4f s (%zu samples at 24 kHz), "
				 "longer than the scene's %ld frames (%.4f s)", i + 1, (double)p->n / NARRATION_RATE,
				 p->n, p->frames, (double)p->frames / fps);
			return -1;
		}
		frames += (size_t)p->frames;
	}
	if (frames == 0) {
		snprintf(err, errlen, "the video has no frames, so it has no sound track");
		return -1;
	}
	*total = frames * per_frame;
	return 0;
}

static void *resample_parts(void *arg)
{
	struct resampling *rs = arg;
	char err[256];

	for (;;) {
		size_t i, at = 0;
		pthread_mutex_lock(&rs->lock);
		i = rs->failed ? rs->nparts : rs->next++;
		pthread_mutex_unlock(&rs->lock);
		if (i >= rs->nparts)
			return NULL;
		for (size_t k = 0; k < i; k++)
			at += (size_t)rs->parts[k].frames * AUDIO_SAMPLES_PER_FRAME(rs->fps);
		if (rs->parts[i].n &&
		    resample_part(rs->parts[i].pcm, rs->parts[i].n, rs->track + at, i + 1, err, sizeof err) < 0) {
			pthread_mutex_lock(&rs->lock);
			if (!rs->failed)
				snprintf(rs->err, sizeof rs->err, "%s", err);
			rs->failed = 1;
			pthread_mutex_unlock(&rs->lock);
		}
	}
}

/* Every part into track, on up to one thread per core (this one too). */
static int resample_all(const struct audio_part *parts, size_t nparts, int fps, float *track, char *err,
			size_t errlen)
{
	struct resampling rs = { .parts = parts, .nparts = nparts, .fps = fps, .track = track };
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t helper[MAX_RESAMPLERS];
	size_t helpers = 0, want = cores > 1 ? (size_t)cores - 1 : 0;

	if (want + 1 > nparts)
		want = nparts ? nparts - 1 : 0;
	if (want > MAX_RESAMPLERS)
		want = MAX_RESAMPLERS;
	pthread_mutex_init(&rs.lock, NULL);
	/* A helper that cannot start leaves its share to the others. */
	while (helpers < want && pthread_create(&helper[helpers], NULL, resample_parts, &rs) == 0)
		helpers++;
	resample_parts(&rs);
	for (size_t i = 0; i < helpers; i++)
		pthread_join(helper[i], NULL);
	pthread_mutex_destroy(&rs.lock);
	if (rs.failed)
		snprintf(err, errlen, "%s", rs.err);
	return rs.failed ? -1 : 0;
}

int audio_track(const struct audio_part *parts, size_t nparts, int fps, float **out, size_t *n, char *err,
		size_t errlen)
{
	size_t total;
	float *track;

	*out = NULL;
	*n = 0;
	if (fps <= 0 || (AUDIO_RATE / 2) % fps != 0) {
		snprintf(err, errlen, "the video's rate is %d fps; the sound track needs a whole number of 24 kHz "
			 "samples per frame (30 and 60 fps have one)", fps);
		return -1;
	}
	if (check_parts(parts, nparts, fps, &total, err, errlen) < 0)
		return -1;
	if (!(track = calloc(total, sizeof *track))) {
		snprintf(err, errlen, "out of memory for a sound track of %zu samples", total);
		return -1;
	}
	if (resample_all(parts, nparts, fps, track, err, errlen) < 0) {
		free(track);
		return -1;
	}
	*out = track;
	*n = total;
	return 0;
}
