/*
 * act_clip - the part of the page a screenshot of one element shows: the
 * element's border box, scrolled into view first (as Puppeteer's
 * ElementHandle.screenshot and chrome-devtools-mcp's take_screenshot with
 * a uid do), in the page's coordinates, which Page.captureScreenshot's
 * clip takes.  DOM.getBoxModel gives the box in the viewport's
 * coordinates (an element in a frame too), so the visual viewport's
 * place in the page (Page.getLayoutMetrics) is added.
 */
#include <string.h>

#include "act.h"

#define CLIP_MAX_PX 16384   /* Chrome's largest texture, as a full-page screenshot's */

#define NO_BOX                                                                                             \
	"The element has no box on the page (hidden by display: none, not rendered, or gone): there is "   \
	"nothing of it to take a picture of. Take a screenshot of the page, or a snapshot to find another."

/* A DOM step on the element whose refusal means it has no box: 0 with
 * *res, or -1 after answering. */
static int box_step(struct act *a, const char *method, long node, json_t **res)
{
	char err[CDP_ERR_MAX];
	enum cdp_fail f = cdp_call(a->conn.cdp, a->tab.session, method,
				   json_pack("{s:I}", "backendNodeId", (json_int_t)node), a->step_ms, a->cancel, res,
				   err, sizeof err);

	if (f == CDP_PROTOCOL && !strstr(err, "ession with given id") && !strstr(err, "No target with given id"))
		return hb_call_fail(a->call, NO_BOX), -1;
	return f == CDP_OK ? 0 : (act_fail(a, f, method, err), -1);
}

json_t *act_element_clip(struct act *a, const char *ref, const char *selector, int *beyond)
{
	json_t *res = NULL, *quad, *metrics = NULL, *view, *clip;
	double left = 0, top = 0, right = 0, bottom = 0, width, height;
	long node;

	if (act_element(a, ref, selector, &node) < 0)
		return NULL;
	if (box_step(a, "DOM.scrollIntoViewIfNeeded", node, &res) < 0)
		return NULL;
	json_decref(res);
	if (box_step(a, "DOM.getBoxModel", node, &res) < 0)
		return NULL;
	quad = json_object_get(json_object_get(res, "model"), "border");
	if (json_array_size(quad) != 8) {
		json_decref(res);
		hb_call_fail(a->call, NO_BOX);
		return NULL;
	}
	for (size_t i = 0; i < 8; i += 2) {
		double x = json_number_value(json_array_get(quad, i)), y = json_number_value(json_array_get(quad, i + 1));

		left = i == 0 || x < left ? x : left;
		right = i == 0 || x > right ? x : right;
		top = i == 0 || y < top ? y : top;
		bottom = i == 0 || y > bottom ? y : bottom;
	}
	json_decref(res);
	if (right - left < 1 || bottom - top < 1) {
		hb_call_fail(a->call, "The element is empty (less than a pixel wide or tall): there is nothing of it "
				      "to take a picture of.");
		return NULL;
	}
	width = right - left > CLIP_MAX_PX ? CLIP_MAX_PX : right - left;
	height = bottom - top > CLIP_MAX_PX ? CLIP_MAX_PX : bottom - top;
	if (act_tab_call(a, "Page.getLayoutMetrics", NULL, &metrics) < 0)
		return NULL;
	view = json_object_get(metrics, "cssVisualViewport");
	/* an element larger than the view is drawn beyond it; one that fits
	 * is taken from the view as it is (beyond it, Chrome lays the page
	 * out again in a taller view, without its scroll bar) */
	*beyond = width > json_number_value(json_object_get(view, "clientWidth")) ||
		  height > json_number_value(json_object_get(view, "clientHeight"));
	left += json_number_value(json_object_get(view, "pageX"));
	top += json_number_value(json_object_get(view, "pageY"));
	json_decref(metrics);
	clip = json_pack("{s:f, s:f, s:f, s:f, s:f}", "x", left, "y", top, "width", width, "height", height, "scale",
			 1.0);
	if (!clip)
		hb_call_fail(a->call, "out of memory");
	return clip;
}
