/*
 * worker_tools - the worker's tool table and its two wire forms (see
 * worker_tools.h).  The schemas are written once here; the handlers check
 * the arguments again because neither agent promises to.
 */
#include "worker_tools.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "json.h"
#include "scene.h"
#include "tool_forms.h"
#include "worker.h"

#define NAME_SCHEMA "{\"type\":\"string\",\"description\":\"The scene's file name, e.g. 01-intro.svg.\"}"

struct tool_def {
	const char *name;
	enum worker_tool tool;
	const char *phase;
	const char *description;
	const char *schema;
};

static const struct tool_def table[] = {
	{ "write_scene", WORKER_TOOL_WRITE_SCENE, "writing scenes",
	  "Write or replace one scene: its SVG, its narration text and the seconds its animations are "
	  "written for. Answers whether the scene passes the checks and lists its problems.",
	  "{\"type\":\"object\",\"properties\":{\"name\":" NAME_SCHEMA ","
	  "\"svg\":{\"type\":\"string\",\"description\":\"The whole SVG document.\"},"
	  "\"say\":{\"type\":\"string\",\"description\":\"The narration: short spoken sentences.\"},"
	  "\"duration\":{\"type\":\"number\",\"description\":\"Seconds the animations are written for.\"},"
	  "\"position\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"1-based place in the "
	  "video; left out: last for a new scene, unchanged for a replaced one.\"},"
	  "\"transition\":{\"type\":\"string\",\"enum\":[\"cut\",\"crossfade\",\"slide-left\",\"slide-up\"],"
	  "\"description\":\"How this scene enters from the one before it; left out: a cut for a new scene, "
	  "unchanged for a replaced one.\"},"
	  "\"transition_seconds\":{\"type\":\"number\",\"description\":\"The transition's length, 0.2 to 2 "
	  "s (default 0.5), at most half of either scene.\"}},"
	  "\"required\":[\"name\",\"svg\",\"say\",\"duration\"],\"additionalProperties\":false}" },
	{ "remove_scene", WORKER_TOOL_REMOVE_SCENE, "writing scenes", "Remove a scene and its narration.",
	  "{\"type\":\"object\",\"properties\":{\"name\":" NAME_SCHEMA "},"
	  "\"required\":[\"name\"],\"additionalProperties\":false}" },
	{ "read_folder", WORKER_TOOL_READ_FOLDER, "reviewing",
	  "Without name: the script (every scene's number, name, duration, narration and whether it "
	  "passes the checks). With name: that scene's SVG text.",
	  "{\"type\":\"object\",\"properties\":{\"name\":" NAME_SCHEMA "},\"additionalProperties\":false}" },
	{ "check_scenes", WORKER_TOOL_CHECK, "reviewing", "Check every scene and the script; lists every problem.",
	  "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}" },
	{ "preview_scene", WORKER_TOOL_PREVIEW, "reviewing",
	  "Render a scene's first (start) or last (end) frame and show it to you as an image.",
	  "{\"type\":\"object\",\"properties\":{\"name\":" NAME_SCHEMA ","
	  "\"at\":{\"type\":\"string\",\"enum\":[\"start\",\"end\"]}},"
	  "\"required\":[\"name\",\"at\"],\"additionalProperties\":false}" },
	{ "contact_sheet", WORKER_TOOL_SHEET, "reviewing",
	  "One image with every scene's start and end frame, in order.",
	  "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}" },
	{ "finish", WORKER_TOOL_FINISH, "narrating",
	  "Narrate every scene, fit each scene to its narration, check the 30-120 s length and render "
	  "the video with its captions and poster. Fails with the measured lengths when the video is too "
	  "short or too long.",
	  "{\"type\":\"object\",\"properties\":{\"poster\":{\"type\":\"object\",\"description\":\"The "
	  "frame that stands for the video (its thumbnail); left out: the first scene's end frame.\","
	  "\"properties\":{\"scene\":" NAME_SCHEMA ",\"at\":{\"type\":\"string\",\"description\":"
	  "\"start, end (the default) or seconds from the scene's start, e.g. 2.5.\"}},"
	  "\"required\":[\"scene\"],\"additionalProperties\":false}},\"additionalProperties\":false}" },
	{ "make_block", WORKER_TOOL_MAKE_BLOCK, "writing scenes", BLOCKS_TOOL_DESCRIPTION, BLOCKS_TOOL_SCHEMA },
};

#define NTOOLS (sizeof table / sizeof table[0])

static const struct tool_def *def_of(enum worker_tool t)
{
	for (size_t i = 0; i < NTOOLS; i++)
		if (table[i].tool == t)
			return &table[i];
	return &table[0];
}

/* The table in one agent's form (tool_forms.h): every tool "desktop", it
 * runs without asking. */
static json_t *tools_json(json_t *(*form)(const struct agent_tool *))
{
	json_t *a = json_array(), *t;

	for (size_t i = 0; a && i < NTOOLS; i++) {
		struct agent_tool at = { .name = table[i].name, .description = table[i].description,
					 .input_schema = table[i].schema, .approval = "desktop" };
		if (!(t = form(&at)) || json_array_append_new(a, t) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

char *worker_tools_codex(void)
{
	json_t *ns = tool_form_codex_namespace(WORKER_NAMESPACE, "The explainer worker's tools: scenes, previews, "
								 "finish.", tools_json(tool_form_codex));
	char *text = ns ? hb_json_dump(ns) : NULL;

	json_decref(ns);
	return text;
}

char *worker_tools_claude(void)
{
	json_t *tools = tools_json(tool_form_claude);
	char *text = tools ? hb_json_dump(tools) : NULL;

	json_decref(tools);
	return text;
}

int worker_tool_find(const char *name, enum worker_tool *out)
{
	for (size_t i = 0; i < NTOOLS; i++)
		if (strcmp(table[i].name, name) == 0) {
			*out = table[i].tool;
			return 0;
		}
	return -1;
}

const char *worker_tool_phase(enum worker_tool t)
{
	return def_of(t)->phase;
}

/* The arguments as an object with only the tool's fields; NULL with err. */
static json_t *tool_args(const struct tool_def *d, const char *args_json, char *err, size_t errlen)
{
	json_t *schema = json_loads(d->schema, 0, NULL), *args;
	const char *fields[24];
	size_t n = 0;
	const char *key;
	json_t *v;

	if (!schema) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	json_object_foreach(json_object_get(schema, "properties"), key, v)
		if (n < sizeof fields / sizeof fields[0] - 1)
			fields[n++] = key;
	fields[n] = NULL;
	args = hb_json_parse_object(args_json, strlen(args_json), err, errlen);
	if (args && hb_json_only_fields(args, fields, err, errlen) < 0) {
		json_decref(args);
		args = NULL;
	}
	json_decref(schema); /* fields pointed into it: not used past here */
	return args;
}

/* The arguments' transition, read as the manifest reads one
 * (transition.h): 0 with *given set when there is one, -1 with why. */
static int read_transition(const json_t *a, struct transition *t, int *given, char *why, size_t whylen)
{
	json_t *type = json_object_get(a, "transition"), *seconds = json_object_get(a, "transition_seconds");
	json_t *v;
	int rc = 0;

	*given = type != NULL;
	if (!type) {
		if (!seconds)
			return 0;
		snprintf(why, whylen, "transition_seconds is given without a transition; give the transition too");
		return -1;
	}
	if (!(v = json_pack("{s:O}", "type", type)) || (seconds && json_object_set(v, "duration", seconds) < 0))
		snprintf(why, whylen, "out of memory");
	else if (!transition_read(v, t, why, whylen))
		rc = 1;
	json_decref(v);
	return rc == 1 ? 0 : -1;
}

static struct workdir_answer write_scene(const char *dir, const json_t *a, char *err, size_t errlen)
{
	const char *name, *svg, *say;
	json_t *duration = json_object_get(a, "duration");
	struct transition transition;
	long long position;
	int given;

	if (hb_json_req_string(a, "name", 4096, &name, err, errlen) < 0 ||
	    hb_json_req_string(a, "svg", SCENE_MAX_BYTES, &svg, err, errlen) < 0 ||
	    hb_json_req_string(a, "say", 64 * 1024, &say, err, errlen) < 0 ||
	    hb_json_opt_int(a, "position", 1, 1000, 0, &position, err, errlen) < 0)
		return workdir_answer_text(0, "%s", err);
	if (!json_is_number(duration))
		return workdir_answer_text(0, "duration must be a number of seconds");
	if (read_transition(a, &transition, &given, err, errlen) < 0)
		return workdir_answer_text(0, "%s", err);
	return workdir_write_scene_entering(dir, name, svg, say, json_number_value(duration), (long)position,
					    given ? &transition : NULL);
}

/* make_block: the fragment, for the worker to paste into a scene. */
static struct workdir_answer make_block(const json_t *a)
{
	char err[512], *svg;
	struct workdir_answer r;

	if (blocks_make(a, &svg, err, sizeof err) < 0)
		return workdir_answer_text(0, "make_block: %s", err);
	r = workdir_answer_text(1, "Paste this <g> into a scene's SVG (write_scene); it is plain SVG, so you may "
				   "move, edit or animate it:\n%s", svg);
	free(svg);
	return r;
}

int worker_tools_finish_args(const char *args_json, struct worker_finish_args *out, char *err, size_t errlen)
{
	static const char *const poster_fields[] = { "scene", "at", NULL };
	json_t *a = tool_args(def_of(WORKER_TOOL_FINISH), args_json && *args_json ? args_json : "{}", err, errlen);
	const json_t *poster = json_object_get(a, "poster"), *seconds = json_object_get(poster, "at");
	const char *scene, *at = NULL;
	char number[32];
	int rc = -1;

	/* Seconds given as a number are taken too: models do that. */
	if (json_is_number(seconds)) {
		snprintf(number, sizeof number, "%g", json_number_value(seconds));
		at = number;
	}

	memset(out, 0, sizeof *out);
	if (!a)
		return -1;
	if (!poster) {
		rc = 0;
	} else if (!json_is_object(poster)) {
		snprintf(err, errlen, "poster must be an object like {\"scene\": \"02-how.svg\", \"at\": \"end\"}");
	} else if (hb_json_only_fields(poster, poster_fields, err, errlen) == 0 &&
		   hb_json_req_string(poster, "scene", sizeof out->scene - 1, &scene, err, errlen) == 0 &&
		   (at || hb_json_opt_string(poster, "at", sizeof out->at - 1, 1, &at, err, errlen) == 0)) {
		snprintf(out->scene, sizeof out->scene, "%s", scene);
		snprintf(out->at, sizeof out->at, "%s", at ? at : "end");
		out->poster.scene = out->scene;
		out->poster.at = out->at;
		out->has_poster = 1;
		rc = 0;
	}
	json_decref(a);
	return rc;
}

struct workdir_answer worker_tools_run(const char *dir, enum worker_tool t, const char *args_json)
{
	const struct tool_def *d = def_of(t);
	char err[512];
	const char *name = NULL, *at;
	struct workdir_answer r;
	json_t *a = tool_args(d, args_json, err, sizeof err);

	if (!a)
		return workdir_answer_text(0, "%s: %s", d->name, err);
	switch (t) {
	case WORKER_TOOL_WRITE_SCENE:
		r = write_scene(dir, a, err, sizeof err);
		break;
	case WORKER_TOOL_REMOVE_SCENE:
		r = hb_json_req_string(a, "name", 4096, &name, err, sizeof err) < 0
			    ? workdir_answer_text(0, "%s", err) : workdir_remove_scene(dir, name);
		break;
	case WORKER_TOOL_READ_FOLDER:
		r = hb_json_opt_string(a, "name", 4096, 1, &name, err, sizeof err) < 0
			    ? workdir_answer_text(0, "%s", err) : workdir_read(dir, name);
		break;
	case WORKER_TOOL_CHECK:
		r = workdir_check(dir);
		break;
	case WORKER_TOOL_PREVIEW: {
		static const char *const ats[] = { "start", "end", NULL };
		if (hb_json_req_string(a, "name", 4096, &name, err, sizeof err) < 0 ||
		    hb_json_req_string(a, "at", 16, &at, err, sizeof err) < 0 ||
		    hb_json_check_choice("at", at, ats, err, sizeof err) < 0)
			r = workdir_answer_text(0, "%s", err);
		else
			r = workdir_preview(dir, name, at);
		break;
	}
	case WORKER_TOOL_SHEET:
		r = workdir_sheet(dir);
		break;
	case WORKER_TOOL_MAKE_BLOCK:
		r = make_block(a);
		break;
	case WORKER_TOOL_FINISH:
	default:
		r = workdir_answer_text(0, "%s is not run here", d->name);
		break;
	}
	json_decref(a);
	return r;
}
