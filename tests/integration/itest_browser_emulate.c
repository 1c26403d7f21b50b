/*
 * itest_browser_emulate - the actions of use_user_browser that change how
 * a tab's page is shown or kept (issue 35): viewport (its size, scale and
 * a phone's touch), a screenshot of one element, and pdf (the page
 * printed to a file in the session's folder, and the names that try to
 * leave it), on a REAL headless Chromium (the rig: browser_rig.h).
 *
 * Each is checked on the page's real state, read by this test over a
 * DevTools connection of its own to the same Chromium (window.innerWidth,
 * an element's rectangle), and on the files as they are on disk (a PNG's
 * own size, a PDF's first bytes), never on the action's answer alone.
 */
#include "../harness/checks.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "browser_rig.h"
#include "ws.h"
#include "../harness/devtools_call.h"

#define PATIENCE_MS 15000

/* ---- the test's own look at the page, over DevTools --------------------- */

struct look {
	struct ws *ws;
	int id;
	char session[64];  /* attached to the page */
};

/* method on session (NULL: the browser), params taken: its result, which
 * the caller frees; the test fails on an error or no answer. */
static json_t *cdp(struct look *l, const char *session, const char *method, json_t *params)
{
	return devtools_call(l->ws, ++l->id, session, method, params, PATIENCE_MS);
}

/* Attach to the page target showing url (the agent's tab). */
static void look_at(struct look *l, const char *url)
{
	char err[WS_ERROR_MAX];
	json_t *targets, *t, *att;
	const char *target = NULL;
	size_t i;

	l->id = 0;
	if (ws_connect(C.ws_url, NULL, &l->ws, err, sizeof err) != 0)
		fail_msg("cannot connect to %s: %s", C.ws_url, err);
	targets = cdp(l, NULL, "Target.getTargets", NULL);
	json_array_foreach(json_object_get(targets, "targetInfos"), i, t)
		if (strcmp(json_string_value(json_object_get(t, "type")), "page") == 0 &&
		    strcmp(json_string_value(json_object_get(t, "url")), url) == 0)
			target = json_string_value(json_object_get(t, "targetId"));
	if (!target)
		fail_msg("no page at %s", url);
	att = cdp(l, NULL, "Target.attachToTarget", json_pack("{s:s, s:b}", "targetId", target, "flatten", 1));
	snprintf(l->session, sizeof l->session, "%s", json_string_value(json_object_get(att, "sessionId")));
	json_decref(att);
	json_decref(targets);
}

static void look_done(struct look *l)
{
	ws_free(l->ws);
}

/* The value of expression in the page (a number here). */
static double page_number(struct look *l, const char *expression)
{
	json_t *res = cdp(l, l->session, "Runtime.evaluate",
			  json_pack("{s:s, s:b}", "expression", expression, "returnByValue", 1));
	json_t *v = json_object_get(json_object_get(res, "result"), "value");
	double n;

	if (!json_is_number(v))
		fail_msg("%s is not a number: %s", expression, json_dumps(res, JSON_COMPACT));
	n = json_number_value(v);
	json_decref(res);
	return n;
}

/* ---- files ------------------------------------------------------------- */

/* The path an answer names after marker, up to the end of its line (a
 * final '.' is the sentence's), into path. */
static void path_after(const char *text, const char *marker, char *path, size_t pathlen)
{
	const char *at = strstr(text, marker);
	size_t n;

	if (!at)
		fail_msg("no \"%s\" in the answer:\n%s", marker, text);
	at += strlen(marker);
	n = strcspn(at, "\n");
	if (n > 0 && at[n - 1] == '.')
		n--;
	snprintf(path, pathlen, "%.*s", (int)n, at);
	assert_true(path[0] == '/');
}

/* The size a PNG file says it has (its IHDR). */
static void png_size(const char *path, long *w, long *h)
{
	unsigned char head[24];
	FILE *f = fopen(path, "rb");

	if (!f)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	assert_int_equal(fread(head, 1, sizeof head, f), sizeof head);
	fclose(f);
	assert_memory_equal(head, "\x89PNG\r\n\x1a\n", 8);
	assert_memory_equal(head + 12, "IHDR", 4);
	*w = (long)head[16] << 24 | (long)head[17] << 16 | (long)head[18] << 8 | head[19];
	*h = (long)head[20] << 24 | (long)head[21] << 16 | (long)head[22] << 8 | head[23];
}

/* Take a screenshot with args: the PNG's size. */
static void shot_size(const char *args, const char *want, long *w, long *h)
{
	char path[1200], *t = call(&A, 1, want, args);

	path_after(t, "saved as ", path, sizeof path);
	free(t);
	png_size(path, w, h);
}

/* ---- viewport ------------------------------------------------------------ */

static void test_viewport(void **state)
{
	char url[160], args[200], *t;
	struct look l;
	long w, h;
	double window_width;

	(void)state;
	assert_non_null(test_pages_url(&P, "/button?viewport", url, sizeof url));
	free(open_url(&A, url, 1, "Opened "));
	look_at(&l, url);
	window_width = page_number(&l, "window.innerWidth");
	assert_true(window_width != 400);

	t = call(&A, 1, "is 400 x 800 CSS px", "{\"action\":\"viewport\",\"width\":400,\"height\":800}");
	assert_non_null(strstr(t, "button \"Show greeting\"")); /* the snapshot follows */
	free(t);
	assert_true(page_number(&l, "window.innerWidth") == 400);
	assert_true(page_number(&l, "window.innerHeight") == 800);
	shot_size("{\"action\":\"screenshot\"}", "Screenshot (", &w, &h);
	assert_int_equal(w, 400);
	assert_int_equal(h, 800);

	/* a phone: twice the pixels, touch */
	free(call(&A, 1, "as a phone (mobile, touch): the page sees 980 x 1960 CSS px at 2 device pixels each",
		  "{\"action\":\"viewport\",\"width\":400,\"height\":800,\"deviceScaleFactor\":2,\"mobile\":true}"));
	/* the screen is the phone's; a page without a meta viewport is laid
	 * out 980 px wide, as a phone's browser does, and shown zoomed out */
	assert_true(page_number(&l, "screen.width") == 400);
	assert_true(page_number(&l, "window.innerWidth") == 980);
	assert_true(page_number(&l, "window.devicePixelRatio") == 2);
	assert_true(page_number(&l, "navigator.maxTouchPoints") > 0);
	assert_true(page_number(&l, "matchMedia('(pointer: coarse)').matches ? 1 : 0") == 1);
	shot_size("{\"action\":\"screenshot\"}", "Screenshot (", &w, &h);
	assert_int_equal(w, 800);
	assert_int_equal(h, 1600);

	/* the other session cannot change it */
	snprintf(args, sizeof args, "{\"action\":\"viewport\",\"tab\":\"%s\",\"width\":300,\"height\":300}", A.tab);
	free(call(&B, 0, "of this session", args));
	assert_true(page_number(&l, "screen.width") == 400);

	/* bad arguments: a sentence, and nothing changes */
	free(call(&A, 0, "width", "{\"action\":\"viewport\",\"width\":100,\"height\":800}"));
	free(call(&A, 0, "width", "{\"action\":\"viewport\",\"width\":5000,\"height\":800}"));
	free(call(&A, 0, "deviceScaleFactor", "{\"action\":\"viewport\",\"width\":400,\"height\":800,"
					      "\"deviceScaleFactor\":9}"));
	free(call(&A, 0, "deviceScaleFactor", "{\"action\":\"viewport\",\"width\":400,\"height\":800,"
					      "\"deviceScaleFactor\":\"2\"}"));
	free(call(&A, 0, "needs width and height", "{\"action\":\"viewport\",\"width\":400}"));
	free(call(&A, 0, "not both", "{\"action\":\"viewport\",\"reset\":true,\"width\":400}"));
	assert_true(page_number(&l, "screen.width") == 400);

	/* back to the window's */
	free(call(&A, 1, "the window's again", "{\"action\":\"viewport\",\"reset\":true}"));
	assert_true(page_number(&l, "window.innerWidth") == window_width);
	assert_true(page_number(&l, "window.devicePixelRatio") == 1);
	assert_true(page_number(&l, "matchMedia('(pointer: coarse)').matches ? 1 : 0") == 0);
	look_done(&l);
}

/* ---- a screenshot of one element ---------------------------------------- */

/* The element's size on the page now in device pixels, and its top in
 * CSS px, read over DevTools. */
static void element_size(struct look *l, const char *selector, double *w, double *h, double *top)
{
	double dpr = page_number(l, "window.devicePixelRatio");
	char expr[300];

	snprintf(expr, sizeof expr, "document.querySelector('%s').getBoundingClientRect().width", selector);
	*w = page_number(l, expr);
	snprintf(expr, sizeof expr, "document.querySelector('%s').getBoundingClientRect().height", selector);
	*h = page_number(l, expr);
	snprintf(expr, sizeof expr, "document.querySelector('%s').getBoundingClientRect().top", selector);
	*top = page_number(l, expr);
	*w *= dpr; /* a screenshot has device pixels */
	*h *= dpr;
}

static void test_element_screenshot(void **state)
{
	char url[160], ref[16], args[200], *t;
	double ew, eh, top;
	struct look l;
	long w, h;

	(void)state;
	/* by ref: the button */
	assert_non_null(test_pages_url(&P, "/button?element", url, sizeof url));
	t = open_url(&A, url, 1, "Opened ");
	ref_of(t, "button \"Show greeting\"", ref, sizeof ref);
	free(t);
	look_at(&l, url);
	snprintf(args, sizeof args, "{\"action\":\"screenshot\",\"ref\":\"%s\"}", ref);
	shot_size(args, ", the element)", &w, &h);
	element_size(&l, "#show", &ew, &eh, &top);
	assert_true(ew > 20 && eh > 5);
	assert_true(labs(w - lround(ew)) <= 1);
	assert_true(labs(h - lround(eh)) <= 1);
	look_done(&l);

	/* by selector, far below the view: scrolled into it first */
	assert_non_null(test_pages_url(&P, "/scroll?element", url, sizeof url));
	free(open_url(&A, url, 1, "Opened "));
	look_at(&l, url);
	assert_true(page_number(&l, "window.scrollY") == 0);
	shot_size("{\"action\":\"screenshot\",\"selector\":\"#bottom\"}", ", the element)", &w, &h);
	element_size(&l, "#bottom", &ew, &eh, &top);
	assert_true(page_number(&l, "window.scrollY") > 4000);
	assert_true(top >= 0 && top < page_number(&l, "window.innerHeight"));
	assert_true(labs(w - lround(ew)) <= 1);
	assert_true(labs(h - lround(eh)) <= 1);
	/* taller than the view: drawn beyond it, all of it (the width may
	 * lose the scroll bar's 15 px, which a view that tall does not have) */
	shot_size("{\"action\":\"screenshot\",\"selector\":\"div\"}", ", the element)", &w, &h);
	element_size(&l, "div", &ew, &eh, &top);
	assert_true(eh >= 5000 && labs(h - lround(eh)) <= 1);
	assert_true(labs(w - lround(ew)) <= 16);
	look_done(&l);

	/* what has no box, and what cannot go together */
	free(call(&A, 0, "has no box", "{\"action\":\"screenshot\",\"selector\":\"head\"}"));
	free(call(&A, 0, "No element matches", "{\"action\":\"screenshot\",\"selector\":\"#nothing\"}"));
	free(call(&A, 0, "not two of them", "{\"action\":\"screenshot\",\"selector\":\"#bottom\",\"fullPage\":true}"));
}

/* ---- pdf ------------------------------------------------------------------ */

/* The PDF an answer names: its size, checked against the file's. */
static void check_pdf(const char *text, char *path, size_t pathlen)
{
	const char *at = strstr(text, "Saved the page as a PDF of ");
	char head[6] = "";
	struct stat st;
	long long said;
	FILE *f;

	assert_non_null(at);
	said = atoll(at + strlen("Saved the page as a PDF of "));
	path_after(text, " bytes: ", path, pathlen);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal((long long)st.st_size, said);
	assert_non_null(f = fopen(path, "rb"));
	assert_int_equal(fread(head, 1, 5, f), 5);
	fclose(f);
	assert_string_equal(head, "%PDF-");
}

static void test_pdf(void **state)
{
	char path[1300], dir[1200], named[1300], link[1300], target[200], args[1400], *t;
	struct stat st;
	FILE *f;

	(void)state;
	free(open_page(&A, "/button?pdf", 1, "Opened "));
	t = call(&A, 1, "Saved the page as a PDF of ", "{\"action\":\"pdf\"}");
	check_pdf(t, path, sizeof path);
	free(t);
	snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(path, '/') - path), path);
	assert_non_null(strstr(dir, "/browser/"));

	/* a plain name, in the same folder; again replaces it */
	t = call(&A, 1, "Saved the page as a PDF of ", "{\"action\":\"pdf\",\"filename\":\"report.pdf\"}");
	check_pdf(t, named, sizeof named);
	free(t);
	snprintf(path, sizeof path, "%s/report.pdf", dir);
	assert_string_equal(named, path);
	t = call(&A, 1, "Saved the page as a PDF of ", "{\"action\":\"pdf\",\"filename\":\"report.pdf\"}");
	check_pdf(t, named, sizeof named);
	free(t);

	/* names that try to leave the folder: refused, nothing written */
	t = call(&A, 0, "is not a plain file name", "{\"action\":\"pdf\",\"filename\":\"../x.pdf\"}");
	assert_non_null(strstr(t, dir)); /* says where PDFs go */
	free(t);
	snprintf(path, sizeof path, "%s/../x.pdf", dir);
	assert_int_equal(lstat(path, &st), -1);
	snprintf(path, sizeof path, "%s/escape.pdf", base_dir);
	snprintf(args, sizeof args, "{\"action\":\"pdf\",\"filename\":\"%s\"}", path);
	free(call(&A, 0, "is not a plain file name", args));
	assert_int_equal(lstat(path, &st), -1);
	free(call(&A, 0, "is not a plain file name", "{\"action\":\"pdf\",\"filename\":\".hidden.pdf\"}"));
	free(call(&A, 0, "is not a plain file name", "{\"action\":\"pdf\",\"filename\":\"notes.txt\"}"));

	/* a link under the name: left alone, never written through */
	snprintf(target, sizeof target, "%s/kept.txt", base_dir);
	assert_non_null(f = fopen(target, "w"));
	fputs("keep", f);
	fclose(f);
	snprintf(link, sizeof link, "%s/evil.pdf", dir);
	assert_int_equal(symlink(target, link), 0);
	free(call(&A, 0, "is a symbolic link", "{\"action\":\"pdf\",\"filename\":\"evil.pdf\"}"));
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_size, 4);

	/* only the session's own tabs */
	snprintf(args, sizeof args, "{\"action\":\"pdf\",\"tab\":\"%s\"}", A.tab);
	free(call(&B, 0, "of this session", args));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_viewport),
		cmocka_unit_test(test_element_screenshot),
		cmocka_unit_test(test_pdf),
	};

	return ck_run_group_tests(tests, browser_setup, browser_teardown);
}
