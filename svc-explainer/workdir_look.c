/*
 * workdir_look - the worker's tools that show it frames: one scene's start
 * or end frame, and the contact sheet (workdir.h).  The pictures come back
 * as PNG bytes for the model, which cannot review what it cannot see.
 *
 * The scenes are checked first and their problems answered whole (the
 * drawing code would give only the first); the renderer's explainer is
 * built in memory from script.json (script_explainer), each scene lasting
 * its written duration.
 */
#include "workdir.h"

#include <stdlib.h>
#include <string.h>

#include "pipeline.h"
#include "preview.h"
#include "workdir_call.h"

/* The answer's text: what the frame is and, when some characters are in
 * no installed font, which ones (the frame shows their boxes). */
static char *preview_text(long i, const char *name, const struct explainer *e, const char *at,
			  const struct problems *missing)
{
	int end = strcmp(at, "end") == 0;
	char when[32], length[32], *text = NULL;
	size_t len;
	FILE *f = workdir_text_open(&text, &len);

	explainer_seconds_text(end ? scene_frame_time(e->scenes[0].frames - 1, e->fps) : 0, when, sizeof when);
	explainer_seconds_text(e->scenes[0].duration, length, sizeof length);
	fprintf(f, "scene %ld %s at its %s: %s s of %s s (its %s frame)", i + 1, name, end ? "end" : "start", when,
		length, end ? "last" : "first");
	if (missing->n > 0) {
		fprintf(f, "; it shows empty boxes where a character is in no installed font, and the video cannot "
			"be made until these are replaced:\n");
		problems_print(missing, f);
	}
	workdir_text_close(f, &text);
	if (len > 0 && text[len - 1] == '\n')
		text[len - 1] = '\0';
	return text;
}

/* A character no font has does not stop the preview: the worker gets the
 * frame with its boxes and the list of characters, which is what it needs
 * to see where they are and how much they matter.  Every other problem
 * does (the drawing would be wrong, or impossible). */
static struct workdir_answer preview_locked(const struct workdir_call *c, const char *name, const char *at)
{
	struct workdir_answer a = { 1, NULL, NULL, 0 };
	long i = script_find(&c->script, name);
	struct problems p = { 0 }, missing = { 0 }, again = { 0 };
	struct explainer e;
	char err[1024], intro[300];

	if (i < 0)
		return workdir_no_scene(c, name);
	if (workdir_scene_problems_apart(c, (size_t)i, &p, &missing) > 0) {
		snprintf(intro, sizeof intro, "scene %ld %s cannot be drawn until it passes the checks:", i + 1, name);
		problems_free(&missing);
		a = workdir_answer_problems(intro, &p);
		problems_free(&p);
		return a;
	}
	if (script_explainer(c->dir, &c->script, (size_t)i, 1, &e, err, sizeof err) < 0) {
		problems_free(&missing);
		return workdir_answer_text(0, "%s", err);
	}
	/* The scene is loaded again to draw; its missing characters are the same. */
	if (preview_png(&e, name, at, &a.png, &a.png_len, &again, err, sizeof err) < 0)
		a = workdir_answer_text(0, "scene %ld %s cannot be drawn: %s", i + 1, name, err);
	else
		a.text = preview_text(i, name, &e, at, &missing);
	problems_free(&again);
	problems_free(&missing);
	explainer_free(&e);
	return a;
}

struct workdir_answer workdir_preview(const char *dir, const char *name, const char *at)
{
	struct workdir_answer a;
	struct workdir_call c;
	char why[512];

	if (script_name_problem(name, why, sizeof why))
		return workdir_answer_text(0, "%s", why);
	if (strcmp(at, "start") != 0 && strcmp(at, "end") != 0)
		return workdir_answer_text(0, "\"%s\" is not a frame to preview: give \"start\" (the scene's first "
					   "frame) or \"end\" (its last)", at);
	if (workdir_begin(dir, WORKDIR_LOOK, &c, &a) < 0)
		return a;
	a = preview_locked(&c, name, at);
	workdir_end(&c);
	return a;
}

static struct workdir_answer sheet_locked(const struct workdir_call *c)
{
	struct workdir_answer a = { 1, NULL, NULL, 0 };
	struct problems p = { 0 };
	struct explainer e;
	char err[1024], secs[32];

	if (c->script.n == 0)
		return workdir_answer_text(0, "no scenes yet: write a scene first");
	script_check_count(&c->script, &p);
	for (size_t i = 0; i < c->script.n; i++)
		workdir_scene_problems(c, i, &p);
	if (p.n > 0) {
		a = workdir_answer_problems("the contact sheet needs every scene to pass the checks:", &p);
		problems_free(&p);
		return a;
	}
	if (script_explainer(c->dir, &c->script, 0, c->script.n, &e, err, sizeof err) < 0)
		return workdir_answer_text(0, "%s", err);
	if (sheet_png(&e, &a.png, &a.png_len, err, sizeof err) < 0) {
		a = workdir_answer_text(0, "the contact sheet cannot be drawn: %s", err);
	} else {
		explainer_seconds_text(script_seconds(&c->script), secs, sizeof secs);
		a.text = workdir_answer_text(1, "contact sheet of %zu scene%s (%s s as written): a row per scene, its "
					     "start frame on the left and its end frame on the right", c->script.n,
					     c->script.n == 1 ? "" : "s", secs).text;
	}
	explainer_free(&e);
	return a;
}

struct workdir_answer workdir_sheet(const char *dir)
{
	struct workdir_answer a;
	struct workdir_call c;

	if (workdir_begin(dir, WORKDIR_LOOK, &c, &a) < 0)
		return a;
	a = sheet_locked(&c);
	workdir_end(&c);
	return a;
}
