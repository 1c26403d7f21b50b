/*
 * itest_browser_frames - use_user_browser inside iframes (issue 35): a
 * page's iframes are in its snapshot, under their iframe's line, with
 * refs that click and type act on, and in its read text; both the kinds
 * Chrome runs, a frame of the same site in the tab's own renderer and one
 * of another site in a renderer of its own (an out-of-process iframe),
 * driving a REAL headless Chromium on tests/browser/pages.mjs's /frames
 * (the rig: browser_rig.h).  What an action did is read from the frame's
 * own document, asked of Chromium over a DevTools connection of the
 * test's own, not from the tool's answer.
 */
#include "../harness/checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "browser_rig.h"
#include "ws.h"
#include "../harness/devtools_call.h"

/* ---- the test's own DevTools connection ------------------------------- */

/* method with params (taken) on session (NULL: the browser), numbered
 * after *last. */
static json_t *cdp(struct ws *ws, int *last, const char *session, const char *method, json_t *params)
{
	return devtools_call(ws, ++*last, session, method, params, 20000);
}

/* The target of type whose url holds url_part (the first). */
static void target_of(struct ws *ws, int *last, const char *type, const char *url_part, char *id, size_t idlen)
{
	json_t *res = cdp(ws, last, NULL, "Target.getTargets", NULL), *t;
	size_t i;

	id[0] = '\0';
	json_array_foreach(json_object_get(res, "targetInfos"), i, t)
		if (!id[0] && strcmp(fx_jstr(t, "type"), type) == 0 && strstr(fx_jstr(t, "url"), url_part))
			snprintf(id, idlen, "%s", fx_jstr(t, "targetId"));
	json_decref(res);
	if (!id[0])
		fail_msg("Chromium has no %s target at %s", type, url_part);
}

/* The text of element id in the /frames page's frame name ("Same": an
 * iframe of the page's own renderer, read through the page; "Cross": an
 * out-of-process one, read in its own target), malloc'd. */
static char *frame_says(const char *name, const char *element)
{
	struct ws *ws = NULL;
	char err[WS_ERROR_MAX], target[64], expr[300], part[64];
	json_t *res;
	const char *session;
	char *out;
	int last = 0;

	if (ws_connect(C.ws_url, NULL, &ws, err, sizeof err) != 0)
		fail_msg("cannot connect to %s: %s", C.ws_url, err);
	if (strcmp(name, "Same") == 0) {
		target_of(ws, &last, "page", "/frames", target, sizeof target);
		snprintf(expr, sizeof expr,
			 "document.getElementById('same').contentDocument.getElementById('%s').textContent", element);
	} else {
		snprintf(part, sizeof part, "frame-inner?name=%s", name);
		target_of(ws, &last, "iframe", part, target, sizeof target);
		snprintf(expr, sizeof expr, "document.getElementById('%s').textContent", element);
	}
	res = cdp(ws, &last, NULL, "Target.attachToTarget", json_pack("{s:s, s:b}", "targetId", target, "flatten", 1));
	session = fx_jstr(res, "sessionId");
	{
		json_t *v = cdp(ws, &last, session, "Runtime.evaluate",
				json_pack("{s:s, s:b}", "expression", expr, "returnByValue", 1));

		out = strdup(fx_jstr(json_object_get(v, "result"), "value"));
		json_decref(v);
	}
	json_decref(res);
	ws_free(ws);
	assert_non_null(out);
	return out;
}

static void frame_must_say(const char *name, const char *element, const char *want)
{
	char *got = frame_says(name, element);

	if (strcmp(got, want) != 0)
		fail_msg("the %s frame's #%s says \"%s\", not \"%s\"", name, element, got, want);
	free(got);
}

/* ---- reading the tool's answers --------------------------------------- */

/* The ref on the snapshot line holding needle (e12, or f9e14 in an
 * out-of-process frame), into ref. */
static void any_ref_of(const char *snapshot, const char *needle, char *ref, size_t reflen)
{
	const char *at = strstr(snapshot, needle), *eol, *r;

	if (!at)
		fail_msg("no \"%s\" in the snapshot:\n%s", needle, snapshot);
	eol = strchr(at, '\n');
	r = strstr(at, "[ref=");
	if (!r || (eol && r > eol))
		fail_msg("no ref on the line of \"%s\":\n%s", needle, snapshot);
	r += 5;
	snprintf(ref, reflen, "%.*s", (int)strcspn(r, "]"), r);
}

/* The indentation of the line holding needle. */
static size_t indent_of(const char *text, const char *needle)
{
	const char *at = strstr(text, needle), *bol;

	if (!at)
		fail_msg("no \"%s\" in:\n%s", needle, text);
	for (bol = at; bol > text && bol[-1] != '\n'; bol--)
		;
	return strspn(bol, " ");
}

/* ---- the tests -------------------------------------------------------- */

/* Both frames' contents are under their iframe's line, with refs: the
 * same site's plain, the other site's naming its iframe. */
static void test_snapshot_shows_frames(void **state)
{
	char same[32], cross[32];
	char *t;

	(void)state;
	t = open_page(&A, "/frames", 1, "Opened ");
	any_ref_of(t, "button \"Press Same\"", same, sizeof same);
	any_ref_of(t, "button \"Press Cross\"", cross, sizeof cross);
	assert_true(same[0] == 'e');
	assert_true(cross[0] == 'f' && strchr(cross, 'e'));
	/* each under its own iframe, deeper than it */
	assert_true(strstr(t, "Iframe \"Same frame\"") < strstr(t, "Press Same"));
	assert_true(strstr(t, "Press Same") < strstr(t, "Iframe \"Cross frame\""));
	assert_true(strstr(t, "Iframe \"Cross frame\"") < strstr(t, "Press Cross"));
	assert_true(indent_of(t, "button \"Press Same\"") > indent_of(t, "Iframe \"Same frame\""));
	assert_true(indent_of(t, "button \"Press Cross\"") > indent_of(t, "Iframe \"Cross frame\""));
	assert_non_null(strstr(t, "Cross frame waiting"));
	free(t);
}

/* A click by ref lands in each frame: its own document changes. */
static void test_click_in_frames(void **state)
{
	char same[32], cross[32], args[200];
	char *t;

	(void)state;
	t = open_page(&A, "/frames", 1, "Opened ");
	any_ref_of(t, "button \"Press Same\"", same, sizeof same);
	any_ref_of(t, "button \"Press Cross\"", cross, sizeof cross);
	free(t);
	frame_must_say("Same", "state", "Same frame waiting");
	frame_must_say("Cross", "state", "Cross frame waiting");
	snprintf(args, sizeof args, "{\"action\":\"click\",\"ref\":\"%s\"}", same);
	t = call(&A, 1, "Clicked ", args);
	/* the answer's snapshot shows the frame's new state */
	assert_non_null(strstr(t, "Same frame pressed"));
	free(t);
	frame_must_say("Same", "state", "Same frame pressed");
	frame_must_say("Cross", "state", "Cross frame waiting");
	snprintf(args, sizeof args, "{\"action\":\"click\",\"ref\":\"%s\"}", cross);
	t = call(&A, 1, "Clicked ", args);
	assert_non_null(strstr(t, "Cross frame pressed"));
	free(t);
	frame_must_say("Cross", "state", "Cross frame pressed");
}

/* Typing by ref goes into each frame's field. */
static void test_type_in_frames(void **state)
{
	char same[32], cross[32], args[200];
	char *t;

	(void)state;
	t = open_page(&A, "/frames", 1, "Opened ");
	any_ref_of(t, "textbox \"Same field\"", same, sizeof same);
	any_ref_of(t, "textbox \"Cross field\"", cross, sizeof cross);
	free(t);
	snprintf(args, sizeof args, "{\"action\":\"type\",\"ref\":\"%s\",\"text\":\"over there\"}", cross);
	free(call(&A, 1, "Typed the text.", args));
	frame_must_say("Cross", "echo", "Cross typed: over there");
	snprintf(args, sizeof args, "{\"action\":\"type\",\"ref\":\"%s\",\"text\":\"right here\"}", same);
	free(call(&A, 1, "Typed the text.", args));
	frame_must_say("Same", "echo", "Same typed: right here");
	frame_must_say("Cross", "echo", "Cross typed: over there");
}

/* Hover and select by ref in the other site's frame, where the mouse
 * must find the frame on the tab's screen. */
static void test_hover_select_in_frame(void **state)
{
	char press[32], colour[32], args[200];
	char *t;

	(void)state;
	t = open_page(&A, "/frames", 1, "Opened ");
	any_ref_of(t, "button \"Press Cross\"", press, sizeof press);
	any_ref_of(t, "combobox \"Cross colour\"", colour, sizeof colour);
	free(t);
	frame_must_say("Cross", "hovered", "Cross not hovered");
	snprintf(args, sizeof args, "{\"action\":\"hover\",\"ref\":\"%s\"}", press);
	free(call(&A, 1, "The mouse is over ", args));
	frame_must_say("Cross", "hovered", "Cross hovered");
	snprintf(args, sizeof args, "{\"action\":\"select\",\"ref\":\"%s\",\"option\":\"Green\"}", colour);
	free(call(&A, 1, "Selected \"Green\" (value \"g\").", args));
	frame_must_say("Cross", "chose", "Cross chose: g");
	frame_must_say("Same", "chose", "Same chose nothing");
}

/* A part of the snapshot from an element in the other site's frame keeps
 * the frame in its refs. */
static void test_snapshot_part_in_frame(void **state)
{
	char cross[32], again[32], args[200];
	char *t;

	(void)state;
	t = open_page(&A, "/frames", 1, "Opened ");
	any_ref_of(t, "button \"Press Cross\"", cross, sizeof cross);
	free(t);
	snprintf(args, sizeof args, "{\"action\":\"snapshot\",\"ref\":\"%s\"}", cross);
	t = call(&A, 1, "button \"Press Cross\"", args);
	any_ref_of(t, "button \"Press Cross\"", again, sizeof again);
	assert_string_equal(again, cross);
	free(t);
}

/* read has the frames' text, each after a line naming its iframe; a part
 * of it is cut where asked. */
static void test_read_frames(void **state)
{
	char *t, *whole;
	const char *same, *cross, *at;
	char args[200];
	long long total;

	(void)state;
	free(open_page(&A, "/frames", 1, "Opened "));
	whole = call(&A, 1, "Main text", "{\"action\":\"read\"}");
	same = strstr(whole, "frame-inner?name=Same]");
	cross = strstr(whole, "frame-inner?name=Cross]");
	assert_non_null(same);
	assert_non_null(cross);
	assert_non_null(strstr(whole, "[iframe e"));
	assert_true(strstr(whole, "Main text") < same);
	assert_non_null(strstr(same, "Same frame waiting"));
	assert_non_null(strstr(cross, "Cross frame waiting"));
	assert_non_null(strstr(cross, "Cross typed nothing"));
	assert_non_null(strstr(cross, "Cross chose nothing"));
	/* a small part: the total counts the frames' text, and reading on
	 * from the offset given reaches it */
	t = call(&A, 1, "Characters 0 to 10 of the page's ", "{\"action\":\"read\",\"maxChars\":10}");
	at = strstr(t, "of the page's ") + strlen("of the page's ");
	total = strtoll(at, NULL, 10);
	assert_true(total > 60);
	free(t);
	snprintf(args, sizeof args, "{\"action\":\"read\",\"offset\":%lld,\"maxChars\":100}", total - 40);
	t = call(&A, 1, "(the end)", args);
	assert_non_null(strstr(t, "Cross chose nothing"));
	free(t);
	free(whole);
}

/* A ref of an out-of-process frame that is gone is said to be stale. */
static void test_stale_frame_ref(void **state)
{
	char cross[32], args[200];
	char *t;

	(void)state;
	t = open_page(&A, "/frames", 1, "Opened ");
	any_ref_of(t, "button \"Press Cross\"", cross, sizeof cross);
	free(t);
	free(open_page(&A, "/button", 1, "Opened "));
	snprintf(args, sizeof args, "{\"action\":\"click\",\"ref\":\"%s\"}", cross);
	free(call(&A, 0, "earlier state of the page", args));
	free(call(&A, 0, "is not a ref", "{\"action\":\"click\",\"ref\":\"f12\"}"));
}

/* Another session's frame ref does not reach into that session's tab,
 * though both tabs' pages may share a renderer: the iframe must be one
 * of the acting tab's own. */
static void test_frame_ref_of_another_tab(void **state)
{
	char cross[32], args[200];
	char *t;

	(void)state;
	t = open_page(&A, "/frames", 1, "Opened ");
	any_ref_of(t, "button \"Press Cross\"", cross, sizeof cross);
	free(t);
	frame_must_say("Cross", "state", "Cross frame waiting");
	free(open_page(&B, "/button", 1, "Opened "));
	snprintf(args, sizeof args, "{\"action\":\"click\",\"ref\":\"%s\"}", cross);
	free(call(&B, 0, "earlier state of the page", args));
	frame_must_say("Cross", "state", "Cross frame waiting");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot_shows_frames),
		cmocka_unit_test(test_click_in_frames),
		cmocka_unit_test(test_type_in_frames),
		cmocka_unit_test(test_hover_select_in_frame),
		cmocka_unit_test(test_snapshot_part_in_frame),
		cmocka_unit_test(test_read_frames),
		cmocka_unit_test(test_stale_frame_ref),
		cmocka_unit_test(test_frame_ref_of_another_tab),
	};

	return ck_run_group_tests(tests, browser_setup, browser_teardown);
}
