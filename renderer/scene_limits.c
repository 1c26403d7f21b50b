/*
 * scene_limits - the renderer's size limits, checked before any work
 * (limits.h).
 *
 * A scene's cost is not its length in bytes: <use href="#g"> draws #g
 * again with everything in it, so ten lines of nested <use> can ask
 * librsvg for millions of elements in every frame.  The count here walks
 * the document once, each <use> target's count computed once and kept by
 * its id, so a bomb is measured in a few microseconds, not drawn.
 */
#include "scene_limits.h"

#include <stdlib.h>
#include <string.h>

#include "map.h"

#define XLINK_NS "http://www.w3.org/1999/xlink"

/* An element with an id: where a <use> leads, and what it draws. */
struct target {
	xmlChar *id;       /* the map's key */
	xmlNodePtr node;
	long count;        /* elements it draws, <use> drawn out; -1 not yet */
	int depth;         /* <use> inside <use> in it, levels */
	int visiting;      /* on the current path: a <use> cycle, which librsvg draws as nothing */
};

struct counter {
	struct hb_map ids;      /* id -> struct target, the first element of an id (as librsvg) */
	struct target *targets;
	size_t n, cap;
	int path;          /* targets being counted, one inside the other */
};

static int line_of(xmlNodePtr n)
{
	long line = xmlGetLineNo(n);

	return line > 0 && line <= 0x7fffffff ? (int)line : 0;
}

void explainer_check_limits(const struct explainer *e, struct problems *p)
{
	double seconds = (double)e->total_frames / e->fps;

	if (e->n > EXPLAINER_MAX_SCENES)
		problems_add(p, EXPLAINER_MANIFEST, 0, "has %zu scenes; an explainer has at most %d: join "
			     "scenes or make a second video", e->n, EXPLAINER_MAX_SCENES);
	if (seconds > EXPLAINER_MAX_SECONDS)
		problems_add(p, EXPLAINER_MANIFEST, 0, "the scenes last %.1f s together; an explainer lasts at "
			     "most %d s (%d minutes): shorten the scenes' durations", seconds,
			     EXPLAINER_MAX_SECONDS, EXPLAINER_MAX_SECONDS / 60);
}

static int collect_ids(struct counter *c, xmlNodePtr n)
{
	for (; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		xmlChar *id = xmlGetNoNsProp(n, BAD_CAST "id");
		if (id && !hb_map_get(&c->ids, (const char *)id)) {
			if (c->n == c->cap) {
				size_t cap = c->cap ? c->cap * 2 : 64;
				struct target *t = realloc(c->targets, cap * sizeof *t);
				if (!t) {
					xmlFree(id);
					return -1;
				}
				c->targets = t;
				c->cap = cap;
			}
			c->targets[c->n] = (struct target){ id, n, -1, 0, 0 };
			c->n++;
		} else {
			xmlFree(id);
		}
		if (collect_ids(c, n->children) < 0)
			return -1;
	}
	return 0;
}

/* The map is filled once the array no longer moves. */
static int index_ids(struct counter *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (hb_map_put(&c->ids, (const char *)c->targets[i].id, &c->targets[i]) < 0)
			return -1;
	return 0;
}

static long saturate(long a, long b)
{
	return a + b > SCENE_MAX_ELEMENTS ? SCENE_MAX_ELEMENTS + 1 : a + b;
}

static long count_element(struct counter *c, xmlNodePtr el, int *depth);

/* What a <use> draws again: its target's count, computed once, and how
 * many <use> deep it goes (this one included). */
static long count_use(struct counter *c, xmlNodePtr use, int *depth)
{
	xmlChar *href = xmlGetNoNsProp(use, BAD_CAST "href");
	struct target *t;

	if (!href)
		href = xmlGetNsProp(use, BAD_CAST "href", BAD_CAST XLINK_NS);
	t = href && href[0] == '#' ? hb_map_get(&c->ids, (const char *)href + 1) : NULL;
	xmlFree(href);
	*depth = 0;
	if (!t || t->visiting)
		return 0;
	if (t->count < 0) {
		/* Only a real chain of <use> recurses this deep, so the stack
		 * is bounded and the answer the same in any order. */
		if (++c->path > SCENE_MAX_USE_DEPTH) {
			c->path--;
			*depth = SCENE_MAX_USE_DEPTH + 1;
			return SCENE_MAX_ELEMENTS + 1;
		}
		t->visiting = 1;
		t->count = count_element(c, t->node, &t->depth);
		t->visiting = 0;
		c->path--;
	}
	*depth = t->depth + 1;
	return t->count;
}

static long count_element(struct counter *c, xmlNodePtr el, int *depth)
{
	long n = 1;
	int d;

	*depth = 0;
	if (strcmp((const char *)el->name, "use") == 0)
		n = saturate(n, count_use(c, el, depth));
	for (xmlNodePtr k = el->children; k && n <= SCENE_MAX_ELEMENTS; k = k->next)
		if (k->type == XML_ELEMENT_NODE) {
			n = saturate(n, count_element(c, k, &d));
			if (d > *depth)
				*depth = d;
		}
	return n;
}

void scene_check_limits(xmlDocPtr doc, const char *name, struct problems *p)
{
	xmlNodePtr root = xmlDocGetRootElement(doc);
	struct counter c = { 0 };
	long n;
	int depth;

	if (!root)
		return;
	hb_map_init(&c.ids);
	if (collect_ids(&c, root) < 0 || index_ids(&c) < 0) {
		problems_add(p, name, 0, "out of memory counting the scene's elements");
	} else if ((n = count_element(&c, root, &depth)) > SCENE_MAX_ELEMENTS ||
		   depth > SCENE_MAX_USE_DEPTH) {
		if (depth > SCENE_MAX_USE_DEPTH)
			problems_add(p, name, line_of(root), "<use> elements draw other <use> elements more than "
				     "%d levels deep; a scene may nest <use> at most %d levels",
				     SCENE_MAX_USE_DEPTH, SCENE_MAX_USE_DEPTH);
		else
			problems_add(p, name, line_of(root), "the scene has more than %d elements, each <use> "
				     "counted as a copy of its target and all inside it, and librsvg would draw "
				     "them in every frame; a scene may have at most %d: use fewer or less nested "
				     "<use> elements",
				     SCENE_MAX_ELEMENTS, SCENE_MAX_ELEMENTS);
	}
	for (size_t i = 0; i < c.n; i++)
		xmlFree(c.targets[i].id);
	free(c.targets);
	hb_map_clear(&c.ids);
}
