/*
 * held - see held.h.  The grace is the hang detector's own (HB_HANG_MS):
 * the heartbeat that says a long call ended may come that late.
 */
#include "held.h"

#include <stdio.h>
#include <string.h>

#include "envelope.h"
#include "route.h"

void held_note(struct broker *b, struct instance *inst, const struct hb_env *e)
{
	const char *key = hb_env_str_or(e, "heldKey", "");
	struct call *c;
	int64_t ms = 0;

	if (hb_env_int(e, "heldMs", &ms) < 0 || ms <= 0) {
		inst->held_since_ms = 0;
		inst->held_key[0] = inst->held_tool[0] = '\0';
		return;
	}
	inst->held_since_ms = broker_now_ms() - ms;
	if (strcmp(inst->held_key, key) == 0)
		return;
	snprintf(inst->held_key, sizeof inst->held_key, "%s", key);
	/* A cancelled call has left the table; its key alone then. */
	c = hb_map_get(&b->calls, key);
	snprintf(inst->held_tool, sizeof inst->held_tool, "%s", c && c->inst == inst ? c->tool : "");
}

long long held_deadline(const struct broker *b, const struct instance *inst)
{
	/* The last beat of a call that has ended may still name it. */
	if (!inst->held_since_ms || !inst->inflight)
		return 0;
	return inst->held_since_ms + inst->svc->cfg->call_limit_ms + b->set.hang_ms + 1;
}

void held_describe(const struct broker *b, const struct instance *inst, char *how, size_t howlen)
{
	long long limit = inst->svc->cfg->call_limit_ms;

	(void)b;
	snprintf(how, howlen, "stopped responding: a worker was held by call %s%s%s%s for more than the %lld s a "
		 "call of %s may take (call-limit), so it was killed", inst->held_key,
		 inst->held_tool[0] ? " (" : "", inst->held_tool, inst->held_tool[0] ? ")" : "", limit / 1000,
		 inst->svc->cfg->name);
}

/* The first call in flight on inst that is not the held one, or NULL. */
static struct call *first_sibling(const struct instance *inst)
{
	for (struct call *c = inst->calls; c; c = c->next)
		if (strcmp(c->key, inst->held_key) != 0)
			return c;
	return NULL;
}

void held_fail_siblings(struct broker *b, struct instance *inst)
{
	const struct service *s = inst->svc;
	char text[512];
	struct call *c;

	/* A draining copy is not restarted: a newer one already serves. */
	snprintf(text, sizeof text, "%s was %s because another call held one of its workers for more than the %lld s "
		 "a call of %s may take (call-limit); this call was stopped with it; try the call again",
		 s->cfg->name, inst == s->cur ? "restarted" : "stopped", s->cfg->call_limit_ms / 1000, s->cfg->name);
	/* From the head each time: answering a call may end others. */
	while ((c = first_sibling(inst)))
		route_finish(b, c, 0, text);
}
