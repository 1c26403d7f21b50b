/*
 * act - the steps use_user_browser's actions are made of, and the one
 * place where a failed step becomes what the agent reads.
 *
 * Every step has a time limit (HB_BROWSER_ACTION_MS, a page load
 * HB_BROWSER_LOAD_MS) and the call's cancel flag, so a page that hangs,
 * a script that loops, or a stopped run ends the action at once or at
 * its limit, never later.  A page that did not finish is stopped, its
 * scripts too (Runtime.terminateExecution reaches a renderer busy in a
 * loop), so the next call on the tab works.  A JavaScript dialog blocks
 * the page until it is answered: the step ends at once, and the agent is
 * told how to answer it (act_dialog.c).
 */
#include "act.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"

/* Stop what the page is doing: its loading and its scripts. */
static void stop_page(struct act *a)
{
	json_t *res = NULL;
	char err[256];

	if (!a->tab_ok)
		return;
	if (cdp_call(a->conn.cdp, a->tab.session, "Runtime.terminateExecution", NULL, 2000, NULL, &res, err,
		     sizeof err) == CDP_OK)
		json_decref(res);
	res = NULL;
	if (cdp_call(a->conn.cdp, a->tab.session, "Page.stopLoading", NULL, 2000, NULL, &res, err, sizeof err) ==
	    CDP_OK)
		json_decref(res);
}

void act_seconds(int ms, char *out, size_t outlen)
{
	if (ms % 1000 == 0)
		snprintf(out, outlen, "%d s", ms / 1000);
	else
		snprintf(out, outlen, "%.1f s", ms / 1000.0);
}

int act_fail(struct act *a, enum cdp_fail f, const char *what, const char *err)
{
	return act_fail_within(a, f, what, err, a->step_ms);
}

int act_fail_within(struct act *a, enum cdp_fail f, const char *what, const char *err, int limit_ms)
{
	const char *tab = a->tab_ok ? a->tab.id : "";
	char limit[32];

	switch (f) {
	case CDP_TIMEOUT:
		stop_page(a);
		act_seconds(limit_ms, limit, sizeof limit);
		return hb_call_failf(a->call,
				     "The browser did not finish %s within %s: the page may be busy (a script that "
				     "does not end, a server that does not answer). %s%s%sTry again or open another page.",
				     what, limit, *tab ? "Tab " : "", tab, *tab ? " was stopped. " : "");
	case CDP_CANCELLED:
		stop_page(a);
		return hb_call_fail(a->call, "The browser action was cancelled.");
	case CDP_CLOSED:
		return hb_call_failf(a->call,
				     "Chrome closed the connection while %s (%s): it quit, crashed or restarted. Start "
				     "Chrome again if it is not running; the next call connects again, and the tabs "
				     "this session opened are open again only if Chrome restored them.",
				     what, err);
	case CDP_DIALOG:
		/* left open: answering it is the agent's choice (act_dialog.c) */
		return hb_call_failf(a->call,
				     "The page in tab %s opened a JavaScript %s while %s. The page waits until it is "
				     "answered: call use_user_browser with action dialog and accept true (OK) or false "
				     "(Cancel), with text for a prompt, then go on.",
				     tab, err, what);
	case CDP_GONE:
		browser_forget_tab(a->b, a->tab.target);
		return hb_call_failf(a->call, "Tab %s was closed (by the user or the page) while %s: open a new "
					      "one with action open.", tab, what);
	case CDP_CRASHED:
		return hb_call_failf(a->call, "The page in tab %s crashed while %s: open it again (action open "
					      "with the tab and the url).", tab, what);
	case CDP_TOO_BIG:
		return hb_call_failf(a->call,
				     "Chrome's answer to %s was %s bytes, more than the %d MiB this tool takes: the page "
				     "is too large for that. Ask for less (action read with maxChars, a screenshot "
				     "without fullPage); other calls were not affected.",
				     what, err, CDP_MAX_ANSWER / (1024 * 1024));
	case CDP_PROTOCOL:
		if (strstr(err, "ession with given id not found") || strstr(err, "No target with given id")) {
			browser_forget_tab(a->b, a->tab.target);
			return hb_call_failf(a->call, "Tab %s was closed (by the user or the page): open a new one "
						      "with action open.", tab);
		}
		return hb_call_failf(a->call, "The browser refused %s: %s", what, err);
	case CDP_OK:
		break;
	}
	return hb_call_failf(a->call, "The browser failed %s: %s", what, err);
}

int act_dialog_open_since(struct act *a, char *err, size_t errlen)
{
	unsigned long pos = a->dialog_mark, next;
	json_t *ev = NULL, *closed = NULL;
	int open = 0;

	while (cdp_find_event(a->conn.cdp, a->tab.session, "Page.javascriptDialogOpening", pos, &ev, &next)) {
		const char *type = json_string_value(json_object_get(ev, "type"));
		const char *message = json_string_value(json_object_get(ev, "message"));

		snprintf(err, errlen, "%s: \"%.300s\"", type && *type ? type : "dialog", message ? message : "");
		json_decref(ev);
		ev = NULL;
		open = !cdp_find_event(a->conn.cdp, a->tab.session, "Page.javascriptDialogClosed", next, &closed, &pos);
		json_decref(closed);
		closed = NULL;
		if (open)
			break;
	}
	return open;
}

static int call_on(struct act *a, const char *session, const char *method, json_t *params, int timeout_ms,
		   json_t **res)
{
	char err[CDP_ERR_MAX];
	enum cdp_fail f;

	if (session && *session && act_dialog_open_since(a, err, sizeof err)) {
		json_decref(params);
		return act_fail(a, CDP_DIALOG, method, err), -1;
	}
	f = cdp_call(a->conn.cdp, session, method, params, timeout_ms, a->cancel, res, err, sizeof err);

	/* a timeout is told with the limit this step had (a page load's is
	 * not a command's) */
	return f == CDP_OK ? 0 : (act_fail_within(a, f, method, err, timeout_ms), -1);
}

int act_tab_call_ms(struct act *a, const char *method, json_t *params, int timeout_ms, json_t **res)
{
	return call_on(a, a->tab.session, method, params, timeout_ms, res);
}

int act_tab_call(struct act *a, const char *method, json_t *params, json_t **res)
{
	return call_on(a, a->tab.session, method, params, a->step_ms, res);
}

int act_browser_call(struct act *a, const char *method, json_t *params, json_t **res)
{
	return call_on(a, NULL, method, params, a->step_ms, res);
}

int act_session_call(struct act *a, const char *session, const char *method, json_t *params, json_t **res)
{
	return call_on(a, session, method, params, a->step_ms, res);
}

int act_node_call(struct act *a, const char *method, json_t *params, json_t **res)
{
	return call_on(a, a->node_session[0] ? a->node_session : a->tab.session, method, params, a->step_ms, res);
}

/* Wait for the event that ends a load (see act_wait_load). */
static int wait_loaded(struct act *a, const char *event, unsigned long mark, const char *what)
{
	char err[CDP_ERR_MAX];
	json_t *ev = NULL;
	unsigned long next;
	enum cdp_fail f = cdp_wait_event(a->conn.cdp, a->tab.session, event, mark, a->load_ms, a->cancel, &ev, &next,
					 err, sizeof err);

	json_decref(ev);
	if (f == CDP_OK)
		return 0;
	if (f == CDP_TIMEOUT) {
		char limit[32];

		stop_page(a);
		act_seconds(a->load_ms, limit, sizeof limit);
		return hb_call_failf(a->call,
				     "The page did not finish loading within %s while %s: a script that never ends, "
				     "or a server that never finishes. It was stopped; tab %s keeps what had loaded.",
				     limit, what, a->tab.id), -1;
	}
	return act_fail(a, f, what, err), -1;
}

int act_wait_load(struct act *a, unsigned long mark, const char *what)
{
	return wait_loaded(a, "Page.loadEventFired", mark, what);
}

int act_wait_stopped(struct act *a, unsigned long mark, const char *what)
{
	/* stopped loading, not loaded: a link to a place in the same page
	 * (#row) starts and stops a load with no load event, and a new page
	 * stops after its load event */
	return wait_loaded(a, "Page.frameStoppedLoading", mark, what);
}

void act_tab_line(struct act *a, char *out, size_t outlen)
{
	json_t *res = NULL, *info;
	char err[256];

	if (cdp_call(a->conn.cdp, NULL, "Target.getTargetInfo", json_pack("{s:s}", "targetId", a->tab.target),
		     a->step_ms, a->cancel, &res, err, sizeof err) != CDP_OK) {
		snprintf(out, outlen, "Tab %s", a->tab.id);
		return;
	}
	info = json_object_get(res, "targetInfo");
	snprintf(out, outlen, "Tab %s: \"%.200s\" (%.500s)", a->tab.id,
		 json_string_value(json_object_get(info, "title")) ? json_string_value(json_object_get(info, "title")) : "",
		 json_string_value(json_object_get(info, "url")) ? json_string_value(json_object_get(info, "url")) : "");
	json_decref(res);
}

int act_eval(struct act *a, const char *expression, json_t **value)
{
	json_t *res = NULL, *exc;

	if (act_tab_call(a, "Runtime.evaluate",
			 json_pack("{s:s, s:b, s:b, s:i}", "expression", expression, "returnByValue", 1, "awaitPromise", 1,
				   "timeout", a->step_ms),
			 &res) < 0)
		return -1;
	if ((exc = json_object_get(res, "exceptionDetails"))) {
		const char *text = json_string_value(json_object_get(json_object_get(exc, "exception"), "description"));

		hb_call_failf(a->call, "The page's script failed: %.300s",
			      text ? text : json_string_value(json_object_get(exc, "text")) ? json_string_value(json_object_get(exc, "text")) : "an exception");
		json_decref(res);
		return -1;
	}
	*value = json_incref(json_object_get(json_object_get(res, "result"), "value"));
	json_decref(res);
	if (!*value)
		*value = json_null();
	return 0;
}

char *act_node_object(struct act *a, long id, const char *group)
{
	json_t *res = NULL;
	const char *oid;
	char *out;

	if (act_node_call(a, "DOM.resolveNode",
			  json_pack("{s:I, s:s}", "backendNodeId", (json_int_t)id, "objectGroup", group), &res) < 0)
		return NULL;
	oid = json_string_value(json_object_get(json_object_get(res, "object"), "objectId"));
	if (!oid || !(out = strdup(oid))) {
		json_decref(res);
		hb_call_fail(a->call, "The browser cannot find that element any more: take a new snapshot.");
		return NULL;
	}
	json_decref(res);
	return out;
}

void act_release_group(struct act *a, const char *group)
{
	json_t *res = NULL;
	char err[256];

	/* the group is made where the element lives (an out-of-process
	 * iframe's session, act_frames.c) */
	if (cdp_call(a->conn.cdp, a->node_session[0] ? a->node_session : a->tab.session, "Runtime.releaseObjectGroup",
		     json_pack("{s:s}", "objectGroup", group), a->step_ms, NULL, &res, err, sizeof err) == CDP_OK)
		json_decref(res);
}

char *act_eval_object(struct act *a, const char *expression, const char *group, const char *none)
{
	json_t *res = NULL;
	const char *oid;
	char *out = NULL;

	if (act_tab_call(a, "Runtime.evaluate", json_pack("{s:s, s:s}", "expression", expression, "objectGroup", group),
			 &res) < 0)
		return NULL;
	oid = json_string_value(json_object_get(json_object_get(res, "result"), "objectId"));
	if (!oid || !(out = strdup(oid)))
		hb_call_fail(a->call, none);
	json_decref(res);
	return out;
}
