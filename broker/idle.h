/*
 * idle - when a service that idles (start = demand, or an `idle` line)
 * may be stopped for want of calls: after its idle time with no call in
 * flight or waiting and no handler still running, and, when its `ready`
 * named an idleTask, only once that task has answered "no work held" to
 * an ask sent after the quiet began.  The broker knows no service's work:
 * the task judges it (svc-messages: an outbox row still to go;
 * svc-alerts: the relay link the settings want) from what it reads after
 * the ask came, and every call routed to the instance, or a change of its
 * wake folder, voids an ask still out (route.c, wake.c), so no answer
 * speaks of a state older than the last call.  The stop itself is the
 * supervisor's (supervise.c).
 */
#ifndef HB_IDLE_H
#define HB_IDLE_H

#include "broker.h"

/* The tick for s's serving instance: 1 when it may be stopped now (its
 * idle time passed, and it has no idleTask); otherwise 0, having asked
 * the idleTask when its idle time passed. */
int idle_due(struct broker *b, struct service *s, long long now);
/* inst's idleTask answered e (idle.answer, from peer): 1 when inst may be
 * stopped now (the answer is to the ask still out, and says no work). */
int idle_answered(struct broker *b, struct instance *inst, const struct hb_peer *peer, const struct hb_env *e);
/* When s's serving instance is next looked at for idleness, or 0. */
long long idle_deadline(const struct broker *b, const struct service *s);

#endif
