/*
 * reply - answers on the front socket and the request ids they carry.
 */
#ifndef HB_REPLY_H
#define HB_REPLY_H

#include "broker.h"

/* A request's id (absent: integer 0) into r; into a reply envelope. */
void reqid_from_env(struct reqid *r, const struct hb_env *e);
void reqid_put(struct hb_env *e, const struct reqid *r);

/* {op:reply, id, ok:true, json?}; {op:reply, id?, ok:false, err}.  A reply
 * that cannot be sent (the client is gone) is dropped with a debug line. */
void front_reply_ok(struct broker *b, const struct hb_peer *peer, const struct reqid *id, const char *json);
void front_reply_err(struct broker *b, const struct hb_peer *peer, const struct reqid *id,
		     const char *code, const char *msg);

#endif
