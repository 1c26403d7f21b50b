/*
 * script - reading, checking and writing script.json (script.h).
 *
 * The script is read whole on every tool call and written back whole
 * through a temporary file (output.h), so a crash mid-write never leaves
 * half a script.  Reading is strict about the shape, since a misspelt key
 * would otherwise drop a narration silently, and lenient about values:
 * script_check reports those as sentences the worker can act on, and the
 * worker fixes a scene by writing it again.
 */
#include "script.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "canvas.h"
#include "output.h"
#include "paths.h"
#include "readfile.h"

#define SCRIPT_MAX_BYTES (1u << 20)
#define SHAPE "{ \"scenes\": [ { \"svg\": \"01-intro.svg\", \"say\": \"...\", \"duration\": 8 } ] }"
#define SHAPE_CANVAS "with, optionally, \"format\" and \"fps\" beside \"scenes\""

const char *script_name_problem(const char *name, char *buf, size_t buflen)
{
	size_t len = strlen(name);

	if (len == 0)
		snprintf(buf, buflen, "the scene's name is empty; give a file name like 01-intro.svg");
	else if (strchr(name, '/'))
		snprintf(buf, buflen, "\"%s\" contains \"/\"; a scene is a file directly in the work folder, "
			 "named like 01-intro.svg", name);
	else if (name[0] == '.')
		snprintf(buf, buflen, "\"%s\" begins with \".\"; name the scene like 01-intro.svg", name);
	else if (len > SCRIPT_NAME_MAX_BYTES)
		snprintf(buf, buflen, "the scene's name has %zu bytes, more than the %d it may have", len,
			 SCRIPT_NAME_MAX_BYTES);
	else if (len <= 4 || strcmp(name + len - 4, ".svg") != 0)
		snprintf(buf, buflen, "\"%s\" does not end in .svg; a scene is an SVG file, named like "
			 "01-intro.svg", name);
	else {
		for (const unsigned char *c = (const unsigned char *)name; *c; c++)
			if (*c < 0x20 || *c == 0x7f) {
				snprintf(buf, buflen, "the scene's name contains a control character; name it "
					 "like 01-intro.svg");
				return buf;
			}
		return NULL;
	}
	return buf;
}

/* Whether the UTF-8 sequence at s is a control character other than a
 * newline: C0, DEL or C1 (U+0080..U+009F, encoded C2 80..C2 9F). */
static int is_control(const unsigned char *s)
{
	return (*s < 0x20 && *s != '\n') || *s == 0x7f || (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f);
}

const char *script_say_problem(const char *say, char *buf, size_t buflen)
{
	json_t *utf8 = json_string(say); /* jansson refuses text that is not UTF-8 */
	size_t chars = 0, words = 0;

	if (!utf8) {
		snprintf(buf, buflen, "the narration text is not UTF-8 text");
		return buf;
	}
	json_decref(utf8);
	for (const unsigned char *s = (const unsigned char *)say; *s; s++) {
		if (is_control(s)) {
			snprintf(buf, buflen, "the narration text contains a control character (character %zu); "
				 "write plain sentences, with at most newlines between them", chars + 1);
			return buf;
		}
		chars += (*s & 0xc0) != 0x80;
		words += *s != ' ' && *s != '\n';
	}
	if (words == 0)
		snprintf(buf, buflen, "the narration text is empty; write what the narrator says in this scene, "
			 "in short spoken sentences");
	else if (chars > SCRIPT_SAY_MAX_CHARS)
		snprintf(buf, buflen, "the narration text has %zu characters, more than the %d a scene may have; "
			 "shorten it or split the scene", chars, SCRIPT_SAY_MAX_CHARS);
	else
		return NULL;
	return buf;
}

const char *script_duration_problem(double d, char *buf, size_t buflen)
{
	if (d >= SCRIPT_DURATION_MIN && d <= SCRIPT_DURATION_MAX)
		return NULL;
	snprintf(buf, buflen, "the duration %g s is outside %g to %g s; give the length in seconds the scene's "
		 "animations are written for", d, SCRIPT_DURATION_MIN, SCRIPT_DURATION_MAX);
	return buf;
}

/* ---- reading ---------------------------------------------------------- */

/* No scenes, on the default canvas. */
static void script_empty(struct script *s)
{
	struct canvas c = canvas_default();

	memset(s, 0, sizeof *s);
	s->width = c.width;
	s->height = c.height;
	s->fps = c.fps;
}

/* Scene i (1-based) of the file into s; -1 with a problem when its shape
 * is wrong. */
static int read_scene(const json_t *j, size_t i, struct script_scene *s, struct problems *p)
{
	const json_t *svg = json_object_get(j, "svg"), *say = json_object_get(j, "say");
	const json_t *duration = json_object_get(j, "duration"), *transition = json_object_get(j, TRANSITION_KEY);
	char why[256];
	const char *key;
	json_t *val;

	if (!json_is_object(j)) {
		problems_add(p, SCRIPT_FILE, 0, "scene %zu must be an object like %s", i, SHAPE);
		return -1;
	}
	json_object_foreach((json_t *)j, key, val)
		if (strcmp(key, "svg") != 0 && strcmp(key, "say") != 0 && strcmp(key, "duration") != 0 &&
		    strcmp(key, TRANSITION_KEY) != 0) {
			problems_add(p, SCRIPT_FILE, 0, "scene %zu: unknown key \"%s\"; a scene has \"svg\", "
				     "\"say\", \"duration\" and optionally \"transition\"", i, key);
			return -1;
		}
	if (!json_is_string(svg) || !json_is_string(say) || !json_is_number(duration)) {
		problems_add(p, SCRIPT_FILE, 0, "scene %zu needs \"svg\" (its file name), \"say\" (its narration "
			     "text) and \"duration\" (seconds, a number)", i);
		return -1;
	}
	if (strlen(json_string_value(svg)) != json_string_length(svg) ||
	    strlen(json_string_value(say)) != json_string_length(say)) {
		problems_add(p, SCRIPT_FILE, 0, "scene %zu contains a NUL character", i);
		return -1;
	}
	if (transition && transition_read(transition, &s->transition, why, sizeof why)) {
		problems_add(p, SCRIPT_FILE, 0, "scene %zu: %s", i, why);
		return -1;
	}
	s->svg = strdup(json_string_value(svg));
	s->say = strdup(json_string_value(say));
	s->duration = json_number_value(duration);
	if (!s->svg || !s->say) {
		problems_add(p, SCRIPT_FILE, 0, "out of memory reading scene %zu", i);
		return -1;
	}
	return 0;
}

/* The "scenes" of root into s; -1 with a problem. */
static int read_scenes(const json_t *root, struct script *s, struct problems *p)
{
	const json_t *scenes = json_object_get(root, "scenes");
	size_t keys = 1 + (json_object_get(root, "format") != NULL) + (json_object_get(root, "fps") != NULL);

	if (!json_is_object(root) || json_object_size(root) != keys || !json_is_array(scenes)) {
		problems_add(p, SCRIPT_FILE, 0, "must be %s (%s) and nothing else", SHAPE, SHAPE_CANVAS);
		return -1;
	}
	if (canvas_read_file(root, SCRIPT_FILE, &s->width, &s->height, &s->fps, p) < 0)
		return -1;
	if (json_array_size(scenes) == 0)
		return 0;
	if (!(s->v = calloc(json_array_size(scenes), sizeof *s->v))) {
		problems_add(p, SCRIPT_FILE, 0, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < json_array_size(scenes); i++) {
		s->n++;
		if (read_scene(json_array_get(scenes, i), i + 1, &s->v[i], p) < 0)
			return -1;
	}
	return 0;
}

int script_load(const char *dir, struct script *s, struct problems *p)
{
	char path[HB_PATH_MAX], err[256];
	json_error_t jerr;
	size_t len = 0;
	json_t *root;
	char *text;
	int rc;

	script_empty(s);
	if (hb_path_join(path, sizeof path, dir, SCRIPT_FILE) < 0) {
		problems_add(p, SCRIPT_FILE, 0, "the work folder's path is too long");
		return -1;
	}
	if (!(text = read_small_file(path, SCRIPT_MAX_BYTES, READFILE_NOFOLLOW, &len, err, sizeof err))) {
		if (errno == ENOENT)
			return 0;
		problems_add(p, SCRIPT_FILE, 0, "%s", err);
		return -1;
	}
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (!root) {
		problems_add(p, SCRIPT_FILE, jerr.line, "is not valid JSON: %s; it must be %s", jerr.text, SHAPE);
		return -1;
	}
	rc = read_scenes(root, s, p);
	json_decref(root);
	if (rc < 0)
		script_free(s);
	return rc;
}

/* The scene's file: there, a regular file, and not a symbolic link (the
 * tools write regular files, and a link could lead out of the folder).
 * 1 when it is one to load. */
static int check_file(const char *dir, const struct script_scene *sc, size_t i, struct problems *p)
{
	char path[HB_PATH_MAX];
	struct stat st;

	if (hb_path_join(path, sizeof path, dir, sc->svg) < 0) {
		problems_add(p, SCRIPT_FILE, 0, "scene %zu: the path of %s is too long", i, sc->svg);
	} else if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			problems_add(p, SCRIPT_FILE, 0, "scene %zu: %s is not in the work folder; write the scene "
				     "again or remove it", i, sc->svg);
		else
			problems_add(p, SCRIPT_FILE, 0, "scene %zu: cannot open %s: %s", i, sc->svg,
				     strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		problems_add(p, SCRIPT_FILE, 0, "scene %zu: %s is not a regular file (%s); write the scene again",
			     i, sc->svg, S_ISLNK(st.st_mode) ? "a symbolic link" : "a folder or device");
	} else {
		return 1;
	}
	return 0;
}

void script_check_count(const struct script *s, struct problems *p)
{
	if (s->n > SCRIPT_MAX_SCENES)
		problems_add(p, SCRIPT_FILE, 0, "has %zu scenes, more than the %d an explainer may have; remove "
			     "some", s->n, SCRIPT_MAX_SCENES);
}

int script_check_scene(const char *dir, const struct script *s, size_t i, struct problems *p)
{
	const struct script_scene *sc = &s->v[i];
	long first = script_find(s, sc->svg);
	char why[512];
	int loadable = 0;

	if (script_name_problem(sc->svg, why, sizeof why)) {
		problems_add(p, SCRIPT_FILE, 0, "scene %zu: %s", i + 1, why);
		return 0;
	}
	if (first >= 0 && (size_t)first < i)
		problems_add(p, SCRIPT_FILE, 0, "scene %zu: %s is also scene %ld; each scene has a file of its own",
			     i + 1, sc->svg, first + 1);
	else
		loadable = check_file(dir, sc, i + 1, p);
	if (script_say_problem(sc->say, why, sizeof why))
		problems_add(p, SCRIPT_FILE, 0, "scene %zu (%s): %s", i + 1, sc->svg, why);
	if (script_duration_problem(sc->duration, why, sizeof why))
		problems_add(p, SCRIPT_FILE, 0, "scene %zu (%s): %s", i + 1, sc->svg, why);
	else if (script_transition_problem(s, i, why, sizeof why))
		problems_add(p, SCRIPT_FILE, 0, "scene %zu (%s): %s", i + 1, sc->svg, why);
	return loadable;
}

const char *script_transition_problem(const struct script *s, size_t i, char *buf, size_t buflen)
{
	return transition_fit_problem(&s->v[i].transition, i == 0, i ? s->v[i - 1].duration : 0, s->v[i].duration,
				      buf, buflen);
}

/* ---- writing ---------------------------------------------------------- */

/* One scene as the file has it; NULL when out of memory. */
static json_t *scene_json(const struct script_scene *sc)
{
	json_t *j = json_pack("{s:s, s:s, s:f}", "svg", sc->svg, "say", sc->say, "duration", sc->duration);
	json_t *transition = transition_json(&sc->transition);

	if (j && sc->transition.type != TRANSITION_CUT &&
	    (!transition || json_object_set_new(j, TRANSITION_KEY, transition) < 0)) {
		json_decref(j);
		return NULL;
	}
	if (!j)
		json_decref(transition);
	return j;
}

static json_t *script_json(const struct script *s)
{
	json_t *root = json_object(), *scenes = json_array();

	if (!root || !scenes || canvas_write(root, &(struct canvas){ s->width, s->height, s->fps }) < 0) {
		json_decref(root);
		json_decref(scenes);
		return NULL;
	}
	/* set_new takes scenes whether it succeeds or not */
	if (json_object_set_new(root, "scenes", scenes) < 0) {
		json_decref(root);
		return NULL;
	}
	for (size_t i = 0; i < s->n; i++) {
		json_t *sc = scene_json(&s->v[i]);
		if (!sc || json_array_append_new(scenes, sc) < 0) {
			json_decref(root);
			return NULL;
		}
	}
	return root;
}

int script_save(const char *dir, const struct script *s, char *err, size_t errlen)
{
	char path[HB_PATH_MAX], *text = NULL;
	json_t *root = script_json(s);
	int rc = -1;

	/* 15 digits print a duration as it was given: 8.1, not 8.0999999999999996. */
	if (!root || !(text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))))
		snprintf(err, errlen, "out of memory writing %s", SCRIPT_FILE);
	else if (hb_path_join(path, sizeof path, dir, SCRIPT_FILE) < 0)
		snprintf(err, errlen, "the work folder's path is too long");
	else
		rc = output_write_file(path, text, strlen(text), err, errlen);
	free(text);
	json_decref(root);
	return rc;
}

/* ---- the list ----------------------------------------------------------- */

void script_free(struct script *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].svg);
		free(s->v[i].say);
	}
	free(s->v);
	script_empty(s);
}

long script_find(const struct script *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i].svg, name) == 0)
			return (long)i;
	return -1;
}

void script_move(struct script *s, size_t from, size_t to)
{
	struct script_scene moving = s->v[from];

	if (from < to)
		memmove(&s->v[from], &s->v[from + 1], (to - from) * sizeof *s->v);
	else
		memmove(&s->v[to + 1], &s->v[to], (from - to) * sizeof *s->v);
	s->v[to] = moving;
}

struct script_scene *script_insert(struct script *s, size_t at)
{
	struct script_scene *v = realloc(s->v, (s->n + 1) * sizeof *v);

	if (!v)
		return NULL;
	s->v = v;
	memmove(&v[at + 1], &v[at], (s->n - at) * sizeof *v);
	memset(&v[at], 0, sizeof *v);
	s->n++;
	return &v[at];
}

void script_remove(struct script *s, size_t at)
{
	free(s->v[at].svg);
	free(s->v[at].say);
	memmove(&s->v[at], &s->v[at + 1], (s->n - at - 1) * sizeof *s->v);
	s->n--;
}

double script_seconds(const struct script *s)
{
	double total = 0;

	for (size_t i = 0; i < s->n; i++)
		total += s->v[i].duration;
	return total;
}

/* ---- the renderer's view ------------------------------------------------ */

int script_explainer(const char *dir, const struct script *s, size_t first, size_t count, struct explainer *e,
		     char *err, size_t errlen)
{
	memset(e, 0, sizeof *e);
	e->width = s->width;
	e->height = s->height;
	e->fps = s->fps;
	if (!(e->dir = realpath(dir, NULL))) {
		snprintf(err, errlen, "cannot open the work folder %s: %s", dir, strerror(errno));
		return -1;
	}
	if (count && !(e->scenes = calloc(count, sizeof *e->scenes)))
		goto oom;
	for (size_t i = 0; i < count; i++) {
		const struct script_scene *sc = &s->v[first + i];
		struct explainer_scene *es = &e->scenes[i];
		char path[HB_PATH_MAX];

		e->n++;
		if (hb_path_join(path, sizeof path, e->dir, sc->svg) < 0) {
			snprintf(err, errlen, "the path of %s is too long", sc->svg);
			explainer_free(e);
			return -1;
		}
		if (!(es->svg = strdup(sc->svg)) || !(es->svg_path = strdup(path)))
			goto oom;
		es->duration = es->timeline = sc->duration;
		es->frames = explainer_frames(sc->duration, e->fps);
		es->first_frame = e->total_frames;
		e->total_frames += es->frames;
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	explainer_free(e);
	return -1;
}
