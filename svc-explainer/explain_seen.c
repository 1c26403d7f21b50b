/*
 * explain_seen - what the worker has looked at, and the script's size.
 *
 * The page's worker "reviews rendered frames from the start and end of
 * each scene"; a model that is merely told to may skip it, so finish
 * holds it to that: every scene's start and end frame must have been
 * shown to it (preview_scene, or a contact sheet) since the scene last
 * changed through write_scene.  A scene changed by other means (a Codex
 * worker may write files) was never seen, so it is held to the same rule.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain_int.h"
#include "problems.h"
#include "script.h"

static struct explain_seen *seen_of(struct explain *x, const char *name, int make)
{
	struct explain_seen *v;

	for (size_t i = 0; i < x->nseen; i++)
		if (strcmp(x->seen[i].name, name) == 0)
			return &x->seen[i];
	if (!make || !(v = realloc(x->seen, (x->nseen + 1) * sizeof *v)))
		return NULL;
	x->seen = v;
	v = &x->seen[x->nseen];
	memset(v, 0, sizeof *v);
	if (!(v->name = strdup(name)))
		return NULL;
	x->nseen++;
	return v;
}

void explain_seen_free(struct explain *x)
{
	for (size_t i = 0; i < x->nseen; i++)
		free(x->seen[i].name);
	free(x->seen);
	x->seen = NULL;
	x->nseen = 0;
}

/* The folder's scenes as the script lists them; -1 when it cannot be read. */
static int load_script(struct explain *x, struct script *s)
{
	struct problems p = { 0 };
	int rc = script_load(x->workdir, s, &p);

	problems_free(&p);
	return rc;
}

void explain_remember_script(struct explain *x)
{
	struct script s;

	if (load_script(x, &s) < 0)
		return;
	x->scenes = (long)s.n;
	x->seconds = script_seconds(&s);
	script_free(&s);
}

void explain_mark_seen(struct explain *x, enum worker_tool t, const json_t *args)
{
	struct explain_seen *v;
	struct script s;

	if (t == WORKER_TOOL_SHEET) {
		if (load_script(x, &s) < 0)
			return;
		for (size_t i = 0; i < s.n; i++)
			if ((v = seen_of(x, s.v[i].svg, 1)))
				v->start = v->end = 1;
		script_free(&s);
	} else if (t == WORKER_TOOL_PREVIEW) {
		const char *name = json_string_value(json_object_get(args, "name"));
		const char *at = json_string_value(json_object_get(args, "at"));
		if (name && at && (v = seen_of(x, name, 1))) {
			if (strcmp(at, "start") == 0)
				v->start = 1;
			else
				v->end = 1;
		}
	} else if (t == WORKER_TOOL_WRITE_SCENE || t == WORKER_TOOL_REMOVE_SCENE) {
		const char *name = json_string_value(json_object_get(args, "name"));
		if (name && (v = seen_of(x, name, 0)))
			v->start = v->end = 0;
	}
}

char *explain_unseen(struct explain *x, size_t *scenes)
{
	struct script s;
	char *list = NULL;
	size_t len = 0;
	FILE *f;

	if (load_script(x, &s) < 0)
		return NULL;
	*scenes = s.n;
	if ((f = open_memstream(&list, &len))) {
		int first = 1;
		for (size_t i = 0; i < s.n; i++) {
			struct explain_seen *v = seen_of(x, s.v[i].svg, 0);
			if (v && v->start && v->end)
				continue;
			fprintf(f, "%s%s", first ? "" : ", ", s.v[i].svg);
			first = 0;
		}
		if (fclose(f) != 0) {
			free(list);
			list = NULL;
		}
	}
	script_free(&s);
	return list;
}
