/*
 * client - a front-socket client: one request, one reply, never a hang.
 *
 * Used by hbctl, the tests and the benchmark.  The socket has IMMEDIATE
 * set and send/receive timeouts, so with no broker a request fails at once
 * instead of queueing forever.
 */
#ifndef HB_CLIENT_H
#define HB_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "envelope.h"

struct hb_client {
	void *zctx;
	void *sock;
	int64_t next_id;
	int timeout_ms;
};

/* endpoint NULL: front.sock in the runtime directory from the environment,
 * refused (with the reason in err) unless that folder is private to this
 * user: hbctl and the bridges must not talk to a broker someone else
 * placed there.  An endpoint given is the caller's own (tests). */
int hb_client_open(struct hb_client *c, const char *endpoint, int timeout_ms, char *err, size_t errlen);
void hb_client_close(struct hb_client *c);
/* Give req a fresh "id", send it and wait for the reply with that id.
 * 0 with *reply decoded (may carry err.code/err.msg), -1 with err set. */
int hb_client_request(struct hb_client *c, struct hb_env *req, struct hb_env *reply,
		      char *err, size_t errlen);
/* Pipelining: send req with a fresh id (returned in *id), and receive the
 * next reply of any id, waiting up to timeout_ms.  0, or -1 with err. */
int hb_client_send(struct hb_client *c, struct hb_env *req, int64_t *id, char *err, size_t errlen);
int hb_client_recv(struct hb_client *c, struct hb_env *reply, int timeout_ms, char *err, size_t errlen);
/* "ipc://.../front.sock" in the checked runtime folder (see above). */
int hb_client_endpoint(char *out, size_t outlen, char *err, size_t errlen);

#endif
