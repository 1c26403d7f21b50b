/*
 * act_frames - the iframes of the tab's page, which Chrome's tree of the
 * page and its text leave out: their trees go under their <iframe>'s
 * line in the snapshot, their text after the page's in a read, and their
 * elements are acted on by ref like the page's.
 *
 * Two kinds, as Chrome runs them:
 * - a frame in the tab's own renderer (the same site): in the tab's
 *   Page.getFrameTree, its tree from Accessibility.getFullAXTree with its
 *   frameId on the tab's session.  Backend node ids are the renderer's,
 *   unique in it, so its refs are plain "e14", resolved on the tab's
 *   session, and its boxes are in the tab's viewport already.
 * - an out-of-process iframe (another site): a target of type "iframe"
 *   whose targetId is its frameId, reached by attaching to it for this
 *   call (and detaching after).  Its ids are another renderer's and may
 *   repeat the tab's, so its refs name its <iframe> too: "f9e14", the
 *   iframe element 9 in the tab's page, node 14 in the frame.  The
 *   iframe's DOM.describeNode gives the frame (its frameId), so a ref is
 *   resolved with no table kept between calls; DOM.getFrameOwner on the
 *   tab's session fails for a frame of another page, which keeps the
 *   agent to its own tab.  Its boxes are in its own viewport: a click
 *   adds the corner of the iframe's content box and is sent to the tab.
 * One level of out-of-process frames is reached: a frame inside one
 * (its owner in that other renderer) is not found, and not shown.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "snapshot.h"

#define FRAME_WORLD "hb-frames"

struct frame {
	char id[64];        /* Chrome's frameId (an out-of-process frame's targetId) */
	long owner;         /* its <iframe>'s backend id in the tab's renderer */
	char session[64];   /* "": the tab's renderer; else its own, attached here */
	char url[512];
};

struct frames {
	struct frame f[ACT_FRAMES_MAX];
	size_t n;
};

/* The <iframe> of frame id in the tab's renderer, or 0 when it has none
 * there (a frame of another page, or gone): a frame of another page is
 * not the agent's.  -1 after answering (the page is busy, a dialog). */
static long frame_owner(struct act *a, const char *id)
{
	json_t *res = NULL;
	char err[CDP_ERR_MAX];
	enum cdp_fail f;
	long owner;

	f = cdp_call(a->conn.cdp, a->tab.session, "DOM.getFrameOwner", json_pack("{s:s}", "frameId", id), a->step_ms,
		     a->cancel, &res, err, sizeof err);
	if (f == CDP_PROTOCOL)
		return 0;
	if (f != CDP_OK)
		return act_fail(a, f, "DOM.getFrameOwner", err), -1;
	owner = (long)json_integer_value(json_object_get(res, "backendNodeId"));
	json_decref(res);
	return owner > 0 ? owner : 0;
}

static void add_frame(struct frames *fr, const char *id, long owner, const char *session, const char *url)
{
	struct frame *f = &fr->f[fr->n++];

	snprintf(f->id, sizeof f->id, "%s", id);
	f->owner = owner;
	snprintf(f->session, sizeof f->session, "%s", session);
	snprintf(f->url, sizeof f->url, "%s", url ? url : "");
}

/* The frames of the tab's renderer below its page, parents first. */
static int same_process_frames(struct act *a, struct frames *fr)
{
	json_t *res = NULL, *stack, *kids;
	long owner = 0;
	size_t i;

	if (act_tab_call(a, "Page.getFrameTree", NULL, &res) < 0)
		return -1;
	if (!(stack = json_array())) {
		json_decref(res);
		return hb_call_fail(a->call, "out of memory"), -1;
	}
	/* children pushed in reverse come off in order: pre-order */
	kids = json_object_get(json_object_get(res, "frameTree"), "childFrames");
	for (i = json_array_size(kids); i-- > 0;)
		json_array_append(stack, json_array_get(kids, i));
	while (json_array_size(stack) > 0 && fr->n < ACT_FRAMES_MAX) {
		json_t *node = json_incref(json_array_get(stack, json_array_size(stack) - 1));
		json_t *frame = json_object_get(node, "frame");
		const char *id = json_string_value(json_object_get(frame, "id"));

		json_array_remove(stack, json_array_size(stack) - 1);
		owner = id && strlen(id) < sizeof fr->f[0].id ? frame_owner(a, id) : 0;
		if (owner > 0)
			add_frame(fr, id, owner, "", json_string_value(json_object_get(frame, "url")));
		for (i = json_array_size(json_object_get(node, "childFrames")); i-- > 0;)
			json_array_append(stack, json_array_get(json_object_get(node, "childFrames"), i));
		json_decref(node);
		if (owner < 0)
			break;
	}
	json_decref(stack);
	json_decref(res);
	return owner < 0 ? -1 : 0;
}

/* Attach to the out-of-process frame target for this call: its session
 * into session.  0, or -1 after answering (with ref: the target is gone,
 * so the ref is stale). */
static int attach(struct act *a, const char *target, char *session, size_t len, const char *ref)
{
	json_t *res = NULL;
	char err[CDP_ERR_MAX];
	const char *sid;
	enum cdp_fail f;

	f = cdp_call(a->conn.cdp, NULL, "Target.attachToTarget", json_pack("{s:s, s:b}", "targetId", target, "flatten", 1),
		     a->step_ms, a->cancel, &res, err, sizeof err);
	if (f == CDP_PROTOCOL && ref)
		return hb_call_failf(a->call, "%.40s is from an earlier state of the page: its frame is no longer a "
					      "page of its own. Take a new snapshot and use its refs.", ref), -1;
	if (f != CDP_OK)
		return act_fail(a, f, "Target.attachToTarget", err), -1;
	sid = json_string_value(json_object_get(res, "sessionId"));
	if (!sid || strlen(sid) >= len) {
		json_decref(res);
		return hb_call_fail(a->call, "Chrome attached to a frame of the page without a session id."), -1;
	}
	snprintf(session, len, "%s", sid);
	json_decref(res);
	return 0;
}

static void detach(struct act *a, const char *session)
{
	json_t *res = NULL;
	char err[256];

	if (cdp_call(a->conn.cdp, NULL, "Target.detachFromTarget", json_pack("{s:s}", "sessionId", session), a->step_ms,
		     NULL, &res, err, sizeof err) == CDP_OK)
		json_decref(res);
}

static void frames_end(struct act *a, struct frames *fr)
{
	for (size_t i = 0; i < fr->n; i++)
		if (fr->f[i].session[0])
			detach(a, fr->f[i].session);
	fr->n = 0;
}

/* The out-of-process frames whose <iframe> is in the tab's renderer,
 * each attached. */
static int other_process_frames(struct act *a, struct frames *fr)
{
	json_t *res = NULL, *t;
	size_t i;
	int rc = 0;

	if (act_browser_call(a, "Target.getTargets", NULL, &res) < 0)
		return -1;
	json_array_foreach(json_object_get(res, "targetInfos"), i, t) {
		const char *type = json_string_value(json_object_get(t, "type"));
		const char *id = json_string_value(json_object_get(t, "targetId"));
		const char *parent = json_string_value(json_object_get(t, "parentId"));
		char session[64];
		long owner;

		if (fr->n >= ACT_FRAMES_MAX)
			break;
		/* the frames of the user's other tabs are not even asked about
		 * (parentId names the page target that holds the frame) */
		if (!type || strcmp(type, "iframe") != 0 || !id || strlen(id) >= sizeof fr->f[0].id ||
		    (parent && strcmp(parent, a->tab.target) != 0) || (owner = frame_owner(a, id)) == 0)
			continue;
		if (owner < 0 || (rc = attach(a, id, session, sizeof session, NULL)) < 0) {
			rc = -1;
			break;
		}
		add_frame(fr, id, owner, session, json_string_value(json_object_get(t, "url")));
	}
	json_decref(res);
	return rc;
}

/* Every frame of the page, as above: 0, or -1 after answering (none
 * left attached). */
static int find_frames(struct act *a, struct frames *fr)
{
	fr->n = 0;
	if (same_process_frames(a, fr) < 0 || other_process_frames(a, fr) < 0) {
		frames_end(a, fr);
		return -1;
	}
	return 0;
}

/* A command on the frame: on its own session, or on the tab's with its
 * frameId in params. */
static int frame_call(struct act *a, const struct frame *f, const char *method, json_t *params, json_t **res)
{
	if (!f->session[0] && params && json_object_set_new(params, "frameId", json_string(f->id)) < 0) {
		json_decref(params);
		return hb_call_fail(a->call, "out of memory"), -1;
	}
	return act_session_call(a, f->session[0] ? f->session : a->tab.session, method, params, res);
}

/* ---- the snapshot --------------------------------------------------- */

/* The node of nodes for the <iframe> owner (not one of another renderer's). */
static json_t *owner_node(json_t *nodes, long owner)
{
	json_t *n;
	size_t i;

	json_array_foreach(nodes, i, n)
		if (json_integer_value(json_object_get(n, "backendDOMNodeId")) == owner &&
		    !json_object_get(n, SNAPSHOT_FRAME_OWNER))
			return n;
	return NULL;
}

/* id prefixed: a frame's node ids repeat the page's. */
static json_t *prefixed(const char *prefix, const json_t *id)
{
	char buf[96];

	if (json_is_string(id))
		snprintf(buf, sizeof buf, "%s%.60s", prefix, json_string_value(id));
	else if (json_is_integer(id))
		snprintf(buf, sizeof buf, "%s%lld", prefix, (long long)json_integer_value(id));
	else
		return NULL;
	return json_string(buf);
}

/* The frame's tree into nodes under its <iframe>'s node (none: the
 * iframe is not in the tree, nor its frame). */
static int graft_one(json_t *nodes, const struct frame *f, size_t k, json_t *tree)
{
	json_t *owner = owner_node(nodes, f->owner), *n, *kids, *id;
	char prefix[32];
	size_t i, j;

	if (!owner || !json_is_array(tree))
		return 0;
	snprintf(prefix, sizeof prefix, "F%zu:", k);
	if (!json_is_array(kids = json_object_get(owner, "childIds"))) {
		if (json_object_set_new(owner, "childIds", kids = json_array()) < 0)
			return -1;
	}
	json_array_foreach(tree, i, n) {
		json_t *mine = json_array(), *kid;

		if (!json_is_object(n) || !mine) {
			json_decref(mine);
			continue;
		}
		json_array_foreach(json_object_get(n, "childIds"), j, kid)
			json_array_append_new(mine, prefixed(prefix, kid));
		json_object_set_new(n, "childIds", mine);
		if ((id = prefixed(prefix, json_object_get(n, "nodeId"))))
			json_object_set_new(n, "nodeId", id);
		if (json_object_get(n, "parentId")) {
			json_object_set_new(n, "parentId", prefixed(prefix, json_object_get(n, "parentId")));
		} else if (json_is_string(json_object_get(n, "nodeId")) && json_is_string(json_object_get(owner, "nodeId"))) {
			json_array_append(kids, json_object_get(n, "nodeId"));
			json_object_set(n, "parentId", json_object_get(owner, "nodeId"));
		}
		if (f->session[0])
			json_object_set_new(n, SNAPSHOT_FRAME_OWNER, json_integer(f->owner));
		json_object_set_new(n, ACT_IN_FRAME, json_integer(f->owner));
		if (json_array_append(nodes, n) < 0)
			return -1;
	}
	return 0;
}

int act_frames_graft(struct act *a, json_t *nodes)
{
	struct frames fr;
	json_t *res = NULL;
	int rc = 0;

	if (find_frames(a, &fr) < 0)
		return -1;
	for (size_t k = 0; k < fr.n && rc == 0; k++) {
		if ((rc = frame_call(a, &fr.f[k], "Accessibility.getFullAXTree", json_object(), &res)) < 0)
			break;
		if (graft_one(nodes, &fr.f[k], k, json_object_get(res, "nodes")) < 0)
			rc = hb_call_fail(a->call, "out of memory while writing the page's snapshot");
		json_decref(res);
		res = NULL;
	}
	frames_end(a, &fr);
	return rc;
}

/* ---- the text ------------------------------------------------------- */

/* The frame's text, cut at max_chars UTF-16 units, read in a world of its
 * own (the page's scripts cannot change what innerText is there): a new
 * reference to a string, or NULL after answering. */
static json_t *frame_text(struct act *a, const struct frame *f, size_t max_chars)
{
	json_t *res = NULL, *text;
	char expr[400];
	long long context;

	if (act_session_call(a, f->session[0] ? f->session : a->tab.session, "Page.createIsolatedWorld",
			     json_pack("{s:s, s:s}", "frameId", f->id, "worldName", FRAME_WORLD), &res) < 0)
		return NULL;
	context = json_integer_value(json_object_get(res, "executionContextId"));
	json_decref(res);
	/* cut at a code point: half a surrogate pair is not JSON */
	snprintf(expr, sizeof expr,
		 "(() => { const b = document.body || document.documentElement, t = b ? b.innerText : '';"
		 " let i = 0, n = 0; while (n < %zu && i < t.length) { const c = t.charCodeAt(i);"
		 " i += c >= 0xD800 && c <= 0xDBFF && i + 1 < t.length ? 2 : 1; n++; } return t.slice(0, i); })()",
		 max_chars);
	if (act_session_call(a, f->session[0] ? f->session : a->tab.session, "Runtime.evaluate",
			     json_pack("{s:s, s:I, s:b}", "expression", expr, "contextId", (json_int_t)context,
				       "returnByValue", 1),
			     &res) < 0)
		return NULL;
	text = json_object_get(json_object_get(res, "result"), "value");
	text = json_is_string(text) ? json_incref(text) : json_string("");
	json_decref(res);
	return text;
}

char *act_frames_text(struct act *a, size_t max_chars)
{
	struct frames fr;
	char *out = NULL;
	size_t len = 0;
	FILE *f;
	int rc = 0;

	if (find_frames(a, &fr) < 0)
		return NULL;
	if (!(f = open_memstream(&out, &len))) {
		frames_end(a, &fr);
		return hb_call_fail(a->call, "out of memory"), NULL;
	}
	for (size_t k = 0; k < fr.n; k++) {
		json_t *text = frame_text(a, &fr.f[k], max_chars);

		if (!text) {
			rc = -1;
			break;
		}
		fprintf(f, "\n\n[iframe e%ld: %.500s]\n%s", fr.f[k].owner, fr.f[k].url, json_string_value(text));
		json_decref(text);
	}
	frames_end(a, &fr);
	if (fclose(f) != 0 && rc == 0)
		rc = hb_call_fail(a->call, "out of memory");
	if (rc < 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* ---- an element in a frame ----------------------------------------- */

int act_frame_enter(struct act *a, long owner, const char *ref)
{
	json_t *res = NULL;
	char err[CDP_ERR_MAX], frame[64];
	const char *id;
	enum cdp_fail f;
	long mine = 0;

	f = cdp_call(a->conn.cdp, a->tab.session, "DOM.describeNode",
		     json_pack("{s:I}", "backendNodeId", (json_int_t)owner), a->step_ms, a->cancel, &res, err, sizeof err);
	if (f == CDP_PROTOCOL)
		return hb_call_failf(a->call, "%.40s is from an earlier state of the page: its frame is gone. Take a "
					      "new snapshot and use its refs.", ref), -1;
	if (f != CDP_OK)
		return act_fail(a, f, "DOM.describeNode", err), -1;
	id = json_string_value(json_object_get(json_object_get(res, "node"), "frameId"));
	snprintf(frame, sizeof frame, "%s", id ? id : "");
	json_decref(res);
	/* a renderer may hold pages of other tabs: the frame must be one of
	 * this tab's, with this iframe (DOM.getFrameOwner looks in the tab's
	 * own frames) */
	if (frame[0] && (mine = frame_owner(a, frame)) < 0)
		return -1;
	if (!frame[0] || mine != owner)
		return hb_call_failf(a->call, "%.40s is from an earlier state of the page: its frame changed. Take a "
					      "new snapshot and use its refs.", ref), -1;
	/* no target: the frame went to the tab's own renderer (a page of the
	 * same site) since, where its refs are plain ones */
	if (attach(a, frame, a->node_session, sizeof a->node_session, ref) < 0)
		return -1;
	a->node_owner = owner;
	return 0;
}

void act_frame_leave(struct act *a)
{
	if (a->node_session[0])
		detach(a, a->node_session);
	a->node_session[0] = '\0';
	a->node_owner = 0;
}

/* The corners of the owner's border and content boxes in the tab's
 * viewport: 0, or -1 after answering. */
static int owner_box(struct act *a, double *bx, double *by, double *cx, double *cy)
{
	json_t *res = NULL, *model, *border, *content;

	if (act_tab_call(a, "DOM.getBoxModel", json_pack("{s:I}", "backendNodeId", (json_int_t)a->node_owner), &res) < 0)
		return -1;
	model = json_object_get(res, "model");
	border = json_object_get(model, "border");
	content = json_object_get(model, "content");
	if (json_array_size(border) != 8 || json_array_size(content) != 8) {
		json_decref(res);
		return hb_call_fail(a->call, "The frame of the element is not visible on the page (its iframe has no "
					     "box): take a snapshot and pick another."), -1;
	}
	*bx = json_number_value(json_array_get(border, 0));
	*by = json_number_value(json_array_get(border, 1));
	*cx = json_number_value(json_array_get(content, 0));
	*cy = json_number_value(json_array_get(content, 1));
	json_decref(res);
	return 0;
}

int act_node_on_tab(struct act *a, const double box[4], double *x, double *y)
{
	double bx, by, cx, cy;
	json_t *res = NULL, *rect;

	if (!a->node_session[0])
		return 0;
	/* The frame's own scroll into view reaches the tab's page later, from
	 * another renderer: the element's box is scrolled into the tab's
	 * view here, in order, so that where it is measured is where the
	 * mouse goes (the frame's late request then finds it in view). */
	if (owner_box(a, &bx, &by, &cx, &cy) < 0)
		return -1;
	rect = json_pack("{s:f, s:f, s:f, s:f}", "x", cx - bx + box[0], "y", cy - by + box[1], "width", box[2], "height",
			 box[3]);
	if (act_tab_call(a, "DOM.scrollIntoViewIfNeeded",
			 json_pack("{s:I, s:o}", "backendNodeId", (json_int_t)a->node_owner, "rect", rect), &res) < 0)
		return -1;
	json_decref(res);
	/* Chrome finds the frame a mouse event goes to in what the screen
	 * last showed, not in the page: after a scroll, the event waits for a
	 * new picture (two animation frames; at most 100 ms, for a page that
	 * draws none) */
	if (act_tab_call(a, "Runtime.evaluate",
			 json_pack("{s:s, s:b}", "expression",
				   "new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(r));"
				   " setTimeout(r, 100); })",
				   "awaitPromise", 1),
			 &res) < 0)
		return -1;
	json_decref(res);
	if (owner_box(a, &bx, &by, &cx, &cy) < 0)
		return -1;
	*x += cx;
	*y += cy;
	return 0;
}
