/*
 * idle - see idle.h.  Why an ask and not a flag the service keeps up to
 * date (docs/decisions.md, "A service that holds work"): a flag sent by
 * the task travels on another socket than the calls' results, so a "no
 * work" sent before a call could arrive after its result; an ask sent
 * once every handler has answered is read by the task after everything
 * those handlers committed, so its answer is never older than a call.
 */
#include "idle.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zmq.h>

#include "log.h"
#include "opfields.h"
#include "protocol.h"
#include "wait.h"
#include "wake.h"

/* Nothing of inst runs or waits: no call in flight or queued in the
 * broker, and no handler still busy (a cancelled call leaves the broker's
 * list at once, but its handler may still commit work). */
static int quiet(const struct service *s, const struct instance *inst)
{
	return !inst->inflight && !s->wait_head && !inst->busy && !inst->queued;
}

/* s may be stopped for idleness, and nobody else decides about it now:
 * no replacement starting, no admin request waiting, no stop of any kind
 * under way.  A service that only a change of its folder starts again is
 * not stopped while that change would go unseen. */
static int may_idle(const struct broker *b, const struct service *s)
{
	return s->cfg->idles && wake_watching(b, s) && !s->next && !s->admin_waiting && !b->stopping &&
	       !s->admin_stopped;
}

static void ask(struct broker *b, struct instance *inst)
{
	struct hb_peer to;
	struct hb_env m;

	inst->idle_ask = ++b->idle_asks;
	to.len = (size_t)snprintf((char *)to.id, sizeof to.id, "%s", inst->idle_task);
	to.pid = 0;
	hb_env_init(&m);
	hb_env_set_str(&m, "op", HB_OP_IDLE_ASK);
	hb_env_set_int(&m, "ask", (int64_t)inst->idle_ask);
	if (broker_send(b, b->back, &to, &m) < 0) {
		log_warn(inst->id, "cannot ask whether it holds work: %s; asking again after its idle time",
			 zmq_strerror(errno));
		inst->idle_ask = 0;
	}
}

int idle_due(struct broker *b, struct service *s, long long now)
{
	struct instance *inst = s->cur;

	if (!inst || !inst->ready || !may_idle(b, s))
		return 0;
	if (!quiet(s, inst)) {
		inst->quiet_since_ms = 0;
		inst->idle_ask = 0;
		return 0;
	}
	if (!inst->quiet_since_ms)
		inst->quiet_since_ms = now;
	if (now < inst->quiet_since_ms + s->cfg->idle_ms)
		return 0;
	/* the next look, whatever comes of this one: another idle time on */
	inst->quiet_since_ms = now;
	if (!inst->idle_task[0])
		return 1;
	ask(b, inst);
	return 0;
}

int idle_answered(struct broker *b, struct instance *inst, const struct hb_peer *peer, const struct hb_env *e)
{
	struct service *s = inst->svc;
	int64_t id = 0;
	int holds = hb_req_bool(e, "holdsWork");
	const char *why = hb_env_str_or(e, "why", "");

	hb_env_int(e, "ask", &id);

	if (!inst->idle_task[0] || peer->len != strlen(inst->idle_task) ||
	    memcmp(peer->id, inst->idle_task, peer->len) != 0) {
		log_warn(inst->id, "idle.answer dropped: not from the task it named as its idleTask");
		return 0;
	}
	if (holds != inst->holds_work)
		log_info(inst->id, "%s%s%.200s", holds ? "holds work, so it stays up" : "holds no work",
			 *why ? ": " : "", why);
	inst->holds_work = holds;
	snprintf(inst->holds_why, sizeof inst->holds_why, "%s", why);
	if (id <= 0 || (uint64_t)id != inst->idle_ask) {
		log_debug(inst->id, "an answer to an ask that a call or a change of its folder voided");
		return 0;
	}
	inst->idle_ask = 0;
	return !holds && inst == s->cur && quiet(s, inst) && may_idle(b, s);
}

long long idle_deadline(const struct broker *b, const struct service *s)
{
	const struct instance *inst = s->cur;

	if (!inst || !inst->quiet_since_ms || !may_idle(b, s))
		return 0;
	return inst->quiet_since_ms + s->cfg->idle_ms;
}
