/*
 * messages - the desktop's operations on queued session messages:
 * messages.list, messages.send (the user approves a held message) and
 * messages.discard, each passed to svc-messages as an internal request.
 */
#ifndef HB_MESSAGES_H
#define HB_MESSAGES_H

#include "broker.h"

void messages_admin(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);

#endif
