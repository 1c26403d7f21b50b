/*
 * children - see children.h.  A pid the table does not hold was a child
 * whose exec failed (child_start said so at once, nothing was added) or
 * one that was already handed over; it is reaped and forgotten.
 */
#include "children.h"

#include <sys/wait.h>

#include "broker.h"
#include "invariant.h"
#include "launch.h"
#include "log.h"
#include "supervise.h"

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

void children_reap(struct broker *b)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		struct broker_child *e = children_find(b, pid, -1);

		if (!e) {
			log_debug(NULL, "reaped pid %ld, which is no child it lists", (long)pid);
			continue;
		}
		children_remove(e);
		switch (e->type) {
		case CHILD_SERVICE:
			supervisor_instance_ended(b, e->owner, status);
			break;
		case CHILD_LAUNCH:
			launch_ended(b, e->owner, status);
			break;
		}
	}
	supervisor_check_lost(b);
}
