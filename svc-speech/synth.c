/*
 * synth - a small pool of threads per call.  Threads rather than one
 * curl_multi loop because each piece's retries and waits are then plain
 * sequential code, and the Gemini client stays one blocking function that
 * svc-video uses as it is.
 */
#include "synth.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "audio.h"
#include "gemini_error.h"
#include "log.h"
#include "prompt.h"

struct piece {
	struct speech_audio audio;
	int done;
};

struct job {
	const struct synth_request *r;
	struct hb_gemini gemini;  /* the caller's, with our stop test */
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct piece *pieces;
	size_t next;              /* the next piece to start */
	size_t emitted;           /* pieces handed to the caller */
	int stop;                 /* a piece failed for good, or the caller failed */
	enum synth_result result;
	char err[1024];
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

/* One attempt at piece i: SYNTH_OK, or a failure with *retry and
 * *retry_after_ms set. */
static enum synth_result attempt(struct job *j, const char *body, struct speech_audio *audio, int *retry,
				 long *retry_after_ms, char *err, size_t errlen)
{
	struct hb_gemini_reply reply;
	enum hb_gemini_outcome o = hb_gemini_generate(&j->gemini, j->r->model, body, &reply);
	enum speech_audio_result a;

	*retry = o == HB_GEMINI_RETRY;
	*retry_after_ms = reply.retry_after_ms;
	if (o != HB_GEMINI_OK) {
		snprintf(err, errlen, "%s", reply.message);
		hb_gemini_reply_free(&reply);
		return o == HB_GEMINI_CANCELLED ? SYNTH_CANCELLED : SYNTH_FAILED;
	}
	a = speech_audio_from_answer(&reply, audio, err, errlen);
	hb_gemini_reply_free(&reply);
	*retry = a == SPEECH_AUDIO_RETRY;
	return a == SPEECH_AUDIO_OK ? SYNTH_OK : SYNTH_FAILED;
}

static enum synth_result synthesize(struct job *j, size_t i, struct speech_audio *audio, char *err, size_t errlen)
{
	const struct synth_request *r = j->r;
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
			if (hb_gemini_sleep(&j->gemini, wait) < 0) {
				res = SYNTH_CANCELLED;
				break;
			}
		}
		res = attempt(j, body, audio, &retry, &after, err, errlen);
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
	char err[900];

	pthread_mutex_lock(&j->lock);
	while (!j->stop && j->next < j->r->count) {
		size_t i;
		struct speech_audio audio;
		enum synth_result res;

		if (j->next >= j->emitted + SYNTH_AHEAD) {
			wait_a_little(j);
			if (j->r->cancelled(j->r->cancel_arg))
				stop_locked(j, SYNTH_CANCELLED, "cancelled");
			continue;
		}
		i = j->next++;
		pthread_mutex_unlock(&j->lock);
		res = synthesize(j, i, &audio, err, sizeof err);
		pthread_mutex_lock(&j->lock);
		if (res == SYNTH_OK) {
			j->pieces[i].audio = audio;
			j->pieces[i].done = 1;
			pthread_cond_broadcast(&j->changed);
		} else {
			char why[1024];
			snprintf(why, sizeof why, "part %zu of %zu: %s", i + 1, j->r->count, err);
			stop_locked(j, res, why);
		}
	}
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

/* Hand the pieces to the caller in order as they complete. */
static void emit_in_order(struct job *j)
{
	const struct synth_request *r = j->r;
	char err[900];

	for (size_t i = 0; i < r->count; i++) {
		struct speech_audio a;

		pthread_mutex_lock(&j->lock);
		while (!j->pieces[i].done && !j->stop) {
			wait_a_little(j);
			if (r->cancelled(r->cancel_arg))
				stop_locked(j, SYNTH_CANCELLED, "cancelled");
		}
		if (!j->pieces[i].done) {
			pthread_mutex_unlock(&j->lock);
			return;
		}
		a = j->pieces[i].audio;
		memset(&j->pieces[i].audio, 0, sizeof a);
		pthread_mutex_unlock(&j->lock);
		if (r->emit(r->emit_arg, i, a.samples, a.n, err, sizeof err) < 0) {
			pthread_mutex_lock(&j->lock);
			stop_locked(j, SYNTH_FAILED, err);
			pthread_mutex_unlock(&j->lock);
		}
		free(a.samples);
		pthread_mutex_lock(&j->lock);
		j->emitted = i + 1;
		pthread_cond_broadcast(&j->changed);
		pthread_mutex_unlock(&j->lock);
	}
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
	if (!(j.pieces = calloc(r->count ? r->count : 1, sizeof *j.pieces))) {
		snprintf(err, errlen, "out of memory");
		hb_gemini_forget(&j.gemini);
		return SYNTH_FAILED;
	}
	pthread_mutex_init(&j.lock, NULL);
	pthread_cond_init(&j.changed, NULL);
	for (; nthreads < want; nthreads++)
		if ((errno = pthread_create(&threads[nthreads], NULL, worker, &j)) != 0) {
			pthread_mutex_lock(&j.lock);
			stop_locked(&j, SYNTH_FAILED, "cannot start a thread for the requests");
			pthread_mutex_unlock(&j.lock);
			break;
		}
	if (nthreads > 0)
		emit_in_order(&j);
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
