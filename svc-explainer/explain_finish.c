/*
 * explain_finish - the worker's finish tool: the review rule first (every
 * scene's start and end frame seen), then finish.h with svc-speech as the
 * synthesizer, the render's progress on the timeline, and an answer the
 * worker can act on.
 *
 * The narration is svc-speech's synthesize_speech, called through the
 * broker as a subcall of this call: the session's binding, its rules and
 * the key read on that call.  Its WAV (in the user's cache) is copied into
 * the worker's folder and removed.  svc-speech answering "no key" means
 * the key was deleted while the worker worked: no finish can succeed, so
 * the call ends with that sentence instead of a worker retrying in vain.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "explain_int.h"
#include "failpoint.h"
#include "finish.h"
#include "gemini.h"
#include "log.h"
#include "output.h"
#include "readfile.h"
#include "service.h"

/* A narration of 2000 characters is about two and a half minutes of
 * speech, some 7 MB of WAV; anything near this bound is not ours. */
#define NARRATION_MAX_BYTES (64u << 20)
#define SPEECH_TIMEOUT_MS (10 * 60 * 1000)

/* finish_speak_fn: synthesize_speech through the broker. */
static int speak(void *arg, const char *text, const char *wav_path, char *err, size_t errlen)
{
	struct explain *x = arg;
	json_t *q = json_pack("{s:s, s:s}", "text", text, "voice", x->voice), *res = NULL;
	char *qtext = q ? json_dumps(q, JSON_COMPACT) : NULL, *answer = NULL, *bytes = NULL, why[256];
	const char *file;
	size_t len;
	int ok = 0, rc = -1;

	json_decref(q);
	if (!qtext) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	long long left = x->deadline_ms - hb_monotonic_ms();

	/* The narration is inside the worker's time limit too. */
	if (left <= 0) {
		snprintf(err, errlen, "the time limit was reached before the narration was made");
		free(qtext);
		return -1;
	}
	if (hb_call_subcall(x->call, "synthesize_speech", qtext, left < SPEECH_TIMEOUT_MS ? (int)left : SPEECH_TIMEOUT_MS,
			    &ok, &answer) < 0 || !ok) {
		if (answer && strcmp(answer, HB_GEMINI_NO_KEY) == 0)
			snprintf(x->fatal, sizeof x->fatal, "%s", HB_GEMINI_NO_KEY);
		snprintf(err, errlen, "the narration could not be made: %s", answer ? answer : "no answer");
		goto out;
	}
	res = json_loads(answer, 0, NULL);
	if (!(file = json_string_value(json_object_get(res, "file")))) {
		snprintf(err, errlen, "the narration could not be made: svc-speech answered without a file");
		goto out;
	}
	if (!(bytes = read_small_file(file, NARRATION_MAX_BYTES, READFILE_NOFOLLOW, &len, why, sizeof why))) {
		snprintf(err, errlen, "the narration %s cannot be read: %s", file, why);
		goto out;
	}
	if (output_write_file(wav_path, bytes, len, err, errlen) < 0)
		goto out;
	rc = 0;
out:
	if (res && (file = json_string_value(json_object_get(res, "file"))))
		unlink(file); /* the speech was made for this video only */
	json_decref(res);
	free(bytes);
	free(answer);
	free(qtext);
	return rc;
}

/* render_progress_fn: the timeline's phases and frames. */
static void progress(void *arg, const char *phase, long done, long total)
{
	struct explain *x = arg;

	/* Past narration the length is the narrated one, not the written. */
	if (x->fit && x->fit->n) {
		x->seconds = x->fit->total;
		x->scenes = (long)x->fit->n;
	}
	if (strcmp(phase, "rendering") == 0) {
		x->frames_done = done;
		x->frames_total = total;
		if (done > 0 && !x->render_pointed) {
			/* The tests' exact moment "while it renders". */
			x->render_pointed = 1;
			hb_failpoint("explainer.rendering");
			hb_holdpoint("explainer.rendering", hb_call_cancel_flag(x->call));
		}
	}
	explain_publish(x, strcmp(phase, "audio") == 0 || strcmp(phase, "checking") == 0 ? "fitting" : "rendering");
}

/* The refusal when scenes were not looked at, or NULL (counts no attempt). */
static struct workdir_answer *unreviewed(struct explain *x, struct workdir_answer *a)
{
	size_t scenes = 0;
	char *list = explain_unseen(x, &scenes);

	if (!list)
		*a = workdir_answer_text(0, "finish cannot read script.json; run check_scenes");
	else if (scenes == 0)
		*a = workdir_answer_text(0, "there are no scenes yet: write them with write_scene first");
	else if (*list)
		*a = workdir_answer_text(0, "finish refused: first look at the rendered start and end frame of "
					    "these scenes since they last changed (preview_scene with at start and "
					    "end, or contact_sheet): %s",
					 list);
	else {
		free(list);
		return NULL;
	}
	free(list);
	return a;
}

struct workdir_answer explain_finish(struct explain *x, const char *args_json)
{
	struct render_options ro = { 0 };
	struct finish_request r = { 0 };
	struct finish_outcome out;
	struct workdir_answer a;
	struct worker_finish_args fa;
	char err[2048], summary[HB_PATH_MAX + 128];
	int rc;

	if (worker_tools_finish_args(args_json, &fa, err, sizeof err) < 0)
		return workdir_answer_text(0, "finish: %s", err);
	if (unreviewed(x, &a))
		return a;
	if (x->finish_attempts >= EXPLAIN_FINISH_ATTEMPTS)
		return workdir_answer_text(0, "finish was called %d times, the most it may be; stop now",
					   EXPLAIN_FINISH_ATTEMPTS);
	x->finish_attempts++;
	explain_publish(x, "narrating");
	ro.progress = progress;
	ro.progress_arg = x;
	ro.cancel = hb_call_cancel_flag(x->call);
	ro.deadline_ms = x->deadline_ms; /* the worker's time limit covers its finish */
	ro.burn_captions = x->burn_captions;
	r.workdir = x->workdir;
	r.entry = &x->entry;
	r.speak = speak;
	r.speak_arg = x;
	r.render = &ro;
	r.poster = fa.has_poster ? &fa.poster : NULL;
	x->fit = &out.fit; /* filled before the render reports (finish.h) */
	rc = explainer_finish(&r, &out, err, sizeof err);
	x->fit = NULL;
	if (rc < 0) {
		if (out.fit.n) {
			x->seconds = out.fit.total;
			x->scenes = (long)out.fit.n;
		}
		finish_outcome_free(&out);
		snprintf(x->last_finish, sizeof x->last_finish, "%s", err);
		if (hb_monotonic_ms() >= x->deadline_ms)
			x->time_up = 1; /* the answer names the time limit, whatever the turn does next */
		log_info(hb_call_context(x->call)->key, "explainer: finish %d failed: %.200s", x->finish_attempts,
			 err);
		explain_publish(x, "reviewing");
		return workdir_answer_text(0, "finish failed (attempt %d of %d): %s", x->finish_attempts,
					   EXPLAIN_FINISH_ATTEMPTS, err);
	}
	x->finished = 1;
	x->seconds = out.fit.total;
	x->scenes = (long)out.fit.n;
	x->frames_done = x->frames_total = out.stats.frames;
	finish_outcome_free(&out);
	videos_summary(&x->entry, summary, sizeof summary);
	log_info(hb_call_context(x->call)->key, "explainer: %s", summary);
	return workdir_answer_text(1, "%s The work is done: end your turn with one short sentence.", summary);
}
