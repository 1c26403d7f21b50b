/*
 * children - see children.h.  The table knows no owner's functions: the
 * reaper that hands an end to its owner is reap.c, above both.
 */
#include "children.h"

#include "broker.h"
#include "invariant.h"

void children_add(struct broker *b, struct broker_child *e, pid_t pid, enum child_type type, void *owner)
{
	HB_ASSERT(pid > 0 && !e->pprev && !children_find(b, pid, -1));
	e->pid = pid;
	e->type = type;
	e->owner = owner;
	e->next = b->children;
	if (b->children)
		b->children->pprev = &e->next;
	e->pprev = &b->children;
	b->children = e;
}

void children_remove(struct broker_child *e)
{
	if (!e->pprev)
		return;
	*e->pprev = e->next;
	if (e->next)
		e->next->pprev = e->pprev;
	e->next = NULL;
	e->pprev = NULL;
}

struct broker_child *children_find(const struct broker *b, pid_t pid, int type)
{
	for (struct broker_child *e = b->children; e; e = e->next)
		if (e->pid == pid && (type < 0 || e->type == (enum child_type)type))
			return e;
	return NULL;
}

int children_count(const struct broker *b, enum child_type type)
{
	int n = 0;

	for (const struct broker_child *e = b->children; e; e = e->next)
		n += e->type == type;
	return n;
}
