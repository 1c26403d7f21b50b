/*
 * wait - the broker's one sleep, and the sends that decide how it sleeps.
 *
 * zmq_poll asks each ZeroMQ socket for ZMQ_EVENTS before it sleeps and
 * again after it wakes, and on Linux every ask that finds the socket's
 * mailbox empty costs a getpid and a poll of it.  With three sockets that
 * was a dozen system calls per message the broker read, and on a virtual
 * machine each system call is dear.  The broker sleeps instead in one
 * poll() on the sockets' own descriptors (ZMQ_FD) and its plain ones, and
 * reads a socket when
 *  - its descriptor fired: its mailbox was signalled;
 *  - its last read stopped before the end (a budget keeps one busy socket
 *    from starving the others), so more is queued;
 *  - something was sent on it since it was last read to the end: libzmq
 *    may process the socket's commands inside a send, and so take the
 *    signal of messages that came meanwhile without anyone reading them
 *    (zmq_getsockopt(3), ZMQ_FD).
 * A read that ends with EAGAIN has processed every command and left the
 * mailbox empty, so the next message signals the descriptor again.  Every
 * send of the broker goes through broker_send or broker_publish for that.
 */
#include "wait.h"

#include <errno.h>
#include <string.h>
#include <zmq.h>

#include "broker.h"

int wait_init(struct broker_wait *w, void *pub, void *back, void *front)
{
	memset(w, 0, sizeof *w);
	w->sock[WAIT_PUB] = pub;
	w->sock[WAIT_BACK] = back;
	w->sock[WAIT_FRONT] = front;
	for (int s = 0; s < WAIT_SOCKS; s++) {
		size_t len = sizeof w->fd[s];
		if (zmq_getsockopt(w->sock[s], ZMQ_FD, &w->fd[s], &len) < 0)
			return -1;
		w->due[s] = 1; /* nothing is known about a new socket */
	}
	return 0;
}

int wait_sleep(struct broker_wait *w, struct pollfd *fds, int nfds, int timeout_ms)
{
	struct pollfd all[WAIT_SOCKS + WAIT_MAX_FDS];

	if (nfds < 0 || nfds > WAIT_MAX_FDS) {
		errno = EINVAL;
		return -1;
	}
	for (int s = 0; s < WAIT_SOCKS; s++) {
		all[s] = (struct pollfd){ .fd = w->fd[s], .events = POLLIN };
		if (w->due[s])
			timeout_ms = 0;
	}
	for (int i = 0; i < nfds; i++)
		all[WAIT_SOCKS + i] = (struct pollfd){ .fd = fds[i].fd, .events = fds[i].events };
	if (poll(all, (nfds_t)(WAIT_SOCKS + nfds), timeout_ms) < 0) {
		for (int i = 0; i < nfds; i++)
			fds[i].revents = 0;
		return errno == EINTR ? 0 : -1;
	}
	for (int s = 0; s < WAIT_SOCKS; s++)
		if (all[s].revents)
			w->due[s] = 1;
	for (int i = 0; i < nfds; i++)
		fds[i].revents = all[WAIT_SOCKS + i].revents;
	return 0;
}

int wait_due(const struct broker_wait *w, enum wait_sock s)
{
	return w->due[s];
}

void wait_read(struct broker_wait *w, enum wait_sock s, int more)
{
	w->due[s] = (unsigned char)(more != 0);
}

static void mark_sent(struct broker_wait *w, const void *sock)
{
	for (int s = 0; s < WAIT_SOCKS; s++)
		if (w->sock[s] == sock)
			w->due[s] = 1;
}

int broker_send(struct broker *b, void *sock, const struct hb_peer *peer, const struct hb_env *e)
{
	mark_sent(&b->wait, sock);
	return hb_send_env(sock, peer, e);
}

int broker_publish(struct broker *b, const char *topic, const char *json)
{
	mark_sent(&b->wait, b->pub);
	return hb_publish(b->pub, topic, json);
}
