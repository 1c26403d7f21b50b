/*
 * supervise - the policy of the broker's supervisor.
 *
 * Each service has one serving incarnation (cur).  A dead one is answered
 * for, then restarted: at once the first time, then with exponential
 * backoff up to a cap; the count starts again after a healthy period.  A
 * run of quick deaths is a crash loop, shown in status and events, never a
 * busy loop.  A service beats only while it has calls in flight (an idle
 * one sleeps; its death is seen through SIGCHLD); one whose heartbeats
 * stop while it has calls is killed and so restarted.
 * Replace (and restart, which is a replace from the same path) starts the
 * new incarnation beside the old one, moves new calls to it once it is
 * ready, and lets the old one drain before TERM, then KILL.
 */
#ifndef HB_SUPERVISE_H
#define HB_SUPERVISE_H

#include "broker.h"
#include "incarnation.h"

int supervisor_init(struct broker *b, char *err, size_t errlen);
void supervisor_start_all(struct broker *b);
/* inst's process ended with wait status (broker_reap, the one reaper):
 * its calls are answered for, and it is restarted or retired. */
void supervisor_instance_ended(struct broker *b, struct instance *inst, int status);
/* After the reaper's round: a listed instance that is no child of ours
 * any more is dropped (see supervisor_selfcheck). */
void supervisor_check_lost(struct broker *b);
/* Timers: hung services, scheduled restarts, TERM→KILL escalation. */
void supervisor_tick(struct broker *b, long long now);
long long supervisor_next_deadline(const struct broker *b);


void supervisor_on_ready(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);
void supervisor_on_heartbeat(struct instance *inst);
/* A heartbeat frame arrived (status shows the count: an idle service sends none). */
void supervisor_count_beat(struct instance *inst);
/* inst's idleTask answered an idle.ask (idle.h): stopped when it may be. */
void supervisor_on_idle_answer(struct broker *b, struct instance *inst, const struct hb_peer *peer,
			       const struct hb_env *e);

/* inst asks to be started anew (its confinement no longer covers what
 * it must read): when it is the current generation and asks for the
 * first time, a replace by the configured program that answers nobody. */
void supervisor_renew(struct broker *b, struct instance *inst, const char *why);

/* Admin operations; 0, or -1 with a reason.  replace/restart answer later
 * (when the new incarnation is ready) through the admin request. */
int supervisor_replace(struct broker *b, struct service *s, const char *exec, const char *op,
		       const struct hb_peer *peer, const struct reqid *id, char *err, size_t errlen);
int supervisor_stop(struct broker *b, struct service *s, char *err, size_t errlen);
int supervisor_start(struct broker *b, struct service *s, char *err, size_t errlen);

/* Shutdown: TERM every instance (KILL after the grace); 1 when all are gone. */
void supervisor_terminate_all(struct broker *b);
int supervisor_all_exited(const struct broker *b);
/* 1 when every service not stopped by hand has a ready instance. */
int supervisor_all_up(const struct broker *b);
const char *supervisor_state(const struct service *s);
/* The supervisor's invariants (every listed instance a live child of ours,
 * no more draining generations than allowed): 0 with "ok" in msg, or the
 * number of faults with the first described. */
int supervisor_selfcheck(const struct broker *b, char *msg, size_t msglen);
void supervisor_free(struct broker *b);

#endif
