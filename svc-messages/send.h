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
/* The call's checks that need no database: 0 with the recipient and the
 * message (borrowed from args), or -1 with the tool error in err.
 * Exported for the fuzz target of the tools' arguments. */
int send_check_call(const struct hb_call_context *ctx, const json_t *args, const char **recipient,
		    const char **message, char *err, size_t errlen);

#endif
