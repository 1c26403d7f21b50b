/*
 * script - script.json, the explainer worker's record of its scenes in
 * their order, each with its narration text and the length its
 * animations are written for:
 *
 *	{ "format": "9:16", "fps": 30,
 *	  "scenes": [ { "svg": "01-intro.svg",
 *	                "say": "The narration text, short spoken sentences.",
 *	                "duration": 8 } ] }
 *
 * "format" and "fps" (optional: 16:9 and 30 when absent) are the video's
 * canvas (canvas.h), set by svc-explainer from the tool's arguments when
 * it makes the folder; the worker's tools keep them, previews and checks
 * use them, and workdir_manifest writes them into explainer.json.
 * A scene may also have "transition", how it enters from the scene
 * before it (transition.h); without it, a cut.
 *
 * The worker's tools (workdir.h) keep it; it is plain JSON so the worker
 * can read it too.  A script that cannot be read as this shape (not JSON,
 * a key missing, of the wrong type or unknown) cannot be loaded; values
 * that break a rule (a name, the narration's length, a duration, a
 * missing SVG file, the same SVG twice, too many scenes) load, so the
 * entry can be replaced, and the script_check functions list them.
 */
#ifndef EXPLAINER_SCRIPT_H
#define EXPLAINER_SCRIPT_H

#include <stddef.h>

#include "folder.h"
#include "problems.h"

#define SCRIPT_FILE "script.json"
#define SCRIPT_MAX_SCENES 30
#define SCRIPT_SAY_MAX_CHARS 2000
#define SCRIPT_DURATION_MIN 0.5
#define SCRIPT_DURATION_MAX 600.0
/* A scene's name with the temporary name output.h makes beside it
 * (".NAME.hb-PID-XXXXXX.part") stays within a file name's 255 bytes. */
#define SCRIPT_NAME_MAX_BYTES 128

struct script_scene {
	char *svg;
	char *say;
	double duration; /* seconds the animations are written for */
	struct transition transition; /* how it enters from the scene before ("transition", transition.h) */
};

struct script {
	struct script_scene *v;
	size_t n;
	int width, height, fps; /* the canvas (canvas.h) */
};

/* Why NAME cannot be a scene's file name (a sentence that names it), or
 * NULL when it can: a plain name in the folder ending in ".svg". */
const char *script_name_problem(const char *name, char *buf, size_t buflen);
/* Why SAY cannot be a scene's narration text, or NULL. */
const char *script_say_problem(const char *say, char *buf, size_t buflen);
/* Why D cannot be a scene's duration, or NULL. */
const char *script_duration_problem(double d, char *buf, size_t buflen);

/* DIR/script.json into s (no file: no scenes, the default canvas).  0, or
 * -1 with the reason appended to p (s is then empty). */
int script_load(const char *dir, struct script *s, struct problems *p);
/* The rules the loaded script breaks, appended to p as problems of
 * script.json: as a whole (its number of scenes), and scene i's (its name,
 * narration text and duration, and its file: missing, the same as an
 * earlier scene's, not a regular file or a symbolic link).
 * script_check_scene returns 1 when the scene's file is one to load
 * (scene_load), 0 when it is not. */
void script_check_count(const struct script *s, struct problems *p);
int script_check_scene(const char *dir, const struct script *s, size_t i, struct problems *p);
/* Why scene i's transition does not fit the scenes it joins as written
 * (transition_fit_problem), or NULL; script_check_scene reports it too. */
const char *script_transition_problem(const struct script *s, size_t i, char *buf, size_t buflen);
/* s as DIR/script.json, replacing it whole (output.h).  0, or -1 with err. */
int script_save(const char *dir, const struct script *s, char *err, size_t errlen);
/* Empties s; its canvas becomes the default (1920x1080 at 30 fps). */
void script_free(struct script *s);

/* The index of the scene whose svg is NAME, or -1. */
long script_find(const struct script *s, const char *name);
/* Moves the scene at index from to index to (both < n). */
void script_move(struct script *s, size_t from, size_t to);
/* Inserts a zeroed scene at index at (<= n) and returns it; NULL when out
 * of memory. */
struct script_scene *script_insert(struct script *s, size_t at);
/* Removes (and frees) the scene at index at. */
void script_remove(struct script *s, size_t at);
/* The sum of the written durations. */
double script_seconds(const struct script *s);

/* The renderer's explainer (folder.h) for scenes [first, first + count)
 * of s as written, on s's canvas: each scene lasts its written duration
 * and is silent.
 * It is built in memory, so the worker's folder never holds a manifest
 * that is not the finished one.  0, or -1 with err. */
int script_explainer(const char *dir, const struct script *s, size_t first, size_t count, struct explainer *e,
		     char *err, size_t errlen);

#endif
