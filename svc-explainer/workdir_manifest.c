/*
 * workdir_manifest - the renderer's explainer.json for a finished work
 * folder (workdir.h): the script's canvas ("format" and "fps", canvas.h)
 * and its scenes fitted to their measured
 * narration (fit.h), each with its WAV, its fitted duration and, as its
 * "timeline", the duration its animations were written for (folder.h),
 * and as its "caption" the narration text, so the captions follow the
 * narration (captions.h); its "transition" from the script
 * (transition.h); and the worker's poster choice, if any.
 *
 * The manifest is written only for a video that passes the 30-120 s gate,
 * and is then read back with explainer_open, the renderer's own reader,
 * so what this answers ok is exactly what the render will accept.
 */
#include "workdir.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "canvas.h"
#include "folder.h"
#include "output.h"
#include "paths.h"
#include "workdir_call.h"

void workdir_fit_free(struct workdir_fit *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->names[i]);
	free(f->names);
	free(f->v);
	memset(f, 0, sizeof *f);
}

/* Why the measured narration cannot be used, or NULL. */
static const char *narration_problem(const struct script *s, const double *seconds, const char *const *wavs,
				     size_t n, char *why, size_t whylen)
{
	if (n != s->n) {
		snprintf(why, whylen, "narration is given for %zu scenes, but the script has %zu", n, s->n);
		return why;
	}
	for (size_t i = 0; i < n; i++) {
		if (!(isfinite(seconds[i]) && seconds[i] >= 0 && seconds[i] <= SCRIPT_DURATION_MAX))
			snprintf(why, whylen, "scene %zu (%s): %g s is not a narration's length", i + 1, s->v[i].svg,
				 seconds[i]);
		else if (!wavs[i] && seconds[i] > 0)
			snprintf(why, whylen, "scene %zu (%s) has %g s of narration but no WAV", i + 1, s->v[i].svg,
				 seconds[i]);
		else
			continue;
		return why;
	}
	return NULL;
}

/* fit filled from the script and the narration, and fitted; -1 when out
 * of memory. */
static int fit_fill(const struct script *s, const double *seconds, struct workdir_fit *fit)
{
	if (!(fit->v = calloc(s->n, sizeof *fit->v)) || !(fit->names = calloc(s->n, sizeof *fit->names)))
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		if (!(fit->names[i] = strdup(s->v[i].svg)))
			return -1;
		fit->n++;
		fit->v[i].name = fit->names[i];
		fit->v[i].written = s->v[i].duration;
		fit->v[i].narration = seconds[i];
	}
	fit->total = fit_scenes(fit->v, fit->n, s->fps);
	return 0;
}

/* Scene i's transition as the manifest has it, or NULL for a cut; *oom
 * set when out of memory.  The scripts' checks keep a transition within
 * half of the scenes as written; fitting to the narration can shorten a
 * scene, so it is kept within half of the fitted scenes too. */
static json_t *transition_value(const struct script *s, const struct workdir_fit *fit, size_t i, int *oom)
{
	struct transition t = s->v[i].transition;
	json_t *v;

	if (i == 0 || t.type == TRANSITION_CUT)
		return NULL;
	t.duration = fmin(t.duration, fmin(fit->v[i - 1].duration, fit->v[i].duration) / 2);
	t.duration = fmax(t.duration, TRANSITION_MIN_S);
	if (!(v = transition_json(&t)))
		*oom = 1;
	return v;
}

/* The poster as the manifest's "poster" (seconds as a number). */
static json_t *poster_json(const struct workdir_poster *poster)
{
	const char *at = poster->at ? poster->at : "end";
	char *end;
	double t = strtod(at, &end);

	if (end != at && !*end)
		return json_pack("{s:s, s:f}", "scene", poster->scene, "at", t);
	return json_pack("{s:s, s:s}", "scene", poster->scene, "at", at);
}

/* The manifest's text (caller frees), or NULL when out of memory: the
 * script's canvas, the poster, then the scenes. */
static char *manifest_text(const struct workdir_fit *fit, const struct script *s, const char *const *wavs,
			   const struct workdir_poster *poster)
{
	json_t *scenes = json_array(), *root = json_object();
	char *text;

	if (!root || !scenes || canvas_write(root, &(struct canvas){ s->width, s->height, s->fps }) < 0 ||
	    (poster && json_object_set_new(root, "poster", poster_json(poster)) < 0)) {
		json_decref(root);
		json_decref(scenes);
		return NULL;
	}
	if (json_object_set_new(root, "scenes", scenes) < 0) {
		json_decref(root);
		return NULL;
	}
	for (size_t i = 0; i < fit->n; i++) {
		json_t *sc = json_pack("{s:s, s:f, s:f, s:s}", "svg", fit->names[i], "duration", fit->v[i].duration,
				       "timeline", fit->v[i].written, "caption", s->v[i].say);
		int oom = 0;
		json_t *transition = transition_value(s, fit, i, &oom);
		if (!sc || oom || (wavs[i] && json_object_set_new(sc, "narration", json_string(wavs[i])) < 0) ||
		    (transition && json_object_set_new(sc, TRANSITION_KEY, json_incref(transition)) < 0)) {
			json_decref(transition);
			json_decref(sc);
			json_decref(root);
			return NULL;
		}
		json_decref(transition);
		/* The array takes sc even when it fails. */
		if (json_array_append_new(scenes, sc) < 0) {
			json_decref(root);
			return NULL;
		}
	}
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	return text;
}

/* Writes the manifest and reads it back as the renderer does; on a
 * refusal the manifest is removed and the answer lists why. */
static struct workdir_answer write_manifest(const struct workdir_call *c, const struct workdir_fit *fit,
					    const char *const *wavs, const struct workdir_poster *poster)
{
	char path[HB_PATH_MAX], err[512], secs[32];
	struct problems p = { 0 };
	struct workdir_answer a;
	struct explainer e;
	char *text = manifest_text(fit, &c->script, wavs, poster);
	int written = -1;

	if (!text)
		return workdir_answer_text(0, "out of memory writing " EXPLAINER_MANIFEST);
	if (hb_path_join(path, sizeof path, c->dir, EXPLAINER_MANIFEST) < 0)
		snprintf(err, sizeof err, "the work folder's path is too long");
	else
		written = output_write_file(path, text, strlen(text), err, sizeof err);
	free(text);
	if (written < 0)
		return workdir_answer_text(0, EXPLAINER_MANIFEST " is not written: %s", err);
	if (explainer_open(c->dir, &e, &p) < 0) {
		(void)unlink(path);
		a = workdir_answer_problems("the renderer refuses the manifest made from the script and the narration:",
					    &p);
		problems_free(&p);
		return a;
	}
	explainer_free(&e);
	explainer_seconds_text(fit->total, secs, sizeof secs);
	return workdir_answer_text(1, EXPLAINER_MANIFEST " written: %zu scene%s, %s s narrated", fit->n,
				   fit->n == 1 ? "" : "s", secs);
}

static struct workdir_answer manifest_locked(const struct workdir_call *c, const double *seconds,
					     const char *const *wavs, size_t n, const struct workdir_poster *poster,
					     struct workdir_fit *fit)
{
	struct problems p = { 0 };
	struct workdir_answer a;
	char why[8192]; /* the gate names every scene */

	if (c->script.n == 0)
		return workdir_answer_text(0, "no scenes yet: an explainer has at least one");
	if (narration_problem(&c->script, seconds, wavs, n, why, sizeof why))
		return workdir_answer_text(0, "%s", why);
	script_check_count(&c->script, &p);
	for (size_t i = 0; i < c->script.n; i++)
		workdir_scene_problems(c, i, &p);
	if (p.n > 0) {
		a = workdir_answer_problems("the scenes do not pass the checks:", &p);
		problems_free(&p);
		return a;
	}
	if (fit_fill(&c->script, seconds, fit) < 0) {
		workdir_fit_free(fit);
		return workdir_answer_text(0, "out of memory fitting the scenes to their narration");
	}
	if (fit_gate(fit->v, fit->n, why, sizeof why) < 0)
		return workdir_answer_text(0, "%s", why);
	return write_manifest(c, fit, wavs, poster);
}

struct workdir_answer workdir_manifest(const char *dir, const double *narration_seconds,
				       const char *const *wav_names, size_t n, const struct workdir_poster *poster,
				       struct workdir_fit *fit)
{
	struct workdir_answer a;
	struct workdir_call c;

	memset(fit, 0, sizeof *fit);
	if (workdir_begin(dir, WORKDIR_CHANGE, &c, &a) < 0)
		return a;
	a = manifest_locked(&c, narration_seconds, wav_names, n, poster, fit);
	workdir_end(&c);
	return a;
}
