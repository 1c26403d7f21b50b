/*
 * invariants - see invariants.h.  Each check walks a table once; a broken
 * rule is an HB_ASSERT, which names this file and line.
 */
#include "invariants.h"

#include <string.h>

#include "approvals.h"
#include "incarnation.h"
#include "invariant.h"
#include "runs.h"

/* 1 when c is on the list that starts at head. */
static int on_list(const struct call *head, const struct call *c)
{
	for (; head; head = head->next)
		if (head == c)
			return 1;
	return 0;
}

/* One call of the table: on the one list its state says. */
static void check_call(void *value, void *arg)
{
	const struct call *c = value;

	(void)arg;
	switch (c->state) {
	case CALL_RESOLVING:
		HB_ASSERT(!c->inst && !c->prev && !c->next);
		break;
	case CALL_WAITING:
		HB_ASSERT(!c->inst && c->svc && on_list(c->svc->wait_head, c));
		break;
	case CALL_SENT:
		HB_ASSERT(c->inst && on_list(c->inst->calls, c) && !on_list(c->svc->wait_head, c));
		break;
	}
}

static void check_calls(const struct broker *b)
{
	hb_map_each(&b->calls, check_call, NULL);
	for (int i = 0; i < b->nservices; i++) {
		const struct service *s = &b->services[i];
		struct instance *all[SUPERVISOR_MAX_LISTED];
		int n = supervisor_instances(s, all, SUPERVISOR_MAX_LISTED);

		for (const struct call *c = s->wait_head; c; c = c->next)
			HB_ASSERT(c->state == CALL_WAITING && hb_map_get(&b->calls, c->key) == c &&
				  (c->next || s->wait_tail == c));
		for (int j = 0; j < n; j++) {
			unsigned count = 0;

			for (const struct call *c = all[j]->calls; c; c = c->next, count++)
				HB_ASSERT(c->state == CALL_SENT && c->inst == all[j] && hb_map_get(&b->calls, c->key) == c);
			HB_ASSERT(count == all[j]->inflight);
			HB_ASSERT(all[j]->child.pprev && all[j]->child.pid == all[j]->pid &&
				  all[j]->child.type == CHILD_SERVICE && all[j]->child.owner == all[j]);
		}
	}
}

static void check_runs(const struct broker *b)
{
	for (const struct run *r = b->runs; r; r = r->next)
		for (const struct run *o = r->next; o; o = o->next)
			HB_ASSERT(strcmp(r->id, o->id) != 0);
}

void broker_check_invariants(const struct broker *b)
{
	check_calls(b);
	check_runs(b);
	approvals_check(b);
}
