/*
 * sock - ZeroMQ sockets set up the hbcode way, and envelope send/receive.
 *
 * Every socket gets LINGER 0 (a dead peer never blocks shutdown) and
 * MAXMSGSIZE (an oversized frame drops the connection before any parser
 * sees it).  ROUTER sockets get ROUTER_MANDATORY so a send to a departed
 * peer fails instead of vanishing.
 */
#ifndef HB_SOCK_H
#define HB_SOCK_H

#include <stddef.h>
#include <sys/types.h>

#include "envelope.h"

#define HB_PEER_ID_MAX 255

/* A ROUTER peer: its routing id, and its pid when it came over ipc. */
struct hb_peer {
	unsigned char id[HB_PEER_ID_MAX];
	size_t len;
	pid_t pid;  /* 0 when unknown */
};

void *hb_sock_router(void *ctx);
/* A DEALER; identity may be NULL.  immediate: queue only to live
 * connections; timeout_ms: send and receive timeouts (-1: none). */
void *hb_sock_dealer(void *ctx, const char *identity, int immediate, int timeout_ms);
/* An XPUB: it publishes like PUB and also lets the owner read the
 * subscriptions (byte 1 + topic, byte 0 + topic when the last subscriber of
 * a topic leaves), so nothing is built for events nobody listens to. */
void *hb_sock_pub(void *ctx);
void *hb_sock_sub(void *ctx, const char *topic_prefix);

/* zmq_connect, then wait up to timeout_ms until the connection is made
 * (not only queued): a service seals itself against new sockets after
 * this (confine.h).  0, or -1 with errno (EAGAIN: not connected in
 * time). */
int hb_sock_connect_confirmed(void *ctx, void *sock, const char *endpoint, int timeout_ms);

/* Receive one routed message.  1: *e decoded; 0: a bad frame (reason in
 * err; peer is filled when known, so the caller can answer); -1: nothing
 * to read or the socket failed (errno set). */
int hb_recv_routed(void *sock, struct hb_peer *peer, struct hb_env *e, char *err, size_t errlen);
/* The same for a DEALER (no identity frame). */
int hb_recv_env(void *sock, struct hb_env *e, char *err, size_t errlen);
/* Send e to peer (NULL for a DEALER).  0 or -1 (errno from libzmq). */
int hb_send_env(void *sock, const struct hb_peer *peer, const struct hb_env *e);
/* Publish an event: topic frame, then an envelope {op:"event",topic,json}. */
int hb_publish(void *pub, const char *topic, const char *json);

/* Whether sock has a message to read now: 1, 0, or -1 with errno. */
int hb_sock_readable(void *sock);
/* Wait, without a time limit, until sock has a message to read (1) or
 * else the file descriptor fd is readable (2): the socket first, also
 * when both are ready; -1 with errno (ETERM once the context is shut
 * down, EINTR).  The caller has just seen that sock had nothing to read
 * (hb_sock_readable == 0) and has not used sock since: the first sleep
 * trusts that.  One poll per sleep: zmq_poll makes a non-blocking pass
 * first, a second system call each time. */
int hb_wait_sock_or_fd(void *sock, int fd);

/* Printable peer id for logs. */
void hb_peer_name(const struct hb_peer *peer, char *out, size_t outlen);

#endif
