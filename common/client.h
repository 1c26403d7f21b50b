/*
 * client - a front-socket client: one request, one reply, never a hang.
 *
 * Used by hbctl, the bridges, the tests and the benchmark.  The socket has
 * IMMEDIATE set and a send timeout of at most 5 s, so with no broker a
 * request fails at once instead of queueing forever; a broker that goes
 * away while a request waits for its answer fails that wait at once (its
 * connection closes), with a sentence saying the outcome is unknown.  So a
 * wait that runs out is the client's own limit with the broker still
 * there, and says so: the broker may still be working on the request.
 */
#ifndef HB_CLIENT_H
#define HB_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "envelope.h"

struct hb_client {
	void *zctx;
	void *sock;
	void *monitor;          /* the disconnects of sock (client.c) */
	int64_t next_id;
	int timeout_ms;
	long broker_pid;        /* from the broker's lock file; 0 if unknown */
	/* What the wait's limit is, for the sentence when it runs out (e.g.
	 * "hbctl's own --timeout"); NULL: "this client's own time limit".
	 * Set after hb_client_open. */
	const char *limit_name;
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
 * next reply of any id, waiting up to timeout_ms.  0, or -1 with err;
 * receiving fails at once when the broker's connection closed after the
 * last send (the broker went away: whatever was sent is lost). */
int hb_client_send(struct hb_client *c, struct hb_env *req, int64_t *id, char *err, size_t errlen);
int hb_client_recv(struct hb_client *c, struct hb_env *reply, int timeout_ms, char *err, size_t errlen);
/* 1 when the broker's connection closed since the last look (a broker
 * that ended or restarted): what was sent and not answered is lost.  For
 * a client that polls c->sock and c->monitor in its own loop (hb-mcp). */
int hb_client_gone(struct hb_client *c);
/* "ipc://.../front.sock" in the checked runtime folder (see above). */
int hb_client_endpoint(char *out, size_t outlen, char *err, size_t errlen);

#endif
