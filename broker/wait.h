/*
 * wait - the broker's one sleep, and the sends that decide how it sleeps.
 */
#ifndef HB_WAIT_H
#define HB_WAIT_H

#include <poll.h>

#include "envelope.h"
#include "sock.h"

struct broker;

/* The ZeroMQ sockets the loop reads, in the order it reads them. */
enum wait_sock { WAIT_PUB, WAIT_BACK, WAIT_FRONT, WAIT_SOCKS };

struct broker_wait {
	void *sock[WAIT_SOCKS];
	int fd[WAIT_SOCKS];            /* the socket's ZMQ_FD */
	unsigned char due[WAIT_SOCKS]; /* may hold messages its fd does not show */
};

/* Take the sockets' descriptors; -1 when libzmq will not give one. */
int wait_init(struct broker_wait *w, void *pub, void *back, void *front);

/* The plain descriptors one sleep watches at most. */
#define WAIT_MAX_FDS 72

/* Sleep until a socket or one of the nfds (<= WAIT_MAX_FDS) plain
 * descriptors in fds has
 * something, timeout_ms at most (not at all while a socket is due); fills
 * fds' revents.  -1 when poll fails (not for EINTR). */
int wait_sleep(struct broker_wait *w, struct pollfd *fds, int nfds, int timeout_ms);

/* Whether socket s is to be read in this round. */
int wait_due(const struct broker_wait *w, enum wait_sock s);

/* Socket s was read: to its end (more 0), or not (more 1: its budget ran
 * out, or a read failed otherwise than with EAGAIN). */
void wait_read(struct broker_wait *w, enum wait_sock s, int more);

/* hb_send_env and hb_publish for the broker's own sockets: the socket
 * sent on is read again in the next round (wait.c says why). */
int broker_send(struct broker *b, void *sock, const struct hb_peer *peer, const struct hb_env *e);
int broker_publish(struct broker *b, const char *topic, const char *json);

#endif
