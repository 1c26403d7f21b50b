/*
 * itest_browser - use_user_browser through the real broker and
 * svc-browser, driving a REAL headless Chromium (tests/harness/chromium.h)
 * over the DevTools protocol, on the local pages of tests/browser/pages.mjs.
 *
 * Chromium is found the way a user's Chrome is: its user data folder is
 * <tmp>/xdg/chromium and the broker (whose environment the services
 * inherit) has XDG_CONFIG_HOME=<tmp>/xdg, so svc-browser reads the
 * DevToolsActivePort Chromium wrote there.  One browser and one broker
 * serve the whole file; Chromium is killed and started again only by the
 * test of a crash, which runs late.  The calls come as Claude's toolCalls
 * on two runs of two sessions, so each call carries its session's binding
 * (tabs belong to a session) and can be cancelled.
 *
 * The limits are small (HB_BROWSER_LOAD_MS, HB_BROWSER_ACTION_MS) so a
 * page that never loads ends quickly; the bounds on waiting for answers
 * are "it never came" guards, never measures of speed.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "../harness/checks.h"

#include <errno.h>
#include <ftw.h>
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

/* An answer that never comes fails the test after this (a hang guard; the
 * slowest action here waits out a 3 s load limit). */
#define ANSWER_MS 30000

/* A Claude run of one session: its calls are that session's. */
struct agent {
	struct hb_client c;
	char session[64];
	char run[32];
	int n;       /* the last requestId */
	char tab[16]; /* where open_page opens ("": in a new tab) */
};

static struct fixture F;
static struct chromium C;
static struct test_pages P;
static struct agent A, B;
static char base_dir[64];            /* <tmp>: xdg/chromium inside */
static char user_target[64];         /* the about:blank tab Chromium started with */
static char env_xdg[160];
/* The connect limit is what a server that never answers the Upgrade
 * (Chrome waiting for the user's approval) costs test_discovery; the load
 * limit what the pages that never load cost.  A step gets more than the
 * product's 10 s: the 60,000-row page of test_huge_page may still be
 * parsing when its first action comes, and on a machine that a build
 * shares, its renderer took over 5 s to answer a DOM.getDocument. */
static char *const env_limits[] = { "HB_BROWSER_LOAD_MS=3000", "HB_BROWSER_ACTION_MS=20000",
				    "HB_BROWSER_CONNECT_MS=8000" };

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

static int address_any_loopback(void *arg, const struct sockaddr *sa, size_t len)
{
	(void)arg;
	(void)sa;
	(void)len;
	return 1; /* and, being set, keeps any proxy of the environment out */
}

/* Chromium's own list of its targets (/json/list), asked directly and not
 * through svc-browser: a JSON array, or NULL. */
static json_t *chrome_targets(void)
{
	char url[80];
	struct hb_http_request rq = { .method = "GET", .url = url, .connect_timeout_ms = 5000, .timeout_ms = 10000,
				      .max_answer = 1 << 20, .address_ok = address_any_loopback };
	struct hb_http_response rs;
	json_t *list = NULL;

	snprintf(url, sizeof url, "http://127.0.0.1:%d/json/list", C.port);
	if (hb_http_perform(&rq, &rs) == HB_HTTP_ANSWERED && rs.status == 200 && rs.body)
		list = json_loadb(rs.body, rs.len, 0, NULL);
	hb_http_response_free(&rs);
	return list;
}

/* The target of Chromium's one page at the start: the user's tab. */
static int find_user_target(void)
{
	json_t *list = chrome_targets(), *t;
	size_t i;
	int n = 0;

	json_array_foreach(list, i, t)
		if (strcmp(fx_jstr(t, "type"), "page") == 0) {
			snprintf(user_target, sizeof user_target, "%s", fx_jstr(t, "id"));
			n++;
		}
	json_decref(list);
	if (n != 1)
		fprintf(stderr, "Chromium started with %d pages, not 1\n", n);
	return n == 1 ? 0 : -1;
}

/* Whether Chromium has the page target id now, showing url (any when NULL). */
static int chrome_has_page(const char *id, const char *url)
{
	json_t *list = chrome_targets(), *t;
	size_t i;
	int found = 0;

	json_array_foreach(list, i, t)
		if (strcmp(fx_jstr(t, "id"), id) == 0 && strcmp(fx_jstr(t, "type"), "page") == 0 &&
		    (!url || strcmp(fx_jstr(t, "url"), url) == 0))
			found = 1;
	json_decref(list);
	return found;
}

static int agent_start(struct agent *a, const char *title, const char *run)
{
	snprintf(a->run, sizeof a->run, "%s", run);
	a->n = 0;
	return fx_create_session(&F, title, "claude", "/tmp", "full-auto", a->session, sizeof a->session) < 0 ||
			       fx_client(&F, &a->c, 20000) < 0 ||
			       fx_open_run(&a->c, a->run, a->session, "/tmp", "claude", "full-auto") < 0
		       ? -1
		       : 0;
}

static int hbctl(const char *const *args, char **out)
{
	char *o = NULL;
	int rc = fx_hbctl(&F, &o, args);

	if (out)
		*out = o;
	else
		free(o);
	return rc;
}

static int setup(void **state)
{
	const char *const on[] = { "settings", "browser", "on", NULL };
	const char *env[5];
	char dir[128], *conf;
	int rc;

	(void)state;
	snprintf(base_dir, sizeof base_dir, "/tmp/hbbrowser.XXXXXX");
	if (!mkdtemp(base_dir))
		return -1;
	snprintf(dir, sizeof dir, "%s/xdg", base_dir);
	if (mkdir(dir, 0700) < 0)
		return -1;
	snprintf(env_xdg, sizeof env_xdg, "XDG_CONFIG_HOME=%s", dir);
	snprintf(dir, sizeof dir, "%s/xdg/chromium", base_dir);
	if (test_pages_start(&P) < 0 || chromium_start(&C, dir) < 0 || find_user_target() < 0)
		return -1;
	env[0] = env_xdg;
	env[1] = env_limits[0];
	env[2] = env_limits[1];
	env[3] = env_limits[2];
	env[4] = NULL;
	if (!(conf = fx_deployed_config(NULL, "svc-sessions", "svc-browser", (char *)NULL)))
		return -1;
	rc = fx_start(&F, conf, env);
	free(conf);
	if (rc < 0 || hbctl(on, NULL) != 0)
		return -1;
	return agent_start(&A, "Browser A", "run-a") < 0 || agent_start(&B, "Browser B", "run-b") < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	int rc;

	(void)state;
	hb_client_close(&A.c);
	hb_client_close(&B.c);
	rc = fx_stop_clean(&F);
	chromium_stop(&C);
	test_pages_stop(&P);
	nftw(base_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return rc;
}

/* ---- calls ------------------------------------------------------------ */

/* Send a call of use_user_browser on a's run: the request id. */
static int64_t send_call(struct agent *a, const char *args)
{
	int64_t id = fx_claude_call(&a->c, ++a->n, "use_user_browser", args);

	assert_true(id >= 0);
	return id;
}

/* The answer (Claude's own, parsed) to request id on a. */
static json_t *answer_of(struct agent *a, int64_t id)
{
	struct hb_env reply;
	int64_t got = -1;
	json_t *j;

	ck_recv(&a->c, &reply, ANSWER_MS, &got);
	assert_int_equal(got, id);
	j = json_loads(hb_env_str_or(&reply, "json", ""), 0, NULL);
	if (!j)
		fail_msg("no Claude answer: %s", hb_env_str_or(&reply, "err.msg", hb_env_str_or(&reply, "text", "?")));
	hb_env_free(&reply);
	return j;
}

/* The answer's text (malloc'd), checked: ok or not, containing want. */
static char *text_of(json_t *ans, int want_ok, const char *want, const char *args)
{
	const char *t = json_string_value(json_object_get(json_array_get(json_object_get(ans, "content"), 0), "text"));
	int ok = json_is_false(json_object_get(ans, "isError"));

	if (!t)
		fail_msg("%s: an answer without text", args);
	if (ok != want_ok || (want && !strstr(t, want)))
		fail_msg("%s: wanted %s with \"%s\", got %s:\n%s", args, want_ok ? "success" : "failure",
			 want ? want : "", ok ? "success" : "failure", t);
	return strdup(t);
}

/* A call that must answer with want_ok and want in its text: the text. */
static char *call(struct agent *a, int want_ok, const char *want, const char *args)
{
	json_t *ans = answer_of(a, send_call(a, args));
	char *t = text_of(ans, want_ok, want, args);

	json_decref(ans);
	return t;
}

static void tab_of(const char *text, char *id, size_t idlen);

/* Open url in a->tab, or in a new tab when a->tab is "" (a new window
 * costs Chromium a second), which becomes a->tab. */
static char *open_url(struct agent *a, const char *url, int want_ok, const char *want)
{
	char args[300], *t;

	if (a->tab[0])
		snprintf(args, sizeof args, "{\"action\":\"open\",\"tab\":\"%s\",\"url\":\"%s\"}", a->tab, url);
	else
		snprintf(args, sizeof args, "{\"action\":\"open\",\"url\":\"%s\"}", url);
	t = call(a, want_ok, want, args);
	if (want_ok && !a->tab[0])
		tab_of(t, a->tab, sizeof a->tab);
	return t;
}

/* The same with a page of the test's server. */
static char *open_page(struct agent *a, const char *path, int want_ok, const char *want)
{
	char url[160];

	assert_non_null(test_pages_url(&P, path, url, sizeof url));
	return open_url(a, url, want_ok, want);
}

/* The ref (e12) on the snapshot line holding needle, into ref. */
static void ref_of(const char *snapshot, const char *needle, char *ref, size_t reflen)
{
	const char *at = strstr(snapshot, needle), *eol, *r;

	if (!at)
		fail_msg("no \"%s\" in the snapshot:\n%s", needle, snapshot);
	eol = strchr(at, '\n');
	r = strstr(at, "[ref=e");
	if (!r || (eol && r > eol))
		fail_msg("no ref on the line of \"%s\":\n%s", needle, snapshot);
	r += 5;
	snprintf(ref, reflen, "%.*s", (int)strcspn(r, "]"), r);
	assert_true(ref[0] == 'e' && strlen(ref) > 1 && strspn(ref + 1, "0123456789") == strlen(ref + 1));
}

/* The tab id an open answer names ("... in tab t3."), into id. */
static void tab_of(const char *text, char *id, size_t idlen)
{
	const char *at = strstr(text, " in tab t");

	if (!at)
		fail_msg("no tab in the answer:\n%s", text);
	at += 8;
	snprintf(id, idlen, "%.*s", (int)strspn(at + 1, "0123456789") + 1, at);
}

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
}

/* ---- 15: one session's huge page, another session's calls ------------------- */

/* How many times svc-browser connected to the browser so far (its log). */
static int connections_made(void)
{
	FILE *f = fopen(F.log, "r");
	char line[2048];
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof line, f))
		if (strstr(line, "browser: connected"))
			n++;
	fclose(f);
	return n;
}

/* A's call on its huge page, with B's wait in flight meanwhile: A's
 * answer is its own (bounded, or a failure of that call only), B's wait
 * ends as it would have, and the shared connection stays the same. */
static void huge_call_beside_wait(const char *a_args, const char *a_want)
{
	char url[160], args[300];
	int64_t wait_id, huge_id;
	json_t *ans;
	char *t;
	int before = connections_made();

	assert_non_null(test_pages_url(&P, "/later?ms=1500", url, sizeof url));
	snprintf(args, sizeof args, "{\"action\":\"open\",\"tab\":\"%s\",\"url\":\"%s\"}", B.tab, url);
	free(call(&B, 1, "Not yet", args));
	wait_id = send_call(&B, "{\"action\":\"wait\",\"text\":\"Later now\",\"timeoutMs\":60000}");
	huge_id = send_call(&A, a_args);
	ans = answer_of(&A, huge_id);
	t = strdup(json_string_value(json_object_get(json_array_get(json_object_get(ans, "content"), 0), "text")));
	json_decref(ans);
	if (strstr(t, "Chrome closed the connection") || (a_want && !strstr(t, a_want)))
		fail_msg("%s: %s", a_args, t);
	free(t);
	ans = answer_of(&B, wait_id);
	free(text_of(ans, 1, "\"Later now\" is on the page", "B's wait"));
	json_decref(ans);
	free(call(&B, 1, "Later now", "{\"action\":\"snapshot\"}"));
	assert_int_equal(connections_made(), before);
}

/* The offset a cut snapshot names for its next part. */
static long long next_offset(const char *snapshot)
{
	const char *at = strstr(snapshot, "The next part: action snapshot with offset ");

	if (!at)
		fail_msg("no next part named:\n%s", snapshot);
	return strtoll(at + strlen("The next part: action snapshot with offset "), NULL, 10);
}

/* Click the ref of the line holding needle in snapshot: the page's
 * address then ends with want (the row's #rN). */
static void click_line(const char *snapshot, const char *needle, const char *want)
{
	char ref[16], args[200], *t;

	ref_of(snapshot, needle, ref, sizeof ref);
	snprintf(args, sizeof args, "{\"action\":\"click\",\"ref\":\"%s\"}", ref);
	t = call(&A, 1, "Clicked ", args);
	if (!strstr(t, want))
		fail_msg("clicking %s (%s) did not reach %s:\n%.2000s", ref, needle, want, t);
	free(t);
}

/* The 60,000-row page's tree in bounded parts: the first part's refs
 * work, the next part (from the offset the first names) holds rows the
 * first did not, and a row far down is reached by its subtree. */
static void huge_rows_parts(void)
{
	char args[200], *first, *next;
	long long offset;

	first = call(&A, 1, "The page is large", "{\"action\":\"snapshot\"}");
	assert_true(strlen(first) <= 40000 + 2000);
	assert_non_null(strstr(first, "link \"Row 1\""));
	assert_null(strstr(first, "link \"Row 500\""));
	click_line(first, "link \"Row 3\"", "#r3)");
	offset = next_offset(first);
	assert_true(offset > 0);
	snprintf(args, sizeof args, "{\"action\":\"snapshot\",\"offset\":%lld}", offset);
	next = call(&A, 1, "The part from element", args);
	/* the row just after the first part's last one is in the next */
	{
		const char *last = first, *at;
		long row;
		char want[64], hash[32];

		while ((at = strstr(last, "link \"Row ")))
			last = at + 1;
		row = strtol(last - 1 + strlen("link \"Row "), NULL, 10) + 1;
		snprintf(want, sizeof want, "link \"Row %ld\"", row);
		snprintf(hash, sizeof hash, "#r%ld)", row);
		if (strstr(first, want))
			fail_msg("row %ld is in the first part too", row);
		click_line(next, want, hash);
	}
	free(first);
	free(next);
	/* one row far down, by its subtree */
	next = call(&A, 1, "Row 59990", "{\"action\":\"snapshot\",\"selector\":\"tr:nth-child(59990)\"}");
	assert_null(strstr(next, "Row 59989"));
	click_line(next, "link \"Row 59990\"", "#r59990)");
	free(next);
}

static void test_huge_page(void **state)
{
	json_t *ans;
	char *t;

	(void)state;
	B.tab[0] = '\0';
	free(open_page(&B, "/button", 1, "Opened "));
	A.tab[0] = '\0';
	/* an 11 MB page: its load may outlast the 3 s limit here; what
	 * loaded stays, and the tab is A's either way */
	ans = answer_of(&A, send_call(&A, "{\"action\":\"open\",\"url\":\"about:blank\"}"));
	t = text_of(ans, 1, "Opened about:blank", "open about:blank");
	tab_of(t, A.tab, sizeof A.tab);
	free(t);
	json_decref(ans);
	{
		char url[160], args[300];

		assert_non_null(test_pages_url(&P, "/huge-text", url, sizeof url));
		snprintf(args, sizeof args, "{\"action\":\"open\",\"tab\":\"%s\",\"url\":\"%s\"}", A.tab, url);
		json_decref(answer_of(&A, send_call(&A, args)));
	}
	/* a bounded tree, its first part (the text itself is read's) */
	huge_call_beside_wait("{\"action\":\"snapshot\"}", "The page is large");
	huge_call_beside_wait("{\"action\":\"read\",\"maxChars\":1000,\"offset\":5000000}", "Characters 5000000 to 5001000");
	huge_call_beside_wait("{\"action\":\"screenshot\",\"fullPage\":true}", NULL);

	/* 60,000 rows: every action answers (with the snapshot's note in
	 * place of the tree), none waits out the browser building it */
	{
		char url[160], args[300];

		assert_non_null(test_pages_url(&P, "/rows", url, sizeof url));
		snprintf(args, sizeof args, "{\"action\":\"open\",\"tab\":\"%s\",\"url\":\"%s\"}", A.tab, url);
		json_decref(answer_of(&A, send_call(&A, args)));
	}
	huge_call_beside_wait("{\"action\":\"click\",\"selector\":\"tr:nth-child(7) td:nth-child(3)\"}", "Clicked ");
	huge_call_beside_wait("{\"action\":\"scroll\"}", "Scrolled down");
	huge_call_beside_wait("{\"action\":\"read\",\"maxChars\":200,\"offset\":1000}", "Characters 1000 to 1200");
	huge_call_beside_wait("{\"action\":\"snapshot\"}", "[ref=e");
	huge_rows_parts();
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

/* ---- 8: a page that loops, an alert, a confirm -------------------------- */

static void test_loop_alert_confirm(void **state)
{
	char ref[16], args[200];
	char *t;
	json_t *ans;

	(void)state;
	/* the loop holds the renderer: the load limit (3 s here) ends the
	 * wait, the page is stopped, and the next call works */
	free(open_page(&A, "/loop", 0, "did not finish loading within 3 s"));
	t = call(&A, 1, "Tab t", "{\"action\":\"snapshot\"}");
	assert_non_null(strstr(t, "Loop"));
	free(t);
	free(open_page(&A, "/button", 1, "button \"Show greeting\""));
	/* a server that never answers: the navigation itself waits out the
	 * load limit (3 s here), not the step limit (20 s), and says so */
	t = open_page(&A, "/no-answer", 0, "within 3 s");
	assert_null(strstr(t, "within 20 s"));
	free(t);
	free(open_page(&A, "/button", 1, "button \"Show greeting\""));

	/* an alert on load: dismissed and said, in the open's answer or the
	 * next call's note */
	free(open_url(&A, "about:blank", 1, "Opened about:blank"));
	{
		char url[160], open_args[300];
		int said;

		assert_non_null(test_pages_url(&P, "/alert", url, sizeof url));
		snprintf(open_args, sizeof open_args, "{\"action\":\"open\",\"tab\":\"%s\",\"url\":\"%s\"}", A.tab,
			 url);
		ans = answer_of(&A, send_call(&A, open_args));
		t = strdup(json_string_value(json_object_get(json_array_get(json_object_get(ans, "content"), 0), "text")));
		json_decref(ans);
		said = strstr(t, "JavaScript alert") && strstr(t, "Hello from alert");
		free(t);
		t = call(&A, 1, "heading \"Alert\"", "{\"action\":\"snapshot\"}");
		said += strstr(t, "JavaScript alert") && strstr(t, "Hello from alert");
		/* said once, and dismissed: the snapshot came */
		assert_int_equal(said, 1);
		free(t);
	}

	/* a confirm opened by a click: dismissed (the page reads No) */
	t = open_page(&A, "/confirm-on-click", 1, "Opened ");
	ref_of(t, "button \"Ask\"", ref, sizeof ref);
	free(t);
	snprintf(args, sizeof args, "{\"action\":\"click\",\"ref\":\"%s\"}", ref);
	t = call(&A, 0, "opened a JavaScript confirm", args);
	assert_non_null(strstr(t, "dismissed"));
	free(t);
	free(call(&A, 1, "text \"No\"", "{\"action\":\"snapshot\"}"));
}

/* ---- 11: cancel ends a wait at once -------------------------------------- */

static void test_cancel(void **state)
{
	int64_t id, stop;

	(void)state;
	free(open_page(&A, "/button", 1, "Opened "));
	id = send_call(&A, "{\"action\":\"wait\",\"text\":\"Never on the page\",\"timeoutMs\":60000}");
	fx_sleep_ms(300); /* the call reaches the service first (either way it must stop) */
	stop = fx_claude_cancel(&A.c, A.n);
	assert_true(stop >= 0);
	/* well inside the 60 s the wait would take */
	assert_int_equal(fx_expect_stopped(&A.c, id, stop), 0);
	free(call(&A, 1, "button \"Show greeting\"", "{\"action\":\"snapshot\"}"));
}

/* ---- 12, 13: a download, a file ------------------------------------------ */

static int found_download;

static int look_for_download(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *name = path + ftw->base;

	(void)st;
	if (flag == FTW_F && (strcmp(name, "report.txt") == 0 || strstr(name, ".crdownload")))
		found_download = 1, fprintf(stderr, "a download was saved: %s\n", path);
	return 0;
}

static void test_download_and_file(void **state)
{
	char *t;

	(void)state;
	free(open_page(&A, "/button", 1, "Opened "));
	t = open_page(&A, "/download", 0, "did not open");
	assert_non_null(strstr(t, "a download or a page that stopped itself: this tool opens pages and hands no file"));
	free(t);
	/* The agent's tab asks Chrome to deny downloads (Page.setDownloadBehavior,
	 * deprecated), which Chrome 156 does not always honour, so a download
	 * may land in Chrome's own Downloads folder as a user's click would;
	 * never in the broker's folders, and the tool hands the agent nothing. */
	found_download = 0;
	assert_int_equal(nftw(F.dir, look_for_download, 16, FTW_PHYS), 0);
	assert_false(found_download);
	free(open_url(&A, "about:blank", 1, "Opened about:blank"));

	free(call(&A, 0, "opens http and https pages", "{\"action\":\"open\",\"url\":\"file:///etc/passwd\"}"));
	free(call(&A, 0, "opens http and https pages", "{\"action\":\"open\",\"url\":\"FILE:///etc/passwd\"}"));
	free(call(&A, 0, "opens http and https pages",
		  "{\"action\":\"open\",\"url\":\"view-source:file:///etc/passwd\"}"));
	free(call(&A, 0, "opens http and https pages", "{\"action\":\"open\",\"url\":\"chrome://settings\"}"));
	/* and the tab did not go there */
	t = call(&A, 1, "(about:blank)", "{\"action\":\"snapshot\"}");
	assert_null(strstr(t, "root:"));
	free(t);
}

/* ---- 9: the browser-url setting ------------------------------------------ */

/* settings.json with browserUrl set to url by hand (NULL: removed). */
static void edit_settings(const char *url)
{
	char path[400];
	json_t *s;

	snprintf(path, sizeof path, "%s/config/settings.json", F.dir);
	assert_non_null(s = json_load_file(path, 0, NULL));
	if (url)
		assert_int_equal(json_object_set_new(s, "browserUrl", json_string(url)), 0);
	else
		json_object_del(s, "browserUrl");
	assert_int_equal(json_dump_file(s, path, JSON_INDENT(2)), 0);
	json_decref(s);
}

static void test_browser_url(void **state)
{
	const char *const restart[] = { "restart", "svc-browser", NULL };
	const char *const bad[] = { "settings", "browser-url", "set", "http://10.1.2.3:9222", NULL };
	const char *const del[] = { "settings", "browser-url", "delete", NULL };
	char url[64], file[300], aside[300], *out = NULL;
	const char *set[] = { "settings", "browser-url", "set", url, NULL };
	long long gen = fx_service_num(&F, "svc-browser", "generation");

	(void)state;
	/* a new connection: Chromium's port file moved aside, svc-browser
	 * started again, so only the setting leads to Chromium */
	snprintf(file, sizeof file, "%s/DevToolsActivePort", C.dir);
	snprintf(aside, sizeof aside, "%s/DevToolsActivePort.aside", C.dir);
	assert_int_equal(rename(file, aside), 0);
	assert_int_equal(hbctl(restart, NULL), 0);
	assert_int_equal(fx_wait_up(&F, "svc-browser", gen + 1, 20000), 0);
	A.tab[0] = B.tab[0] = '\0';
	free(call(&A, 0, "No Chrome allows remote debugging", "{\"action\":\"tabs\"}"));
	snprintf(url, sizeof url, "http://127.0.0.1:%d", C.port);
	assert_int_equal(hbctl(set, NULL), 0);
	/* the tabs the agents had opened before are nobody's now */
	free(call(&A, 0, "There is no tab", "{\"action\":\"snapshot\",\"tab\":\"t2\"}"));
	free(open_page(&A, "/button", 1, "button \"Show greeting\""));

	/* non-loopback refused by hbctl, the setting unchanged */
	assert_int_not_equal(hbctl(bad, &out), 0);
	if (!strstr(out, "must name this machine"))
		fail_msg("hbctl said: %s", out);
	free(out);
	free(call(&A, 1, "button \"Show greeting\"", "{\"action\":\"snapshot\"}"));

	/* set by hand: every call fails on it, the open connection too, and
	 * no new one is tried (the sentence is the setting's, not "Nothing
	 * answers at") */
	edit_settings("http://10.1.2.3:9222");
	out = call(&A, 0, "must name this machine", "{\"action\":\"snapshot\"}");
	assert_non_null(strstr(out, "browserUrl"));
	assert_null(strstr(out, "Nothing answers"));
	free(out);
	assert_int_equal(hbctl(restart, NULL), 0);
	assert_int_equal(fx_wait_up(&F, "svc-browser", gen + 2, 20000), 0);
	A.tab[0] = '\0';
	out = call(&A, 0, "must name this machine", "{\"action\":\"tabs\"}");
	assert_null(strstr(out, "Nothing answers"));
	free(out);

	/* back to the search of the port files */
	edit_settings(NULL);
	assert_int_equal(rename(aside, file), 0);
	assert_int_equal(hbctl(del, NULL), 0);
	free(open_page(&A, "/button", 1, "button \"Show greeting\""));
}

/* ---- 14: which DevToolsActivePort leads to the browser ---------------------- */

/* svc-browser started again, so that the next call looks for the browser
 * anew; the agents' tabs are nobody's after it. */
static void restart_browser_service(void)
{
	const char *const restart[] = { "restart", "svc-browser", NULL };
	long long gen = fx_service_num(&F, "svc-browser", "generation");

	assert_int_equal(hbctl(restart, NULL), 0);
	assert_int_equal(fx_wait_up(&F, "svc-browser", gen + 1, 20000), 0);
	A.tab[0] = B.tab[0] = '\0';
}

/* google-chrome's DevToolsActivePort (searched before chromium's): a file
 * naming port and path, or a FIFO when port is 0, or none when port < 0. */
static void google_chrome_file(int port, const char *path)
{
	char dir[160], file[200];
	FILE *f;

	snprintf(dir, sizeof dir, "%s/xdg/google-chrome", base_dir);
	snprintf(file, sizeof file, "%s/DevToolsActivePort", dir);
	assert_true(mkdir(dir, 0700) == 0 || errno == EEXIST);
	assert_true(unlink(file) == 0 || errno == ENOENT);
	if (port < 0)
		return;
	if (port == 0) {
		assert_int_equal(mkfifo(file, 0600), 0);
		return;
	}
	assert_non_null(f = fopen(file, "w"));
	fprintf(f, "%d\n%s", port, path);
	assert_int_equal(fclose(f), 0);
}

/* A tests/ws/server.mjs in mode, playing a browser whose Upgrade answer
 * is the point (Chromium cannot be made to refuse or stall one). */
static void ws_server(struct node_server *s, const char *mode)
{
	const char *const args[] = { "--mode", mode, NULL };

	assert_int_equal(node_server_start(s, "tests/ws/server.mjs", args), 0);
}

static void test_discovery(void **state)
{
	char file[300], aside[300], *t;
	struct node_server s;

	(void)state;
	/* a stale file whose port is now another browser's (Chromium's own,
	 * with another browser id): its /json/version names another path,
	 * so the search goes on to chromium's file */
	google_chrome_file(C.port, "/devtools/browser/00000000-0000-4000-8000-000000000000");
	restart_browser_service();
	free(call(&A, 1, "of this session", "{\"action\":\"tabs\"}"));
	/* a stale file whose port another program took (the test pages'
	 * server): its Upgrade answer is no browser's, the search goes on */
	google_chrome_file(P.node.port, "/devtools/browser/11111111-1111-4111-8111-111111111111");
	restart_browser_service();
	free(call(&A, 1, "of this session", "{\"action\":\"tabs\"}"));

	/* a FIFO as DevToolsActivePort: refused at once, never read (a
	 * read would block the worker for ever), and the search goes on */
	google_chrome_file(0, NULL);
	restart_browser_service();
	free(call(&A, 1, "of this session", "{\"action\":\"tabs\"}"));
	/* alone, it is the answer, in words */
	snprintf(file, sizeof file, "%s/DevToolsActivePort", C.dir);
	snprintf(aside, sizeof aside, "%s/DevToolsActivePort.aside", C.dir);
	assert_int_equal(rename(file, aside), 0);
	restart_browser_service();
	t = call(&A, 0, "is a FIFO (named pipe), not a regular file", "{\"action\":\"tabs\"}");
	assert_non_null(strstr(t, "google-chrome/DevToolsActivePort"));
	free(t);
	/* Chromium's file comes back after svc-browser started: its
	 * confinement gives only the port files there at its start, so it
	 * asks to be started anew and gives the call back to the broker,
	 * which hands it to the new generation: the call is answered by it */
	{
		long long gen = fx_service_num(&F, "svc-browser", "generation");

		assert_int_equal(rename(aside, file), 0);
		free(call(&A, 1, "of this session", "{\"action\":\"tabs\"}"));
		assert_int_equal(fx_service_num(&F, "svc-browser", "generation"), gen + 1);
		A.tab[0] = B.tab[0] = '\0';
	}
	free(call(&A, 1, "of this session", "{\"action\":\"tabs\"}"));

	/* a browser that refuses the Upgrade with 403 (the user did not
	 * allow the connection) is the answer, said as such */
	ws_server(&s, "refuse");
	google_chrome_file(s.port, "/devtools/browser/22222222-2222-4222-8222-222222222222");
	restart_browser_service();
	t = call(&A, 0, "Chrome did not allow the connection", "{\"action\":\"tabs\"}");
	assert_non_null(strstr(t, "approve it in the dialog"));
	free(t);
	assert_int_equal(node_server_stop(&s), 0);
	/* one that never answers it (no one clicked Chrome's dialog): said
	 * with the real limit */
	ws_server(&s, "silent");
	google_chrome_file(s.port, "/devtools/browser/33333333-3333-4333-8333-333333333333");
	restart_browser_service();
	t = call(&A, 0, "Chrome did not accept the connection within 8 s", "{\"action\":\"tabs\"}");
	assert_non_null(strstr(t, "approve it"));
	free(t);
	assert_int_equal(node_server_stop(&s), 0);

	google_chrome_file(-1, NULL);
	restart_browser_service();
	free(call(&A, 1, "of this session", "{\"action\":\"tabs\"}"));
}

/* ---- 7: Chromium killed in the middle of a call -------------------------- */

static void test_chromium_killed(void **state)
{
	int64_t id;
	char *t;

	(void)state;
	free(open_page(&A, "/button", 1, "Opened "));
	id = send_call(&A, "{\"action\":\"wait\",\"text\":\"Never on the page\",\"timeoutMs\":20000}");
	fx_sleep_ms(500); /* the wait is polling when the browser goes */
	chromium_kill(&C);
	/* answered long before the wait's own 20 s */
	{
		json_t *ans = answer_of(&A, id);

		t = text_of(ans, 0, "Chrome closed the connection", "wait, Chromium killed");
		json_decref(ans);
		free(t);
	}
	/* meanwhile nothing answers: the port file is stale */
	free(call(&A, 0, "Chrome is not running", "{\"action\":\"tabs\"}"));
	assert_int_equal(chromium_restart(&C), 0);
	/* a new connection; A's old tab went with the old browser */
	free(open_page(&A, "/button", 0, "was closed"));
	A.tab[0] = '\0';
	free(open_page(&A, "/button", 1, "button \"Show greeting\""));
	free(call(&A, 1, "1 tab of this session", "{\"action\":\"tabs\"}"));
}

/* ---- 10: the setting off -------------------------------------------------- */

static void test_setting_off(void **state)
{
	const char *const off[] = { "settings", "browser", "off", NULL };
	const char *const on[] = { "settings", "browser", "on", NULL };

	(void)state;
	assert_int_equal(hbctl(off, NULL), 0);
	free(call(&A, 0, "The browser bridge is off", "{\"action\":\"tabs\"}"));
	free(call(&B, 0, "The browser bridge is off", "{\"action\":\"snapshot\"}"));
	assert_int_equal(hbctl(on, NULL), 0);
	free(call(&A, 1, "of this session", "{\"action\":\"tabs\"}"));
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
		cmocka_unit_test(test_huge_page),
		cmocka_unit_test(test_loop_alert_confirm),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_download_and_file),
		cmocka_unit_test(test_discovery),
		cmocka_unit_test(test_browser_url),
		cmocka_unit_test(test_chromium_killed),
		cmocka_unit_test(test_setting_off),
	};

	return ck_run_group_tests(tests, setup, teardown);
}
