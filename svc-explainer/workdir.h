/*
 * workdir - the explainer worker's private work folder and the handlers of
 * the worker's tools (create_explainer_video, issue 13).
 *
 * The folder holds the scenes, flat, as NAME.svg files, and script.json
 * (script.h): the scenes in order, each with its narration text ("say")
 * and the length in seconds its animations are written for
 * ("duration").  The worker changes the folder through
 * workdir_write_scene and workdir_remove_scene (what it changes by other
 * means is checked like the rest), and looks at it through workdir_read,
 * workdir_check, workdir_preview and workdir_sheet; once the
 * narration is synthesized, workdir_manifest writes the renderer's
 * explainer.json (folder.h) from the script and the measured narration.
 *
 * While the worker writes there is no narration and so no renderer
 * manifest: preview, sheet and check build the renderer's explainer in
 * memory from script.json (each scene silent, lasting its written
 * duration) instead of writing a provisional explainer.json into the
 * folder, so the only explainer.json a folder ever holds is the finished
 * one.  Each scene's file must be a regular file in the folder (the tools
 * write no links, and a link could lead out of it), and every scene is
 * checked through scene_load.
 *
 * Every call takes the folder's path and answers: ok or not, a text for the
 * worker's model (sentences, problems as FILE:LINE: sentence lines) and,
 * for previews, PNG bytes.  Calls on one folder may come at once (a model
 * may call tools in parallel): each call holds a lock on the folder
 * (flock), shared to look and exclusive to change, so script.json is never
 * updated from a stale copy.  fonts_setup and xmlInitParser must have run
 * (scene.h, fonts.h).  An answer's text that cannot be allocated aborts
 * the process, as a problem list does (problems.h).
 */
#ifndef EXPLAINER_WORKDIR_H
#define EXPLAINER_WORKDIR_H

#include <stddef.h>

#include "fit.h"
#include "script.h"

struct workdir_answer {
	int ok;
	char *text;         /* never NULL */
	unsigned char *png; /* NULL, or png_len bytes of a PNG */
	size_t png_len;
};

void workdir_answer_free(struct workdir_answer *a);
/* An answer with a formatted text (the service's own answers to the
 * worker take this shape too). */
struct workdir_answer workdir_answer_text(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes (or replaces) the scene NAME with svg_text (at most
 * SCENE_MAX_BYTES) and records its narration text say (1 to 2000
 * characters, no control character but newline) and duration (0.5 to 600
 * s) in script.json at the 1-based position (0: a new scene goes last, a
 * replaced one keeps its place).  At most SCRIPT_MAX_SCENES (30) scenes.  Then
 * loads the scene: ok with "scene N NAME written; it passes the checks",
 * or not ok with its problems, the scene written all the same so the
 * worker can fix it.  Bad arguments change nothing. */
struct workdir_answer workdir_write_scene(const char *dir, const char *name, const char *svg_text, const char *say,
					  double duration, long position);
/* The same, with how the scene enters from the scene before it
 * (transition.h): NULL keeps a replaced scene's transition (a new scene
 * enters with a cut).  A transition that does not fit the scenes it joins
 * as written (the first scene, longer than half a scene) is recorded and
 * reported as a problem of the scene, like the scene's own. */
struct workdir_answer workdir_write_scene_entering(const char *dir, const char *name, const char *svg_text,
						   const char *say, double duration, long position,
						   const struct transition *transition);
/* Removes the scene NAME from script.json and its file. */
struct workdir_answer workdir_remove_scene(const char *dir, const char *name);
/* NAME NULL: the script as text (each scene's number, name, duration,
 * narration text and whether it passes the checks).  Otherwise that
 * scene's SVG text. */
struct workdir_answer workdir_read(const char *dir, const char *name);
/* Every problem of the script and of every scene, or "N scenes, X s as
 * written: ok". */
struct workdir_answer workdir_check(const char *dir);
/* Scene NAME's first ("start") or last ("end") frame as a PNG of the
 * script's canvas (1920x1080 for 16:9),
 * with a text naming the scene and the time. */
struct workdir_answer workdir_preview(const char *dir, const char *name, const char *at);
/* The contact sheet (preview.h): every scene's start and end frame. */
struct workdir_answer workdir_sheet(const char *dir);

/* Sets the canvas (canvas.h) of the folder's script.json: what svc-explainer
 * does when it makes the folder, from the tool's arguments (the worker's
 * tools keep it).  0, or -1 with err. */
int workdir_set_canvas(const char *dir, int width, int height, int fps, char *err, size_t errlen);

/* The scenes as fitted to their narration (fit.h), in script order. */
struct workdir_fit {
	struct fit_scene *v; /* each name points into names */
	char **names;
	size_t n;
	double total;        /* seconds */
};

void workdir_fit_free(struct workdir_fit *f);

/* Writes the renderer's explainer.json for the folder once the n scenes'
 * narration is made: scene i speaks wav_names[i] (a WAV in the folder,
 * 24 kHz mono 16-bit; NULL: silent) for narration_seconds[i] seconds (0
 * when silent).  Each scene is fitted to its narration (fit_scenes), its
 * written duration kept as the manifest's "timeline".  n must be the
 * script's scene count, and the script must pass its checks.  *fit is
 * filled whenever the script could be fitted (empty otherwise; free it
 * either way).  Not ok with the gate's sentence (fit_gate) when the total
 * is outside 30-120 s: no manifest is written then.  Ok once
 * explainer_open accepts the written manifest; a manifest it refuses is
 * removed and its problems answered.  Each scene's narration text is
 * its "caption"; poster (NULL: none) becomes the manifest's "poster",
 * checked there like the rest. */
struct workdir_poster {
	const char *scene; /* a scene's name or number */
	const char *at;    /* "start", "end" or seconds; NULL: "end" */
};

struct workdir_answer workdir_manifest(const char *dir, const double *narration_seconds,
				       const char *const *wav_names, size_t n, const struct workdir_poster *poster,
				       struct workdir_fit *fit);

#endif
