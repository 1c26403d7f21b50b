/*
 * approval_task - the one service task that hears of approval cards and
 * may answer them (svc-alerts, which carries them to a phone through the
 * relay: docs/relay-protocol.md).  A confined service reaches no socket
 * but its own to the broker, so the cards come to it on back.sock, and
 * its answer is the narrow back op run.chatResolveApproval, which can
 * only answer an open card of the run it names (approvals.c judges it;
 * this file only knows the task and what is sent to it).  The task asks for every
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
/* Whether peer is inst's declared approvalTask, of the service that holds
 * the role now (a log line naming op when not). */
int approval_task_from(struct broker *b, struct instance *inst, const struct hb_peer *peer, const char *op);
/* `approval.cards` {json: cards} to the task at peer. */
void approval_task_cards(struct broker *b, struct instance *inst, const struct hb_peer *peer, const json_t *cards);
/* `approval.answered` {relayId, ok, text?} to the task at peer: ok when
 * code is NULL, else refused with code (logged) and why. */
void approval_task_answered(struct broker *b, struct instance *inst, const struct hb_peer *peer,
			    const char *relay_id, const char *code, const char *why);

#endif
