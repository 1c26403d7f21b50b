/*
 * act_nav - the actions on tabs as a whole: list them, open a page (in a
 * new tab of the session or one of its own), wait for a text or a
 * navigation, close one.
 *
 * Which addresses an agent may open: http and https pages (this machine's
 * included: the user's development servers are what an agent most often
 * needs to look at) and about:blank.  Not file:, chrome:, javascript: or
 * data: — a file the agent's sandbox keeps from it must not be read
 * through the user's browser, and Chrome's own pages hold its settings.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "actions.h"
#include "clock.h"
#include "url.h"

#define WAIT_DEFAULT_MS 10000
#define WAIT_POLL_MS 200

/* Tabs opened by the sessions' tabs become theirs, before anyone is
 * shown them; a tab opened by such a tab too (the list is gone through
 * again while that takes more, at most as deep as TAB_OPENER_DEPTH). */
#define TAB_OPENER_DEPTH 8
static void adopt_opened(struct act *a, const json_t *list)
{
	const json_t *t;
	size_t i;
	int more = 1;

	for (int pass = 0; more && pass < TAB_OPENER_DEPTH; pass++) {
		more = 0;
		json_array_foreach(list, i, t) {
			const char *target = json_string_value(json_object_get(t, "targetId"));
			const char *opener = json_string_value(json_object_get(t, "openerId"));

			if (target && opener && *opener && browser_adopt_opened(a->b, target, opener))
				more = 1;
		}
	}
}

int action_tabs(struct act *a)
{
	json_t *res = NULL, *list, *t;
	char *text = NULL, *p;
	size_t len = 0, i;
	FILE *out;
	int mine = 0, theirs = 0, rc;

	if (act_browser_call(a, "Target.getTargets", NULL, &res) < 0)
		return -1;
	if (!(out = open_memstream(&text, &len))) {
		json_decref(res);
		return hb_call_fail(a->call, "out of memory");
	}
	list = json_object_get(res, "targetInfos");
	adopt_opened(a, list);
	json_array_foreach(list, i, t) {
		const char *type = json_string_value(json_object_get(t, "type"));
		const char *target = json_string_value(json_object_get(t, "targetId"));
		const char *title = json_string_value(json_object_get(t, "title"));
		const char *url = json_string_value(json_object_get(t, "url"));
		char id[TAB_ID_MAX];

		if (!type || strcmp(type, "page") != 0 || !target)
			continue;
		switch (browser_tab_whose(a->b, a->ctx->session, target, id, sizeof id)) {
		case TAB_CLOSED:
		case TAB_OTHERS:
			continue; /* another session's, or closed: neither named nor counted */
		case TAB_MINE:
			mine++;
			break;
		case TAB_USERS:
			theirs++;
			break;
		}
		fprintf(out, "%-8s \"%.200s\" (%.300s)\n", *id ? id : "(user's)", title ? title : "", url ? url : "");
	}
	fclose(out);
	json_decref(res);
	for (p = text; p && *p; p++)
		if ((unsigned char)*p < 0x20 && *p != '\n')
			*p = ' ';
	rc = hb_call_succeedf(a->call,
			      "%d tab%s of this session, %d of the user's (the user's are listed only: this tool "
			      "never acts on them).\n%s",
			      mine, mine == 1 ? "" : "s", theirs, text ? text : "");
	free(text);
	return rc;
}

static int url_allowed(struct act *a, const char *url)
{
	struct hb_url u;

	if (strcmp(url, "about:blank") == 0)
		return 1;
	if (hb_url_parse(url, &u) == 0 && (hb_url_scheme_is(&u, "http") || hb_url_scheme_is(&u, "https")))
		return 1;
	hb_call_failf(a->call, "use_user_browser opens http and https pages (and about:blank), not \"%.200s\": "
			       "files and Chrome's own pages stay out of an agent's reach.", url);
	return 0;
}

int action_open(struct act *a)
{
	const char *url = json_string_value(json_object_get(a->args, "url"));
	json_t *res = NULL;
	const char *error_text;
	unsigned long mark;
	char head[512];

	if (!url)
		return hb_call_fail(a->call, "Action open needs a url (http or https).");
	if (!url_allowed(a, url))
		return -1;
	if (!a->tab_ok) {
		char err[ACT_ERR_MAX];

		if (browser_new_tab(a->b, &a->conn, a->ctx->session, a->cancel, &a->tab, err, sizeof err) < 0)
			return hb_call_failf(a->call, "No tab could be opened: %s", err);
		a->tab_ok = 1;
	}
	mark = cdp_event_mark(a->conn.cdp);
	if (act_tab_call_ms(a, "Page.navigate", json_pack("{s:s}", "url", url), a->load_ms, &res) < 0)
		return -1;
	error_text = json_string_value(json_object_get(res, "errorText"));
	if (error_text && *error_text) {
		int rc = hb_call_failf(a->call,
				       "Tab %s did not open %.300s: %s%s", a->tab.id, url, error_text,
				       strstr(error_text, "ERR_ABORTED")
					       ? " (a download or a page that stopped itself: this tool opens pages and "
						 "hands no file to the agent; Chrome may keep a download in its Downloads "
						 "folder, as when you click such a link)"
					       : "");
		json_decref(res);
		return rc;
	}
	json_decref(res);
	if (strcmp(url, "about:blank") != 0 && act_wait_load(a, mark, "opening the page") < 0)
		return -1;
	snprintf(head, sizeof head, "Opened %.300s in tab %s.", url, a->tab.id);
	return act_answer_with_snapshot(a, head);
}

int action_close(struct act *a)
{
	json_t *res = NULL;

	if (act_browser_call(a, "Target.closeTarget", json_pack("{s:s}", "targetId", a->tab.target), &res) < 0)
		return -1;
	json_decref(res);
	browser_forget_tab(a->b, a->tab.target);
	a->tab_ok = 0;
	return hb_call_succeedf(a->call, "Closed tab %s.", a->tab.id);
}

/* Whether the page's text holds text now: 1, 0, or -1 after answering. */
static int page_has_text(struct act *a, const char *text)
{
	json_t *arg = json_string(text), *v = NULL;
	char *quoted = arg ? json_dumps(arg, JSON_ENCODE_ANY) : NULL, *expr;
	int rc = -1;

	json_decref(arg);
	if (!quoted || !(expr = malloc(strlen(quoted) + 64))) {
		free(quoted);
		return hb_call_fail(a->call, "out of memory"), -1;
	}
	sprintf(expr, "!!(document.body && document.body.innerText.includes(%s))", quoted);
	free(quoted);
	if (act_eval(a, expr, &v) == 0)
		rc = json_is_true(v);
	free(expr);
	json_decref(v);
	return rc;
}

int action_wait(struct act *a)
{
	const char *text = json_string_value(json_object_get(a->args, "text"));
	int navigation = json_is_true(json_object_get(a->args, "navigation"));
	json_int_t limit = json_integer_value(json_object_get(a->args, "timeoutMs"));
	long long deadline;
	char head[512];

	if (!text == !navigation)
		return hb_call_fail(a->call, "Action wait takes either a text to wait for or navigation: true.");
	if (limit <= 0)
		limit = WAIT_DEFAULT_MS;
	deadline = hb_monotonic_ms() + limit;
	if (navigation) {
		char err[CDP_ERR_MAX];
		json_t *ev = NULL;
		unsigned long next;
		/* since the previous call: a click's navigation may be done already */
		enum cdp_fail f = cdp_wait_event(a->conn.cdp, a->tab.session, "Page.loadEventFired", a->tab.mark,
						 (int)limit, a->cancel, &ev, &next, err, sizeof err);

		json_decref(ev);
		if (f == CDP_TIMEOUT)
			return hb_call_failf(a->call, "No navigation in tab %s within %lld ms.", a->tab.id,
					     (long long)limit);
		if (f != CDP_OK)
			return act_fail(a, f, "waiting for a navigation", err);
		return act_answer_with_snapshot(a, "A navigation finished.");
	}
	for (;;) {
		int has = page_has_text(a, text);

		if (has < 0)
			return -1;
		if (has)
			break;
		if (hb_monotonic_ms() + WAIT_POLL_MS > deadline)
			return hb_call_failf(a->call, "The text \"%.200s\" did not appear in tab %s within %lld ms.",
					     text, a->tab.id, (long long)limit);
		for (int slept = 0; slept < WAIT_POLL_MS; slept += 50) {
			struct timespec ts = { 0, 50 * 1000000L };

			if (hb_call_cancelled(a->call))
				return hb_call_fail(a->call, "The browser action was cancelled.");
			nanosleep(&ts, NULL);
		}
	}
	snprintf(head, sizeof head, "The text \"%.200s\" is on the page.", text);
	return act_answer_with_snapshot(a, head);
}
