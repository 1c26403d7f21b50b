/*
 * approvals - Claude's permission requests held as approval cards until a
 * person answers them (hbctl approve/decline, or a desktop through the
 * front operations).  Codex never asks before an hbcode tool call.
 */
#ifndef HB_APPROVALS_H
#define HB_APPROVALS_H

#include "broker.h"

/* claude.permission {json: the host's permission event}: held; the reply
 * goes out when the card is resolved. */
void approvals_request(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);
/* approval.list: the open cards as JSON. */
void approvals_list(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);
/* approval.resolve {approval, decision: allow|deny, message?}. */
void approvals_resolve(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);
/* The run ended: stop denies each open card "Run stopped.", close marks
 * them cancelled. */
void approvals_end_run(struct broker *b, const char *run, int stop);
/* HB_ASSERT the table's rules (invariants.c): ids unique, every card's
 * run open (a stop or a close settles its cards). */
void approvals_check(const struct broker *b);
void approvals_free(struct broker *b);

#endif
