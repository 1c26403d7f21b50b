/*
 * front - the operations clients send on front.sock (hbctl, the desktop,
 * the bridges) and the two shapes of answer: {id, ok:true, json} or
 * {id, err:{code,msg}}.
 */
#ifndef HB_FRONT_H
#define HB_FRONT_H

#include "broker.h"

/* Read and answer everything waiting on the front socket. */
void front_handle(struct broker *b);
void front_reply_ok(struct broker *b, const struct hb_peer *peer, const struct reqid *id, const char *json);
void front_reply_err(struct broker *b, const struct hb_peer *peer, const struct reqid *id,
		     const char *code, const char *msg);
/* Pass a front request on as the broker's internal request tool(args) and
 * answer the client with its result (json) or its error (err_code).  0, or
 * -1 (nothing answered) when nothing serves tool or memory ran out. */
int front_relay_internal(struct broker *b, const struct hb_peer *peer, const struct reqid *id, const char *tool,
			 const char *args, const char *err_code);

#endif
