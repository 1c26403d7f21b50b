/*
 * video - the handler: the key and settings (read on every call), the
 * arguments, the source made ready for Gemini (the YouTube link as is, a
 * URL after its HEAD check, a local file uploaded and processed), the
 * analysis, the Markdown.  An uploaded file is deleted whatever happens
 * after the upload, cancel included.
 */
#include "video.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "tunables.h"
#include "files.h"
#include "gemini.h"
#include "local.h"
#include "log.h"
#include "paths.h"
#include "probe.h"
#include "render.h"
#include "settings.h"
#include "url.h"
#include "video_args.h"

#define ERR_LEN 1024
#define HEAD_TIMEOUT_MS 30000

enum step { STEP_OK, STEP_FAILED, STEP_CANCELLED };

/* Where the video is, as Gemini gets it. */
struct source {
	const char *uri;
	const char *mime;
	struct video_probed probed;
	struct video_local local;
	struct video_file file;
};

static int call_cancelled(void *arg)
{
	return hb_call_cancelled(arg);
}

static void progress(void *arg, const char *line)
{
	hb_call_progress(arg, line); /* best effort */
}

/* HB_VIDEO_ALLOW_LOOPBACK_PORT, the port of the tests' fake web server:
 * video URLs may then lead there (and only there) on this computer.  Set
 * by the test harness alone, and honoured only while the Gemini base URL
 * is on this computer too (the fake Gemini): the real Gemini could never
 * fetch a video from here, so a stray setting opens nothing in use. */
static int loopback_port(const struct hb_gemini *g)
{
	struct hb_url base;

	if (hb_url_parse(g->base_url, &base) < 0 || !hb_url_host_is_loopback(&base))
		return 0;
	return hb_tunable(HB_T_VIDEO_ALLOW_LOOPBACK_PORT);
}

static enum step from_url(struct hb_call *call, const struct hb_gemini *g, const struct video_args *a,
			  struct source *s, char *err, size_t errlen)
{
	struct video_probe p = { .url = a->given, .loopback_port = loopback_port(g),
				 .connect_timeout_ms = g->connect_timeout_ms, .timeout_ms = HEAD_TIMEOUT_MS,
				 .cancelled = call_cancelled, .cancel_arg = call };
	enum video_probe_result r;

	r = video_probe_url(&p, &s->probed, err, errlen);
	if (s->probed.refused[0])
		log_info(hb_call_context(call)->key, "video: refused to connect to %s", s->probed.refused);
	if (r != PROBE_OK)
		return r == PROBE_CANCELLED ? STEP_CANCELLED : STEP_FAILED;
	s->uri = s->probed.url;
	s->mime = s->probed.mime;
	return STEP_OK;
}

static enum step from_file(struct hb_call *call, const struct hb_gemini *g, const struct video_args *a,
			   struct source *s, char *err, size_t errlen)
{
	struct video_upload u = {
		.gemini = g,
		.chunk = hb_tunable(HB_T_VIDEO_CHUNK_BYTES),
		.backoff_ms = hb_tunable(HB_T_VIDEO_BACKOFF_MS),
		.poll_ms = hb_tunable(HB_T_VIDEO_POLL_MS),
		.poll_max_ms = hb_tunable(HB_T_VIDEO_POLL_MAX_MS),
		.processing_ms = hb_tunable(HB_T_VIDEO_PROCESSING_MS),
		.progress = progress,
		.progress_arg = call,
		.log_key = hb_call_context(call)->key,
	};
	enum video_files_result r;

	if (video_local_open(a->given, &s->local, err, errlen) < 0)
		return STEP_FAILED;
	u.fd = s->local.fd;
	u.size = s->local.size;
	u.mime = s->local.mime;
	u.display_name = s->local.display_name;
	/* A chunk size that is not a multiple of the unit would be refused
	 * by Gemini: round it down. */
	u.chunk -= u.chunk % VIDEO_CHUNK_UNIT;
	r = video_files_upload(&u, &s->file, err, errlen);
	if (r == FILES_OK)
		r = video_files_wait_active(&u, &s->file, err, errlen);
	video_local_close(&s->local);
	if (r != FILES_OK)
		return r == FILES_CANCELLED ? STEP_CANCELLED : STEP_FAILED;
	s->uri = s->file.uri;
	s->mime = s->local.mime;
	return STEP_OK;
}

static int answer(struct hb_call *call, const struct video_args *a, const char *model, const json_t *notes)
{
	struct video_render_info info = { .intent = a->intent, .source = a->given, .goal = a->goal, .model = model };
	char *md = video_render(&info, notes);
	int rc = md ? hb_call_succeed(call, md) : hb_call_fail(call, "out of memory while writing the notes");

	free(md);
	return rc;
}

/* Everything after the checks. */
static int run(struct hb_call *call, const struct hb_gemini *g, const struct video_args *a, const char *model,
	       double temperature)
{
	const char *key = hb_call_context(call)->key;
	struct source s = { .local = { .fd = -1 } };
	struct video_analysis an = { .gemini = g, .model = model, .temperature = temperature, .intent = a->intent,
				     .goal = a->goal,
				     .backoff_ms = hb_tunable(HB_T_VIDEO_BACKOFF_MS) };
	/* Empty, never what an earlier call on this worker's stack left. */
	char err[ERR_LEN] = "";
	json_t *notes = NULL;
	enum step st = STEP_OK;
	int rc;

	log_info(key, "video: %s source, intent %s, model %s",
		 a->source == VIDEO_YOUTUBE ? "YouTube" : a->source == VIDEO_URL ? "URL" : "local file",
		 video_intent_def(a->intent)->name, model);
	if (a->source == VIDEO_YOUTUBE)
		s.uri = a->youtube;
	else if (a->source == VIDEO_URL)
		st = from_url(call, g, a, &s, err, sizeof err);
	else
		st = from_file(call, g, a, &s, err, sizeof err);
	if (st == STEP_OK) {
		an.file_uri = s.uri;
		an.mime = s.mime;
		hb_call_progress(call, "video: Gemini is watching the video");
		enum video_analyze_result r = video_analyze(&an, &notes, err, sizeof err);
		st = r == ANALYZE_OK ? STEP_OK : r == ANALYZE_CANCELLED ? STEP_CANCELLED : STEP_FAILED;
	}
	video_files_cleanup(g, &s.file, key);
	if (st != STEP_OK) {
		log_info(key, "video: %s", st == STEP_CANCELLED ? "cancelled" : err);
		return st == STEP_CANCELLED ? hb_call_fail(call, "Run stopped.")
					    : hb_call_failf(call, "Video context failed: %s", err);
	}
	rc = answer(call, a, model, notes);
	json_decref(notes);
	return rc;
}

int video_extract(struct hb_call *call, const json_t *args)
{
	char err[ERR_LEN] = "", model[160];
	struct video_args a;
	struct hb_paths paths;
	struct hb_gemini g;
	double temperature;
	int rc;

	if (hb_paths_resolve(&paths, err, sizeof err) < 0)
		return hb_call_fail(call, err);
	if (hb_gemini_configure(&g, &paths, err, sizeof err) < 0)
		return hb_call_fail(call, err);
	if (video_args_parse(args, &a, err, sizeof err) < 0 ||
	    hb_settings_param_string(&paths, HB_PARAM_VIDEO_MODEL, model, sizeof model, err, sizeof err) < 0 ||
	    hb_settings_param_number(&paths, HB_PARAM_VIDEO_TEMPERATURE, &temperature, err, sizeof err) < 0) {
		hb_gemini_forget(&g);
		return hb_call_fail(call, err);
	}
	g.cancelled = call_cancelled;
	g.cancel_arg = call;
	rc = run(call, &g, &a, model, temperature);
	hb_gemini_forget(&g);
	return rc;
}
