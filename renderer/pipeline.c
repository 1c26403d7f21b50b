/*
 * pipeline - an explainer folder to its MP4 (see pipeline.h).
 *
 * Three kinds of thread share one ring of "runs" (a run is a picture and
 * the number of consecutive frames that show it):
 *   - the producer evaluates every frame's SVG in order (cheap: libxml2)
 *     and either adds one to the last run's count, when the text is the
 *     same, or starts a new run;
 *   - drawers (one per core, each with its own framer) draw new runs'
 *     pictures, in any order;
 *   - the caller's thread encodes runs strictly in order, each picture as
 *     many times as its run counts, and reports progress.
 * Transitions between scenes are played on the encoder's thread, frame by
 * frame, from pictures already drawn (transition_play.h), so runs and
 * their reuse do not change.
 * The ring bounds memory (a few 3 MB pictures) and keeps drawers at most a
 * ring ahead of the encoder.  Waits are bounded so a cancel, a failure or
 * the end is seen within a frame.
 */
#include "pipeline.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "soundtrack.h"
#include "captions.h"
#include "clock.h"
#include "encode.h"
#include "frame.h"
#include "narration.h"
#include "output.h"
#include "scene.h"
#include "transition_play.h"

#define MAX_DRAWERS 32
#define WAIT_SLICE_MS 20

enum slot_state { SLOT_FREE, SLOT_TODO, SLOT_DRAWING, SLOT_DRAWN };

struct run {
	enum slot_state state;
	long count;       /* frames showing this picture so far */
	int closed;       /* count is final */
	const char *still; /* the scene's still layer (the scene owns it), or NULL */
	size_t still_len;
	char *svg;        /* the moving layer to draw; freed once drawn */
	size_t len;
	const char *overlay; /* the caption drawn over it (the ring owns it), or NULL */
	size_t overlay_len;
	uint8_t *yuv;
};

struct ring {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct run *runs;
	long size;
	long head;        /* runs started by the producer */
	long next_draw;   /* the next run a drawer takes */
	long tail;        /* the run the encoder is on */
	int producer_done;
	int failed;
	char err[512];
	const atomic_int *cancel;
	long long deadline_ms;    /* 0: none */
	const struct explainer *e;
	struct scene **scenes;
	struct transition_play *play; /* the transitions, played as frames reach the encoder */
	long drawn;
	struct captions captions;   /* burned in: the cues, and each one's layer */
	char **overlays;
	size_t *overlay_lens;
};

/* The deadline counts as a cancel: a slow scene must not outlive the
 * time its caller was given. */
static int past_deadline(const struct ring *r)
{
	return r->deadline_ms > 0 && hb_monotonic_ms() >= r->deadline_ms;
}

static int cancelled(const struct ring *r)
{
	return (r->cancel && atomic_load(r->cancel)) || past_deadline(r);
}

/* Under the lock: whether work must stop now. */
static int stopping(const struct ring *r)
{
	return r->failed || cancelled(r);
}

static void fail(struct ring *r, const char *text)
{
	pthread_mutex_lock(&r->lock);
	if (!r->failed) {
		r->failed = 1;
		snprintf(r->err, sizeof r->err, "%s", text);
	}
	pthread_cond_broadcast(&r->changed);
	pthread_mutex_unlock(&r->lock);
}

/* Under the lock: wait for a change, or a slice, so a cancel (a flag set
 * by a signal handler, which cannot signal a condition) is seen soon. */
static void wait_slice(struct ring *r)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += WAIT_SLICE_MS * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&r->changed, &r->lock, &ts);
}

/* ---- the producer ----------------------------------------------------- */

/* The caption layer shown on frame number frame of the video, or NULL. */
static const char *overlay_at(const struct ring *r, long frame, size_t *len)
{
	long i = r->overlays ? captions_index_at(&r->captions, scene_frame_time(frame, r->e->fps)) : -1;

	*len = i < 0 ? 0 : r->overlay_lens[i];
	return i < 0 ? NULL : r->overlays[i];
}

/* Starts run number r->head with a copy of svg; waits for a free slot. */
static int start_run(struct ring *r, const char *still, size_t still_len, const char *svg, size_t len,
		     const char *overlay, size_t overlay_len)
{
	char *copy = malloc(len ? len : 1);
	struct run *run;

	if (!copy) {
		fail(r, "out of memory for a frame's SVG");
		return -1;
	}
	memcpy(copy, svg, len);
	pthread_mutex_lock(&r->lock);
	if (r->head > 0)
		r->runs[(r->head - 1) % r->size].closed = 1;
	while (!stopping(r) && r->head - r->tail >= r->size)
		wait_slice(r);
	if (stopping(r)) {
		pthread_mutex_unlock(&r->lock);
		free(copy);
		return -1;
	}
	run = &r->runs[r->head % r->size];
	run->state = SLOT_TODO;
	run->count = 1;
	run->closed = 0;
	run->still = still;
	run->still_len = still_len;
	run->svg = copy;
	run->len = len;
	run->overlay = overlay;
	run->overlay_len = overlay_len;
	r->head++;
	pthread_cond_broadcast(&r->changed);
	pthread_mutex_unlock(&r->lock);
	return 0;
}

static void *produce(void *arg)
{
	struct ring *r = arg;
	char *prev = NULL, err[512];
	const char *prev_still = NULL, *prev_overlay = NULL;
	size_t prev_len = 0;

	for (size_t s = 0; s < r->e->n; s++) {
		for (long k = 0; k < r->e->scenes[s].frames; k++) {
			const char *still, *svg, *overlay;
			size_t still_len, len, overlay_len;
			double t = explainer_scene_time(&r->e->scenes[s], scene_frame_time(k, r->e->fps));

			overlay = overlay_at(r, r->e->scenes[s].first_frame + k, &overlay_len);
			if (scene_layers_at(r->scenes[s], t, &still, &still_len, &svg, &len, err, sizeof err) < 0) {
				fail(r, err);
				goto out;
			}
			/* The same scene's still layer, the same moving text and
			 * the same caption: the same picture. */
			if (prev && still == prev_still && overlay == prev_overlay && len == prev_len &&
			    memcmp(svg, prev, len) == 0) {
				pthread_mutex_lock(&r->lock);
				r->runs[(r->head - 1) % r->size].count++;
				pthread_cond_broadcast(&r->changed);
				pthread_mutex_unlock(&r->lock);
				continue;
			}
			if (start_run(r, still, still_len, svg, len, overlay, overlay_len) < 0)
				goto out;
			prev_still = still;
			prev_overlay = overlay;
			free(prev);
			if (!(prev = malloc(len ? len : 1))) {
				fail(r, "out of memory for a frame's SVG");
				goto out;
			}
			memcpy(prev, svg, len);
			prev_len = len;
		}
	}
out:
	free(prev);
	pthread_mutex_lock(&r->lock);
	if (r->head > 0)
		r->runs[(r->head - 1) % r->size].closed = 1;
	r->producer_done = 1;
	pthread_cond_broadcast(&r->changed);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* ---- the drawers -------------------------------------------------------- */

static void *draw(void *arg)
{
	struct ring *r = arg;
	char err[512];
	struct framer *f = framer_new(r->e->width, r->e->height, err, sizeof err);

	if (!f) {
		fail(r, err);
		return NULL;
	}
	pthread_mutex_lock(&r->lock);
	for (;;) {
		while (!stopping(r) && r->next_draw == r->head && !r->producer_done)
			wait_slice(r);
		if (stopping(r) || r->next_draw == r->head)
			break;
		struct run *run = &r->runs[r->next_draw++ % r->size];
		run->state = SLOT_DRAWING;
		pthread_mutex_unlock(&r->lock);
		int rc;
		/* A burned-in caption is drawn over the whole frame, so such a
		 * frame is drawn and converted whole; any other only where its
		 * moving layer paints. */
		if (run->overlay) {
			rc = framer_draw_layers(f, run->still, run->still_len, run->svg, run->len, err, sizeof err);
			if (rc == 0)
				rc = framer_draw_over(f, run->overlay, run->overlay_len, err, sizeof err);
			if (rc == 0)
				framer_yuv(f, run->yuv);
		} else {
			rc = framer_draw_yuv(f, run->still, run->still_len, run->svg, run->len, run->yuv, err,
					     sizeof err);
		}
		pthread_mutex_lock(&r->lock);
		free(run->svg);
		run->svg = NULL;
		if (rc < 0) {
			if (!r->failed) {
				r->failed = 1;
				snprintf(r->err, sizeof r->err, "%s", err);
			}
		} else {
			run->state = SLOT_DRAWN;
			r->drawn++;
		}
		pthread_cond_broadcast(&r->changed);
	}
	pthread_mutex_unlock(&r->lock);
	framer_free(f);
	return NULL;
}

/* ---- the encoder (the caller's thread) ---------------------------------- */

static void report(const struct render_options *o, const char *phase, long done, long total)
{
	if (o->progress)
		o->progress(o->progress_arg, phase, done, total);
}

/* Encodes every run in order; 0, or -1 (r->err says why). */
static int consume(struct ring *r, struct encoder *enc, const struct render_options *o, long *encoded)
{
	char err[512];

	pthread_mutex_lock(&r->lock);
	for (;;) {
		while (!stopping(r) && r->tail == r->head && !r->producer_done)
			wait_slice(r);
		if (stopping(r) || r->tail == r->head)
			break;
		struct run *run = &r->runs[r->tail % r->size];
		while (!stopping(r) && run->state != SLOT_DRAWN)
			wait_slice(r);
		for (long done = 0; !stopping(r);) {
			if (done == run->count) {
				if (run->closed)
					break;
				wait_slice(r);
				continue;
			}
			long todo = run->count - done;
			pthread_mutex_unlock(&r->lock);
			for (; todo > 0; todo--, done++) {
				const uint8_t *picture = transition_play_frame(r->play, *encoded, run->yuv);
				if (encoder_video(enc, picture, err, sizeof err) < 0) {
					fail(r, err);
					break;
				}
				if (++*encoded % 15 == 0 || *encoded == r->e->total_frames)
					report(o, "rendering", *encoded, r->e->total_frames);
				if (cancelled(r))
					break;
			}
			pthread_mutex_lock(&r->lock);
		}
		if (stopping(r))
			break;
		run->state = SLOT_FREE;
		r->tail++;
		pthread_cond_broadcast(&r->changed);
	}
	int rc = stopping(r) ? -1 : 0;
	if (rc < 0 && !r->failed && past_deadline(r) && !(r->cancel && atomic_load(r->cancel)))
		snprintf(r->err, sizeof r->err, RENDER_DEADLINE_ERR ", after frame %ld of %ld", *encoded,
			 r->e->total_frames);
	else if (cancelled(r) && !r->failed)
		snprintf(r->err, sizeof r->err, "cancelled");
	pthread_cond_broadcast(&r->changed);
	pthread_mutex_unlock(&r->lock);
	return rc;
}

/* ---- setting it up ------------------------------------------------------ */

struct scene **scenes_load(const struct explainer *e, struct problems *p)
{
	struct scene **v = calloc(e->n ? e->n : 1, sizeof *v);
	size_t before = p->n;

	if (!v) {
		problems_add(p, "", 0, "out of memory while loading the scenes");
		return NULL;
	}
	for (size_t i = 0; i < e->n; i++)
		v[i] = scene_load(e->scenes[i].svg_path, e->scenes[i].svg, e->width, e->height, p);
	if (p->n != before) {
		scenes_free(v, e->n);
		return NULL;
	}
	return v;
}

void scenes_free(struct scene **v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		scene_free(v[i]);
	free(v);
}

/* The 48 kHz track of the whole video; NULL with err. */
static float *build_audio(const struct explainer *e, size_t *n, char *err, size_t errlen)
{
	struct audio_part *parts = calloc(e->n ? e->n : 1, sizeof *parts);
	int16_t **pcm = calloc(e->n ? e->n : 1, sizeof *pcm);
	float *track = NULL;
	size_t i;

	if (!parts || !pcm) {
		snprintf(err, errlen, "out of memory for the narration");
		goto out;
	}
	for (i = 0; i < e->n; i++) {
		parts[i].frames = e->scenes[i].frames;
		if (e->scenes[i].wav_path &&
		    narration_read(e->scenes[i].wav_path, &pcm[i], &parts[i].n, err, errlen) < 0)
			goto out;
		parts[i].pcm = pcm[i];
	}
	if (audio_track(parts, e->n, e->fps, &track, n, err, errlen) < 0)
		track = NULL;
out:
	for (i = 0; pcm && i < e->n; i++)
		free(pcm[i]);
	free(pcm);
	free(parts);
	return track;
}

static int ring_init(struct ring *r, const struct explainer *e, struct scene **scenes, int drawers,
		     const struct render_options *o)
{
	memset(r, 0, sizeof *r);
	r->e = e;
	r->scenes = scenes;
	r->cancel = o->cancel;
	r->deadline_ms = o->deadline_ms;
	r->size = 2L * drawers + 2;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->changed, NULL);
	/* The canvas's size is the encoder's (encode.h). */
	if (!(r->runs = calloc((size_t)r->size, sizeof *r->runs)) ||
	    !(r->play = transition_play_new(e, e->width, e->height)))
		return -1;
	for (long i = 0; i < r->size; i++)
		if (!(r->runs[i].yuv = malloc(FRAME_YUV_SIZE(e->width, e->height))))
			return -1;
	return 0;
}

/* The captions' cues and each one's layer, for burning them in. */
static int ring_captions(struct ring *r, char *err, size_t errlen)
{
	const int width = r->e->width, height = r->e->height;

	if (captions_build(r->e, &r->captions, err, errlen) < 0)
		return -1;
	if (r->captions.n == 0)
		return 0;
	r->overlays = calloc(r->captions.n, sizeof *r->overlays);
	r->overlay_lens = calloc(r->captions.n, sizeof *r->overlay_lens);
	if (!r->overlays || !r->overlay_lens) {
		snprintf(err, errlen, "out of memory for the captions");
		return -1;
	}
	for (size_t i = 0; i < r->captions.n; i++)
		if (!(r->overlays[i] = captions_overlay_svg(&r->captions.v[i], width, height, &r->overlay_lens[i], err,
							    errlen)))
			return -1;
	return 0;
}

static void ring_free(struct ring *r)
{
	for (size_t i = 0; r->overlays && i < r->captions.n; i++)
		free(r->overlays[i]);
	free(r->overlays);
	free(r->overlay_lens);
	captions_free(&r->captions);
	for (long i = 0; r->runs && i < r->size; i++) {
		free(r->runs[i].svg);
		free(r->runs[i].yuv);
	}
	free(r->runs);
	transition_play_free(r->play);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->changed);
}

static int drawer_count(const struct render_options *o)
{
	long n = o->threads > 0 ? o->threads : sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > MAX_DRAWERS ? MAX_DRAWERS : (int)n;
}

/* Runs the threads and encodes; 0 or -1 with err. */
static int run_threads(struct ring *r, struct encoder *enc, const struct render_options *o, int drawers,
		       long *encoded, char *err, size_t errlen)
{
	pthread_t producer, drawer[MAX_DRAWERS];
	int started = 0, rc;

	if (pthread_create(&producer, NULL, produce, r) != 0) {
		snprintf(err, errlen, "cannot start a thread: %s", strerror(errno));
		return -1;
	}
	for (; started < drawers; started++)
		if (pthread_create(&drawer[started], NULL, draw, r) != 0)
			break;
	if (started == 0)
		fail(r, "cannot start a drawing thread");
	rc = consume(r, enc, o, encoded);
	pthread_join(producer, NULL);
	for (int i = 0; i < started; i++)
		pthread_join(drawer[i], NULL);
	if (rc < 0 || r->failed || *encoded != r->e->total_frames) {
		snprintf(err, errlen, "%s", r->err[0] ? r->err : "the frames did not all reach the encoder");
		return -1;
	}
	return 0;
}

int render_explainer(const struct explainer *e, const char *target, const struct render_options *o,
		     struct render_stats *stats, struct problems *p, char *err, size_t errlen)
{
	struct encoder_settings settings = { o->preset ? o->preset : "veryfast", o->crf > 0 ? o->crf : 20, 0,
					     e->width, e->height, e->fps };
	struct output out = { NULL, NULL };
	struct encoder *enc = NULL;
	struct scene **scenes;
	struct ring r;
	int drawers = drawer_count(o), rc = -1;
	float *track = NULL;
	size_t nsamples = 0;
	long encoded = 0;

	memset(stats, 0, sizeof *stats);
	report(o, "checking", 0, 0);
	if (!(scenes = scenes_load(e, p))) {
		problems_first(p, err, errlen);
		return -1;
	}
	report(o, "audio", 0, 0);
	if (!(track = build_audio(e, &nsamples, err, errlen)))
		goto out_scenes;
	if (ring_init(&r, e, scenes, drawers, o) < 0) {
		snprintf(err, errlen, "out of memory for the frames in flight");
		ring_free(&r);
		goto out_scenes;
	}
	if (o->burn_captions && ring_captions(&r, err, errlen) < 0)
		goto out_ring;
	if (output_begin(&out, target, err, errlen) < 0)
		goto out_ring;
	if (!(enc = encoder_open(out.tmp, &settings, err, errlen)) ||
	    encoder_audio(enc, track, nsamples, err, errlen) < 0 ||
	    run_threads(&r, enc, o, drawers, &encoded, err, errlen) < 0)
		goto out_abort;
	report(o, "finishing", encoded, e->total_frames);
	rc = encoder_finish(enc, err, errlen);
	enc = NULL;
	if (rc < 0 || (rc = output_commit(&out, err, errlen)) < 0)
		goto out_abort;
	stats->frames = encoded;
	stats->drawn = r.drawn;
	goto out_ring;
out_abort:
	rc = -1;
	if (enc)
		encoder_abort(enc);
	output_abort(&out);
out_ring:
	ring_free(&r);
out_scenes:
	free(track);
	scenes_free(scenes, e->n);
	return rc;
}
