/*
 * act_snap - the snapshot an action answers with, never asking Chrome
 * for more than the answer uses.
 *
 * A page small enough gets Chrome's accessibility tree of all of it
 * (Accessibility.getFullAXTree).  Chrome builds that tree for the whole
 * page whatever part of it is asked for: a 60,000-row table held its
 * renderer for minutes in gigabytes, an 11 MB text page's tree was past
 * 64 MiB.  So a larger page, and a part the agent asks for (the subtree
 * of a ref or selector, the part after a cut), are walked in the page
 * itself, a bounded number of nodes from a given element (page_walk.h);
 * its refs are backend node ids as Chrome's tree has them, so actions
 * take them alike.  A cut snapshot ends with the offset of its next part,
 * which is an element's place in document order, and the refs of the
 * containers near the cut (snapshot_near.h), whose parts the agent can
 * ask for alone: scrolling brings nothing new, the tree is the page's and
 * not the screen's.  The walk gives containers their backend ids too,
 * for that sentence.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "page_walk.h"
#include "snapshot.h"
#include "snapshot_near.h"

/* A page past either is too large for its whole accessibility tree (its
 * answer alone would be tens of megabytes). */
#define SNAPSHOT_PAGE_ELEMENTS 20000
#define SNAPSHOT_PAGE_CHARS 500000
/* Room kept for the lines said around the tree (a part's head, the way
 * to the next part). */
#define SNAP_NOTE_ROOM 1200
/* The nodes a part walks: one per this many characters of the bound, a
 * little more than a snapshot line takes, so that the walk is rarely cut
 * again by the characters and never asks for ids it does not show. */
#define SNAP_CHARS_PER_NODE 60
#define SNAP_GROUP "hb-snapshot"

/* The page's size: 1 when Chrome's tree of all of it fits, 0 when not
 * (its elements and characters in *elements, *chars), -1 after
 * answering.  Counting costs the page nothing like the tree. */
static int small_enough(struct act *a, long long *elements, long long *chars, int *frames)
{
	json_t *v = NULL;

	if (act_eval(a, "[document.getElementsByTagName('*').length,"
			" (document.body || document.documentElement).textContent.length,"
			" document.querySelectorAll('iframe, frame').length]", &v) < 0)
		return -1;
	*elements = json_integer_value(json_array_get(v, 0));
	*chars = json_integer_value(json_array_get(v, 1));
	*frames = json_integer_value(json_array_get(v, 2)) > 0;
	json_decref(v);
	return *elements <= SNAPSHOT_PAGE_ELEMENTS && *chars <= SNAPSHOT_PAGE_CHARS;
}

/* The element a part is walked from: the ref's or selector's, or the
 * document's; its objectId (malloc'd), or NULL after answering. */
static char *scope_object(struct act *a, const struct act_scope *scope)
{
	long id;

	if (scope && (scope->ref || scope->selector))
		return act_element(a, scope->ref, scope->selector, &id) < 0 ? NULL : act_node_object(a, id, SNAP_GROUP);
	return act_eval_object(a, "document.documentElement", SNAP_GROUP,
			       "The page has no document to take a snapshot of.");
}

/* Run the walk on the object: its answer's own properties ("0" the JSON,
 * "1"... the elements), or NULL after answering. */
static json_t *run_walk(struct act *a, const char *object, long long offset, size_t budget)
{
	json_t *roles = json_array(), *args, *res = NULL, *props = NULL;
	const char *result;

	for (size_t i = 0; roles && snapshot_ref_roles[i]; i++)
		json_array_append_new(roles, json_string(snapshot_ref_roles[i]));
	/* the containers too: a cut names those near it by their refs */
	for (size_t i = 0; roles && snapshot_near_roles[i]; i++)
		json_array_append_new(roles, json_string(snapshot_near_roles[i]));
	args = json_pack("[{s:I}, {s:I}, {s:i}, {s:o}]", "value", (json_int_t)offset, "value", (json_int_t)budget,
			 "value", SNAPSHOT_TEXT_MAX, "value", roles);
	if (!args) {
		hb_call_fail(a->call, "out of memory");
		return NULL;
	}
	if (act_node_call(a, "Runtime.callFunctionOn",
			  json_pack("{s:s, s:s, s:o, s:s}", "functionDeclaration", page_walk_js, "objectId", object,
				    "arguments", args, "objectGroup", SNAP_GROUP),
			  &res) < 0)
		return NULL;
	if (json_object_get(res, "exceptionDetails") ||
	    !(result = json_string_value(json_object_get(json_object_get(res, "result"), "objectId")))) {
		json_decref(res);
		hb_call_fail(a->call, "The page's snapshot could not be made: the page's script failed.");
		return NULL;
	}
	if (act_node_call(a, "Runtime.getProperties", json_pack("{s:s, s:b}", "objectId", result, "ownProperties", 1),
			  &props) < 0)
		props = NULL;
	json_decref(res);
	return props;
}

/* A property of getProperties' answer by name: its RemoteObject. */
static json_t *property(json_t *props, const char *name)
{
	json_t *p;
	size_t i;

	json_array_foreach(json_object_get(props, "result"), i, p) {
		const char *n = json_string_value(json_object_get(p, "name"));

		if (n && strcmp(n, name) == 0)
			return json_object_get(p, "value");
	}
	return NULL;
}

/* Give every node that names an element ("el") its backend node id, as
 * Chrome's tree has it (with its iframe's, in an out-of-process frame):
 * 0, or -1 after answering. */
static int put_backend_ids(struct act *a, json_t *nodes, json_t *props)
{
	json_t *node, *res = NULL;
	size_t i;

	json_array_foreach(nodes, i, node) {
		json_t *el = json_object_get(node, "el");
		char name[24];
		const char *oid;
		json_int_t id;

		/* only this code says which frame a node is in */
		json_object_del(node, SNAPSHOT_FRAME_OWNER);
		json_object_del(node, ACT_IN_FRAME);
		if (a->node_owner)
			json_object_set_new(node, SNAPSHOT_FRAME_OWNER, json_integer(a->node_owner));
		if (!json_is_integer(el))
			continue;
		snprintf(name, sizeof name, "%lld", (long long)json_integer_value(el));
		if (!(oid = json_string_value(json_object_get(property(props, name), "objectId"))))
			continue;
		/* depth 0: a container's children (60,000 rows) stay out of the answer */
		if (act_node_call(a, "DOM.describeNode", json_pack("{s:s, s:i}", "objectId", oid, "depth", 0), &res) < 0)
			return -1;
		id = json_integer_value(json_object_get(json_object_get(res, "node"), "backendNodeId"));
		json_decref(res);
		if (id > 0)
			json_object_set_new(node, "backendDOMNodeId", json_integer(id));
	}
	return 0;
}

/* "… The next part: ..." for a part that goes on at next, then the
 * containers near the cut (snapshot_near.h): node cut of nodes, the
 * first left out when left_out, else the last shown. */
static void put_next(FILE *out, const struct act_scope *scope, long long next, const json_t *nodes, size_t cut,
		     int left_out)
{
	char *near = snapshot_near_cut(nodes, cut, left_out);

	fprintf(out, "… The next part: action snapshot with offset %lld", next);
	if (scope && scope->ref)
		fprintf(out, " and ref \"%.40s\"", scope->ref);
	else if (scope && scope->selector)
		fprintf(out, " and the same selector");
	fprintf(out, ". Or one element's part alone (a list, a table): action snapshot with its ref (or a "
		     "selector).\n");
	if (near)
		fputs(near, out);
	free(near);
}

/* The nodes' snapshot within max_chars: 0 with *cut_node the index of
 * the first node left out (SIZE_MAX: none), or -1 after answering. */
static int write_tree(struct act *a, FILE *out, const json_t *nodes, size_t max_chars, size_t *cut_node)
{
	struct snapshot s;
	char err[512];

	if (snapshot_build(nodes, max_chars > SNAP_NOTE_ROOM + SNAPSHOT_MIN_CHARS ? max_chars - SNAP_NOTE_ROOM : 0,
			   &s, err, sizeof err) < 0)
		return hb_call_failf(a->call, "The page's snapshot could not be made: %s", err);
	fwrite(s.text, 1, s.len, out);
	*cut_node = s.truncated ? s.cut_node : SIZE_MAX;
	snapshot_free(&s);
	return 0;
}

/* A part walked in the page, into out: 0, or -1 after answering. */
static int write_part(struct act *a, FILE *out, size_t max_chars, const struct act_scope *scope)
{
	long long offset = scope ? scope->offset : 0, next, total, cut;
	size_t cut_node;
	char *object = scope_object(a, scope);
	json_t *props, *walk = NULL, *nodes;
	const char *json;
	int rc = -1;

	if (!object)
		return -1;
	props = run_walk(a, object, offset, max_chars / SNAP_CHARS_PER_NODE);
	free(object);
	if (!props)
		goto done;
	json = json_string_value(json_object_get(property(props, "0"), "value"));
	if (!json || !(walk = json_loads(json, 0, NULL)) || !json_is_array(nodes = json_object_get(walk, "nodes"))) {
		hb_call_fail(a->call, "The page's snapshot could not be made: the page's walk said nothing readable.");
		goto done;
	}
	total = json_integer_value(json_object_get(walk, "total"));
	next = json_integer_value(json_object_get(walk, "next"));
	if (json_array_size(nodes) == 0) {
		fprintf(out, "(Offset %lld is past the end: the part has %lld elements.)\n", offset, total);
		rc = 0;
		goto done;
	}
	if (offset > 0)
		fprintf(out, "(The part from element %lld of %lld, with the elements it is in:)\n", offset, total);
	if (put_backend_ids(a, nodes, props) < 0 || write_tree(a, out, nodes, max_chars, &cut_node) < 0)
		goto done;
	/* cut again by the characters: the next part starts where the lines
	 * stopped (never where this one did, which would be a loop) */
	if (cut_node != SIZE_MAX) {
		cut = json_integer_value(json_object_get(json_array_get(nodes, cut_node), "ord"));
		next = cut > offset ? cut : offset + 1;
	}
	if (next > 0)
		put_next(out, scope, next, nodes, cut_node != SIZE_MAX ? cut_node : json_array_size(nodes) - 1,
			 cut_node != SIZE_MAX);
	rc = 0;
done:
	json_decref(props);
	json_decref(walk);
	act_release_group(a, SNAP_GROUP);
	return rc;
}

/* The place in document order of the element of backend id: where the
 * next part starts.  -1 after answering. */
static long long page_ordinal(struct act *a, long id)
{
	json_t *res = NULL;
	long long ord;
	char *object;

	if (!(object = act_node_object(a, id, SNAP_GROUP)))
		return -1;
	if (act_tab_call(a, "Runtime.callFunctionOn",
			 json_pack("{s:s, s:s, s:b}", "functionDeclaration", page_walk_ordinal_js, "objectId", object,
				   "returnByValue", 1),
			 &res) < 0) {
		free(object);
		act_release_group(a, SNAP_GROUP);
		return -1;
	}
	free(object);
	act_release_group(a, SNAP_GROUP);
	ord = json_integer_value(json_object_get(json_object_get(res, "result"), "value"));
	json_decref(res);
	return ord;
}

/* The offset of the element of a node of Chrome's tree (or of its
 * nearest ancestor that has one): where the next part starts. -1 after
 * answering. */
static long long offset_of_ax(struct act *a, const json_t *nodes, size_t i)
{
	const json_t *n = json_array_get(nodes, i);

	for (int up = 0; n && !json_is_integer(json_object_get(n, "backendDOMNodeId")) && up < 64; up++) {
		const char *parent = json_string_value(json_object_get(n, "parentId"));
		const json_t *p;
		size_t k;

		n = NULL;
		json_array_foreach(nodes, k, p)
			if (parent && json_is_string(json_object_get(p, "nodeId")) &&
			    strcmp(json_string_value(json_object_get(p, "nodeId")), parent) == 0) {
				n = p;
				break;
			}
	}
	if (!n)
		return 0;
	/* a frame's node has no place in the page's order: its iframe's is */
	if (json_is_integer(json_object_get(n, ACT_IN_FRAME)))
		return page_ordinal(a, (long)json_integer_value(json_object_get(n, ACT_IN_FRAME)));
	return page_ordinal(a, (long)json_integer_value(json_object_get(n, "backendDOMNodeId")));
}

/* Chrome's tree of the whole page (and of its iframes, when it has
 * some), into out: 0, or -1 after answering. */
static int write_whole(struct act *a, FILE *out, size_t max_chars, int frames)
{
	json_t *res = NULL, *off = NULL;
	size_t cut_node;
	long long next;
	char why[256];
	int rc;

	if (act_tab_call(a, "Accessibility.getFullAXTree", NULL, &res) < 0)
		return -1;
	if (frames && act_frames_graft(a, json_object_get(res, "nodes")) < 0) {
		json_decref(res);
		return -1;
	}
	/* Chrome may keep the tree it built, and keep it up to date with
	 * every change of the page, while the domain is on */
	if (cdp_call(a->conn.cdp, a->tab.session, "Accessibility.disable", NULL, a->step_ms, a->cancel, &off, why,
		     sizeof why) == CDP_OK)
		json_decref(off);
	rc = write_tree(a, out, json_object_get(res, "nodes"), max_chars, &cut_node);
	if (rc == 0 && cut_node != SIZE_MAX) {
		/* Chrome's nodes say nothing of their place in the document: ask the page */
		if ((next = offset_of_ax(a, json_object_get(res, "nodes"), cut_node)) < 0)
			rc = -1;
		else
			put_next(out, NULL, next > 0 ? next : 1, json_object_get(res, "nodes"), cut_node, 1);
	}
	json_decref(res);
	return rc;
}

char *act_snapshot(struct act *a, size_t max_chars, const struct act_scope *scope)
{
	long long elements = 0, chars = 0;
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	int rc, small = 0, frames = 0;

	/* the page's own snapshot, after an action on an element in a frame */
	if (!scope || (!scope->ref && !scope->selector))
		act_frame_leave(a);
	if (!scope || (!scope->ref && !scope->selector && scope->offset == 0))
		if ((small = small_enough(a, &elements, &chars, &frames)) < 0)
			return NULL;
	if (!(out = open_memstream(&text, &len))) {
		hb_call_fail(a->call, "out of memory");
		return NULL;
	}
	if (small) {
		rc = write_whole(a, out, max_chars, frames);
	} else {
		if (!scope || (!scope->ref && !scope->selector && scope->offset == 0))
			fprintf(out,
				"(The page is large, %lld elements and %lld characters of text: Chrome's tree of all of "
				"it would hold the browser, so this is its first part, read from the page.)\n",
				elements, chars);
		rc = write_part(a, out, max_chars, scope);
	}
	if (fclose(out) != 0 && rc == 0)
		rc = hb_call_fail(a->call, "out of memory");
	if (rc < 0) {
		free(text);
		return NULL;
	}
	return text;
}

int act_answer_with_snapshot(struct act *a, const char *head)
{
	char line[1024];
	char *snap = act_snapshot(a, ACT_SNAPSHOT_CHARS, NULL);
	int rc;

	if (!snap)
		return -1;
	act_tab_line(a, line, sizeof line);
	rc = hb_call_succeedf(a->call, "%s%s%s\n%s\n%s", a->note, a->note[0] ? "\n" : "", head, line, snap);
	free(snap);
	return rc;
}
