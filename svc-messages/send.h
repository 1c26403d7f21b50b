/*
 * send - the send_session_message tool: checks, the hold rules as the
 * call arrives, the row and its outbox entry in one transaction, and the
 * receipt (queued, waiting-for-approval or already-sent).
 */
#ifndef MESSAGES_SEND_H
#define MESSAGES_SEND_H

#include "service.h"

/* Longest message accepted, in bytes. */
#define MESSAGE_MAX_BYTES 65536

int handle_send_session_message(struct hb_call *call, const json_t *args);

#endif
