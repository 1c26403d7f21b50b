/*
 * front - the operations clients send on front.sock (hbctl, the desktop,
 * the bridges), each handed to the module that owns it; the answers'
 * shapes are reply.h's.
 */
#ifndef HB_FRONT_H
#define HB_FRONT_H

#include "broker.h"
#include "reply.h"

/* Read and answer everything waiting on the front socket. */
/* Read the front's messages; 1 when more may be queued (wait_read). */
int front_handle(struct broker *b);
/* Pass a front request on as the broker's internal request tool(args) and
 * answer the client with its result (json) or its error (err_code).  0, or
 * -1 (nothing answered) when nothing serves tool or memory ran out. */
int front_relay_internal(struct broker *b, const struct hb_peer *peer, const struct reqid *id, const char *tool,
			 const char *args, const char *err_code);

#endif
