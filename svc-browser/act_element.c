/*
 * act_element - the element an action names: a ref of the latest
 * snapshot ("e12", "f9e14" inside an out-of-process iframe, entered
 * through act_frames.c) or a CSS selector of the page's own document,
 * resolved to Chrome's backend node id, and a ref of a page that is gone
 * told as such.  Apart from act.c, which every DevTools call goes
 * through, so that the steps do not call back into the frames.
 */
#include "act.h"

#include <string.h>

#include "snapshot.h"

#define STALE_REF                                                                                             \
	"%.40s is from an earlier state of the page, which changed since that snapshot: take a new snapshot " \
	"and use its refs."

/* 1 when the node is in the page now; else 0 after answering that the
 * ref is stale, or -1 after answering a failure. */
static int node_connected(struct act *a, long id, const char *ref)
{
	json_t *obj = NULL, *res = NULL;
	const char *object_id;
	char err[CDP_ERR_MAX];
	enum cdp_fail f;
	int connected;

	f = cdp_call(a->conn.cdp, a->node_session[0] ? a->node_session : a->tab.session, "DOM.resolveNode",
		     json_pack("{s:I}", "backendNodeId", (json_int_t)id), a->step_ms, a->cancel, &obj, err, sizeof err);
	if (f == CDP_PROTOCOL && (strstr(err, "does not belong to the document") || strstr(err, "given id")))
		return hb_call_failf(a->call, STALE_REF, ref), 0;
	if (f != CDP_OK)
		return act_fail(a, f, "DOM.resolveNode", err), -1;
	object_id = json_string_value(json_object_get(json_object_get(obj, "object"), "objectId"));
	if (!object_id) {
		json_decref(obj);
		return hb_call_fail(a->call, "The browser cannot find that element any more: take a new snapshot."), 0;
	}
	if (act_node_call(a, "Runtime.callFunctionOn",
			  json_pack("{s:s, s:s, s:b}", "objectId", object_id, "functionDeclaration",
				    "function () { return this.isConnected; }", "returnByValue", 1),
			  &res) < 0) {
		json_decref(obj);
		return -1;
	}
	json_decref(obj);
	connected = json_is_true(json_object_get(json_object_get(res, "result"), "value"));
	json_decref(res);
	if (!connected)
		hb_call_failf(a->call, STALE_REF, ref);
	return connected;
}

int act_element(struct act *a, const char *ref, const char *selector, long *node)
{
	json_t *res = NULL, *doc = NULL;
	long id, owner;

	act_frame_leave(a);
	if (ref) {
		if (snapshot_ref_parse(ref, &owner, &id) < 0)
			return hb_call_failf(a->call, "\"%.40s\" is not a ref: refs look like e12 (f9e14 inside a "
						      "frame) and come from the latest snapshot.", ref), -1;
		if (owner && act_frame_enter(a, owner, ref) < 0)
			return -1;
		/* a ref of a page that is gone names a detached node, or none */
		if (node_connected(a, id, ref) <= 0)
			return -1;
		*node = id;
		return 0;
	}
	if (act_tab_call(a, "DOM.getDocument", json_pack("{s:i}", "depth", 0), &doc) < 0)
		return -1;
	id = (long)json_integer_value(json_object_get(json_object_get(doc, "root"), "nodeId"));
	json_decref(doc);
	if (act_tab_call(a, "DOM.querySelector", json_pack("{s:I, s:s}", "nodeId", (json_int_t)id, "selector", selector),
			 &res) < 0)
		return -1;
	id = (long)json_integer_value(json_object_get(res, "nodeId"));
	json_decref(res);
	if (id <= 0)
		return hb_call_failf(a->call, "No element matches the selector \"%.200s\" on this page: take a "
					      "snapshot and use a ref.", selector), -1;
	if (act_tab_call(a, "DOM.describeNode", json_pack("{s:I}", "nodeId", (json_int_t)id), &res) < 0)
		return -1;
	*node = (long)json_integer_value(json_object_get(json_object_get(res, "node"), "backendNodeId"));
	json_decref(res);
	return *node > 0 ? 0 : (hb_call_fail(a->call, "The browser did not say which element matched."), -1);
}
