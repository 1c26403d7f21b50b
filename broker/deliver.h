/*
 * deliver - the last leg of a message between sessions.  A bridge says
 * which session's agent it carries (session.attach, repeated every
 * second, so a restarted broker learns it again, and session.detach when
 * it ends, or with outcomesWithinMs when it closes still owing one);
 * svc-messages' task asks
 * the broker to deliver an outbox entry (back op `deliver`); the broker
 * checks the hold rules again with the access of the recipient's running
 * turn, hands the message to the bridge and answers `accepted`, `held` or
 * `offline`; the bridge's `deliver.done` goes back to svc-messages' task.
 * The broker keeps no message: svc-messages re-sends until it hears the
 * outcome, and the bridge carries one operation id into its agent once.
 */
#ifndef HB_DELIVER_H
#define HB_DELIVER_H

#include "broker.h"

/* Front ops of a bridge: session.attach, session.detach, deliver.done. */
void deliver_attach(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);
void deliver_detach(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);
void deliver_done(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);
/* The session a connection attached for, with its agent in *agent, or
 * NULL when it is attached for none (timeline_op.c binds a Codex
 * bridge's rows by it). */
const char *deliver_attached_session(struct broker *b, const struct hb_peer *peer, const char **agent);
/* Back ops of a service: deliver (svc-messages' task) and event (a
 * timeline event to publish). */
void deliver_request(struct broker *b, struct instance *from, const struct hb_peer *peer, const struct hb_env *e);
void deliver_event(struct broker *b, struct instance *from, const struct hb_env *e);
/* Mark bridges that stopped attaching as lapsed, and forget lapsed ones
 * past LAPSED_OUTCOMES_MS and closing ones past the time they named (the
 * loop wakes at deliver_next_deadline). */
void deliver_tick(struct broker *b, long long now);
/* When the next attachment expires (deliver_tick), or 0 with none. */
long long deliver_next_deadline(const struct broker *b);
void deliver_free(struct broker *b);

#endif
