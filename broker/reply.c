/*
 * reply - the two shapes of answer on the front socket, {id, ok:true,
 * json} and {id, ok:false, err:{code,msg}}, and the request id a client
 * chose (an integer or a string), echoed back with its own type.  Every
 * front operation answers through here.
 */
#include "reply.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zmq.h>

#include "log.h"
#include "protocol.h"

void reqid_from_env(struct reqid *r, const struct hb_env *e)
{
	const struct hb_field *f = hb_env_get(e, "id");

	memset(r, 0, sizeof *r);
	if (f && f->type == HB_VAL_STR) {
		r->is_str = 1;
		snprintf(r->s, sizeof r->s, "%s", f->s);
	} else if (f && f->type == HB_VAL_INT) {
		r->i = f->i;
	}
}

void reqid_put(struct hb_env *e, const struct reqid *r)
{
	if (r->is_str)
		hb_env_set_str(e, "id", r->s);
	else
		hb_env_set_int(e, "id", r->i);
}

void front_reply_ok(struct broker *b, const struct hb_peer *peer, const struct reqid *id, const char *json)
{
	struct hb_env e;

	hb_env_init(&e);
	hb_env_set_str(&e, "op", HB_OP_REPLY);
	reqid_put(&e, id);
	hb_env_set_bool(&e, "ok", 1);
	if (json)
		hb_env_set_str(&e, "json", json);
	if (broker_send(b, b->front, peer, &e) < 0)
		log_debug(NULL, "reply dropped: %s", zmq_strerror(errno));
}

void front_reply_err(struct broker *b, const struct hb_peer *peer, const struct reqid *id,
		     const char *code, const char *msg)
{
	struct hb_env e;

	hb_env_init(&e);
	hb_env_set_str(&e, "op", HB_OP_REPLY);
	if (id)
		reqid_put(&e, id);
	hb_env_set_bool(&e, "ok", 0);
	hb_env_set_err(&e, code, msg);
	if (broker_send(b, b->front, peer, &e) < 0)
		log_debug(NULL, "error reply dropped: %s", zmq_strerror(errno));
}
