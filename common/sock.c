/*
 * sock - the few ZeroMQ idioms every hbcode process needs, done once.
 */
#include "sock.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "log.h"
#include "protocol.h"

static int set_int(void *s, int opt, int v)
{
	return zmq_setsockopt(s, opt, &v, sizeof v);
}

static void *new_socket(void *ctx, int type)
{
	int64_t max = HB_MAX_FRAME;
	void *s = zmq_socket(ctx, type);

	if (!s)
		return NULL;
	if (set_int(s, ZMQ_LINGER, 0) < 0 || zmq_setsockopt(s, ZMQ_MAXMSGSIZE, &max, sizeof max) < 0 ||
	    set_int(s, ZMQ_SNDHWM, 100000) < 0 || set_int(s, ZMQ_RCVHWM, 100000) < 0) {
		zmq_close(s);
		return NULL;
	}
	return s;
}

void *hb_sock_router(void *ctx)
{
	void *s = new_socket(ctx, ZMQ_ROUTER);

	if (s && set_int(s, ZMQ_ROUTER_MANDATORY, 1) < 0) {
		zmq_close(s);
		return NULL;
	}
	return s;
}

void *hb_sock_dealer(void *ctx, const char *identity, int immediate, int timeout_ms)
{
	void *s = new_socket(ctx, ZMQ_DEALER);

	if (!s)
		return NULL;
	if ((identity && zmq_setsockopt(s, ZMQ_ROUTING_ID, identity, strlen(identity)) < 0) ||
	    set_int(s, ZMQ_IMMEDIATE, immediate) < 0 || set_int(s, ZMQ_SNDTIMEO, timeout_ms) < 0 ||
	    set_int(s, ZMQ_RCVTIMEO, timeout_ms) < 0) {
		zmq_close(s);
		return NULL;
	}
	return s;
}

void *hb_sock_pub(void *ctx)
{
	return new_socket(ctx, ZMQ_XPUB);
}

void *hb_sock_sub(void *ctx, const char *topic_prefix)
{
	void *s = new_socket(ctx, ZMQ_SUB);

	if (s && zmq_setsockopt(s, ZMQ_SUBSCRIBE, topic_prefix, strlen(topic_prefix)) < 0) {
		zmq_close(s);
		return NULL;
	}
	return s;
}

static void drain_more(void *sock)
{
	int more = 1;
	size_t sz = sizeof more;

	while (zmq_getsockopt(sock, ZMQ_RCVMORE, &more, &sz) == 0 && more) {
		zmq_msg_t m;
		zmq_msg_init(&m);
		if (zmq_msg_recv(&m, sock, 0) < 0) {
			zmq_msg_close(&m);
			return;
		}
		zmq_msg_close(&m);
	}
}

/* The monitor is set before the connect: a connection made at once must
 * not be missed. */
int hb_sock_connect_confirmed(void *ctx, void *sock, const char *endpoint, int timeout_ms)
{
	char name[64];
	void *mon;
	int rc = -1, saved;

	snprintf(name, sizeof name, "inproc://hb-connect-%p", sock);
	if (zmq_socket_monitor(sock, name, ZMQ_EVENT_CONNECTED) < 0)
		return -1;
	if (!(mon = zmq_socket(ctx, ZMQ_PAIR)) || zmq_setsockopt(mon, ZMQ_RCVTIMEO, &timeout_ms, sizeof timeout_ms) < 0 ||
	    zmq_connect(mon, name) < 0 || zmq_connect(sock, endpoint) < 0)
		goto out;
	for (;;) {
		unsigned char event[6];
		uint16_t id;
		int n = zmq_recv(mon, event, sizeof event, 0);

		if (n < 0)
			goto out;
		drain_more(mon);
		memcpy(&id, event, sizeof id);
		if (n == (int)sizeof event && id == ZMQ_EVENT_CONNECTED)
			break;
	}
	rc = 0;
out:
	saved = errno;
	zmq_socket_monitor(sock, NULL, 0);
	if (mon)
		zmq_close(mon);
	errno = saved;
	return rc;
}

/* "localhost:uid:gid:pid" on ipc (SO_PEERCRED); 0 elsewhere. */
static pid_t peer_pid(zmq_msg_t *m)
{
	const char *addr = zmq_msg_gets(m, "Peer-Address");
	const char *last;

	if (!addr || strncmp(addr, "localhost:", 10) != 0 || !(last = strrchr(addr, ':')))
		return 0;
	return (pid_t)strtol(last + 1, NULL, 10);
}

/* Read the payload frame and decode it; 1 ok, 0 bad frame, -1 failure. */
static int recv_payload(void *sock, struct hb_env *e, pid_t *pid, char *err, size_t errlen)
{
	zmq_msg_t m;
	int rc;

	hb_env_init(e);
	zmq_msg_init(&m);
	if (zmq_msg_recv(&m, sock, ZMQ_DONTWAIT) < 0) {
		zmq_msg_close(&m);
		return -1;
	}
	if (pid)
		*pid = peer_pid(&m);
	if (zmq_msg_more(&m)) {
		zmq_msg_close(&m);
		drain_more(sock);
		snprintf(err, errlen, "a message must be one frame holding one envelope");
		return 0;
	}
	rc = hb_env_decode(e, zmq_msg_data(&m), zmq_msg_size(&m), err, errlen);
	zmq_msg_close(&m);
	return rc == 0 ? 1 : 0;
}

int hb_recv_routed(void *sock, struct hb_peer *peer, struct hb_env *e, char *err, size_t errlen)
{
	zmq_msg_t id;

	hb_env_init(e);
	peer->len = 0;
	peer->pid = 0;
	zmq_msg_init(&id);
	if (zmq_msg_recv(&id, sock, ZMQ_DONTWAIT) < 0) {
		zmq_msg_close(&id);
		return -1;
	}
	peer->len = zmq_msg_size(&id) < sizeof peer->id ? zmq_msg_size(&id) : sizeof peer->id;
	memcpy(peer->id, zmq_msg_data(&id), peer->len);
	if (!zmq_msg_more(&id)) {
		zmq_msg_close(&id);
		snprintf(err, errlen, "empty message");
		return 0;
	}
	zmq_msg_close(&id);
	return recv_payload(sock, e, &peer->pid, err, errlen);
}

int hb_recv_env(void *sock, struct hb_env *e, char *err, size_t errlen)
{
	return recv_payload(sock, e, NULL, err, errlen);
}

static void free_buf(void *data, void *hint)
{
	(void)hint;
	free(data);
}

static int send_buf(void *sock, char *buf, size_t len, int flags)
{
	zmq_msg_t m;

	if (zmq_msg_init_data(&m, buf, len, free_buf, NULL) < 0) {
		free(buf);
		return -1;
	}
	if (zmq_msg_send(&m, sock, flags) < 0) {
		int saved = errno;
		zmq_msg_close(&m);
		errno = saved;
		return -1;
	}
	return 0;
}

int hb_send_env(void *sock, const struct hb_peer *peer, const struct hb_env *e)
{
	char *buf;
	size_t len;

	if (hb_env_encode(e, &buf, &len) < 0) {
		errno = ENOMEM;
		return -1;
	}
	if (len > HB_MAX_FRAME) {
		/* The peer's libzmq would drop it silently: fail here instead. */
		free(buf);
		errno = EMSGSIZE;
		return -1;
	}
	if (peer && zmq_send(sock, peer->id, peer->len, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0) {
		free(buf);
		return -1;
	}
	return send_buf(sock, buf, len, peer ? ZMQ_DONTWAIT : 0);
}

int hb_sock_readable(void *sock)
{
	int events;
	size_t len = sizeof events;

	if (zmq_getsockopt(sock, ZMQ_EVENTS, &events, &len) < 0)
		return -1;
	return (events & ZMQ_POLLIN) != 0;
}

int hb_wait_sock_or_fd(void *sock, int fd)
{
	int zfd, events;
	size_t len = sizeof zfd;

	if (zmq_getsockopt(sock, ZMQ_FD, &zfd, &len) < 0)
		return -1;
	/* ZMQ_FD only says that the socket's state changed: its events tell
	 * what there is after each wake.  The caller has just looked, so
	 * the first sleep needs no look of its own (each look that finds
	 * nothing is two system calls).  The socket comes first even when
	 * fd woke us: what was sent to it (a service worker's own call) may
	 * have been sent before what fd stands for (a call queued after it). */
	for (;;) {
		struct pollfd p[2] = { { .fd = zfd, .events = POLLIN }, { .fd = fd, .events = POLLIN } };
		int fd_ready;

		if (poll(p, 2, -1) < 0)
			return -1;
		fd_ready = (p[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0;
		len = sizeof events;
		if (zmq_getsockopt(sock, ZMQ_EVENTS, &events, &len) < 0)
			return -1;
		if (events & ZMQ_POLLIN)
			return 1;
		if (fd_ready)
			return 2;
	}
}

int hb_publish(void *pub, const char *topic, const char *json)
{
	struct hb_env e;
	char *buf;
	size_t len;

	hb_env_init(&e);
	hb_env_set_str(&e, "op", HB_OP_EVENT);
	hb_env_set_str(&e, "topic", topic);
	hb_env_set_str(&e, "json", json);
	if (hb_env_encode(&e, &buf, &len) < 0)
		return -1;
	if (zmq_send(pub, topic, strlen(topic), ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0) {
		free(buf);
		return -1;
	}
	return send_buf(pub, buf, len, ZMQ_DONTWAIT);
}

void hb_peer_name(const struct hb_peer *peer, char *out, size_t outlen)
{
	hb_escape(peer->id, peer->len, peer->len, out, outlen);
}
