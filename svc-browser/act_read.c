/*
 * act_read - what an agent can learn of a page without changing it: the
 * snapshot (the accessibility tree, with refs), the page's text in
 * bounded parts, and a screenshot (of the view, the whole page, or one
 * element: act_clip.c) that the model sees as an image and that is also
 * saved in the cache for the user (act_save.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "base64.h"
#include "images.h"
#include "snapshot.h"
#include "utf8.h"

#define SNAPSHOT_CHARS 40000
#define READ_DEFAULT_CHARS 20000
#define READ_FRAME_CHARS 100000 /* of one iframe's text */
#define SHOT_MAX_PX 16384       /* a full-page screenshot's largest side */

int action_snapshot(struct act *a)
{
	struct act_scope scope = { json_string_value(json_object_get(a->args, "ref")),
				   json_string_value(json_object_get(a->args, "selector")),
				   json_integer_value(json_object_get(a->args, "offset")) };
	char line[1024];
	char *snap;
	int rc;

	if (scope.ref && scope.selector)
		return hb_call_fail(a->call, "Action snapshot takes a ref or a selector, not both.");
	if (!(snap = act_snapshot(a, SNAPSHOT_CHARS, &scope)))
		return -1;
	act_tab_line(a, line, sizeof line);
	rc = hb_call_succeedf(a->call, "%s%s%s\n%s", a->note, a->note[0] ? "\n" : "", line, snap);
	free(snap);
	return rc;
}

/* The page's text cut in the page itself, so that an 11 MB page sends
 * only the part asked for: [total characters, the part, its iframes].
 * Characters are code points, as the agent counts them (a pair of UTF-16
 * surrogates is one). */
#define READ_EXPR                                                                                            \
	"(() => { const t = document.body ? document.body.innerText : document.documentElement.innerText;"  \
	" const step = (i) => { const c = t.charCodeAt(i); return c >= 0xD800 && c <= 0xDBFF && i + 1 < t.length" \
	" ? 2 : 1; }; let i = 0, n = 0; while (n < %lld && i < t.length) { i += step(i); n++; }"             \
	" let j = i, m = 0; while (m < %lld && j < t.length) { j += step(j); m++; }"                         \
	" let k = j, rest = 0; while (k < t.length) { k += step(k); rest++; }"                               \
	" return [n + m + rest, t.slice(i, j), document.querySelectorAll('iframe, frame').length]; })()"

/* The text of the page's iframes goes after the page's own, as if the
 * page went on: part (the page's characters from offset, at most max)
 * with what of the frames' text the window [offset, offset + max) holds,
 * malloc'd, and *total with the frames' characters.  NULL after
 * answering. */
static char *with_frames(struct act *a, const char *part, size_t offset, size_t max, size_t *total)
{
	char *frames = act_frames_text(a, READ_FRAME_CHARS), *out;
	size_t plen = strlen(part), flen, pchars = hb_utf8_count(part, plen), from, start, take;

	if (!frames)
		return NULL;
	flen = strlen(frames);
	/* the window reaches the frames only past the page's end */
	from = offset > *total ? offset - *total : 0;
	start = offset + pchars >= *total ? hb_utf8_advance(frames, flen, from) : flen;
	take = pchars < max ? hb_utf8_advance(frames + start, flen - start, max - pchars) : 0;
	*total += hb_utf8_count(frames, flen);
	if ((out = malloc(plen + take + 1))) {
		memcpy(out, part, plen);
		memcpy(out + plen, frames + start, take);
		out[plen + take] = '\0';
	} else {
		hb_call_fail(a->call, "out of memory");
	}
	free(frames);
	return out;
}

int action_read(struct act *a)
{
	json_int_t max = json_integer_value(json_object_get(a->args, "maxChars"));
	json_int_t offset = json_integer_value(json_object_get(a->args, "offset"));
	char line[1024], expr[sizeof READ_EXPR + 64];
	json_t *v = NULL;
	const char *text;
	char *joined = NULL;
	size_t len, total, count, end;
	int rc;

	if (max <= 0)
		max = READ_DEFAULT_CHARS;
	snprintf(expr, sizeof expr, READ_EXPR, (long long)offset, (long long)max);
	if (act_eval(a, expr, &v) < 0)
		return -1;
	total = (size_t)json_integer_value(json_array_get(v, 0));
	text = json_string_value(json_array_get(v, 1)) ? json_string_value(json_array_get(v, 1)) : "";
	if (json_integer_value(json_array_get(v, 2)) > 0) {
		if (!(joined = with_frames(a, text, (size_t)offset, (size_t)max, &total))) {
			json_decref(v);
			return -1;
		}
		text = joined;
	}
	len = strlen(text);
	count = hb_utf8_count(text, len);
	end = (size_t)offset + count;
	act_tab_line(a, line, sizeof line);
	if ((size_t)offset >= total && total > 0)
		rc = hb_call_succeedf(a->call, "%s\nThe page's text has %zu characters; offset %lld is past its end.",
				      line, total, (long long)offset);
	else if (offset == 0 && end >= total)
		rc = hb_call_succeedf(a->call, "%s%s%s\n%.*s", a->note, a->note[0] ? "\n" : "", line, (int)len, text);
	else if (end >= total)
		rc = hb_call_succeedf(a->call, "%s\nCharacters %lld to %zu of the page's %zu (the end)\n%.*s", line,
				      (long long)offset, total, total, (int)len, text);
	else
		rc = hb_call_succeedf(a->call,
				      "%s\nCharacters %lld to %zu of the page's %zu\n%.*s\n[cut: the text goes on; read "
				      "with offset %zu for more]",
				      line, (long long)offset, end, total, (int)len, text, end);
	json_decref(v);
	free(joined);
	return rc;
}

/* The clip of a full-page screenshot: the page from its top, at most
 * SHOT_MAX_PX each way (Chrome's largest texture; more would be
 * megabytes no answer carries).  What was left out is said in cut. */
static json_t *full_page_clip(struct act *a, char *cut, size_t cutlen)
{
	json_t *m = NULL, *size, *clip;
	double w, h;

	cut[0] = '\0';
	if (act_tab_call(a, "Page.getLayoutMetrics", NULL, &m) < 0)
		return NULL;
	size = json_object_get(m, "cssContentSize");
	w = json_number_value(json_object_get(size, "width"));
	h = json_number_value(json_object_get(size, "height"));
	json_decref(m);
	if (h > SHOT_MAX_PX || w > SHOT_MAX_PX)
		snprintf(cut, cutlen,
			 "cut at %d px: the page is %.0f px wide and %.0f px tall, and only its top left %.0f by "
			 "%.0f px are in it (scroll to the rest and take a screenshot without fullPage)",
			 SHOT_MAX_PX, w, h, w > SHOT_MAX_PX ? SHOT_MAX_PX : w, h > SHOT_MAX_PX ? SHOT_MAX_PX : h);
	clip = json_pack("{s:f, s:f, s:f, s:f, s:f}", "x", 0.0, "y", 0.0, "width", w > SHOT_MAX_PX ? SHOT_MAX_PX : w,
			 "height", h > SHOT_MAX_PX ? SHOT_MAX_PX : h, "scale", 1.0);
	if (!clip)
		hb_call_fail(a->call, "out of memory");
	return clip;
}

int action_screenshot(struct act *a)
{
	int full = json_is_true(json_object_get(a->args, "fullPage")), beyond = 0;
	const char *ref = json_string_value(json_object_get(a->args, "ref"));
	const char *selector = json_string_value(json_object_get(a->args, "selector"));
	json_t *params = json_pack("{s:s}", "format", "png"), *res = NULL, *clip;
	char path[HB_PATH_MAX + 64], err[HB_PATH_MAX + 256], line[1024], cut[300] = "";
	const char *data;
	unsigned char *png;
	size_t len;
	int rc;

	if (!params)
		return hb_call_fail(a->call, "out of memory");
	if ((ref || selector) && (full || (ref && selector))) {
		json_decref(params);
		return hb_call_fail(a->call, "Action screenshot takes a ref or a selector (that element alone), or "
					     "fullPage, not two of them.");
	}
	if (ref || selector) {
		if (!(clip = act_element_clip(a, ref, selector, &beyond))) {
			json_decref(params);
			return -1;
		}
		json_object_set_new(params, "captureBeyondViewport", json_boolean(beyond));
		json_object_set_new(params, "clip", clip);
	} else if (full) {
		if (!(clip = full_page_clip(a, cut, sizeof cut))) {
			json_decref(params);
			return -1;
		}
		json_object_set_new(params, "captureBeyondViewport", json_true());
		json_object_set_new(params, "clip", clip);
	}
	if (act_tab_call(a, "Page.captureScreenshot", params, &res) < 0)
		return -1;
	data = json_string_value(json_object_get(res, "data"));
	if (!data || !(png = hb_base64_decode(data, strlen(data), &len))) {
		json_decref(res);
		return hb_call_fail(a->call, "The browser sent a screenshot that is not base64 PNG.");
	}
	json_decref(res);
	if (act_save_file(a, NULL, ".png", png, len, path, sizeof path, err, sizeof err) < 0) {
		free(png);
		return hb_call_failf(a->call, "The screenshot could not be saved: %s", err);
	}
	act_tab_line(a, line, sizeof line);
	{
		struct hb_image img = { "image/png", png, len };
		char text[HB_PATH_MAX + 4096];

		snprintf(text, sizeof text, "%s%s%s\nScreenshot (%zu bytes of PNG%s%s), saved as %s.", a->note,
			 a->note[0] ? "\n" : "", line, len,
			 ref || selector ? ", the element" : !full ? "" : cut[0] ? ", the page " : ", the whole page",
			 cut, path);
		/* too large for an answer (a long whole page) fails with its
		 * sentence; the file stays saved */
		rc = hb_call_succeed_with_images(a->call, text, &img, 1);
	}
	free(png);
	return rc;
}
