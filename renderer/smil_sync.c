/*
 * smil_sync - every animation's interval, with its syncbases resolved
 * ("b.begin" waits for b's begin, "a.end+1s" for a second after a's end),
 * and where in its simple duration an animation is at scene time t.
 *
 * Each animation has two nodes, its begin and its end; an end depends on
 * its own begin and on the syncbases of its end list, a begin on those of
 * its begin list.  They are resolved depth first with an explicit stack,
 * because scene authors chain steps and a chain may be long; meeting a
 * node that is still open is a cycle, reported with the whole loop.
 */
#include "smil_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum node_state { NODE_NEW, NODE_OPEN, NODE_DONE, NODE_FAILED };

struct resolver {
	struct smil_anim *all;
	size_t n;
	unsigned char *state;  /* per node: 2k is all[k]'s begin, 2k + 1 its end */
	size_t *stack;
	size_t depth;
	const struct smil_report *r;
};

/* The idx-th node that node u waits for, or -1 after the last. */
static long dependency(const struct resolver *rs, size_t u, size_t idx)
{
	const struct smil_anim *a = &rs->all[u / 2];
	const struct smil_times *list = u % 2 ? &a->end : &a->begin;

	if (u % 2) {
		if (idx == 0)
			return (long)(u - 1);
		idx--;
	}
	for (size_t i = 0; i < list->n; i++)
		if (list->v[i].ref >= 0 && idx-- == 0)
			return list->v[i].ref * 2 + list->v[i].ref_end;
	return -1;
}

static double item_time(const struct smil_anim *all, const struct smil_time *item)
{
	const struct smil_anim *b;

	if (item->ref < 0)
		return item->offset;
	b = &all[item->ref];
	return (item->ref_end ? b->begin_at + b->active : b->begin_at) + item->offset;
}

static int compute_begin(const struct resolver *rs, struct smil_anim *a)
{
	double t = a->begin.n ? INFINITY : 0;

	for (size_t i = 0; i < a->begin.n; i++)
		t = fmin(t, item_time(rs->all, &a->begin.v[i]));
	if (isinf(t)) {
		smil_refuse(rs->r, a, "never begins: its begin waits for the end of an animation that never "
			    "ends; give that animation a dur or an end");
		return -1;
	}
	a->begin_at = t;
	return 0;
}

static int compute_end(const struct resolver *rs, struct smil_anim *a)
{
	double end_at = INFINITY, before = INFINITY, d = a->dur;

	for (size_t i = 0; i < a->end.n; i++) {
		double t = item_time(rs->all, &a->end.v[i]);
		if (t >= a->begin_at)
			end_at = fmin(end_at, t);
		else
			before = t;
	}
	if (isinf(end_at) && isfinite(before)) {
		smil_refuse(rs->r, a, "ends at %gs, before it begins at %gs; give it an end after its begin",
			    before, a->begin_at);
		return -1;
	}
	if (a->repeat_count > 0 || isfinite(a->repeat_dur))
		d = fmin(a->repeat_count > 0 ? a->dur * a->repeat_count : INFINITY, a->repeat_dur);
	a->active = fmin(d, end_at - a->begin_at);
	return 0;
}

static void node_name(const struct resolver *rs, size_t u, char *out, size_t len)
{
	const struct smil_anim *a = &rs->all[u / 2];

	if (a->id)
		snprintf(out, len, "%s.%s", (const char *)a->id, u % 2 ? "end" : "begin");
	else
		snprintf(out, len, "the %s of line %d", u % 2 ? "end" : "begin", a->line);
}

/* u waits for d, which is open below it on the stack: the loop is d ... u. */
static void report_cycle(struct resolver *rs, size_t u, size_t d)
{
	char chain[600] = "", name[160];
	size_t from = 0, used = 0;

	while (rs->stack[from] != d)
		from++;
	for (size_t i = from; i <= rs->depth; i++) {
		node_name(rs, i < rs->depth ? rs->stack[i] : d, name, sizeof name);
		int w = snprintf(chain + used, sizeof chain - used, "%s%s", i > from ? " waits for " : "", name);
		if (w < 0 || (size_t)w >= sizeof chain - used)
			break; /* a long loop: the start of it is enough to find it */
		used += (size_t)w;
	}
	smil_refuse(rs->r, &rs->all[u / 2], "has timing that waits for itself (%s); begin one of these "
		    "at a clock value instead", chain);
	while (rs->depth > 0)
		rs->state[rs->stack[--rs->depth]] = NODE_FAILED;
}

/* Advances the node on top of the stack: pushes what it waits for, or computes it. */
static int step(struct resolver *rs)
{
	size_t u = rs->stack[rs->depth - 1];
	long d;
	int rc;

	for (size_t idx = 0; (d = dependency(rs, u, idx)) >= 0; idx++) {
		switch (rs->state[d]) {
		case NODE_DONE:
			continue;
		case NODE_NEW:
			rs->state[d] = NODE_OPEN;
			rs->stack[rs->depth++] = (size_t)d;
			return 0;
		case NODE_FAILED: /* its problem is already reported */
			rs->state[u] = NODE_FAILED;
			rs->depth--;
			return 0;
		default:
			report_cycle(rs, u, (size_t)d);
			return -1;
		}
	}
	rc = u % 2 ? compute_end(rs, &rs->all[u / 2]) : compute_begin(rs, &rs->all[u / 2]);
	rs->state[u] = rc == 0 ? NODE_DONE : NODE_FAILED;
	rs->depth--;
	return rc;
}

int smil_times_resolve(struct smil_anim *all, size_t n, const struct smil_report *r)
{
	struct resolver rs = { all, n, calloc(2 * n + 1, 1), calloc(2 * n + 1, sizeof(size_t)), 0, r };
	int rc = 0;

	if (!rs.state || !rs.stack) {
		problems_add(r->p, r->file, 0, "the animations could not be timed: out of memory");
		rc = -1;
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		if (!all[k].ok)
			rs.state[2 * k] = rs.state[2 * k + 1] = NODE_FAILED;
	for (size_t root = 0; root < 2 * n; root++) {
		if (rs.state[root] != NODE_NEW)
			continue;
		rs.state[root] = NODE_OPEN;
		rs.stack[rs.depth++] = root;
		while (rs.depth > 0)
			if (step(&rs) < 0)
				rc = -1;
	}
out:
	free(rs.state);
	free(rs.stack);
	return rc;
}

int smil_anim_progress(const struct smil_anim *a, double t, double *p)
{
	double elapsed = t - a->begin_at, rest;

	if (elapsed < 0)
		return 0;
	if (elapsed < a->active) {
		*p = isinf(a->dur) ? 0 : fmod(elapsed, a->dur) / a->dur;
		return 1;
	}
	if (!a->freeze)
		return 0;
	if (isinf(a->dur)) {
		*p = 0;
		return 1;
	}
	/* Frozen at the end of the last repeat: a whole number of repeats ends on
	 * the last value (p = 1), not on the first value of a next repeat. */
	rest = fmod(a->active, a->dur);
	*p = rest < 1e-9 * a->dur || a->dur - rest < 1e-9 * a->dur ? 1 : rest / a->dur;
	return 1;
}
