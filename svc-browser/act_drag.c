/*
 * act_drag - drag one element onto another with the mouse, as a person
 * does: press on the first, move to the second, release.  Pages build
 * drag and drop two ways, and both must work:
 *
 * - HTML5 drag and drop (draggable, dragstart/drop): Chrome starts its
 *   own drag loop once the pressed mouse moves, and a synthetic mouse
 *   does not drive that loop.  With Input.setInterceptDrags Chrome hands
 *   the drag's data over (Input.dragIntercepted) instead, and the drop is
 *   dispatched with Input.dispatchDragEvent: dragEnter, dragOver, drop,
 *   the way Puppeteer and Playwright do it;
 * - pointer events (mousedown, mousemove, mouseup: sortable lists,
 *   sliders): the moves and the release are all they need.
 *
 * The moves go in a few steps, since some pages start a drag only after
 * the mouse has travelled a little.
 */
#include <stdio.h>
#include <string.h>

#include "actions.h"

#define DRAG_STEPS 5

static int intercept_drags(struct act *a, int on)
{
	json_t *res = NULL;

	if (act_tab_call(a, "Input.setInterceptDrags", json_pack("{s:b}", "enabled", on), &res) < 0)
		return -1;
	json_decref(res);
	return 0;
}

/* The drop of an HTML5 drag whose data Chrome handed over. */
static int drop_intercepted(struct act *a, json_t *data, double x, double y)
{
	static const char *const steps[] = { "dragEnter", "dragOver", "drop" };
	json_t *res = NULL;

	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		if (act_tab_call(a, "Input.dispatchDragEvent",
				 json_pack("{s:s, s:f, s:f, s:O}", "type", steps[i], "x", x, "y", y, "data", data),
				 &res) < 0)
			return -1;
		json_decref(res);
	}
	return 0;
}

/* The element named by ref_key or selector_key: 0 with *node, or -1
 * after answering. */
static int drag_end(struct act *a, const char *ref_key, const char *selector_key, const char *which, long *node)
{
	const char *ref = json_string_value(json_object_get(a->args, ref_key));
	const char *selector = json_string_value(json_object_get(a->args, selector_key));

	if (!ref && !selector)
		return hb_call_failf(a->call, "Action drag needs the element to drag (ref, or selector) and %s to drop "
					      "it on (toRef, or toSelector).", which), -1;
	return act_element(a, ref, selector, node);
}

int action_drag(struct act *a)
{
	double fx, fy, tx, ty;
	unsigned long mark, next;
	json_t *drag = NULL;
	char head[160];
	long from, to;
	int rc = -1;

	if (drag_end(a, "ref", "selector", "the element", &from) < 0 ||
	    drag_end(a, "toRef", "toSelector", "the element", &to) < 0)
		return -1;
	if (from == to)
		return hb_call_fail(a->call, "Action drag needs two different elements: it was given the same one twice.");
	if (act_element_centre(a, from, &fx, &fy) < 0 || intercept_drags(a, 1) < 0)
		return -1;
	mark = cdp_event_mark(a->conn.cdp);
	if (act_mouse(a, "mouseMoved", fx, fy, 0) < 0 || act_mouse(a, "mousePressed", fx, fy, 1) < 0 ||
	    act_mouse(a, "mouseMoved", fx + 4, fy + 4, 1) < 0)
		goto out;
	/* where the target is once the drag has begun (the page may have
	 * moved things when it started) */
	if (act_element_centre(a, to, &tx, &ty) < 0)
		goto out;
	for (int i = 1; i <= DRAG_STEPS; i++)
		if (act_mouse(a, "mouseMoved", fx + (tx - fx) * i / DRAG_STEPS, fy + (ty - fy) * i / DRAG_STEPS, 1) < 0)
			goto out;
	if (cdp_find_event(a->conn.cdp, a->tab.session, "Input.dragIntercepted", mark, &drag, &next)) {
		if (drop_intercepted(a, json_object_get(drag, "data"), tx, ty) < 0)
			goto out;
	}
	if (act_mouse(a, "mouseReleased", tx, ty, 0) < 0)
		goto out;
	rc = 0;
out:
	json_decref(drag);
	/* the next click of this tab must not be taken for a drag */
	if (rc < 0) {
		json_t *res = NULL;
		char err[CDP_ERR_MAX];

		/* the call is answered already; this is only the clean-up */
		if (cdp_call(a->conn.cdp, a->tab.session, "Input.setInterceptDrags", json_pack("{s:b}", "enabled", 0),
			     a->step_ms, a->cancel, &res, err, sizeof err) == CDP_OK)
			json_decref(res);
		return -1;
	}
	if (intercept_drags(a, 0) < 0 || act_settle(a, mark) < 0)
		return -1;
	snprintf(head, sizeof head, "Dragged %s onto %s.",
		 json_string_value(json_object_get(a->args, "ref")) ? json_string_value(json_object_get(a->args, "ref"))
								    : "the element",
		 json_string_value(json_object_get(a->args, "toRef")) ? json_string_value(json_object_get(a->args, "toRef"))
								      : "the other");
	return act_answer_with_snapshot(a, head);
}
