/*
 * test_explainer_tools - the explainer worker's tool table in both agents'
 * forms, its argument checks (a model may send anything), and the brief
 * the worker gets: what the page says it must hold.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <libxml/parser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../svc-explainer/brief.h"
#include "params.h"
#include "reply_style.h"
#include "../../renderer/fonts.h"
#include "../../svc-explainer/worker.h"
#include "../../svc-explainer/worker_tools.h"
#include "../../svc-explainer/flatdir.h"
#include "../harness/group.h"
#include "../harness/explainer_env.h"

static const char *const names[] = { "write_scene", "remove_scene", "read_folder", "check_scenes",
				     "preview_scene", "contact_sheet", "finish", "make_block" };
#define NNAMES (sizeof names / sizeof names[0])

#define SVG "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 1920 1080'>" \
	    "<rect width='1920' height='1080' fill='#123'/>" \
	    "<text x='100' y='200' font-family='DejaVu Sans' font-size='80' fill='#fff'>Hi" \
	    "<animate attributeName='opacity' from='0' to='1' dur='1s' fill='freeze'/></text></svg>"

static void test_codex_form(void **state)
{
	char *text = worker_tools_codex();
	json_t *a = text ? json_loads(text, 0, NULL) : NULL, *ns = json_array_get(a, 0), *tools;

	(void)state;
	assert_non_null(a);
	assert_int_equal(json_array_size(a), 1);
	assert_string_equal(json_string_value(json_object_get(ns, "type")), "namespace");
	assert_string_equal(json_string_value(json_object_get(ns, "name")), WORKER_NAMESPACE);
	tools = json_object_get(ns, "tools");
	assert_int_equal(json_array_size(tools), NNAMES);
	for (size_t i = 0; i < NNAMES; i++) {
		json_t *t = json_array_get(tools, i);
		assert_string_equal(json_string_value(json_object_get(t, "name")), names[i]);
		assert_string_equal(json_string_value(json_object_get(t, "type")), "function");
		assert_string_equal(json_string_value(json_object_get(json_object_get(t, "inputSchema"), "type")),
				    "object");
		assert_non_null(json_string_value(json_object_get(t, "description")));
	}
	json_decref(a);
	free(text);
}

static void test_claude_form(void **state)
{
	char *text = worker_tools_claude();
	json_t *a = text ? json_loads(text, 0, NULL) : NULL;
	enum worker_tool t;

	(void)state;
	assert_int_equal(json_array_size(a), NNAMES);
	for (size_t i = 0; i < NNAMES; i++) {
		json_t *e = json_array_get(a, i);
		/* exactly the four fields the host accepts */
		assert_int_equal(json_object_size(e), 4);
		assert_string_equal(json_string_value(json_object_get(e, "name")), names[i]);
		assert_string_equal(json_string_value(json_object_get(e, "approval")), "desktop");
		assert_true(json_is_object(json_object_get(e, "inputSchema")));
		assert_int_equal(worker_tool_find(names[i], &t), 0);
	}
	assert_int_equal(worker_tool_find("write_file", &t), -1);
	json_decref(a);
	free(text);
}

static char dir[64];

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/hbtools.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	char err[256];

	(void)state;
	return flatdir_remove(dir, err, sizeof err);
}

/* Runs tool with args; asserts ok and that the text has want; frees. */
static void expect(enum worker_tool t, const char *args, int ok, const char *want)
{
	struct workdir_answer a = worker_tools_run(dir, t, args);

	if (a.ok != ok || !strstr(a.text, want))
		fail_msg("%s -> ok %d, \"%s\"; wanted ok %d with \"%s\"", args, a.ok, a.text, ok, want);
	workdir_answer_free(&a);
}

static void test_arguments_checked(void **state)
{
	json_t *w = json_pack("{s:s, s:s, s:s, s:i}", "name", "01-a.svg", "svg", SVG, "say", "Hello there.",
			      "duration", 3);
	char *good = json_dumps(w, JSON_COMPACT), *bad;
	struct workdir_answer a;

	(void)state;
	expect(WORKER_TOOL_WRITE_SCENE, "not json", 0, "write_scene:");
	expect(WORKER_TOOL_WRITE_SCENE, "{\"name\":\"a.svg\",\"svg\":\"x\",\"say\":\"s\",\"duration\":1,\"colour\":1}",
	       0, "colour");
	expect(WORKER_TOOL_WRITE_SCENE, "{\"name\":\"a.svg\",\"say\":\"s\",\"duration\":1}", 0, "svg");
	expect(WORKER_TOOL_WRITE_SCENE, "{\"name\":\"a.svg\",\"svg\":\"x\",\"say\":\"s\",\"duration\":\"3\"}", 0,
	       "duration must be a number");
	expect(WORKER_TOOL_WRITE_SCENE, good, 1, "passes the checks");
	json_object_set_new(w, "position", json_string("first"));
	bad = json_dumps(w, JSON_COMPACT);
	expect(WORKER_TOOL_WRITE_SCENE, bad, 0, "position");
	expect(WORKER_TOOL_READ_FOLDER, "{}", 1, "01-a.svg");
	expect(WORKER_TOOL_READ_FOLDER, "{\"name\":\"01-a.svg\"}", 1, "<svg");
	expect(WORKER_TOOL_CHECK, "{\"deep\":true}", 0, "deep");
	expect(WORKER_TOOL_CHECK, "{}", 1, "ok");
	expect(WORKER_TOOL_PREVIEW, "{\"name\":\"01-a.svg\",\"at\":\"middle\"}", 0, "start");
	expect(WORKER_TOOL_PREVIEW, "{\"name\":\"01-a.svg\"}", 0, "at");
	a = worker_tools_run(dir, WORKER_TOOL_PREVIEW, "{\"name\":\"01-a.svg\",\"at\":\"end\"}");
	assert_true(a.ok);
	assert_non_null(a.png);
	assert_memory_equal(a.png, "\x89PNG", 4);
	workdir_answer_free(&a);
	a = worker_tools_run(dir, WORKER_TOOL_SHEET, "{}");
	assert_true(a.ok);
	assert_non_null(a.png);
	workdir_answer_free(&a);
	expect(WORKER_TOOL_FINISH, "{}", 0, "not run here");
	expect(WORKER_TOOL_REMOVE_SCENE, "{}", 0, "name");
	expect(WORKER_TOOL_REMOVE_SCENE, "{\"name\":\"01-a.svg\"}", 1, "");
	expect(WORKER_TOOL_READ_FOLDER, "{\"name\":\"01-a.svg\"}", 0, "no scene");
	free(good);
	free(bad);
	json_decref(w);
}

/* make_block answers the fragment in its text, or what is wrong with its
 * arguments (the blocks themselves: test_explainer_blocks.c). */
static void test_make_block_arguments(void **state)
{
	enum worker_tool t;

	(void)state;
	assert_int_equal(worker_tool_find("make_block", &t), 0);
	assert_int_equal(t, WORKER_TOOL_MAKE_BLOCK);
	expect(t, "{\"kind\":\"arrow\",\"from\":[100,100],\"to\":[600,100]}", 1,
	       "into a scene's SVG (write_scene)");
	expect(t, "{\"kind\":\"arrow\",\"from\":[100,100],\"to\":[600,100]}", 1, "<g class=\"block-arrow\">");
	expect(t, "{\"kind\":\"callout\",\"text\":\"Hi\",\"x\":1,\"y\":1,\"width\":300}", 1, "<g class=\"block-callout\">");
	expect(t, "{\"kind\":\"pie\"}", 0, "make_block: kind must be one of code, bar_chart");
	expect(t, "{}", 0, "make_block: kind must be one of");
	expect(t, "{\"kind\":\"arrow\",\"from\":[1,1],\"to\":[600,1],\"size\":3}", 0, "size");
	expect(t, "{\"kind\":\"arrow\",\"from\":[1,1],\"to\":[600,1],\"text\":\"x\"}", 0,
	       "text is not an argument of a arrow block");
	expect(t, "{\"kind\":\"code\",\"language\":\"python\",\"code\":\"a\\u0000b\",\"x\":0,\"y\":0,\"width\":500}", 0,
	       "make_block: arguments must not hold \\u0000");
	expect(t, "{\"kind\":\"bar_chart\",\"data\":[{\"label\":\"a\",\"value\":1}],\"x\":0,\"y\":0,"
		  "\"width\":800,\"height\":\"tall\"}", 0, "height must be a number");
	expect(t, "not json", 0, "make_block:");
}

/* write_scene's transition: recorded in script.json, refused with the
 * manifest's sentences, kept when a scene is written again without it,
 * and reported when it does not fit the scenes it joins. */
static void test_transition_arguments(void **state)
{
	static const char fmt[] = "{\"name\":\"%s\",\"svg\":%s,\"say\":\"Hello.\",\"duration\":%s%s}";
	char svg[1024], args[2048], path[128];
	json_t *quoted = json_string(SVG), *script, *t;
	char *q = json_dumps(quoted, JSON_ENCODE_ANY);

	(void)state;
	assert_non_null(q);
	snprintf(svg, sizeof svg, "%s", q);
	free(q);
	json_decref(quoted);
	snprintf(args, sizeof args, fmt, "01-a.svg", svg, "3", "");
	expect(WORKER_TOOL_WRITE_SCENE, args, 1, "passes the checks");
	snprintf(args, sizeof args, fmt, "02-b.svg", svg, "3", ",\"transition\":\"wipe\"");
	expect(WORKER_TOOL_WRITE_SCENE, args, 0, "\"wipe\" is not a transition");
	snprintf(args, sizeof args, fmt, "02-b.svg", svg, "3", ",\"transition\":\"crossfade\",\"transition_seconds\":5");
	expect(WORKER_TOOL_WRITE_SCENE, args, 0, "the transition's duration is 5 s; it must be from 0.2 to 2 s");
	snprintf(args, sizeof args, fmt, "02-b.svg", svg, "3", ",\"transition_seconds\":1");
	expect(WORKER_TOOL_WRITE_SCENE, args, 0, "transition_seconds is given without a transition");
	expect(WORKER_TOOL_READ_FOLDER, "{}", 1, "01-a.svg"); /* nothing of 02-b.svg written */
	snprintf(args, sizeof args, fmt, "02-b.svg", svg, "3", ",\"transition\":\"slide-left\",\"transition_seconds\":0.8");
	expect(WORKER_TOOL_WRITE_SCENE, args, 1, "scene 2 02-b.svg written; it passes the checks");
	/* Written again without a transition: kept. */
	snprintf(args, sizeof args, fmt, "02-b.svg", svg, "4", "");
	expect(WORKER_TOOL_WRITE_SCENE, args, 1, "passes the checks");
	snprintf(path, sizeof path, "%s/script.json", dir);
	assert_non_null(script = json_load_file(path, 0, NULL));
	t = json_object_get(json_array_get(json_object_get(script, "scenes"), 1), "transition");
	assert_string_equal(json_string_value(json_object_get(t, "type")), "slide-left");
	assert_true(json_number_value(json_object_get(t, "duration")) == 0.8);
	assert_null(json_object_get(json_array_get(json_object_get(script, "scenes"), 0), "transition"));
	json_decref(script);
	expect(WORKER_TOOL_READ_FOLDER, "{}", 1, "2. 02-b.svg, 4 s, enters by a slide-left of 0.8 s, passes the checks");
	/* Longer than half of the scene before it: written, and reported. */
	snprintf(args, sizeof args, fmt, "02-b.svg", svg, "4", ",\"transition\":\"crossfade\",\"transition_seconds\":2");
	expect(WORKER_TOOL_WRITE_SCENE, args, 0, "the crossfade lasts 2 s, more than half of the scene before it (3 s)");
	expect(WORKER_TOOL_CHECK, "{}", 0, "02-b.svg): the crossfade lasts 2 s");
	/* The first scene comes from nothing. */
	snprintf(args, sizeof args, fmt, "01-a.svg", svg, "3", ",\"transition\":\"crossfade\"");
	expect(WORKER_TOOL_WRITE_SCENE, args, 0, "the first scene has no scene before it");
	/* Back to cuts: both pass. */
	snprintf(args, sizeof args, fmt, "01-a.svg", svg, "3", ",\"transition\":\"cut\"");
	expect(WORKER_TOOL_WRITE_SCENE, args, 0, "the next scene, 02-b.svg: the crossfade lasts 2 s");
	snprintf(args, sizeof args, fmt, "02-b.svg", svg, "4", ",\"transition\":\"cut\"");
	expect(WORKER_TOOL_WRITE_SCENE, args, 1, "passes the checks");
	expect(WORKER_TOOL_CHECK, "{}", 1, "ok");
}

static void test_brief(void **state)
{
	static const char *const sources[] = { "https://example.org/a", "The Book of Jam" };
	struct brief_input in = { "How does marmalade set?", "Pectin sets it.", sources, 2, 0, 15, 6,
				  reply_style_narration(REPLY_STYLE_STE), 1920, 1080, 30, 0 };
	char *b = brief_write(&in);

	(void)state;
	assert_non_null(b);
	assert_non_null(strstr(b, "How does marmalade set?"));
	assert_non_null(strstr(b, "Pectin sets it."));
	assert_non_null(strstr(b, "- https://example.org/a\n- The Book of Jam\n"));
	assert_non_null(strstr(b, "DejaVu Sans"));                  /* the font families */
	assert_non_null(strstr(b, "<animateTransform>"));           /* the SMIL subset */
	assert_non_null(strstr(b, "start AND end frame of EVERY scene")); /* the review rule */
	assert_non_null(strstr(b, "short spoken sentences"));       /* the narration style */
	assert_non_null(strstr(b, "Never talk about the page, the screen"));
	assert_non_null(strstr(b, "## Narration (reply style: Simplified Technical English)"));
	assert_non_null(strstr(b, "at most 20 words in a sentence"));
	assert_non_null(strstr(b, "30 to 120 seconds"));
	assert_non_null(strstr(b, "## Building blocks\nmake_block")); /* the blocks, in a line */
	assert_non_null(strstr(b, "write_scene's transition (crossfade, slide-left, slide-up"));
	assert_non_null(strstr(b, "6 finish attempts and 15 minutes"));
	assert_null(strstr(b, "REVISION"));
	free(b);
	in.revision = 1;
	in.nsources = 0;
	b = brief_write(&in);
	assert_non_null(strstr(b, "REVISION"));
	assert_null(strstr(b, "## The sources"));
	free(b);
	in.narration = reply_style_narration(REPLY_STYLE_DEFAULT); /* the style's own section, not STE's */
	b = brief_write(&in);
	assert_non_null(strstr(b, "## Narration (reply style: Default)\nWrite the narration as short spoken"));
	assert_non_null(strstr(b, "Never talk about the page, the screen"));
	assert_null(strstr(b, "Simplified Technical English"));
	free(b);
}

/* The setting's values, as the desktop writes them or as a person types
 * them; anything else is refused with the choices. */
static void test_reply_style(void **state)
{
	enum reply_style s = REPLY_STYLE_DEFAULT;
	char err[256] = "";

	(void)state;
	assert_int_equal(reply_style_parse("simplified-technical-english", &s, err, sizeof err), 0);
	assert_int_equal(s, REPLY_STYLE_STE);
	assert_int_equal(reply_style_parse("Default", &s, err, sizeof err), 0);
	assert_int_equal(s, REPLY_STYLE_DEFAULT);
	assert_int_equal(reply_style_parse("Simplified Technical English", &s, err, sizeof err), 0);
	assert_int_equal(s, REPLY_STYLE_STE);
	assert_string_equal(reply_style_name(s), "Simplified Technical English");
	assert_int_equal(reply_style_parse("pirate", &s, err, sizeof err), -1);
	assert_non_null(strstr(err, "\"pirate\" (setting replyStyle)"));
	assert_non_null(strstr(err, "\"simplified-technical-english\" or \"default\""));
	assert_int_equal(reply_style_parse("", &s, err, sizeof err), -1);
	assert_string_equal(hb_param(HB_PARAM_REPLY_STYLE)->dflt, "simplified-technical-english");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codex_form),
		cmocka_unit_test(test_claude_form),
		cmocka_unit_test_setup_teardown(test_arguments_checked, make_dir, remove_dir),
		cmocka_unit_test(test_make_block_arguments),
		cmocka_unit_test_setup_teardown(test_transition_arguments, make_dir, remove_dir),
		cmocka_unit_test(test_brief),
		cmocka_unit_test(test_reply_style),
	};
	return ck_run_group_tests(tests, fx_explainer_setup, fx_explainer_teardown);
}
