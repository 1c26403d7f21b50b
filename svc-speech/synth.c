/*
 * synth - a small pool of threads per call.  Threads rather than one
 * curl_multi loop because each piece's retries and waits are then plain
 * sequential code.
 *
 * The output belongs to one thread at a time.  The calling thread holds
 * it, except while it waits for the piece that is next in order: then it
 * lends it to that piece's worker (job.lent), which writes the samples as
 * its answer arrives (a tap on the request, fetch.h), and takes it back
 * once the piece is done.  What a worker wrote is provisional until its
 * answer's verdict: an attempt that fails, or samples the reader drops
 * (its generation changes), rewind the output to where the piece began;
 * a piece at another rate is rewound too and written again resampled.
 */
#include "synth.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "audio.h"
#include "fetch.h"
#include "gemini_error.h"
#include "log.h"
#include "prompt.h"

#define NOBODY SIZE_MAX

struct piece {
	struct speech_audio audio; /* done, not written yet */
	int done;
	int written;               /* its worker wrote it all to the output */
};

struct job {
	const struct synth_request *r;
	struct hb_gemini gemini;  /* the caller's, with our stop test */
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct piece *pieces;
	size_t next;              /* the next piece to start */
	size_t emitted;           /* pieces handed to the caller */
	size_t lent;              /* the piece whose worker holds the output, or NOBODY */
	int stop;                 /* a piece failed for good, or the caller failed */
	enum synth_result result;
	char err[1024];
};

/* One worker's piece in the output while it holds it. */
struct stream {
	struct job *j;
	size_t index;
	int active;               /* this attempt's samples are in the output */
	size_t written;
	unsigned generation;      /* the reader's, of the samples written */
};

static int job_stopping(void *arg)
{
	struct job *j = arg;
	int stop;

	pthread_mutex_lock(&j->lock);
	stop = j->stop;
	pthread_mutex_unlock(&j->lock);
	return stop || j->r->cancelled(j->r->cancel_arg);
}

/* Record the first reason to stop; wake everyone.  Lock held. */
static void stop_locked(struct job *j, enum synth_result why, const char *err)
{
	if (!j->stop) {
		j->stop = 1;
		j->result = why;
		snprintf(j->err, sizeof j->err, "%s", err);
	}
	pthread_cond_broadcast(&j->changed);
}

static void stop_now(struct job *j, enum synth_result why, const char *err)
{
	pthread_mutex_lock(&j->lock);
	stop_locked(j, why, err);
	pthread_mutex_unlock(&j->lock);
}

/* Wait on the condition for at most 50 ms: a cancel does not signal it. */
static void wait_a_little(struct job *j)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 50 * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&j->changed, &j->lock, &ts);
}

/* ---- a worker's side of the output ----------------------------------------- */

static int holds_output(struct stream *st)
{
	int yes;

	pthread_mutex_lock(&st->j->lock);
	yes = st->j->lent == st->index && !st->j->stop;
	pthread_mutex_unlock(&st->j->lock);
	return yes;
}

/* Take back what this attempt wrote. */
static int rewind_piece(struct stream *st, char *err, size_t errlen)
{
	const struct synth_output *o = &st->j->r->out;

	if (!st->active)
		return 0;
	st->active = 0;
	st->written = 0;
	return o->rewind(o->arg, err, errlen);
}

/* The tap: the samples decoded so far go out if this piece is next. */
static int tap(void *arg, const int16_t *s, size_t n, unsigned generation, char *err, size_t errlen)
{
	struct stream *st = arg;
	const struct synth_output *o = &st->j->r->out;

	if ((!st->active && n == 0) || !holds_output(st))
		return 0;
	if (st->active && (generation != st->generation || n < st->written) && rewind_piece(st, err, errlen) < 0)
		return -1;
	if (!st->active) {
		st->active = 1;
		st->generation = generation;
	}
	if (n > st->written) {
		if (o->write(o->arg, s + st->written, n - st->written, err, errlen) < 0)
			return -1;
		st->written = n;
	}
	return 0;
}

/* The piece's audio is final: 1 when the output has all of it (the rest
 * written now), 0 when the caller is to write it, -1 with err. */
static int finish_piece(struct stream *st, const struct speech_audio *a, char *err, size_t errlen)
{
	const struct synth_output *o = &st->j->r->out;

	if (!st->active)
		return 0;
	/* At Gemini's rate the samples written are the first ones of the audio. */
	if (a->source_rate != SPEECH_RATE || a->n < st->written)
		return rewind_piece(st, err, errlen);
	if (a->n > st->written && o->write(o->arg, a->samples + st->written, a->n - st->written, err, errlen) < 0)
		return -1;
	return 1;
}

/* One attempt at the piece: SYNTH_OK, or a failure with *retry and
 * *retry_after_ms set.  The answer is decoded while it arrives. */
static enum synth_result attempt(struct job *j, struct speech_fetch *f, struct stream *st, const char *body,
				 struct speech_audio *audio, int *retry, long *retry_after_ms, char *err, size_t errlen)
{
	const struct speech_fetch_tap t = { tap, st };
	enum hb_gemini_outcome o =
		speech_fetch_audio(f, &j->gemini, j->r->model, body, &t, audio, retry_after_ms, err, errlen);

	*retry = o == HB_GEMINI_RETRY;
	return o == HB_GEMINI_OK ? SYNTH_OK : o == HB_GEMINI_CANCELLED ? SYNTH_CANCELLED : SYNTH_FAILED;
}

static enum synth_result synthesize(struct job *j, struct speech_fetch *f, struct stream *st,
				    struct speech_audio *audio, char *err, size_t errlen)
{
	const struct synth_request *r = j->r;
	size_t i = st->index;
	char *body = speech_request_body(r->text + r->pieces[i].start, r->pieces[i].len, i, r->count, r->voice,
					 r->style);
	enum synth_result res = SYNTH_FAILED;
	long after = -1;
	int retry = 0, made = 0;

	if (!body) {
		snprintf(err, errlen, "out of memory while writing the request");
		return SYNTH_FAILED;
	}
	for (int a = 0; a < SYNTH_ATTEMPTS; a++) {
		if (a > 0) {
			long wait = hb_gemini_backoff_ms(a, r->backoff_ms, after);
			if (wait > HB_GEMINI_MAX_RETRY_DELAY_MS) {
				size_t n = strlen(err);
				snprintf(err + n, errlen - n, " (Gemini asks to wait %ld s before trying again)",
					 (wait + 999) / 1000);
				break;
			}
			log_info(r->log_key, "part %zu of %zu: %s; attempt %d in %ld ms", i + 1, r->count, err, a + 1,
				 wait);
			/* What the failed attempt wrote goes before the next one starts. */
			if (rewind_piece(st, err, errlen) < 0) {
				retry = 0;
				break;
			}
			if (hb_gemini_sleep(&j->gemini, wait) < 0) {
				res = SYNTH_CANCELLED;
				break;
			}
		}
		res = attempt(j, f, st, body, audio, &retry, &after, err, errlen);
		made++;
		if (res != SYNTH_FAILED || !retry)
			break;
	}
	if (res == SYNTH_FAILED && retry && made > 1) {
		size_t n = strlen(err);
		snprintf(err + n, errlen - n, " (%d attempts)", made);
	}
	free(body);
	return res;
}

static void *worker(void *arg)
{
	struct job *j = arg;
	struct speech_fetch f;
	char err[900];

	pthread_mutex_lock(&j->lock);
	if (speech_fetch_open(&f) < 0) {
		stop_locked(j, SYNTH_FAILED, "out of memory while preparing the requests");
		pthread_mutex_unlock(&j->lock);
		return NULL;
	}
	while (!j->stop && j->next < j->r->count) {
		struct stream st = { .j = j };
		struct speech_audio audio;
		enum synth_result res;
		int written = 0;

		if (j->next >= j->emitted + SYNTH_AHEAD) {
			wait_a_little(j);
			if (j->r->cancelled(j->r->cancel_arg))
				stop_locked(j, SYNTH_CANCELLED, "cancelled");
			continue;
		}
		st.index = j->next++;
		pthread_mutex_unlock(&j->lock);
		res = synthesize(j, &f, &st, &audio, err, sizeof err);
		if (res == SYNTH_OK) {
			written = finish_piece(&st, &audio, err, sizeof err);
			if (written != 0) { /* in the output already, or failed */
				free(audio.samples);
				memset(&audio, 0, sizeof audio);
			}
			if (written < 0)
				res = SYNTH_FAILED;
		}
		pthread_mutex_lock(&j->lock);
		if (res == SYNTH_OK) {
			j->pieces[st.index].audio = audio;
			j->pieces[st.index].written = written;
			j->pieces[st.index].done = 1;
			pthread_cond_broadcast(&j->changed);
		} else {
			char why[1024];
			snprintf(why, sizeof why, "part %zu of %zu: %s", st.index + 1, j->r->count, err);
			stop_locked(j, res, why);
		}
	}
	pthread_mutex_unlock(&j->lock);
	speech_fetch_close(&f);
	return NULL;
}

/* ---- the calling thread's side ---------------------------------------------- */

/* Piece i: begun, lent to its worker until done, then finished here. */
static int emit_one(struct job *j, size_t i)
{
	const struct synth_output *o = &j->r->out;
	struct speech_audio a;
	char err[900];
	int written, rc = 0;

	if (o->begin(o->arg, i, err, sizeof err) < 0) {
		stop_now(j, SYNTH_FAILED, err);
		return -1;
	}
	pthread_mutex_lock(&j->lock);
	/* Nothing to write yet: the caller's deferred work fits here, while
	 * the output is still this thread's. */
	if (!j->pieces[i].done && !j->stop && o->idle) {
		pthread_mutex_unlock(&j->lock);
		rc = o->idle(o->arg, err, sizeof err);
		pthread_mutex_lock(&j->lock);
		if (rc < 0)
			stop_locked(j, SYNTH_FAILED, err);
	}
	j->lent = i;
	while (!j->pieces[i].done && !j->stop) {
		wait_a_little(j);
		if (j->r->cancelled(j->r->cancel_arg))
			stop_locked(j, SYNTH_CANCELLED, "cancelled");
	}
	j->lent = NOBODY;
	if (!j->pieces[i].done) {
		pthread_mutex_unlock(&j->lock);
		return -1;
	}
	a = j->pieces[i].audio;
	written = j->pieces[i].written;
	memset(&j->pieces[i].audio, 0, sizeof a);
	pthread_mutex_unlock(&j->lock);
	if ((!written && o->write(o->arg, a.samples, a.n, err, sizeof err) < 0) ||
	    o->done(o->arg, i, err, sizeof err) < 0) {
		stop_now(j, SYNTH_FAILED, err);
		rc = -1;
	}
	free(a.samples);
	pthread_mutex_lock(&j->lock);
	j->emitted = i + 1;
	pthread_cond_broadcast(&j->changed);
	pthread_mutex_unlock(&j->lock);
	return rc;
}

enum synth_result synth_run(const struct synth_request *r, char *err, size_t errlen)
{
	pthread_t threads[SYNTH_PARALLEL];
	size_t nthreads = 0, want = r->count < SYNTH_PARALLEL ? r->count : SYNTH_PARALLEL;
	struct job j;

	memset(&j, 0, sizeof j);
	j.r = r;
	j.gemini = *r->gemini;
	j.gemini.cancelled = job_stopping;
	j.gemini.cancel_arg = &j;
	j.result = SYNTH_OK;
	j.lent = NOBODY;
	if (!(j.pieces = calloc(r->count ? r->count : 1, sizeof *j.pieces))) {
		snprintf(err, errlen, "out of memory");
		hb_gemini_forget(&j.gemini);
		return SYNTH_FAILED;
	}
	pthread_mutex_init(&j.lock, NULL);
	pthread_cond_init(&j.changed, NULL);
	for (; nthreads < want; nthreads++)
		if ((errno = pthread_create(&threads[nthreads], NULL, worker, &j)) != 0) {
			stop_now(&j, SYNTH_FAILED, "cannot start a thread for the requests");
			break;
		}
	for (size_t i = 0; nthreads > 0 && i < r->count; i++)
		if (emit_one(&j, i) < 0)
			break;
	for (size_t t = 0; t < nthreads; t++)
		pthread_join(threads[t], NULL);
	for (size_t i = 0; i < r->count; i++)
		free(j.pieces[i].audio.samples);
	free(j.pieces);
	pthread_cond_destroy(&j.changed);
	pthread_mutex_destroy(&j.lock);
	hb_gemini_forget(&j.gemini);
	if (j.result != SYNTH_OK)
		snprintf(err, errlen, "%s", j.err);
	return j.result;
}
