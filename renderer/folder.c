/*
 * folder - reading and checking an explainer folder's manifest (folder.h).
 *
 * `hb-explainer check` shows every problem at once, so nothing here stops
 * at the first one: each scene is checked whole and its problems appended.
 * A file the manifest names must really be inside the folder; that is
 * decided on its real path (symbolic links resolved), since a plain-looking
 * name can be a link to anywhere.
 */
#include "folder.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "canvas.h"
#include "scene_limits.h"
#include "narration.h"
#include "readfile.h"

#define MANIFEST_MAX_BYTES (1u << 20)
#define DURATION_MIN 0.5
#define DURATION_MAX 600.0
/* Samples of 24 kHz narration per frame (30 or 60 fps: a whole number). */
#define SAMPLES_PER_FRAME(fps) (EXPLAINER_NARRATION_RATE / (fps))

#define CAPTION_MAX_BYTES 20000

static const char *const scene_keys[] = { "svg", "narration", "duration", "timeline", "caption", TRANSITION_KEY,
					  NULL };

static char *join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *s = malloc(a + b + 2);

	if (s) {
		memcpy(s, dir, a);
		s[a] = '/';
		memcpy(s + a + 1, name, b + 1);
	}
	return s;
}

/* Whether NAME is a plain file name: no folder part, no "." or "..". */
static const char *name_problem(const char *name, size_t len)
{
	if (len == 0)
		return "is empty";
	if (strlen(name) != len)
		return "contains a NUL character";
	if (strchr(name, '/'))
		return "contains \"/\"; name a file directly in the folder, without a path";
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return "is not a file name; name a file directly in the folder";
	return NULL;
}

/* DIR/NAME when it resolves to a regular file inside DIR (a real path);
 * NULL with a problem (on the manifest, for scene i, key KEY) otherwise. */
static char *file_in_folder(const char *dir, const char *name, size_t i, const char *key,
			    struct problems *p)
{
	char *path = join(dir, name), *real;
	size_t dirlen = strcmp(dir, "/") == 0 ? 0 : strlen(dir);
	struct stat st;

	if (!path) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "scene %zu: out of memory", i);
		return NULL;
	}
	real = realpath(path, NULL);
	if (!real) {
		if (errno == ENOENT)
			problems_add(p, EXPLAINER_MANIFEST, 0, "scene %zu: \"%s\" names %s, which is not in the "
				     "folder", i, key, name);
		else
			problems_add(p, EXPLAINER_MANIFEST, 0, "scene %zu: \"%s\": cannot open %s: %s", i, key,
				     name, strerror(errno));
	} else if (strncmp(real, dir, dirlen) != 0 || real[dirlen] != '/') {
		problems_add(p, EXPLAINER_MANIFEST, 0, "scene %zu: \"%s\": %s is a link to %s, outside the "
			     "folder; everything a scene uses must be inside the folder", i, key, name, real);
	} else if (stat(real, &st) < 0) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "scene %zu: \"%s\": cannot open %s: %s", i, key, name,
			     strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "scene %zu: \"%s\": %s is not a regular file", i, key,
			     name);
	} else {
		free(real);
		return path;
	}
	free(real);
	free(path);
	return NULL;
}

/* The file name of scene i's KEY, checked and copied; NULL when absent
 * (*bad stays 0) or wrong (*bad set, problem appended). */
static char *name_field(const json_t *scene, const char *key, size_t i, int *bad, struct problems *p)
{
	const json_t *v = json_object_get(scene, key);
	const char *why;
	char *copy;

	if (!v)
		return NULL;
	if (!json_is_string(v)) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "scene %zu: \"%s\" must be a file name (a string)", i,
			     key);
		*bad = 1;
		return NULL;
	}
	why = name_problem(json_string_value(v), json_string_length(v));
	if (why) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "scene %zu: \"%s\": \"%s\" %s", i, key,
			     json_string_value(v), why);
		*bad = 1;
		return NULL;
	}
	copy = strdup(json_string_value(v));
	if (!copy) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "scene %zu: out of memory", i);
		*bad = 1;
	}
	return copy;
}

static void check_keys(const json_t *scene, size_t i, struct problems *p)
{
	const char *key;
	json_t *val;

	json_object_foreach((json_t *)scene, key, val) {
		const char *const *k = scene_keys;
		while (*k && strcmp(*k, key) != 0)
			k++;
		if (!*k)
			problems_add(p, EXPLAINER_MANIFEST, 0, "scene %zu: unknown key \"%s\"; a scene has "
				     "\"svg\", \"duration\" and optionally \"narration\", \"timeline\", \"caption\" and "
				     "\"transition\"", i, key);
	}
}

/* "caption" (optional): the scene's spoken text, copied into s. */
static int read_caption(const json_t *scene, size_t i, struct explainer_scene *s, struct problems *p)
{
	const json_t *v = json_object_get(scene, "caption");

	if (!v)
		return 0;
	if (!json_is_string(v) || json_string_length(v) != strlen(json_string_value(v)) ||
	    json_string_length(v) > CAPTION_MAX_BYTES) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "scene %zu: \"caption\" must be the scene's spoken text "
			     "(a string of at most %d bytes, no NUL)", i, CAPTION_MAX_BYTES);
		return -1;
	}
	if (!(s->caption = strdup(json_string_value(v)))) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "scene %zu: out of memory", i);
		return -1;
	}
	return 0;
}

/* "duration" (required) or "timeline" (optional: 1 when absent). */
static int read_seconds(const json_t *scene, size_t i, const char *key, double *d, struct problems *p)
{
	const json_t *v = json_object_get(scene, key);

	if (!v && strcmp(key, "timeline") == 0)
		return 1;
	if (!v) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "scene %zu: \"%s\" is missing; give the "
			     "scene's length in seconds (%g to %g)", i, key, DURATION_MIN, DURATION_MAX);
		return -1;
	}
	if (!json_is_number(v)) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "scene %zu: \"%s\" must be a number of "
			     "seconds (%g to %g), like 8.5", i, key, DURATION_MIN, DURATION_MAX);
		return -1;
	}
	*d = json_number_value(v);
	if (!(*d >= DURATION_MIN && *d <= DURATION_MAX)) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "scene %zu: \"%s\" is %g; it must be from %g "
			     "to %g seconds", i, key, *d, DURATION_MIN, DURATION_MAX);
		return -1;
	}
	return 0;
}

void explainer_seconds_text(double s, char *buf, size_t len)
{
	char *end;

	snprintf(buf, len, "%.2f", s);
	end = buf + strlen(buf);
	while (end > buf && end[-1] == '0')
		*--end = '\0';
	if (end > buf && end[-1] == '.')
		end[-1] = '\0';
}

/* The narration's header, and that it fits in the scene's frames. */
static void check_narration(const struct explainer_scene *s, size_t i, int fps, struct problems *p)
{
	char err[512], lasts[32], need[32];
	size_t samples;

	if (narration_probe(s->wav_path, &samples, err, sizeof err) < 0) {
		problems_add(p, s->wav, 0, "%s", err);
		return;
	}
	if (samples > (size_t)s->frames * SAMPLES_PER_FRAME(fps)) {
		double secs = (double)samples / EXPLAINER_NARRATION_RATE;
		explainer_seconds_text(secs, lasts, sizeof lasts);
		/* The shortest duration that fits, rounded up to 1/100 s. */
		explainer_seconds_text(ceil(secs * 100 - 1e-9) / 100, need, sizeof need);
		problems_add(p, EXPLAINER_MANIFEST, 0, "scene %zu: narration %s lasts %s s but scene %zu "
			     "lasts %g s; make its \"duration\" at least %s or shorten the narration", i,
			     s->wav, lasts, i, s->duration, need);
	}
}

/* Scene i's "transition" (a cut when absent); -1 with a problem. */
static int read_transition(const json_t *scene, size_t i, struct explainer_scene *s, struct problems *p)
{
	const json_t *v = json_object_get(scene, TRANSITION_KEY);
	char why[256];

	s->transition.type = TRANSITION_CUT;
	s->transition.duration = 0;
	if (v && transition_read(v, &s->transition, why, sizeof why)) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "scene %zu: %s", i, why);
		return -1;
	}
	return 0;
}

/* Each transition within half of the scenes it joins, and its frames. */
static void fit_transitions(struct explainer *e, struct problems *p)
{
	char why[256];

	for (size_t i = 0; i < e->n; i++) {
		struct explainer_scene *s = &e->scenes[i];
		if (transition_fit_problem(&s->transition, i == 0, i ? e->scenes[i - 1].duration : 0, s->duration,
					   why, sizeof why))
			problems_add(p, EXPLAINER_MANIFEST, 0, "scene %zu: %s", i + 1, why);
		else if (s->transition.type != TRANSITION_CUT)
			s->transition_frames = explainer_frames(s->transition.duration, e->fps);
	}
}

/* Scene i (1-based) into s; problems appended.  0 when it is usable. */
static int read_scene(const char *dir, const json_t *scene, size_t i, int fps, struct explainer_scene *s,
		      struct problems *p)
{
	int bad = 0;

	if (!json_is_object(scene)) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "scene %zu must be an object like "
			     "{ \"svg\": \"01.svg\", \"duration\": 8 }", i);
		return -1;
	}
	check_keys(scene, i, p);
	s->svg = name_field(scene, "svg", i, &bad, p);
	if (!s->svg && !bad) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "scene %zu: \"svg\" is missing; name the scene's "
			     "SVG file", i);
		bad = 1;
	}
	if (s->svg && !(s->svg_path = file_in_folder(dir, s->svg, i, "svg", p)))
		bad = 1;
	if (read_caption(scene, i, s, p) < 0)
		bad = 1;
	s->wav = name_field(scene, "narration", i, &bad, p);
	if (s->wav && !(s->wav_path = file_in_folder(dir, s->wav, i, "narration", p)))
		bad = 1;
	if (read_seconds(scene, i, "duration", &s->duration, p) < 0)
		return -1;
	switch (read_seconds(scene, i, "timeline", &s->timeline, p)) {
	case -1:
		return -1;
	case 1:
		s->timeline = s->duration;
		break;
	}
	if (read_transition(scene, i, s, p) < 0)
		bad = 1;
	s->frames = explainer_frames(s->duration, fps);
	if (s->wav_path)
		check_narration(s, i, fps, p);
	return bad ? -1 : 0;
}

/* The manifest's text (NUL-terminated, caller frees); NULL with a problem.
 * It is read by name, not followed: a link is refused. */
static char *read_manifest(const char *dir, size_t *len, struct problems *p)
{
	char *path = join(dir, EXPLAINER_MANIFEST), *text;
	char err[256];

	if (!path) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "out of memory");
		return NULL;
	}
	text = read_small_file(path, MANIFEST_MAX_BYTES, READFILE_NOFOLLOW, len, err, sizeof err);
	if (!text && errno == ENOENT)
		problems_add(p, EXPLAINER_MANIFEST, 0, "the folder has no %s; it must list the scenes, "
			     "e.g. { \"scenes\": [ { \"svg\": \"01.svg\", \"duration\": 8 } ] }",
			     EXPLAINER_MANIFEST);
	else if (!text)
		problems_add(p, EXPLAINER_MANIFEST, 0, "%s", err);
	free(path);
	return text;
}

/* The "scenes" array of the manifest; NULL with problems. */
static const json_t *scene_list(const json_t *root, struct problems *p)
{
	const char *key;
	json_t *val, *scenes;

	if (!json_is_object(root)) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "must be an object: { \"scenes\": [ ... ] }");
		return NULL;
	}
	json_object_foreach((json_t *)root, key, val)
		if (strcmp(key, "scenes") != 0 && strcmp(key, "format") != 0 && strcmp(key, "fps") != 0 &&
		    strcmp(key, "poster") != 0)
			problems_add(p, EXPLAINER_MANIFEST, 0, "unknown key \"%s\"; the manifest has "
				     "\"scenes\" and optionally \"format\", \"fps\" and \"poster\"", key);
	scenes = json_object_get(root, "scenes");
	if (!scenes) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "has no \"scenes\": list the scenes in order");
		return NULL;
	}
	if (!json_is_array(scenes)) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "\"scenes\" must be a list: [ { \"svg\": ..., "
			     "\"duration\": ... }, ... ]");
		return NULL;
	}
	if (json_array_size(scenes) == 0) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "\"scenes\" is empty; an explainer has at least "
			     "one scene");
		return NULL;
	}
	return scenes;
}

static void read_scenes(const json_t *scenes, struct explainer *e, struct problems *p)
{
	size_t n = json_array_size(scenes);
	int ok = 1;

	e->scenes = calloc(n, sizeof *e->scenes);
	if (!e->scenes) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "out of memory");
		return;
	}
	e->n = n;
	for (size_t i = 0; i < n; i++)
		if (read_scene(e->dir, json_array_get(scenes, i), i + 1, e->fps, &e->scenes[i], p) < 0)
			ok = 0;
	if (!ok)
		return;
	for (size_t i = 0; i < n; i++) {
		e->scenes[i].first_frame = e->total_frames;
		e->total_frames += e->scenes[i].frames;
	}
	fit_transitions(e, p);
	explainer_check_limits(e, p);
}

/* "poster" (optional): { "scene": NAME, "at": "start" | "end" | seconds },
 * read after the scenes, so the scene and the time are checked. */
static void read_poster(const json_t *root, struct explainer *e, struct problems *p)
{
	const json_t *v = json_object_get(root, "poster"), *scene, *at;
	const struct explainer_scene *s;
	char text[64];

	if (!v)
		return;
	scene = json_object_get(v, "scene");
	at = json_object_get(v, "at");
	if (!json_is_object(v) || json_object_size(v) != (size_t)(!!scene + !!at) || !json_is_string(scene) ||
	    (at && !json_is_string(at) && !json_is_number(at))) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "\"poster\" must be like { \"scene\": \"02-how.svg\", "
			     "\"at\": \"end\" } (\"at\": \"start\", \"end\" or seconds)");
		return;
	}
	if (!(s = explainer_find_scene(e, json_string_value(scene)))) {
		problems_add(p, EXPLAINER_MANIFEST, 0, "\"poster\": there is no scene %s; give its svg name or "
			     "its number (1 to %zu)", json_string_value(scene), e->n);
		return;
	}
	if (json_is_number(at))
		snprintf(text, sizeof text, "%.17g", json_number_value(at));
	else
		snprintf(text, sizeof text, "%.60s", at ? json_string_value(at) : "end");
	if (strcmp(text, "start") != 0 && strcmp(text, "end") != 0) {
		char *end;
		double t = strtod(text, &end);
		if (end == text || *end || !(t >= 0 && t <= s->duration)) {
			problems_add(p, EXPLAINER_MANIFEST, 0, "\"poster\": \"at\" is %s; give \"start\", "
				     "\"end\" or seconds from 0 to %g (the length of %s)", text, s->duration, s->svg);
			return;
		}
	}
	if (!(e->poster_scene = strdup(s->svg)) || !(e->poster_at = strdup(text)))
		problems_add(p, EXPLAINER_MANIFEST, 0, "out of memory");
}

int explainer_open(const char *dir, struct explainer *e, struct problems *p)
{
	size_t before = p->n, len = 0;
	json_error_t jerr;
	struct stat st;
	char *text;
	json_t *root;

	memset(e, 0, sizeof *e);
	e->dir = realpath(dir, NULL);
	if (!e->dir || stat(e->dir, &st) < 0) {
		problems_add(p, "", 0, "cannot open the explainer folder %s: %s", dir, strerror(errno));
		explainer_free(e);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		problems_add(p, "", 0, "%s is not a folder; give the explainer folder (the one with %s)", dir,
			     EXPLAINER_MANIFEST);
		explainer_free(e);
		return -1;
	}
	text = read_manifest(e->dir, &len, p);
	if (!text) {
		explainer_free(e);
		return -1;
	}
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (!root) {
		problems_add(p, EXPLAINER_MANIFEST, jerr.line, "is not valid JSON: %s", jerr.text);
	} else {
		const json_t *scenes = scene_list(root, p);
		if (canvas_read_file(root, EXPLAINER_MANIFEST, &e->width, &e->height, &e->fps, p) == 0 && scenes)
			read_scenes(scenes, e, p);
		if (scenes && p->n == before)
			read_poster(root, e, p);
		json_decref(root);
	}
	if (p->n > before) {
		explainer_free(e);
		return -1;
	}
	return 0;
}

void explainer_free(struct explainer *e)
{
	for (size_t i = 0; i < e->n; i++) {
		free(e->scenes[i].svg);
		free(e->scenes[i].svg_path);
		free(e->scenes[i].wav);
		free(e->scenes[i].wav_path);
		free(e->scenes[i].caption);
	}
	free(e->poster_scene);
	free(e->poster_at);
	free(e->scenes);
	free(e->dir);
	memset(e, 0, sizeof *e);
}

const struct explainer_scene *explainer_find_scene(const struct explainer *e, const char *scene)
{
	size_t len = strlen(scene);

	if (len > 0 && len < 10 && strspn(scene, "0123456789") == len) {
		long pos = strtol(scene, NULL, 10);
		return pos >= 1 && (size_t)pos <= e->n ? &e->scenes[pos - 1] : NULL;
	}
	for (size_t i = 0; i < e->n; i++) {
		const char *svg = e->scenes[i].svg;
		size_t n = strlen(svg);
		if (strcmp(svg, scene) == 0 ||
		    (n == len + 4 && strcmp(svg + len, ".svg") == 0 && strncmp(svg, scene, len) == 0))
			return &e->scenes[i];
	}
	return NULL;
}

long explainer_frames(double duration, int fps)
{
	/* The epsilon keeps 8.1 s at 243 frames although 8.1 * 30 is 243.00000000000003. */
	return (long)ceil(duration * fps - 1e-9);
}

double scene_frame_time(long k, int fps)
{
	return (double)k / fps;
}

double explainer_scene_time(const struct explainer_scene *s, double t)
{
	return t * (s->timeline / s->duration);
}
