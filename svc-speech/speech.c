/*
 * speech - the handler: settings and key (read on every call), the
 * pieces, the requests (synth.c) and the file (wav.c).  The key is copied
 * once into the Gemini client and zeroed before the handler returns.
 */
#include "speech.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audio.h"
#include "tunables.h"
#include "gemini.h"
#include "log.h"
#include "paths.h"
#include "settings.h"
#include "speech_args.h"
#include "synth.h"
#include "wav.h"
#include "utf8.h"

#define ERR_LEN 1024

struct output {
	struct hb_call *call;
	struct speech_wav wav;
	size_t count;
	uint64_t part_start;  /* samples in the file before the current part */
};

static int call_cancelled(void *arg)
{
	return hb_call_cancelled(arg);
}

/* Each part after the first follows SPEECH_GAP_MS of silence. */
static int part_begins(void *arg, size_t index, char *err, size_t errlen)
{
	struct output *o = arg;

	if (index > 0 && speech_wav_silence(&o->wav, (size_t)SPEECH_RATE * SPEECH_GAP_MS / 1000, err, errlen) < 0)
		return -1;
	o->part_start = o->wav.samples;
	return 0;
}

static int part_samples(void *arg, const int16_t *samples, size_t n, char *err, size_t errlen)
{
	struct output *o = arg;

	return speech_wav_append(&o->wav, samples, n, err, errlen);
}

static int part_rewind(void *arg, char *err, size_t errlen)
{
	struct output *o = arg;

	return speech_wav_rewind(&o->wav, o->part_start, err, errlen);
}

static int part_done(void *arg, size_t index, char *err, size_t errlen)
{
	struct output *o = arg;
	char line[96];

	(void)err, (void)errlen;
	snprintf(line, sizeof line, "speech: part %zu of %zu ready", index + 1, o->count);
	hb_call_progress(o->call, line); /* best effort */
	return 0;
}

/* Waiting for the next part: flush the parts written so far, so that
 * the flush before the rename, on the path of the call, finds little. */
static int idle(void *arg, char *err, size_t errlen)
{
	struct output *o = arg;

	return speech_wav_sync(&o->wav, err, errlen);
}

/* The pieces that hold something to say (blank ones are left out). */
static long pieces_to_speak(const struct speech_args *a, struct speech_chunk **out)
{
	long n = speech_chunk_text(a->text, a->text_len, SPEECH_CHUNK_CHARS, out), k = 0;

	for (long i = 0; i < n; i++)
		if (!speech_is_blank(a->text + (*out)[i].start, (*out)[i].len))
			(*out)[k++] = (*out)[i];
	return n < 0 ? -1 : k;
}

static int answer(struct hb_call *call, const struct output *o, const struct speech_args *a, const char *model)
{
	json_t *res = json_pack("{s:s, s:f, s:I, s:s, s:s}", "file", o->wav.path, "durationSeconds",
				(double)o->wav.samples / SPEECH_RATE, "parts", (json_int_t)o->count, "voice",
				a->voice, "model", model);
	char *text = res ? json_dumps(res, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
	int rc = text ? hb_call_succeed(call, text) : hb_call_fail(call, "out of memory while writing the answer");

	free(text);
	json_decref(res);
	return rc;
}

/* Everything after the checks: requests, file, answer. */
static int run(struct hb_call *call, const struct hb_paths *paths, const struct hb_gemini *g,
	       const struct speech_args *a, const char *model)
{
	const struct hb_call_context *ctx = hb_call_context(call);
	char dir[HB_PATH_MAX], err[ERR_LEN];
	struct speech_chunk *pieces = NULL;
	struct output o = { .call = call };
	struct synth_request r;
	long n = pieces_to_speak(a, &pieces);
	enum synth_result res;

	if (n <= 0) {
		free(pieces);
		return hb_call_fail(call, "out of memory while splitting the text");
	}
	o.count = (size_t)n;
	if (hb_path_join(dir, sizeof dir, paths->cache, SPEECH_DIR) < 0) {
		free(pieces);
		return hb_call_fail(call, "the cache folder path is too long");
	}
	/* The speech is the user's: never into a cache folder of someone else. */
	if (hb_dir_make_private(paths, HB_DIR_CACHE, err, sizeof err) < 0) {
		free(pieces);
		return hb_call_fail(call, err);
	}
	if (speech_wav_open(&o.wav, dir, "speech", SPEECH_RATE, err, sizeof err) < 0) {
		free(pieces);
		return hb_call_fail(call, err);
	}
	memset(&r, 0, sizeof r);
	r.gemini = g;
	r.model = model;
	r.voice = a->voice;
	r.style = a->style;
	r.text = a->text;
	r.pieces = pieces;
	r.count = o.count;
	r.backoff_ms = hb_tunable(HB_T_SPEECH_BACKOFF_MS);
	r.cancelled = call_cancelled;
	r.cancel_arg = call;
	r.out = (struct synth_output){ part_begins, part_samples, part_rewind, part_done, idle, &o };
	r.log_key = ctx->key;
	log_info(ctx->key, "speech: %zu characters in %zu parts, voice %s, model %s",
		 hb_utf8_count(a->text, a->text_len), o.count, a->voice, model);
	res = synth_run(&r, err, sizeof err);
	free(pieces);
	if (res != SYNTH_OK) {
		speech_wav_abort(&o.wav);
		log_info(ctx->key, "speech: %s", err);
		return res == SYNTH_CANCELLED ? hb_call_fail(call, "Run stopped.")
					      : hb_call_failf(call, "Speech synthesis failed: %s", err);
	}
	if (speech_wav_finish(&o.wav, err, sizeof err) < 0)
		return hb_call_fail(call, err);
	return answer(call, &o, a, model);
}

int speech_synthesize(struct hb_call *call, const json_t *args)
{
	char err[ERR_LEN], model[160];
	struct speech_args a;
	struct hb_paths paths;
	struct hb_gemini g;
	int rc;

	if (hb_paths_resolve(&paths, err, sizeof err) < 0)
		return hb_call_fail(call, err);
	if (hb_gemini_configure(&g, &paths, err, sizeof err) < 0)
		return hb_call_fail(call, err);
	if (speech_args_parse(args, &a, err, sizeof err) < 0 ||
	    hb_settings_param_string(&paths, HB_PARAM_SPEECH_MODEL, model, sizeof model, err, sizeof err) < 0) {
		hb_gemini_forget(&g);
		return hb_call_fail(call, err);
	}
	if (!hb_gemini_model_ok(model)) {
		hb_gemini_forget(&g);
		return hb_call_failf(call, "the speech model setting \"%.100s\" is not a model name", model);
	}
	rc = run(call, &paths, &g, &a, model);
	hb_gemini_forget(&g);
	return rc;
}
