/*
 * admin - the user's side of the queue, reached through the broker's
 * messages.list / messages.send / messages.discard (hbctl messages):
 * internal tools, so no agent can approve its own message.
 */
#ifndef MESSAGES_ADMIN_H
#define MESSAGES_ADMIN_H

#include "service.h"

int handle_messages_list(struct hb_call *call, const json_t *args);
int handle_messages_send(struct hb_call *call, const json_t *args);
int handle_messages_discard(struct hb_call *call, const json_t *args);

#endif
