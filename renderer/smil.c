/*
 * smil - the SMIL animation subset as a pure function of scene time t
 * (smil.h): smil_build reads every animation element of a document into a
 * model and removes them; smil_apply(t) writes each animated attribute's
 * value at t into the document.
 *
 * The model groups animations by (target element, attribute) into tracks.
 * Each track remembers the attribute's base value, and its animations are
 * sorted by begin time, so at any t the last one that has begun and is
 * active or frozen is the one that sets the attribute (SMIL's sandwich
 * without additive), and with none the base value comes back.
 */
#include "smil.h"
#include "smil_int.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct smil_track {
	xmlNodePtr target;        /* borrowed from the document */
	const struct smil_attr *attr;
	xmlChar *base;            /* the attribute as written; NULL when absent */
	size_t first, count;      /* its animations in m->anims, by begin time */
};

struct smil {
	struct smil_anim *anims;
	size_t nanims, anims_cap;
	struct smil_track *tracks;
	size_t ntracks;
	struct smil_buf buf;      /* reused by every smil_apply */
};

static void refuse_element(const xmlNode *node, const struct smil_report *r)
{
	const char *name = (const char *)node->name;
	int line = (int)xmlGetLineNo(node);

	if (strcmp(name, "animateMotion") == 0)
		problems_add(r->p, r->file, line, "<animateMotion> is not supported; move the element with "
			     "<animateTransform type=\"translate\" values=\"x1 y1;x2 y2;...\">");
	else if (strcmp(name, "animateColor") == 0)
		problems_add(r->p, r->file, line, "<animateColor> is not supported (SVG dropped it); use <animate> "
			     "with the same attributes");
	else
		problems_add(r->p, r->file, line, "<%s> is not supported; hide an element with <set "
			     "attributeName=\"display\" to=\"none\" begin=\"...\" fill=\"freeze\">", name);
}

static int add_anim(struct smil *m, xmlNodePtr node)
{
	static const char *const names[] = { "animate", "set", "animateTransform" };
	struct smil_anim *a;

	if (m->nanims == m->anims_cap) {
		size_t cap = m->anims_cap ? m->anims_cap * 2 : 16;
		struct smil_anim *grown = realloc(m->anims, cap * sizeof *grown);
		if (!grown)
			return -1;
		m->anims = grown;
		m->anims_cap = cap;
	}
	a = &m->anims[m->nanims];
	memset(a, 0, sizeof *a);
	a->node = node;
	a->line = (int)xmlGetLineNo(node);
	a->type = strcmp((const char *)node->name, "set") == 0 ? SMIL_SET
		  : strcmp((const char *)node->name, "animate") == 0 ? SMIL_ANIMATE : SMIL_ANIMATE_TRANSFORM;
	a->element = names[a->type];
	a->id = xmlGetNoNsProp(node, BAD_CAST "id");
	a->order = m->nanims++;
	return 0;
}

/* Remembers node's id for href="#id" (the first element of an id wins). */
static int add_element_id(struct smil_ids *ids, xmlNodePtr node)
{
	xmlChar *id = xmlGetNoNsProp(node, BAD_CAST "id");

	if (!id || hb_map_get(&ids->elements, (const char *)id)) {
		xmlFree(id);
		return 0;
	}
	if ((ids->nkeys & (ids->nkeys - 1)) == 0) { /* 0, 1, 2, 4, ...: double */
		xmlChar **grown = realloc(ids->keys, (ids->nkeys ? ids->nkeys * 2 : 1) * sizeof *grown);
		if (!grown) {
			xmlFree(id);
			return -1;
		}
		ids->keys = grown;
	}
	ids->keys[ids->nkeys++] = id;
	return hb_map_put(&ids->elements, (const char *)id, node);
}

static int add_anim_ids(struct smil *m, struct smil_ids *ids)
{
	for (size_t k = m->nanims; k-- > 0;) /* backwards, so that the first of an id wins */
		if (m->anims[k].id && hb_map_put(&ids->anims, (const char *)m->anims[k].id, (void *)(uintptr_t)(k + 1)) < 0)
			return -1;
	return 0;
}

static void free_ids(struct smil_ids *ids)
{
	hb_map_clear(&ids->elements);
	hb_map_clear(&ids->anims);
	for (size_t i = 0; i < ids->nkeys; i++)
		xmlFree(ids->keys[i]);
	free(ids->keys);
}

/* Every animation element in document order (refused ones become problems),
 * and every element id. */
static int collect(struct smil *m, struct smil_ids *ids, xmlDocPtr doc, const struct smil_report *r)
{
	xmlNodePtr cur = xmlDocGetRootElement(doc);

	while (cur) {
		int animation = smil_is_animation(cur);
		if (cur->type == XML_ELEMENT_NODE && add_element_id(ids, cur) < 0)
			return -1;
		if (animation && (strcmp((const char *)cur->name, "animate") == 0 ||
				  strcmp((const char *)cur->name, "set") == 0 ||
				  strcmp((const char *)cur->name, "animateTransform") == 0)) {
			if (add_anim(m, cur) < 0)
				return -1;
		} else if (animation) {
			refuse_element(cur, r);
		}
		if (!animation && cur->type == XML_ELEMENT_NODE && cur->children) {
			cur = cur->children;
			continue;
		}
		while (cur && !cur->next)
			cur = cur->parent;
		if (cur)
			cur = cur->next;
	}
	return 0;
}

/* By target and attribute (the order of tracks does not matter: each
 * writes its own attribute), then by begin time, then by document order. */
static int compare_anims(const void *x, const void *y)
{
	const struct smil_anim *a = x, *b = y;

	if (a->target != b->target)
		return (uintptr_t)a->target < (uintptr_t)b->target ? -1 : 1;
	if (a->attr != b->attr)
		return (uintptr_t)a->attr < (uintptr_t)b->attr ? -1 : 1;
	if (a->begin_at != b->begin_at)
		return a->begin_at < b->begin_at ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static int same_track(const struct smil_anim *a, const struct smil_anim *b)
{
	return a->target == b->target && a->attr == b->attr;
}

static int make_tracks(struct smil *m)
{
	size_t n = 0;

	if (m->nanims > 1)
		qsort(m->anims, m->nanims, sizeof *m->anims, compare_anims);
	for (size_t k = 0; k < m->nanims; k++)
		n += k == 0 || !same_track(&m->anims[k - 1], &m->anims[k]);
	if (n && !(m->tracks = calloc(n, sizeof *m->tracks)))
		return -1;
	for (size_t k = 0; k < m->nanims; k++) {
		struct smil_anim *a = &m->anims[k];
		if (k == 0 || !same_track(&m->anims[k - 1], a)) {
			struct smil_track *t = &m->tracks[m->ntracks++];
			*t = (struct smil_track){ a->target, a->attr, NULL, k, 0 };
			t->base = xmlGetNoNsProp(a->target, BAD_CAST a->attr->name);
		}
		a->track = m->ntracks - 1;
		m->tracks[a->track].count++;
	}
	return 0;
}

struct smil *smil_build(xmlDocPtr doc, const char *name, struct problems *p)
{
	struct smil_report r = { name, p };
	struct smil *m = calloc(1, sizeof *m);
	struct smil_ids ids = { 0 };
	size_t before = p->n;

	hb_map_init(&ids.elements);
	hb_map_init(&ids.anims);
	if (!m || collect(m, &ids, doc, &r) < 0 || add_anim_ids(m, &ids) < 0) {
		problems_add(p, name, 0, "the animations could not be read: out of memory");
		free_ids(&ids);
		smil_free(m);
		return NULL;
	}
	for (size_t k = 0; k < m->nanims; k++)
		smil_read_anim(&m->anims[k], &ids, &r);
	free_ids(&ids);
	if (smil_times_resolve(m->anims, m->nanims, &r) < 0 || p->n > before) {
		smil_free(m);
		return NULL;
	}
	if (make_tracks(m) < 0) {
		problems_add(p, name, 0, "the animations could not be read: out of memory");
		smil_free(m);
		return NULL;
	}
	for (size_t k = 0; k < m->nanims; k++) {
		xmlUnlinkNode(m->anims[k].node);
		xmlFreeNode(m->anims[k].node);
		m->anims[k].node = NULL;
	}
	return m;
}

static void write_value(struct smil *m, const struct smil_track *track, const struct smil_anim *a, double p)
{
	size_t i;
	double f;

	m->buf.len = 0;
	if (track->attr->kind == SMIL_TRANSFORM && track->base)
		smil_buf_add(&m->buf, "%s ", (const char *)track->base); /* the element's own transform first */
	smil_curve_at(a, p, &i, &f);
	smil_value_write(&m->buf, a->attr, a->transform, &a->values[i], f > 0 ? &a->values[i + 1] : NULL, f);
	if (!xmlSetProp(track->target, BAD_CAST a->attr->name, BAD_CAST m->buf.s))
		abort(); /* out of memory: smil_apply has no way to fail, and a stale value would be a wrong frame */
}

void smil_apply(struct smil *m, double t)
{
	/* An attribute the target did not have is taken off first and added back
	 * in track order: a new attribute goes last, so otherwise the order of an
	 * element's attributes, and the serialized bytes, would depend on which
	 * t came before. */
	for (size_t k = 0; k < m->ntracks; k++)
		if (!m->tracks[k].base)
			(void)xmlUnsetProp(m->tracks[k].target, BAD_CAST m->tracks[k].attr->name); /* -1: absent */
	for (size_t k = 0; k < m->ntracks; k++) {
		const struct smil_track *track = &m->tracks[k];
		const struct smil_anim *winner = NULL;
		double p = 0;

		for (size_t j = track->first + track->count; j-- > track->first && !winner;)
			if (smil_anim_progress(&m->anims[j], t, &p))
				winner = &m->anims[j];
		if (winner)
			write_value(m, track, winner, p);
		else if (track->base && !xmlSetProp(track->target, BAD_CAST track->attr->name, track->base))
			abort();
	}
}

size_t smil_count(const struct smil *m)
{
	return m->nanims;
}

static void anim_clear(struct smil_anim *a)
{
	for (size_t i = 0; i < a->nvalues; i++)
		smil_value_free(&a->values[i]);
	free(a->values);
	free(a->key_times);
	free(a->key_splines);
	free(a->begin.v);
	free(a->end.v);
	xmlFree(a->id);
}

void smil_free(struct smil *m)
{
	if (!m)
		return;
	for (size_t k = 0; k < m->nanims; k++)
		anim_clear(&m->anims[k]);
	for (size_t t = 0; t < m->ntracks; t++)
		xmlFree(m->tracks[t].base);
	free(m->anims);
	free(m->tracks);
	free(m->buf.s);
	free(m);
}

int smil_animates_within(const struct smil *m, const xmlNode *node)
{
	for (size_t i = 0; i < m->nanims; i++)
		for (const xmlNode *n = m->anims[i].target; n; n = n->parent)
			if (n == node)
				return 1;
	return 0;
}

size_t smil_tracks(const struct smil *m)
{
	return m->ntracks;
}

void smil_track_info(const struct smil *m, size_t i, const xmlNode **target, const char **attr, int *line,
		     const char **element)
{
	const struct smil_track *t = &m->tracks[i];
	const struct smil_anim *first = &m->anims[t->first];

	*target = t->target;
	*attr = t->attr->name;
	*line = first->line;
	*element = first->element;
}
