/*
 * act_emulate - the viewport of one of the session's tabs: its size in
 * CSS pixels, the device scale (pixels per CSS pixel) and a phone's
 * behaviour (mobile: the meta viewport honoured, touch events), as
 * chrome-devtools-mcp's resize_page / emulate and Playwright MCP's
 * browser_resize offer, so an agent can look at a page as a phone shows
 * it.  It is Chrome's override for the page (Emulation.*), not the
 * window: the user's window keeps its size, and the override lasts as
 * long as svc-browser's connection to the tab (a Chrome restart ends it).
 */
#include <stdio.h>

#include "actions.h"

#define VIEWPORT_MIN 200
#define VIEWPORT_MAX 4000
#define TOUCH_POINTS 5

/* Touch emulation on or off: 0, or -1 after answering. */
static int set_touch(struct act *a, int on)
{
	json_t *res = NULL;

	if (act_tab_call(a, "Emulation.setTouchEmulationEnabled",
			 on ? json_pack("{s:b, s:i}", "enabled", 1, "maxTouchPoints", TOUCH_POINTS)
			    : json_pack("{s:b}", "enabled", 0),
			 &res) < 0)
		return -1;
	json_decref(res);
	return 0;
}

/* What the page sees now: "innerWidth x innerHeight, devicePixelRatio"
 * into out, read in the page after the change. */
static int page_view(struct act *a, char *out, size_t outlen)
{
	json_t *v = NULL;

	if (act_eval(a, "[window.innerWidth, window.innerHeight, window.devicePixelRatio]", &v) < 0)
		return -1;
	snprintf(out, outlen, "the page sees %lld x %lld CSS px at %g device pixels each",
		 (long long)json_integer_value(json_array_get(v, 0)), (long long)json_integer_value(json_array_get(v, 1)),
		 json_number_value(json_array_get(v, 2)));
	json_decref(v);
	return 0;
}

static int reset(struct act *a)
{
	json_t *res = NULL;
	char seen[200], head[300];

	if (json_object_get(a->args, "width") || json_object_get(a->args, "height") ||
	    json_object_get(a->args, "deviceScaleFactor") || json_object_get(a->args, "mobile"))
		return hb_call_fail(a->call, "Action viewport takes reset true alone, or width and height (with "
					     "deviceScaleFactor and mobile if wanted), not both.");
	if (act_tab_call(a, "Emulation.clearDeviceMetricsOverride", NULL, &res) < 0)
		return -1;
	json_decref(res);
	if (set_touch(a, 0) < 0 || page_view(a, seen, sizeof seen) < 0)
		return -1;
	snprintf(head, sizeof head, "The viewport of tab %s is the window's again: %s.", a->tab.id, seen);
	return act_answer_with_snapshot(a, head);
}

int action_viewport(struct act *a)
{
	json_t *w = json_object_get(a->args, "width"), *h = json_object_get(a->args, "height");
	json_t *scale = json_object_get(a->args, "deviceScaleFactor"), *res = NULL;
	int mobile = json_is_true(json_object_get(a->args, "mobile"));
	char seen[200], head[500];
	double dsf = scale ? json_number_value(scale) : 0;

	if (json_is_true(json_object_get(a->args, "reset")))
		return reset(a);
	if (!w || !h)
		return hb_call_failf(a->call, "Action viewport needs width and height (CSS pixels, %d to %d), or "
					      "reset true to go back to the window's.", VIEWPORT_MIN, VIEWPORT_MAX);
	/* deviceScaleFactor 0 is Chrome's "as the screen has it" */
	if (act_tab_call(a, "Emulation.setDeviceMetricsOverride",
			 json_pack("{s:I, s:I, s:f, s:b}", "width", json_integer_value(w), "height", json_integer_value(h),
				   "deviceScaleFactor", dsf, "mobile", mobile),
			 &res) < 0)
		return -1;
	json_decref(res);
	if (set_touch(a, mobile) < 0 || page_view(a, seen, sizeof seen) < 0)
		return -1;
	snprintf(head, sizeof head,
		 "The viewport of tab %s is %lld x %lld CSS px%s%s: %s. Screenshots show it so; action viewport with "
		 "reset true goes back to the window's.",
		 a->tab.id, (long long)json_integer_value(w), (long long)json_integer_value(h),
		 dsf > 0 ? " with its own device scale" : "", mobile ? ", as a phone (mobile, touch)" : "", seen);
	return act_answer_with_snapshot(a, head);
}
