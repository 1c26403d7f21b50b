/*
 * browser_direct - see browser_direct.h.
 */
#include "browser_direct.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench_stats.h"
#include "settings.h"
#include "tunables.h"
#include "ws.h"
#include "../harness/chromium.h"
#include "../harness/harness.h"
#include "../harness/test_pages.h"
#include "../harness/ws_pump.h"

/* svc-browser/act_settle.c: after a click or a key, quiet for QUIET_MS,
 * looked at every POLL_MS, at most SETTLE_MAX_MS */
#define QUIET_MS 50
#define POLL_MS 10
#define SETTLE_MAX_MS 2000
#define COUNT_MUTATIONS                                                                                    \
	"(() => { const k = Symbol.for('hbcode.settle'); let s = window[k];"                               \
	" if (!s) { s = { n: 0 }; Object.defineProperty(window, k, { value: s });"                         \
	" new MutationObserver((r) => { s.n += r.length; }).observe(document,"                             \
	" { subtree: true, childList: true, attributes: true, characterData: true }); }"                    \
	" return s.n; })()"
/* svc-browser/act_read.c, act_input.c and act_scroll.c */
#define READ_EXPR "document.body ? document.body.innerText : document.documentElement.innerText"
#define SELECT_FN                                                                                          \
	"function () { if (typeof this.select === 'function') this.select();"                              \
	" else if (this.isContentEditable) document.execCommand('selectAll'); }"
/* the page's position before the wheel, and after it once it stopped
 * (act_scroll.c's measure, for the page alone) */
#define SCROLL_AT_EXPR "[document.scrollingElement.scrollTop, innerWidth / 2, innerHeight / 2]"
#define SCROLL_STOPPED_EXPR                                                                                \
	"(async (before) => { const e = document.scrollingElement, t0 = performance.now(); let last = e.scrollTop;" \
	" for (let still = 0; performance.now() - t0 < 1500;) { await new Promise((r) => setTimeout(r, 30));"  \
	" still = e.scrollTop === last ? still + 1 : 0; last = e.scrollTop;"                                  \
	" if (still >= 3 && (last !== before || performance.now() - t0 > 500)) break; } return last; })(%.0f)"

/* Take one message off the link, waiting at most until deadline: the
 * parsed message, or NULL (the link failed or nothing came in time). */
static json_t *direct_next(struct direct *d, double deadline)
{
	for (;;) {
		size_t len;
		char *in = ws_next_message(d->ws, &len);
		json_t *m;

		if (in) {
			m = json_loadb(in, len, 0, NULL);
			free(in);
			if (m)
				return m;
			continue;
		}
		if (ws_state(d->ws) != WS_OPEN || bench_now_ms() >= deadline)
			return NULL;
		ws_pump(d->ws, (int)(deadline - bench_now_ms()) + 1);
	}
}

/* Keep an event, for the waits. */
static void direct_event(struct direct *d, json_t *m)
{
	const char *method = json_string_value(json_object_get(m, "method"));
	const char *sid = json_string_value(json_object_get(m, "sessionId"));
	const char *request = json_string_value(json_object_get(json_object_get(m, "params"), "requestId"));

	if (method)
		json_array_append_new(d->events, json_pack("{s:s, s:s, s:s}", "method", method, "sessionId", sid ? sid : "",
							   "requestId", request ? request : ""));
}

/* method with params (taken; NULL: none) on session (NULL: the browser):
 * 0 with *result (when result is not NULL; the caller frees it), or -1
 * after saying why. */
int cmd(struct direct *d, const char *session, const char *method, json_t *params, json_t **result)
{
	json_t *msg = json_pack("{s:i, s:s}", "id", ++d->next_id, "method", method), *m;
	double deadline = bench_now_ms() + PATIENCE_MS;
	char *text;

	if (!msg)
		return -1;
	if (params)
		json_object_set_new(msg, "params", params);
	if (session)
		json_object_set_new(msg, "sessionId", json_string(session));
	text = json_dumps(msg, JSON_COMPACT);
	json_decref(msg);
	if (!text || ws_send_text(d->ws, text, strlen(text)) < 0) {
		free(text);
		fprintf(stderr, "bench-browser: cannot send %s\n", method);
		return -1;
	}
	free(text);
	while ((m = direct_next(d, deadline))) {
		json_t *r;

		if (json_integer_value(json_object_get(m, "id")) != d->next_id) {
			direct_event(d, m);
			json_decref(m);
			continue;
		}
		if (!(r = json_object_get(m, "result"))) {
			text = json_dumps(m, JSON_COMPACT);
			fprintf(stderr, "bench-browser: %s: %s\n", method, text ? text : "?");
			free(text);
			json_decref(m);
			return -1;
		}
		if (result)
			*result = json_incref(r);
		json_decref(m);
		return 0;
	}
	fprintf(stderr, "bench-browser: %s: no answer (%s)\n", method, ws_error(d->ws));
	return -1;
}

/* Forget the events so far, as svc-browser takes a mark. */
static void mark(struct direct *d)
{
	json_array_clear(d->events);
}

/* Wait at most ms for method on our tab since the mark: 0 when it came,
 * 1 when it did not, -1 when the link failed. */
static int wait_event(struct direct *d, const char *method, int ms)
{
	double deadline = bench_now_ms() + ms;
	size_t seen = 0;

	for (;;) {
		json_t *m;

		for (; seen < json_array_size(d->events); seen++) {
			json_t *e = json_array_get(d->events, seen);

			if (strcmp(json_string_value(json_object_get(e, "method")), method) == 0 &&
			    strcmp(json_string_value(json_object_get(e, "sessionId")), d->session) == 0)
				return 0;
		}
		if (!(m = direct_next(d, deadline)))
			return ws_state(d->ws) == WS_OPEN ? 1 : -1;
		direct_event(d, m);
		json_decref(m);
	}
}

/* The tail of every action that may change the page
 * (act_answer_with_snapshot): the tree, then the tab's title and URL. */
static int snapshot_tail(struct direct *d)
{
	json_t *r = NULL;
	int rc = cmd(d, d->session, "Accessibility.getFullAXTree", NULL, &r);

	json_decref(r);
	return rc < 0 ? -1 : cmd(d, NULL, "Target.getTargetInfo", json_pack("{s:s}", "targetId", d->target), NULL);
}

/* The network and navigation events on our tab since the mark, and in
 * *open the requests started since then that have not ended
 * (act_settle.c's network_activity). */
static long network_activity(struct direct *d, long *open)
{
	json_t *started = json_object();
	long count = 0;

	for (size_t i = 0; i < json_array_size(d->events); i++) {
		json_t *e = json_array_get(d->events, i);
		const char *method = json_string_value(json_object_get(e, "method"));
		const char *request = json_string_value(json_object_get(e, "requestId"));

		if (strcmp(json_string_value(json_object_get(e, "sessionId")), d->session) != 0)
			continue;
		if (strcmp(method, "Network.requestWillBeSent") == 0)
			json_object_set_new(started, request, json_true());
		else if (strcmp(method, "Network.loadingFinished") == 0 || strcmp(method, "Network.loadingFailed") == 0)
			json_object_del(started, request);
		else if (strcmp(method, "Page.frameRequestedNavigation") != 0 &&
			 strcmp(method, "Page.frameStartedNavigating") != 0)
			continue;
		count++;
	}
	*open = (long)json_object_size(started);
	json_decref(started);
	return count;
}

/* After a click or a key (act_settle): a navigation that started is
 * waited for until it stopped loading; else the network and the DOM
 * quiet for QUIET_MS, at most SETTLE_MAX_MS. */
static int settle(struct direct *d)
{
	double now = bench_now_ms(), quiet_since = now;
	double until = now + (d->step_ms < SETTLE_MAX_MS ? d->step_ms : SETTLE_MAX_MS);
	long last_activity = -1, last_mutations = -1;

	for (;;) {
		long activity, open = 0, n = -1;
		json_t *r = NULL, *m;
		int rc = wait_event(d, "Page.frameStartedLoading", 0);

		if (rc < 0)
			return -1;
		if (rc == 0)
			return wait_event(d, "Page.frameStoppedLoading", d->load_ms) == 0 ? 0 : -1;
		activity = network_activity(d, &open);
		if (cmd(d, d->session, "Runtime.evaluate",
			json_pack("{s:s, s:b}", "expression", COUNT_MUTATIONS, "returnByValue", 1), &r) == 0)
			n = (long)json_integer_value(json_object_get(json_object_get(r, "result"), "value"));
		json_decref(r);
		now = bench_now_ms();
		if (open > 0 || activity != last_activity || n != last_mutations) {
			quiet_since = now;
			last_activity = activity;
			last_mutations = n;
		} else if (now - quiet_since >= QUIET_MS) {
			return 0;
		}
		if (now >= until)
			return 0;
		/* the pause between looks, keeping the events that come */
		while ((m = direct_next(d, now + POLL_MS < until ? now + POLL_MS : until))) {
			direct_event(d, m);
			json_decref(m);
		}
	}
}

int eval(struct direct *d, const char *expr, json_t **result)
{
	return cmd(d, d->session, "Runtime.evaluate",
		   json_pack("{s:s, s:b, s:b, s:i}", "expression", expr, "returnByValue", 1, "awaitPromise", 1, "timeout",
			     d->step_ms),
		   result);
}

/* The baseline of each action: svc-browser/act*.c's commands. */

int base_open(struct direct *d, const char *url)
{
	mark(d);
	if (cmd(d, d->session, "Page.navigate", json_pack("{s:s}", "url", url), NULL) < 0 ||
	    wait_event(d, "Page.loadEventFired", d->load_ms) != 0)
		return -1;
	return snapshot_tail(d);
}

int base_snapshot(struct direct *d, const char *url)
{
	(void)url;
	return snapshot_tail(d);
}

int base_read(struct direct *d, const char *url)
{
	json_t *r = NULL;
	int rc = eval(d, READ_EXPR, &r);

	(void)url;
	json_decref(r);
	return rc < 0 ? -1 : cmd(d, NULL, "Target.getTargetInfo", json_pack("{s:s}", "targetId", d->target), NULL);
}

static int node_cmd(struct direct *d, const char *method, json_t **result)
{
	return cmd(d, d->session, method, json_pack("{s:I}", "backendNodeId", (json_int_t)d->node), result);
}

static int mouse(struct direct *d, const char *type, double x, double y)
{
	int moved = strcmp(type, "mouseMoved") == 0;

	return cmd(d, d->session, "Input.dispatchMouseEvent",
		   json_pack("{s:s, s:f, s:f, s:s, s:i}", "type", type, "x", x, "y", y, "button", moved ? "none" : "left",
			     "clickCount", moved ? 0 : 1),
		   NULL);
}

int base_click(struct direct *d, const char *url)
{
	json_t *r = NULL, *quad;
	double x = 0, y = 0;

	(void)url;
	if (node_cmd(d, "DOM.describeNode", NULL) < 0 || node_cmd(d, "DOM.scrollIntoViewIfNeeded", NULL) < 0 ||
	    node_cmd(d, "DOM.getContentQuads", &r) < 0)
		return -1;
	quad = json_array_get(json_object_get(r, "quads"), 0);
	for (int i = 0; i < 4; i++) {
		x += json_number_value(json_array_get(quad, (size_t)(2 * i))) / 4;
		y += json_number_value(json_array_get(quad, (size_t)(2 * i + 1))) / 4;
	}
	json_decref(r);
	mark(d);
	if (mouse(d, "mouseMoved", x, y) < 0 || mouse(d, "mousePressed", x, y) < 0 ||
	    mouse(d, "mouseReleased", x, y) < 0 || settle(d) < 0)
		return -1;
	return snapshot_tail(d);
}

int base_type(struct direct *d, const char *url)
{
	json_t *obj = NULL;
	const char *object_id;
	int rc;

	(void)url;
	if (node_cmd(d, "DOM.describeNode", NULL) < 0 || node_cmd(d, "DOM.focus", NULL) < 0 ||
	    node_cmd(d, "DOM.resolveNode", &obj) < 0)
		return -1;
	object_id = json_string_value(json_object_get(json_object_get(obj, "object"), "objectId"));
	rc = object_id ? cmd(d, d->session, "Runtime.callFunctionOn",
			     json_pack("{s:s, s:s}", "objectId", object_id, "functionDeclaration", SELECT_FN), NULL)
		       : -1;
	json_decref(obj);
	if (rc < 0 || cmd(d, d->session, "Input.insertText", json_pack("{s:s}", "text", TYPED), NULL) < 0)
		return -1;
	return snapshot_tail(d);
}

static int key(struct direct *d, const char *type)
{
	return cmd(d, d->session, "Input.dispatchKeyEvent",
		   json_pack("{s:s, s:s, s:s, s:i}", "type", type, "key", "Tab", "code", "Tab", "windowsVirtualKeyCode",
			     9),
		   NULL);
}

int base_press(struct direct *d, const char *url)
{
	(void)url;
	mark(d);
	if (key(d, "keyDown") < 0 || key(d, "keyUp") < 0 || settle(d) < 0)
		return -1;
	return snapshot_tail(d);
}

int base_scroll(struct direct *d, const char *url)
{
	json_t *r = NULL, *at;
	char stopped[sizeof SCROLL_STOPPED_EXPR + 32];
	double top, x, y;
	int rc = eval(d, SCROLL_AT_EXPR, &r);

	(void)url;
	at = json_object_get(json_object_get(r, "result"), "value");
	top = json_number_value(json_array_get(at, 0));
	x = json_number_value(json_array_get(at, 1));
	y = json_number_value(json_array_get(at, 2));
	json_decref(r);
	if (rc < 0)
		return -1;
	mark(d);
	if (mouse(d, "mouseMoved", x, y) < 0 ||
	    cmd(d, d->session, "Input.dispatchMouseEvent",
		json_pack("{s:s, s:f, s:f, s:f, s:f}", "type", "mouseWheel", "x", x, "y", y, "deltaX", 0.0, "deltaY", 100.0),
		NULL) < 0)
		return -1;
	snprintf(stopped, sizeof stopped, SCROLL_STOPPED_EXPR, top);
	r = NULL;
	rc = eval(d, stopped, &r);
	json_decref(r);
	return rc < 0 || settle(d) < 0 ? -1 : snapshot_tail(d);
}

int base_screenshot(struct direct *d, const char *url)
{
	json_t *r = NULL;
	int rc = cmd(d, d->session, "Page.captureScreenshot", json_pack("{s:s}", "format", "png"), &r);

	(void)url;

	json_decref(r);
	return rc < 0 ? -1 : cmd(d, NULL, "Target.getTargetInfo", json_pack("{s:s}", "targetId", d->target), NULL);
}

int base_tabs(struct direct *d, const char *url)
{
	(void)url;
	return cmd(d, NULL, "Target.getTargets", NULL, NULL);
}

/* This program's connection and tab, set up as svc-browser sets up its
 * own (browser.c: attach). */
int direct_start(struct direct *d, const struct chromium *c)
{
	struct ws_opts opts = { .max_message = 64 * 1024 * 1024 };
	char err[WS_ERROR_MAX];
	json_t *r = NULL;
	const char *s;

	d->step_ms = hb_tunable(HB_T_BROWSER_ACTION_MS);
	d->load_ms = hb_tunable(HB_T_BROWSER_LOAD_MS);
	if (!(d->events = json_array()))
		return -1;
	if (ws_connect(c->ws_url, &opts, &d->ws, err, sizeof err) < 0)
		return fprintf(stderr, "bench-browser: %s: %s\n", c->ws_url, err), -1;
	if (cmd(d, NULL, "Browser.getVersion", NULL, &r) < 0)
		return -1;
	printf("browser: %s\n", json_string_value(json_object_get(r, "product")));
	json_decref(r);
	if (cmd(d, NULL, "Target.createTarget", json_pack("{s:s, s:b, s:b}", "url", "about:blank", "background", 1, "newWindow", 1), &r) < 0)
		return -1;
	snprintf(d->target, sizeof d->target, "%s", (s = json_string_value(json_object_get(r, "targetId"))) ? s : "");
	json_decref(r);
	if (cmd(d, NULL, "Target.attachToTarget", json_pack("{s:s, s:b}", "targetId", d->target, "flatten", 1), &r) < 0)
		return -1;
	snprintf(d->session, sizeof d->session, "%s", (s = json_string_value(json_object_get(r, "sessionId"))) ? s : "");
	json_decref(r);
	return cmd(d, d->session, "Page.enable", NULL, NULL) < 0 || cmd(d, d->session, "Network.enable", NULL, NULL) < 0 ||
			       cmd(d, d->session, "Page.setDownloadBehavior", json_pack("{s:s}", "behavior", "deny"), NULL) < 0
		       ? -1
		       : 0;
}
