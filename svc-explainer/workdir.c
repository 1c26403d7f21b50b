/*
 * workdir - the worker's tools that write, remove, read and check scenes
 * (workdir.h).  Arguments are checked before the folder is touched, so a
 * refused call changes nothing; a scene that is written but does not pass
 * the checks stays written, since the worker fixes it by writing it again.
 */
#include "workdir.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "paths.h"
#include "readfile.h"
#include "scene.h"
#include "workdir_call.h"

/* Why the arguments of a write cannot be used, or NULL. */
static const char *write_problem(const char *name, const char *svg_text, const char *say, double duration,
				 long position, char *why, size_t whylen)
{
	size_t svg_len = strlen(svg_text);

	if (script_name_problem(name, why, whylen) || script_say_problem(say, why, whylen) ||
	    script_duration_problem(duration, why, whylen))
		return why;
	if (svg_len > SCENE_MAX_BYTES)
		snprintf(why, whylen, "the SVG of %s has %zu bytes, more than the %u a scene may have", name, svg_len,
			 SCENE_MAX_BYTES);
	else if (position < 0)
		snprintf(why, whylen, "the position %ld is not a scene's place: give 1 for the first, or 0 to add "
			 "the scene last (or keep its place)", position);
	else
		return NULL;
	return why;
}

/* Records the scene in the script at its place: index at when it was
 * there (-1: new), moved or inserted to the 1-based position (0: stays,
 * or goes last).  Its index, or -1 when out of memory. */
static long record_scene(struct script *s, long at, const char *name, const char *say, double duration,
			 long position, const struct transition *transition)
{
	size_t to = position ? (size_t)position - 1 : at >= 0 ? (size_t)at : s->n;
	char *say_copy = strdup(say), *name_copy;
	struct script_scene *sc;

	if (!say_copy)
		return -1;
	if (at >= 0) {
		script_move(s, (size_t)at, to);
		sc = &s->v[to];
		free(sc->say);
	} else {
		if (!(name_copy = strdup(name)) || !(sc = script_insert(s, to))) {
			free(name_copy);
			free(say_copy);
			return -1;
		}
		sc->svg = name_copy;
	}
	sc->say = say_copy;
	sc->duration = duration;
	if (transition)
		sc->transition = *transition;
	return (long)to;
}

/* The scene's own problems, and its transition's against the scene
 * before it as placed (and the next scene's against it). */
static void scene_problems(const struct script *s, long index, const char *path, const char *name,
			   struct problems *p)
{
	char why[256];

	scene_free(scene_load(path, name, s->width, s->height, p));
	if (script_transition_problem(s, (size_t)index, why, sizeof why))
		problems_add(p, SCRIPT_FILE, 0, "%s", why);
	if ((size_t)index + 1 < s->n && script_transition_problem(s, (size_t)index + 1, why, sizeof why))
		problems_add(p, SCRIPT_FILE, 0, "the next scene, %s: %s", s->v[index + 1].svg, why);
}

static struct workdir_answer write_locked(struct workdir_call *c, const char *name, const char *svg_text,
					  const char *say, double duration, long position,
					  const struct transition *transition)
{
	long at = script_find(&c->script, name), index;
	size_t last = at >= 0 ? c->script.n : c->script.n + 1;
	struct problems p = { 0 };
	struct workdir_answer a;
	char path[HB_PATH_MAX], err[512], intro[600];

	if (at < 0 && c->script.n >= SCRIPT_MAX_SCENES)
		return workdir_answer_text(0, "the explainer already has %zu scenes, the most it may have; replace or "
					   "remove a scene instead of adding %s", c->script.n, name);
	if ((size_t)position > last)
		return workdir_answer_text(0, "the position %ld is past the end: give 1 to %zu, or 0 to %s", position,
					   last, at >= 0 ? "keep the scene's place" : "add the scene last");
	if (hb_path_join(path, sizeof path, c->dir, name) < 0)
		return workdir_answer_text(0, "the path of %s in the work folder is too long", name);
	if (output_write_file(path, svg_text, strlen(svg_text), err, sizeof err) < 0)
		return workdir_answer_text(0, "%s is not written: %s", name, err);
	if ((index = record_scene(&c->script, at, name, say, duration, position, transition)) < 0)
		return workdir_answer_text(0, "%s is written, but out of memory recording it in " SCRIPT_FILE, name);
	if (script_save(c->dir, &c->script, err, sizeof err) < 0)
		return workdir_answer_text(0, "%s is written, but " SCRIPT_FILE " is not updated: %s", name, err);
	scene_problems(&c->script, index, path, name, &p);
	if (p.n == 0)
		return workdir_answer_text(1, "scene %ld %s written; it passes the checks", index + 1, name);
	snprintf(intro, sizeof intro, "scene %ld %s written, but it does not pass the checks; fix these and write "
		 "it again:", index + 1, name);
	a = workdir_answer_problems(intro, &p);
	problems_free(&p);
	return a;
}

struct workdir_answer workdir_write_scene(const char *dir, const char *name, const char *svg_text, const char *say,
					  double duration, long position)
{
	return workdir_write_scene_entering(dir, name, svg_text, say, duration, position, NULL);
}

struct workdir_answer workdir_write_scene_entering(const char *dir, const char *name, const char *svg_text,
						   const char *say, double duration, long position,
						   const struct transition *transition)
{
	struct workdir_answer a;
	struct workdir_call c;
	char why[512];

	if (write_problem(name, svg_text, say, duration, position, why, sizeof why))
		return workdir_answer_text(0, "%s", why);
	if (workdir_begin(dir, WORKDIR_CHANGE, &c, &a) < 0)
		return a;
	a = write_locked(&c, name, svg_text, say, duration, position, transition);
	workdir_end(&c);
	return a;
}

static struct workdir_answer remove_locked(struct workdir_call *c, const char *name)
{
	long at = script_find(&c->script, name);
	char path[HB_PATH_MAX], err[512];

	if (at < 0)
		return workdir_no_scene(c, name);
	script_remove(&c->script, (size_t)at);
	if (script_save(c->dir, &c->script, err, sizeof err) < 0)
		return workdir_answer_text(0, "%s is not removed: %s", name, err);
	/* The script no longer names it, so a file that stays is only clutter. */
	if (hb_path_join(path, sizeof path, c->dir, name) == 0 && unlink(path) < 0 && errno != ENOENT)
		return workdir_answer_text(1, "scene %ld %s removed from the script, but its file stays: %s", at + 1,
					   name, strerror(errno));
	return workdir_answer_text(1, "scene %ld %s removed; %zu scene%s remain%s", at + 1, name, c->script.n,
				   c->script.n == 1 ? "" : "s", c->script.n == 1 ? "s" : "");
}

struct workdir_answer workdir_remove_scene(const char *dir, const char *name)
{
	struct workdir_answer a;
	struct workdir_call c;
	char why[512];

	if (script_name_problem(name, why, sizeof why))
		return workdir_answer_text(0, "%s", why);
	if (workdir_begin(dir, WORKDIR_CHANGE, &c, &a) < 0)
		return a;
	a = remove_locked(&c, name);
	workdir_end(&c);
	return a;
}

/* The script as text: a line per scene and its narration below it. */
static struct workdir_answer script_text(const struct workdir_call *c)
{
	struct workdir_answer a = { 1, NULL, NULL, 0 };
	struct problems p = { 0 };
	char secs[32];
	size_t len;
	FILE *f;

	if (c->script.n == 0)
		return workdir_answer_text(1, "no scenes yet");
	f = workdir_text_open(&a.text, &len);
	explainer_seconds_text(script_seconds(&c->script), secs, sizeof secs);
	fprintf(f, "%zu scene%s, %s s as written:\n", c->script.n, c->script.n == 1 ? "" : "s", secs);
	for (size_t i = 0; i < c->script.n; i++) {
		const struct script_scene *sc = &c->script.v[i];
		size_t n = workdir_scene_problems(c, i, &p);

		explainer_seconds_text(sc->duration, secs, sizeof secs);
		fprintf(f, "\n%zu. %s, %s s, ", i + 1, sc->svg, secs);
		if (sc->transition.type != TRANSITION_CUT) {
			explainer_seconds_text(sc->transition.duration, secs, sizeof secs);
			fprintf(f, "enters by a %s of %s s, ", transition_name(sc->transition.type), secs);
		}
		if (n)
			fprintf(f, "does not pass the checks (%zu problem%s: check lists them)\n", n,
				n == 1 ? "" : "s");
		else
			fprintf(f, "passes the checks\n");
		fprintf(f, "say: %s\n", sc->say);
	}
	problems_free(&p);
	script_check_count(&c->script, &p);
	if (p.n)
		fprintf(f, "\n" SCRIPT_FILE ": %s\n", p.v[0].text);
	problems_free(&p);
	workdir_text_close(f, &a.text);
	return a;
}

/* The SVG text of scene file name, as the worker can read it back. */
static struct workdir_answer svg_text(const struct workdir_call *c, const char *name)
{
	char path[HB_PATH_MAX], err[256];
	struct workdir_answer a = { 1, NULL, NULL, 0 };
	size_t len = 0;
	json_t *utf8;

	if (hb_path_join(path, sizeof path, c->dir, name) < 0)
		return workdir_answer_text(0, "the path of %s in the work folder is too long", name);
	if (!(a.text = read_small_file(path, SCENE_MAX_BYTES, READFILE_NOFOLLOW, &len, err, sizeof err)))
		return errno == ENOENT ? workdir_no_scene(c, name) : workdir_answer_text(0, "%s %s", name, err);
	/* jansson takes only UTF-8 without NUL: what a tool answer can carry. */
	if (!(utf8 = json_stringn(a.text, len))) {
		workdir_answer_free(&a);
		return workdir_answer_text(0, "%s is not UTF-8 text; write the scene again", name);
	}
	json_decref(utf8);
	return a;
}

struct workdir_answer workdir_read(const char *dir, const char *name)
{
	struct workdir_answer a;
	struct workdir_call c;
	char why[512];

	if (name && script_name_problem(name, why, sizeof why))
		return workdir_answer_text(0, "%s", why);
	if (workdir_begin(dir, WORKDIR_LOOK, &c, &a) < 0)
		return a;
	a = name ? svg_text(&c, name) : script_text(&c);
	workdir_end(&c);
	return a;
}

struct workdir_answer workdir_check(const char *dir)
{
	struct problems p = { 0 };
	struct workdir_answer a;
	struct workdir_call c;
	char secs[32], intro[128];

	if (workdir_begin(dir, WORKDIR_LOOK, &c, &a) < 0)
		return a;
	script_check_count(&c.script, &p);
	for (size_t i = 0; i < c.script.n; i++)
		workdir_scene_problems(&c, i, &p);
	explainer_seconds_text(script_seconds(&c.script), secs, sizeof secs);
	if (c.script.n == 0) {
		a = workdir_answer_text(0, "no scenes yet: an explainer has at least one");
	} else if (p.n == 0) {
		a = workdir_answer_text(1, "%zu scene%s, %s s as written: ok", c.script.n, c.script.n == 1 ? "" : "s",
					secs);
	} else {
		snprintf(intro, sizeof intro, "%zu problem%s; fix %s and check again:", p.n, p.n == 1 ? "" : "s",
			 p.n == 1 ? "it" : "them");
		a = workdir_answer_problems(intro, &p);
	}
	problems_free(&p);
	workdir_end(&c);
	return a;
}

int workdir_set_canvas(const char *dir, int width, int height, int fps, char *err, size_t errlen)
{
	struct workdir_answer a;
	struct workdir_call c;
	int rc;

	if (workdir_begin(dir, WORKDIR_CHANGE, &c, &a) < 0) {
		snprintf(err, errlen, "%s", a.text);
		workdir_answer_free(&a);
		return -1;
	}
	c.script.width = width;
	c.script.height = height;
	c.script.fps = fps;
	rc = script_save(dir, &c.script, err, errlen);
	workdir_end(&c);
	return rc;
}
