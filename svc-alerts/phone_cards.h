/*
 * phone_cards - the approval cards the device link shows the phone, and
 * the phone's answers to them (docs/relay-protocol.md, "approval-
 * requested").  The broker tells svc-alerts' task of every card that
 * opens or settles (approval.card on the task's socket: svc-alerts is its
 * approvalTask); the open ones go to the relay while the link is ready,
 * all again on each new link.  A phone's approval-resolve goes to the
 * broker as run.chatResolveApproval, which answers only an open card of
 * the run it names; what became of it goes back as approval-result.
 * Only the link's thread uses it.
 */
#ifndef HB_PHONE_CARDS_H
#define HB_PHONE_CARDS_H

#include "relay_proto.h"

struct phone_cards;

struct phone_cards *phone_cards_new(void);
void phone_cards_free(struct phone_cards *pc);
struct hb_env;
/* Read everything the broker sent on sock (the task's socket); what is
 * not about cards (idle.ask) goes to other(arg, the message). */
void phone_cards_from_broker(struct phone_cards *pc, void *sock, void (*other)(void *arg, const struct hb_env *e),
			     void *arg);
/* A new link is ready: every open card goes to it again, and the broker
 * is asked for them all (approval.sync on sock), since the task may have
 * missed some. */
void phone_cards_relink(struct phone_cards *pc, void *sock);
/* The next message for the relay (malloc'd JSON text; the caller frees
 * it), or NULL when nothing waits: cards not yet shown, outcomes. */
char *phone_cards_next(struct phone_cards *pc);
/* Whether something waits for phone_cards_next. */
int phone_cards_pending(const struct phone_cards *pc);
/* The relay's approval-resolve m: to the broker on sock. */
void phone_cards_answer(struct phone_cards *pc, void *sock, const struct hb_relay_msg *m);

#endif
