/*
 * itest_browser - use_user_browser through the real broker and
 * svc-browser, driving a REAL headless Chromium (tests/harness/chromium.h)
 * over the DevTools protocol, on the local pages of tests/browser/pages.mjs:
 * opening and clicking, forms, reading in parts, screenshots, two sessions'
 * tabs, the tabs a session opened, the user's own tabs left alone.
 * (The rest: itest_browser_control.c.)
 *
 * One browser and one broker serve the whole file (browser_rig.h);
 * the calls come as Claude's toolCalls on two runs of two sessions, so each
 * call carries its session's binding (tabs belong to a session).
 * The bounds on waiting for answers are "it never came" guards, never
 * measures of speed.
 */
#include "../harness/checks.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base64.h"
#include "http.h"
#include "../harness/chromium.h"
#include "../harness/node_server.h"
#include "../harness/test_pages.h"

#include "browser_rig.h"

/* ---- 1: open, snapshot, click by ref ----------------------------------- */

static void test_open_and_click(void **state)
{
	char ref[16], args[200], tab[16];
	char *t;

	(void)state;
	t = open_page(&A, "/button", 1, "Opened ");
	tab_of(t, tab, sizeof tab);
	/* the first tab this service opened */
	assert_string_equal(tab, "t1");
	assert_non_null(strstr(t, "Tab t1: \"Button\""));
	assert_non_null(strstr(t, "heading \"Button page\""));
	assert_null(strstr(t, "Hello, agent!"));
	ref_of(t, "button \"Show greeting\"", ref, sizeof ref);
	free(t);
	snprintf(args, sizeof args, "{\"action\":\"click\",\"ref\":\"%s\"}", ref);
	t = call(&A, 1, "Clicked ", args);
	assert_non_null(strstr(t, "Hello, agent!"));
	assert_non_null(strstr(t, "Tab t1: \"Greeted\""));
	free(t);
	/* a ref that is not one */
	free(call(&A, 0, "is not a ref", "{\"action\":\"click\",\"ref\":\"button\"}"));
	/* a ref of the page before a navigation: said to be stale, and the
	 * page it now shows is not touched */
	snprintf(args, sizeof args, "{\"action\":\"open\",\"tab\":\"t1\",\"url\":\"%s/form\"}", P.base);
	free(call(&A, 1, "Opened ", args));
	snprintf(args, sizeof args, "{\"action\":\"click\",\"ref\":\"%s\"}", ref);
	free(call(&A, 0, "is from an earlier state of the page", args));
}

/* ---- 2: a form typed into and submitted -------------------------------- */

static void test_form(void **state)
{
	char name[16], email[16], args[200];
	char *t;

	(void)state;
	t = open_page(&A, "/form", 1, "Opened ");
	ref_of(t, "textbox \"Name\"", name, sizeof name);
	ref_of(t, "textbox \"Email\"", email, sizeof email);
	free(t);
	snprintf(args, sizeof args, "{\"action\":\"type\",\"ref\":\"%s\",\"text\":\"Ada Lovelace\"}", name);
	t = call(&A, 1, "Typed the text.", args);
	assert_non_null(strstr(t, "Ada Lovelace"));
	free(t);
	/* type replaces what the field held */
	snprintf(args, sizeof args, "{\"action\":\"type\",\"ref\":\"%s\",\"text\":\"old@example.org\"}", email);
	free(call(&A, 1, "Typed the text.", args));
	snprintf(args, sizeof args, "{\"action\":\"type\",\"ref\":\"%s\",\"text\":\"ada@example.org\",\"submit\":true}",
		 email);
	t = call(&A, 1, "Typed the text and pressed Enter.", args);
	/* the answer is the page the form went to */
	assert_non_null(strstr(t, "Tab t"));
	assert_non_null(strstr(t, "/submitted?name=Ada+Lovelace&email=ada%40example.org"));
	assert_non_null(strstr(t, "heading \"Thanks, Ada Lovelace\""));
	free(t);
	t = call(&A, 1, "Email: ada@example.org", "{\"action\":\"read\"}");
	assert_null(strstr(t, "old@example.org"));
	free(t);
}

/* ---- 3: reading a long page in parts ----------------------------------- */

/* The text of a part of read's answer: after "Characters ...\n", before
 * "\n[cut: " (malloc'd); its next offset into *next. */
static char *part_of(const char *answer, long *next)
{
	const char *from = strstr(answer, "\nCharacters "), *cut;

	assert_non_null(from);
	from = strchr(from + 1, '\n');
	assert_non_null(from);
	from++;
	cut = strstr(from, "\n[cut: the text goes on; read with offset ");
	if (!cut)
		fail_msg("no cut note:\n%.2000s", answer);
	*next = strtol(cut + strlen("\n[cut: the text goes on; read with offset "), NULL, 10);
	return strndup(from, (size_t)(cut - from));
}

static void test_read_in_parts(void **state)
{
	char *t, *one, *two, *both, args[120];
	long next, after, whole, total;

	(void)state;
	free(open_page(&A, "/long", 1, "Opened "));
	t = call(&A, 1, "Characters 0 to 1000 of the page's ", "{\"action\":\"read\",\"maxChars\":1000}");
	one = part_of(t, &next);
	free(t);
	assert_int_equal(next, 1000);
	assert_int_equal(strlen(one), 1000); /* the page is ASCII */
	assert_true(strncmp(one, "A long page\nParagraph 1. ", 25) == 0 || strncmp(one, "A long page\n\nParagraph 1. ", 26) == 0);
	snprintf(args, sizeof args, "{\"action\":\"read\",\"maxChars\":1000,\"offset\":%ld}", next);
	t = call(&A, 1, "Characters 1000 to 2000 of the page's ", args);
	two = part_of(t, &after);
	free(t);
	assert_int_equal(after, 2000);
	/* the second part goes on exactly where the first ended */
	t = call(&A, 1, "Characters 0 to 2000 of the page's ", "{\"action\":\"read\",\"maxChars\":2000}");
	both = part_of(t, &whole);
	assert_int_equal(strncmp(both, one, 1000), 0);
	assert_string_equal(both + 1000, two);
	free(one);
	free(two);
	free(both);
	/* the last part says it is the end, with no cut note */
	total = strtol(strstr(t, "of the page's ") + strlen("of the page's "), NULL, 10);
	free(t);
	assert_true(total > 100000);
	snprintf(args, sizeof args, "{\"action\":\"read\",\"maxChars\":100,\"offset\":%ld}", total - 30);
	t = call(&A, 1, "(the end)", args);
	assert_non_null(strstr(t, "The end."));
	assert_null(strstr(t, "[cut:"));
	free(t);
	(void)whole;
}

/* ---- 4: a screenshot the model sees and the user finds saved ------------ */

static unsigned char *screenshot_of(struct agent *a, const char *args, size_t *len, char **text);

/* The PNG of a screenshot answer (malloc'd, its size into *len), checked:
 * an image/png item whose bytes are those of the file the text names. */
static unsigned char *screenshot_png(struct agent *a, size_t *len)
{
	return screenshot_of(a, "{\"action\":\"screenshot\"}", len, NULL);
}

/* The same with the call's arguments; its text (malloc'd) into *text
 * when text is not NULL. */
static unsigned char *screenshot_of(struct agent *a, const char *args, size_t *len, char **text)
{
	json_t *ans = answer_of(a, send_call(a, args));
	char *t = text_of(ans, 1, "Screenshot (", args), *path, *file;
	json_t *img = json_array_get(json_object_get(ans, "content"), 1);
	const char *data = fx_jstr(img, "data"), *at, *end;
	unsigned char *png;
	FILE *in;
	size_t flen;

	assert_string_equal(fx_jstr(img, "type"), "image");
	assert_string_equal(fx_jstr(img, "mimeType"), "image/png");
	assert_non_null(png = hb_base64_decode(data, strlen(data), len));
	assert_true(*len > 33 && memcmp(png, "\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16) == 0);
	/* "saved as PATH." */
	assert_non_null(at = strstr(t, "saved as "));
	at += strlen("saved as ");
	end = strrchr(at, '.');
	assert_non_null(end);
	assert_non_null(path = strndup(at, (size_t)(end - at)));
	assert_true(strncmp(path, F.dir, strlen(F.dir)) == 0); /* the fixture's cache */
	assert_non_null(in = fopen(path, "rb"));
	assert_non_null(file = malloc(*len + 1));
	flen = fread(file, 1, *len + 1, in);
	fclose(in);
	assert_int_equal(flen, *len);
	assert_memory_equal(file, png, *len);
	free(file);
	free(path);
	if (text)
		*text = t;
	else
		free(t);
	json_decref(ans);
	return png;
}

static unsigned long be32(const unsigned char *p)
{
	return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 | p[3];
}

static void test_screenshot(void **state)
{
	unsigned char *page, *blank;
	size_t page_len, blank_len;

	(void)state;
	free(open_page(&A, "/button", 1, "Opened "));
	page = screenshot_png(&A, &page_len);
	/* IHDR: the viewport Chromium was started with (--window-size=1280,800) */
	assert_int_equal(be32(page + 16), 1280);
	assert_true(be32(page + 20) > 0 && be32(page + 20) <= 800);
	free(open_url(&A, "about:blank", 1, "Opened about:blank"));
	blank = screenshot_png(&A, &blank_len);
	assert_int_equal(be32(blank + 16), 1280);
	assert_int_equal(be32(blank + 20), be32(page + 20));
	/* a page with a heading, text and a button is not a blank page: its
	 * PNG is larger than one flat colour compresses to */
	assert_true(page_len > blank_len);
	assert_true(page_len != blank_len || memcmp(page, blank, page_len) != 0);
	free(page);
	free(blank);
}

static void test_screenshot_full_page(void **state)
{
	const char *args = "{\"action\":\"screenshot\",\"fullPage\":true}";
	unsigned char *png;
	size_t len;
	char *t;

	(void)state;
	/* 5000 px: the whole page, said so */
	free(open_page(&A, "/scroll", 1, "Opened "));
	png = screenshot_of(&A, args, &len, &t);
	assert_non_null(strstr(t, ", the whole page)"));
	assert_true(be32(png + 20) > 5000 && be32(png + 20) < 16384);
	free(png);
	free(t);
	/* 20000 px: cut at 16384, and said where, never "the whole page" */
	free(open_page(&A, "/tall", 1, "Opened "));
	png = screenshot_of(&A, args, &len, &t);
	assert_null(strstr(t, "whole page"));
	if (!strstr(t, "cut at 16384 px") || !strstr(t, "px tall, and only its top left"))
		fail_msg("no cut said:\n%s", t);
	assert_int_equal(be32(png + 20), 16384);
	free(png);
	free(t);
}

/* ---- 5: two sessions at once, each in its own tabs ---------------------- */

static void test_two_sessions(void **state)
{
	char url_a[160], url_b[160], args_a[300], args_b[300], tab_a[16], tab_b[16], args[200];
	int64_t id_a, id_b;
	json_t *ans_a, *ans_b;
	char *ta, *tb, *t;

	(void)state;
	assert_non_null(test_pages_url(&P, "/wait", url_a, sizeof url_a));
	assert_non_null(test_pages_url(&P, "/scroll", url_b, sizeof url_b));
	snprintf(args_a, sizeof args_a, "{\"action\":\"open\",\"url\":\"%s\"}", url_a);
	snprintf(args_b, sizeof args_b, "{\"action\":\"open\",\"url\":\"%s\"}", url_b);
	/* both in flight before either is answered */
	id_a = send_call(&A, args_a);
	id_b = send_call(&B, args_b);
	ans_b = answer_of(&B, id_b);
	ans_a = answer_of(&A, id_a);
	ta = text_of(ans_a, 1, "\"Wait\"", args_a);
	tb = text_of(ans_b, 1, "\"Scroll\"", args_b);
	json_decref(ans_a);
	json_decref(ans_b);
	tab_of(ta, tab_a, sizeof tab_a);
	tab_of(tb, tab_b, sizeof tab_b);
	assert_string_not_equal(tab_a, tab_b);
	snprintf(A.tab, sizeof A.tab, "%s", tab_a);
	snprintf(B.tab, sizeof B.tab, "%s", tab_b);
	free(ta);
	free(tb);
	/* each acts in its own tab: A's wait sees A's page */
	t = call(&A, 1, "is on the page", "{\"action\":\"wait\",\"text\":\"Ready now\",\"timeoutMs\":10000}");
	free(t);
	t = call(&B, 1, "Scrolled down", "{\"action\":\"scroll\"}");
	free(t);
	/* B cannot act on A's tab, nor close it */
	snprintf(args, sizeof args, "{\"action\":\"snapshot\",\"tab\":\"%s\"}", tab_a);
	free(call(&B, 0, "of this session", args));
	snprintf(args, sizeof args, "{\"action\":\"close\",\"tab\":\"%s\"}", tab_a);
	t = call(&B, 0, "There is no tab", args);
	assert_non_null(strstr(t, tab_a));
	free(t);
	/* B's list, seen from B: its one tab by its id and the user's one
	 * tab (Chromium's first); A's tabs (this test's and the earlier
	 * tests') are neither named nor counted, nor their titles and
	 * addresses shown */
	t = call(&B, 1, "1 tab of this session, 1 of the user's", "{\"action\":\"tabs\"}");
	snprintf(args, sizeof args, "\n%-8s \"Scroll\"", tab_b);
	assert_non_null(strstr(t, args));
	assert_non_null(strstr(t, "(user's) \"about:blank\" (about:blank)"));
	snprintf(args, sizeof args, "\n%-8s ", tab_a);
	assert_null(strstr(t, args));
	if (strstr(t, "Wait") || strstr(t, url_a) || strstr(t, "/button") || strstr(t, "/long"))
		fail_msg("B sees A's tabs:\n%s", t);
	free(t);
	/* and A sees its own, and not B's */
	t = call(&A, 1, "of this session, 1 of the user's", "{\"action\":\"tabs\"}");
	assert_non_null(strstr(t, "\"Wait\""));
	if (strstr(t, "Scroll") || strstr(t, url_b))
		fail_msg("A sees B's tab:\n%s", t);
	free(t);
	/* A's tab still there, still A's */
	snprintf(args, sizeof args, "{\"action\":\"snapshot\",\"tab\":\"%s\"}", tab_a);
	free(call(&A, 1, "Ready now", args));
}

/* ---- 5b: a tab that a session's tab opened is that session's ------------ */

/* A's tab list once it shows url_part (a new tab takes Chrome a moment
 * to list; the guard is the number of tries, not a time). */
static char *tabs_with(struct agent *a, const char *url_part)
{
	for (int i = 0; i < 200; i++) {
		char *t = call(a, 1, "of this session", "{\"action\":\"tabs\"}");

		if (strstr(t, url_part))
			return t;
		free(t);
		usleep(50 * 1000);
	}
	fail_msg("no tab showing %s appeared", url_part);
	return NULL;
}

/* The tab id on the line of the list showing url_part, or "" when that
 * line is the user's. */
static void listed_as(const char *list, const char *url_part, char *id, size_t idlen)
{
	const char *at = strstr(list, url_part), *bol = at;

	assert_non_null(at);
	while (bol > list && bol[-1] != '\n')
		bol--;
	snprintf(id, idlen, "%.*s", bol[0] == 't' ? (int)strcspn(bol, " ") : 0, bol);
}

static void test_opened_tabs(void **state)
{
	char ref[16], args[200], id[16];
	char *t;

	(void)state;
	A.tab[0] = '\0';
	t = open_page(&A, "/popup", 1, "Opened ");
	ref_of(t, "button \"Open window\"", ref, sizeof ref);
	snprintf(args, sizeof args, "{\"action\":\"click\",\"ref\":\"%s\"}", ref);
	free(call(&A, 1, "Clicked ", args));
	ref_of(t, "link \"New tab\"", ref, sizeof ref);
	free(t);
	snprintf(args, sizeof args, "{\"action\":\"click\",\"ref\":\"%s\"}", ref);
	free(call(&A, 1, "Clicked ", args));
	/* A's, both: listed with an id of A's, and A acts on them */
	free(tabs_with(&A, "popup=link"));
	t = tabs_with(&A, "popup=open");
	listed_as(t, "popup=link", id, sizeof id);
	if (!id[0])
		fail_msg("the tab A's link opened is listed as the user's:\n%s", t);
	listed_as(t, "popup=open", args, sizeof args);
	if (!args[0])
		fail_msg("the window A's page opened is listed as the user's:\n%s", t);
	free(t);
	/* B is told nothing of them: not named, not counted as the user's */
	t = call(&B, 1, "of the user's", "{\"action\":\"tabs\"}");
	if (strstr(t, "popup=") || strstr(t, "Popup"))
		fail_msg("B sees the tabs A's page opened:\n%s", t);
	assert_non_null(strstr(t, " 1 of the user's"));
	free(t);
	snprintf(args, sizeof args, "{\"action\":\"snapshot\",\"tab\":\"%s\"}", id);
	free(call(&B, 0, "of this session", args));
	free(call(&A, 1, "Show greeting", args));
	/* A closes them, as any tab of its own */
	t = tabs_with(&A, "popup=open");
	listed_as(t, "popup=open", id, sizeof id);
	free(t);
	snprintf(args, sizeof args, "{\"action\":\"close\",\"tab\":\"%s\"}", id);
	free(call(&A, 1, "Closed tab ", args));
	t = tabs_with(&A, "popup=link");
	listed_as(t, "popup=link", id, sizeof id);
	free(t);
	snprintf(args, sizeof args, "{\"action\":\"close\",\"tab\":\"%s\"}", id);
	free(call(&A, 1, "Closed tab ", args));
	/* Closed is gone: Chrome may list a closing tab a little longer, and
	 * its opener is still A's, but it is not taken as a new tab of A's */
	t = call(&A, 1, "of the user's", "{\"action\":\"tabs\"}");
	if (strstr(t, "popup="))
		fail_msg("a tab A closed is listed again:\n%s", t);
	free(t);
}

/* ---- 6: the user's tabs are never closed or navigated -------------------- */

static void test_user_tabs_untouched(void **state)
{
	char tab[16], args[200];
	char *t;

	(void)state;
	assert_true(chrome_has_page(user_target, "about:blank"));
	t = call(&B, 1, "of the user's", "{\"action\":\"tabs\"}");
	assert_non_null(strstr(t, "(user's) \"about:blank\" (about:blank)"));
	free(t);
	t = open_page(&B, "/links", 1, "Opened ");
	tab_of(t, tab, sizeof tab);
	free(t);
	B.tab[0] = '\0';
	snprintf(args, sizeof args, "{\"action\":\"close\",\"tab\":\"%s\"}", tab);
	t = call(&B, 1, "Closed tab ", args);
	assert_non_null(strstr(t, tab));
	free(t);
	/* closed: no longer B's, and Chromium's user tab is still there */
	free(call(&B, 0, "There is no tab", args));
	free(call(&B, 0, "There is no tab", "{\"action\":\"close\",\"tab\":\"t999\"}"));
	/* a tab id is the service's (t1 ...), not Chrome's target id */
	snprintf(args, sizeof args, "{\"action\":\"close\",\"tab\":\"%s\"}", user_target);
	free(call(&B, 0, "There is no tab", args));
	snprintf(args, sizeof args, "{\"action\":\"open\",\"tab\":\"%s\",\"url\":\"about:blank\"}", user_target);
	free(call(&B, 0, "There is no tab", args));
	assert_true(chrome_has_page(user_target, "about:blank"));
	t = call(&B, 1, "(user's) \"about:blank\" (about:blank)", "{\"action\":\"tabs\"}");
	free(t);
}

/* ---- 9: after a click, waiting for what it caused ---------------------- */

/* Click the element on the snapshot line holding needle of the page at
 * path; the answer (which must hold want). */
static char *click_on(const char *path, const char *needle, const char *want)
{
	char ref[16], args[200];
	char *t = open_page(&A, path, 1, "Opened ");

	ref_of(t, needle, ref, sizeof ref);
	free(t);
	snprintf(args, sizeof args, "{\"action\":\"click\",\"ref\":\"%s\"}", ref);
	return call(&A, 1, want, args);
}

/* A click that starts a navigation answers with the new page. */
static void test_click_waits_for_navigation(void **state)
{
	char *t;

	(void)state;
	t = click_on("/links", "link \"button\"", "Clicked ");
	assert_non_null(strstr(t, "\"Button\" ("));
	assert_non_null(strstr(t, "heading \"Button page\""));
	free(t);
}

/* A click whose handler writes the answer of a fetch that takes 200 ms:
 * the open request keeps the page from being quiet, so the answer shows
 * what the handler wrote. */
static void test_click_waits_for_fetch(void **state)
{
	char *t;

	(void)state;
	t = click_on("/fetch-later", "button \"Fetch\"", "Clicked ");
	assert_non_null(strstr(t, "Fetched it"));
	assert_null(strstr(t, "Nothing yet"));
	free(t);
}

/* A page that asks its server something every 50 ms is never quiet: the
 * click still answers, with the snapshot, not a timeout. */
static void test_click_on_busy_page(void **state)
{
	char *t;

	(void)state;
	t = click_on("/poll", "button \"Mark\"", "Clicked ");
	assert_non_null(strstr(t, "Tab "));
	assert_non_null(strstr(t, "Marked"));
	assert_null(strstr(t, "did not finish"));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_and_click),
		cmocka_unit_test(test_form),
		cmocka_unit_test(test_read_in_parts),
		cmocka_unit_test(test_screenshot),
		cmocka_unit_test(test_screenshot_full_page),
		cmocka_unit_test(test_two_sessions),
		cmocka_unit_test(test_opened_tabs),
		cmocka_unit_test(test_user_tabs_untouched),
		cmocka_unit_test(test_click_waits_for_navigation),
		cmocka_unit_test(test_click_waits_for_fetch),
		cmocka_unit_test(test_click_on_busy_page),
	};

	return ck_run_group_tests(tests, browser_setup, browser_teardown);
}
