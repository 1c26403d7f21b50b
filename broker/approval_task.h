/*
 * approval_task - the one service task that hears of approval cards and
 * may answer them (svc-alerts, which carries them to a phone through the
 * relay: docs/relay-protocol.md).  A confined service reaches no socket
 * but its own to the broker, so the cards come to it on back.sock, and
 * its answer is the narrow back op run.chatResolveApproval, which can
 * only answer an open card of the run it names.  The task asks for every
 * open card (approval.sync) whenever its link is new, so a card it missed
 * (its service started again, a message lost before its socket was
 * known) is shown all the same.
 */
#ifndef HB_APPROVAL_TASK_H
#define HB_APPROVAL_TASK_H

#include <jansson.h>

#include "broker.h"

/* Send the approvalTask (if a ready service declared one) `approval.card`
 * {event, json: card}.  Best effort: a log line when it cannot go. */
void approval_task_tell(struct broker *b, const char *event, const json_t *card);
/* back.sock approval.sync from inst: only from its declared approvalTask;
 * answered with `approval.cards` {json: every open card}. */
void approval_task_sync(struct broker *b, struct instance *inst, const struct hb_peer *peer, const struct hb_env *e);
/* back.sock run.chatResolveApproval {run, requestId, decision, relayId,
 * message?} from inst: only from its declared approvalTask; answered with
 * `approval.answered` {relayId, ok, text?}. */
void approval_task_answer(struct broker *b, struct instance *inst, const struct hb_peer *peer,
			  const struct hb_env *e);

#endif
