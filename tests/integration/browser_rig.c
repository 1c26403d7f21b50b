/*
 * browser_rig - see browser_rig.h.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "browser_rig.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "http.h"

struct fixture F;

struct chromium C;

struct test_pages P;

struct agent A, B;

char base_dir[64];            /* <tmp>: xdg/chromium inside */
char user_target[64];         /* the about:blank tab Chromium started with */
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
int chrome_has_page(const char *id, const char *url)
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

int hbctl(const char *const *args, char **out)
{
	char *o = NULL;
	int rc = fx_hbctl(&F, &o, args);

	if (out)
		*out = o;
	else
		free(o);
	return rc;
}

int browser_setup(void **state)
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

int browser_teardown(void **state)
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
int64_t send_call(struct agent *a, const char *args)
{
	int64_t id = fx_claude_call(&a->c, ++a->n, "use_user_browser", args);

	assert_true(id >= 0);
	return id;
}

/* The answer (Claude's own, parsed) to request id on a. */
json_t *answer_of(struct agent *a, int64_t id)
{
	struct hb_env reply;
	int64_t got = -1;
	json_t *j;

	for (;;) {
		ck_recv(&a->c, &reply, ANSWER_MS, &got);
		if (got >= id)
			break;
		/* left unread by an earlier test that failed: the failure is
		 * that test's, not blamed on this one */
		hb_env_free(&reply);
	}
	assert_int_equal(got, id);
	j = json_loads(hb_env_str_or(&reply, "json", ""), 0, NULL);
	if (!j)
		fail_msg("no Claude answer: %s", hb_env_str_or(&reply, "err.msg", hb_env_str_or(&reply, "text", "?")));
	hb_env_free(&reply);
	return j;
}

/* The answer's text (malloc'd), checked: ok or not, containing want. */
char *text_of(json_t *ans, int want_ok, const char *want, const char *args)
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
char *call(struct agent *a, int want_ok, const char *want, const char *args)
{
	json_t *ans = answer_of(a, send_call(a, args));
	char *t = text_of(ans, want_ok, want, args);

	json_decref(ans);
	return t;
}

/* Open url in a->tab, or in a new tab when a->tab is "" (a new window
 * costs Chromium a second), which becomes a->tab. */
char *open_url(struct agent *a, const char *url, int want_ok, const char *want)
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
char *open_page(struct agent *a, const char *path, int want_ok, const char *want)
{
	char url[160];

	assert_non_null(test_pages_url(&P, path, url, sizeof url));
	return open_url(a, url, want_ok, want);
}

/* The ref (e12) on the snapshot line holding needle, into ref. */
void ref_of(const char *snapshot, const char *needle, char *ref, size_t reflen)
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
void tab_of(const char *text, char *id, size_t idlen)
{
	const char *at = strstr(text, " in tab t");

	if (!at)
		fail_msg("no tab in the answer:\n%s", text);
	at += 8;
	snprintf(id, idlen, "%.*s", (int)strspn(at + 1, "0123456789") + 1, at);
}
