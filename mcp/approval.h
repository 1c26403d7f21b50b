/*
 * approval - the approval cards of this connection's run, offered to the
 * client too when it declared elicitation.  The broker raises and holds
 * the card of an agent-class call of an external run (broker/approvals.c),
 * and runs the call only once it is approved, so no client can skip it;
 * hb-mcp only offers it to the client (elicitation/create with a boolean
 * "approve") and passes the client's answer on (run.chatResolveApproval).
 * The client's answer decides only when the person chose: accept (with
 * approve true: allow, false: deny) or decline (deny).  A cancel (the
 * question dismissed without a choice) or an error answer leaves the card
 * open for hbctl, the desktop or the phone.  Whichever answer comes first
 * wins: a card answered elsewhere (hbctl approve, the desktop, the phone)
 * withdraws the client's question (notifications/cancelled), and the
 * client's late answer is refused by the broker and ignored.
 */
#ifndef HB_MCP_APPROVAL_H
#define HB_MCP_APPROVAL_H

#include <jansson.h>

#include "mcp.h"

/* approval.requested / approval.resolved / approval.cancelled. */
void approval_on_event(struct mcp *m, const char *topic, const json_t *card);
/* A response from the client: 1 when it answered one of our questions. */
int approval_on_response(struct mcp *m, const json_t *msg);
/* The elicitation/create params of a card (a new reference). */
json_t *approval_question(const json_t *card);
/* The decision an elicitation result gives: 1 allow (accept with approve
 * true), 0 deny (accept without it, or decline), -1 none (cancel: the
 * question was dismissed; the card stays open). */
int approval_decision(const json_t *result);
/* Withdraw every open question (the broker went away: its cards too). */
void approval_forget_all(struct mcp *m);
void approval_free(struct mcp *m);

#endif
