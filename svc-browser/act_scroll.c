/*
 * act_scroll - action scroll: a real mouse wheel turned over the page, or
 * over an element (its ref or selector), as a person scrolls: what moves
 * is what is under the pointer, the innermost container that can still
 * scroll that way (a <div style="overflow:auto">, a list, the page).
 *
 * window.scrollBy moved only the page, so a page that scrolls inside a
 * container answered "now at 0 of 0 pixels" and never moved.  Here the
 * page is asked first which containers are under the point (innermost
 * first, the page last) and where each is; then Chrome gets the wheel
 * (Input.dispatchMouseEvent mouseWheel: a trusted wheel event, the
 * page's own scroll handlers and lazy lists see it); then the page is
 * asked again, once the positions stopped moving (Chrome may animate a
 * wheel's scroll), and the answer names the container that moved and
 * where it is now, with its ref.  "to: end" and "to: start" turn the
 * wheel by exactly what is left of the container there; "to: view"
 * brings the element into view, as scroll {ref} did before.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"

#define SCROLL_GROUP "hb-scroll"
#define SETTLE_SCROLL_MS 1500 /* the longest a scroll is watched until it stops */

/* On the element (or the document, for the viewport's middle): the point
 * the wheel turns at, the middle of what is visible of the element, and
 * the containers under it that can scroll up or down, innermost first,
 * the page last.  null when nothing of the element is on the screen. */
static const char probe_js[] =
	"function () {\n"
	"  const root = document.documentElement, page = document.scrollingElement || root;\n"
	"  const vw = root.clientWidth, vh = root.clientHeight;\n"
	"  let x = vw / 2, y = vh / 2, start = null;\n"
	"  if (this.nodeType === 1) {\n"
	"    const r = this.getBoundingClientRect();\n"
	"    const l = Math.max(r.left, 0), t = Math.max(r.top, 0), rr = Math.min(r.right, vw), b = Math.min(r.bottom, vh);\n"
	"    if (rr <= l || b <= t) return null;\n"
	"    x = (l + rr) / 2; y = (t + b) / 2; start = this;\n"
	"  }\n"
	"  const propagated = getComputedStyle(root).overflowY === 'visible';\n"
	"  const scrolls = (e) => e !== page && !(e === document.body && propagated) &&\n"
	"    /(auto|scroll|overlay)/.test(getComputedStyle(e).overflowY) && e.scrollHeight > e.clientHeight;\n"
	"  const els = [];\n"
	"  for (let e = document.elementFromPoint(x, y) || start; e;\n"
	"       e = e.parentElement || (e.parentNode && e.parentNode.host) || null)\n"
	"    if (scrolls(e)) els.push(e);\n"
	"  els.push(page);\n"
	"  return { els, x, y };\n"
	"}";

/* On the probe's answer: [x, y, [[top, most, height], ...]] of each
 * container (most: the largest top; height: what shows of it).  With
 * before (the same of an earlier time), it first waits, at most waitMs,
 * until the positions stopped changing: for a while after one moved, or
 * longer when none did yet (a scroll starts a frame late). */
static const char measure_js[] =
	"async function (before, waitMs) {\n"
	"  const pos = () => this.els.map((e) => [e.scrollTop, Math.max(0, e.scrollHeight - e.clientHeight),\n"
	"    e.clientHeight]);\n"
	"  const same = (p, q) => p.every((v, i) => Math.abs(v[0] - q[i][0]) < 1);\n"
	"  let last = pos();\n"
	"  if (before) {\n"
	"    const t0 = performance.now();\n"
	"    for (let still = 0; performance.now() - t0 < waitMs;) {\n"
	"      await new Promise((r) => setTimeout(r, 30));\n"
	"      const now = pos();\n"
	"      still = same(now, last) ? still + 1 : 0;\n"
	"      last = now;\n"
	"      if (still >= 3 && (!same(now, before) || performance.now() - t0 > 500)) break;\n"
	"    }\n"
	"  }\n"
	"  return [this.x, this.y, last];\n"
	"}";

struct scroll {
	int down;        /* the way: 1 down, 0 up */
	int to;          /* 0: by amount; 1: to the end of that way */
	long long amount; /* pixels, 0: most of what shows */
};

/* The arguments into s: 0, or -1 after answering.  *view when the
 * element is only to be brought into view. */
static int read_args(struct act *a, struct scroll *s, int *view)
{
	const char *direction = json_string_value(json_object_get(a->args, "direction"));
	const char *to = json_string_value(json_object_get(a->args, "to"));
	int has_target = json_object_get(a->args, "ref") || json_object_get(a->args, "selector");

	s->amount = json_integer_value(json_object_get(a->args, "amount"));
	s->down = 1;
	s->to = 0;
	*view = 0;
	if (direction && strcmp(direction, "down") != 0 && strcmp(direction, "up") != 0)
		return hb_call_fail(a->call, "Action scroll takes direction down or up."), -1;
	if (direction)
		s->down = strcmp(direction, "down") == 0;
	if (!to)
		return 0;
	if (strcmp(to, "end") != 0 && strcmp(to, "start") != 0 && strcmp(to, "view") != 0)
		return hb_call_fail(a->call, "Action scroll takes to \"end\", \"start\" (of what scrolls there) or "
					     "\"view\" (the element into view)."), -1;
	if (s->amount)
		return hb_call_fail(a->call, "Action scroll takes an amount or to, not both."), -1;
	if (strcmp(to, "view") == 0) {
		if (!has_target)
			return hb_call_fail(a->call, "Action scroll to \"view\" needs the element's ref (or a selector)."),
			       -1;
		*view = 1;
		return 0;
	}
	if (direction && s->down != (strcmp(to, "end") == 0))
		return hb_call_failf(a->call, "Action scroll to \"%s\" goes %s: leave direction out.", to,
				     strcmp(to, "end") == 0 ? "down" : "up"), -1;
	s->down = strcmp(to, "end") == 0;
	s->to = 1;
	return 0;
}

/* A function run on an object of the page, its answer by value when
 * by_value: 0 with *res (the "result" RemoteObject, a new reference), or
 * -1 after answering. */
static int call_on(struct act *a, const char *object, const char *fn, json_t *args, int by_value, json_t **res)
{
	json_t *out = NULL;

	if (act_node_call(a, "Runtime.callFunctionOn",
			  json_pack("{s:s, s:s, s:o, s:b, s:b, s:s}", "functionDeclaration", fn, "objectId", object,
				   "arguments", args ? args : json_array(), "returnByValue", by_value, "awaitPromise", 1,
				   "objectGroup", SCROLL_GROUP),
			 &out) < 0)
		return -1;
	if (json_object_get(out, "exceptionDetails")) {
		json_decref(out);
		return hb_call_fail(a->call, "The page's script failed while scrolling."), -1;
	}
	*res = json_incref(json_object_get(out, "result"));
	json_decref(out);
	return 0;
}

/* Where the containers are: [x, y, [[top, most, height], ...]] (a new
 * reference), or NULL after answering.  With before, once they stopped. */
static json_t *measure(struct act *a, const char *state, json_t *before)
{
	int wait = a->step_ms / 2 < SETTLE_SCROLL_MS ? a->step_ms / 2 : SETTLE_SCROLL_MS;
	json_t *res = NULL, *v;

	/* before's positions only: the page compares them with its own */
	if (call_on(a, state, measure_js,
		    json_pack("[{s:O}, {s:i}]", "value", before ? json_array_get(before, 2) : json_null(), "value",
			      wait),
		    1, &res) < 0)
		return NULL;
	v = json_incref(json_object_get(res, "value"));
	json_decref(res);
	if (json_array_size(json_array_get(v, 2)) == 0) {
		json_decref(v);
		hb_call_fail(a->call, "The page did not say where it is scrolled.");
		return NULL;
	}
	return v;
}

static double top_of(json_t *m, size_t i, int k)
{
	return json_number_value(json_array_get(json_array_get(json_array_get(m, 2), i), (size_t)k));
}

/* The innermost container that can still scroll that way, or -1. */
static long can_scroll(json_t *m, int down)
{
	size_t n = json_array_size(json_array_get(m, 2));

	for (size_t i = 0; i < n; i++)
		if (down ? top_of(m, i, 0) < top_of(m, i, 1) - 0.5 : top_of(m, i, 0) > 0.5)
			return (long)i;
	return -1;
}

/* The innermost container whose position changed, or -1. */
static long moved(json_t *before, json_t *after)
{
	size_t n = json_array_size(json_array_get(before, 2));

	for (size_t i = 0; i < n; i++)
		if (top_of(before, i, 0) - top_of(after, i, 0) >= 1 || top_of(after, i, 0) - top_of(before, i, 0) >= 1)
			return (long)i;
	return -1;
}

/* "the page", or "element e45" for a container (its ref works as any). */
static int container_name(struct act *a, const char *state, json_t *m, long i, char *out, size_t outlen)
{
	json_t *res = NULL, *node = NULL;
	const char *oid;
	json_int_t id;

	if ((size_t)i + 1 == json_array_size(json_array_get(m, 2))) {
		snprintf(out, outlen, "the page");
		return 0;
	}
	if (call_on(a, state, "function (i) { return this.els[i]; }", json_pack("[{s:I}]", "value", (json_int_t)i), 0,
		    &res) < 0)
		return -1;
	oid = json_string_value(json_object_get(res, "objectId"));
	if (!oid) {
		json_decref(res);
		snprintf(out, outlen, "a container");
		return 0;
	}
	if (act_node_call(a, "DOM.describeNode", json_pack("{s:s, s:i}", "objectId", oid, "depth", 0), &node) < 0) {
		json_decref(res);
		return -1;
	}
	json_decref(res);
	id = json_integer_value(json_object_get(json_object_get(node, "node"), "backendNodeId"));
	json_decref(node);
	snprintf(out, outlen, id > 0 ? "element e%lld (the container that scrolls there)" : "a container",
		 (long long)id);
	return 0;
}

/* The wheel over (x, y), by dy pixels (down positive), the mouse moved
 * there first as a hand does. */
static int wheel(struct act *a, double x, double y, double dy)
{
	json_t *res = NULL;

	if (act_tab_call(a, "Input.dispatchMouseEvent",
			 json_pack("{s:s, s:f, s:f}", "type", "mouseMoved", "x", x, "y", y), &res) < 0)
		return -1;
	json_decref(res);
	if (act_tab_call(a, "Input.dispatchMouseEvent",
			 json_pack("{s:s, s:f, s:f, s:f, s:f}", "type", "mouseWheel", "x", x, "y", y, "deltaX", 0.0,
				   "deltaY", dy),
			 &res) < 0)
		return -1;
	json_decref(res);
	return 0;
}

/* The sentence of what happened, into head: 0, or -1 after answering. */
static int say(struct act *a, const struct scroll *s, const char *state, json_t *before, json_t *after, long target,
	       char *head, size_t headlen)
{
	long i = moved(before, after);
	char name[96];
	long long top, most;

	if (container_name(a, state, after, i >= 0 ? i : target >= 0 ? target : 0, name, sizeof name) < 0)
		return -1;
	top = (long long)(0.5 + top_of(after, i >= 0 ? (size_t)i : target >= 0 ? (size_t)target : 0, 0));
	most = (long long)(0.5 + top_of(after, i >= 0 ? (size_t)i : target >= 0 ? (size_t)target : 0, 1));
	if (i >= 0 && s->to)
		snprintf(head, headlen, "Scrolled %s to its %s: now at %lld of %lld pixels.", name,
			 s->down ? "end" : "start", top, most);
	else if (i >= 0)
		snprintf(head, headlen, "Scrolled %s %s: now at %lld of %lld pixels%s.", s->down ? "down" : "up", name,
			 top, most, top >= most ? " (its end)" : top <= 0 ? " (its start)" : "");
	else if (target < 0)
		snprintf(head, headlen, "Nothing scrolled: nothing there can scroll further %s; %s is at %lld of %lld "
					"pixels.", s->down ? "down" : "up", name, top, most);
	else
		snprintf(head, headlen, "Nothing scrolled: the wheel moved nothing (the page may handle the wheel "
					"itself); %s is at %lld of %lld pixels.", name, top, most);
	return 0;
}

/* The object the wheel turns over: the element's (scrolled into view),
 * or the document's; its objectId (malloc'd), or NULL after answering. */
static char *wheel_object(struct act *a, const char *ref, const char *selector)
{
	json_t *res = NULL;
	long node;

	if (ref || selector) {
		if (act_element(a, ref, selector, &node) < 0 ||
		    act_node_call(a, "DOM.scrollIntoViewIfNeeded", json_pack("{s:I}", "backendNodeId", (json_int_t)node),
				  &res) < 0)
			return NULL;
		json_decref(res);
		return act_node_object(a, node, SCROLL_GROUP);
	}
	return act_eval_object(a, "document", SCROLL_GROUP, "The page has no document to scroll.");
}

/* The wheel and what it moved, into head: 0, or -1 after answering. */
static int turn(struct act *a, const struct scroll *s, const char *object, char *head, size_t headlen)
{
	json_t *probe = NULL, *before = NULL, *after = NULL;
	const char *state;
	unsigned long mark;
	long target;
	double dy, x, y;
	int rc = -1;

	if (call_on(a, object, probe_js, NULL, 0, &probe) < 0)
		return -1;
	if (!(state = json_string_value(json_object_get(probe, "objectId")))) {
		json_decref(probe);
		return hb_call_fail(a->call, "The element is not visible on the page (it has no box to scroll over): "
					     "take a snapshot and pick another."), -1;
	}
	if (!(before = measure(a, state, NULL)))
		goto done;
	target = can_scroll(before, s->down);
	if (s->to && target < 0) {
		rc = say(a, s, state, before, before, target, head, headlen);
		goto done;
	}
	if (s->to)
		dy = s->down ? top_of(before, (size_t)target, 1) - top_of(before, (size_t)target, 0)
			     : top_of(before, (size_t)target, 0);
	else if (s->amount)
		dy = (double)s->amount;
	else
		dy = (double)(long long)(top_of(before, target >= 0 ? (size_t)target : 0, 2) * 0.9);
	if (dy < 1)
		dy = 1;
	/* the point is the element's document's: in an out-of-process
	 * iframe, moved to where that is on the tab (act_frames.c) */
	x = json_number_value(json_array_get(before, 0));
	y = json_number_value(json_array_get(before, 1));
	if (act_node_on_tab(a, (double[4]){ x, y, 0, 0 }, &x, &y) < 0)
		goto done;
	mark = cdp_event_mark(a->conn.cdp);
	if (wheel(a, x, y, s->down ? dy : -dy) < 0 ||
	    !(after = measure(a, state, before)) || act_settle(a, mark) < 0)
		goto done;
	rc = say(a, s, state, before, after, target, head, headlen);
done:
	json_decref(probe);
	json_decref(before);
	json_decref(after);
	return rc;
}

int action_scroll(struct act *a)
{
	const char *ref = json_string_value(json_object_get(a->args, "ref"));
	const char *selector = json_string_value(json_object_get(a->args, "selector"));
	char head[300];
	struct scroll s;
	char *object;
	int view, rc;

	if (read_args(a, &s, &view) < 0)
		return -1;
	if (ref && selector)
		return hb_call_fail(a->call, "Action scroll takes a ref or a selector, not both.");
	if (!(object = wheel_object(a, ref, selector)))
		return -1;
	rc = view ? 0 : turn(a, &s, object, head, sizeof head);
	free(object);
	act_release_group(a, SCROLL_GROUP);
	if (rc < 0)
		return -1;
	return act_answer_with_snapshot(a, view ? "Scrolled the element into view." : head);
}
