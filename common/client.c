/*
 * client - request/reply over a DEALER to the broker's front socket.
 *
 * A broker that dies while a request waits for its answer must not leave
 * the client waiting out its timeout (600 s for a call).  Over ipc the
 * kernel closes the connection when the broker's process ends, however it
 * ends, so a socket monitor's ZMQ_EVENT_DISCONNECTED says it at once; it
 * also holds when a new broker is already up on the same socket (the
 * answer cannot come from that one either).  A pid check would miss that,
 * and a heartbeat would add traffic to say what the kernel already knows.
 */
#include "client.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include "clock.h"
#include "opfields.h"
#include "paths.h"
#include "proc_state.h"
#include "sock.h"

/* Each client has its own context, so one name serves them all. */
#define MONITOR_ENDPOINT "inproc://hb-client-monitor"
/* How long a send waits for a connection (ZMQ_IMMEDIATE): a live broker's
 * socket accepts at once, a dead broker's leftover socket never does. */
#define SEND_WAIT_MS 5000
/* How often a wait for an answer looks whether the broker is stopped. */
#define STOPPED_LOOK_MS 250
/* How long closing may take to write what was sent last (hb_client_close). */
#define CLIENT_LAST_SENDS_MS 1000

int hb_client_endpoint(char *out, size_t outlen, char *err, size_t errlen)
{
	char why[HB_PATH_MAX + 256];

	if (hb_runtime_endpoint("front.sock", out, outlen, why, sizeof why) == 0)
		return 0;
	/* No folder: no broker, as with no socket.  Any other refusal (a
	 * folder someone else may control) is said as it is. */
	if (errno == ENOENT)
		snprintf(err, errlen, "no hb-broker is running (%s)", why);
	else
		snprintf(err, errlen, "%s", why);
	return -1;
}

/* The pid in the lock file beside the socket, for the sentence if the
 * broker goes away; 0 when unknown. */
static long read_broker_pid(const char *endpoint)
{
	const char *sock = endpoint + 6, *slash = strrchr(sock, '/');
	char path[HB_PATH_MAX + 32], buf[32];
	ssize_t n;
	int fd;

	if (strncmp(endpoint, "ipc://", 6) != 0 || !slash ||
	    snprintf(path, sizeof path, "%.*s/%s", (int)(slash - sock), sock, HB_BROKER_LOCK_FILE) >= (int)sizeof path ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return strtol(buf, NULL, 10);
}

/* Set up before the connect, so that no disconnect goes unseen. */
static int watch_disconnects(struct hb_client *c)
{
	int zero = 0;

	if (zmq_socket_monitor(c->sock, MONITOR_ENDPOINT, ZMQ_EVENT_DISCONNECTED) < 0 ||
	    !(c->monitor = zmq_socket(c->zctx, ZMQ_PAIR)) ||
	    zmq_setsockopt(c->monitor, ZMQ_LINGER, &zero, sizeof zero) < 0 ||
	    zmq_connect(c->monitor, MONITOR_ENDPOINT) < 0)
		return -1;
	return 0;
}

/* Read the monitor's events so far: 1 when one was a disconnect. */
static int disconnected(struct hb_client *c)
{
	int gone = 0;

	for (;;) {
		zmq_msg_t m;
		uint16_t event;
		int more;

		zmq_msg_init(&m);
		if (zmq_msg_recv(&m, c->monitor, ZMQ_DONTWAIT) < 0) {
			zmq_msg_close(&m);
			return gone;
		}
		/* Frame 1: the event (16 bits) and a value (32); frame 2: the
		 * endpoint. */
		if (zmq_msg_size(&m) >= sizeof event) {
			memcpy(&event, zmq_msg_data(&m), sizeof event);
			gone |= event == ZMQ_EVENT_DISCONNECTED;
		}
		more = zmq_msg_more(&m);
		zmq_msg_close(&m);
		while (more) {
			zmq_msg_init(&m);
			if (zmq_msg_recv(&m, c->monitor, ZMQ_DONTWAIT) < 0)
				more = 0;
			else
				more = zmq_msg_more(&m);
			zmq_msg_close(&m);
		}
	}
}

int hb_client_gone(struct hb_client *c)
{
	return c->monitor && disconnected(c);
}

int hb_client_open(struct hb_client *c, const char *endpoint, int timeout_ms, char *err, size_t errlen)
{
	char ep[HB_PATH_MAX + 8];
	struct stat st;

	memset(c, 0, sizeof *c);
	c->timeout_ms = timeout_ms;
	c->next_id = 1;
	if (!endpoint) {
		if (hb_client_endpoint(ep, sizeof ep, err, errlen) < 0)
			return -1;
		endpoint = ep;
	}
	/* No socket file: no broker.  Say so without waiting for a timeout. */
	if (strncmp(endpoint, "ipc://", 6) == 0 && stat(endpoint + 6, &st) < 0) {
		snprintf(err, errlen, "no hb-broker is running (no socket at %s)", endpoint + 6);
		return -1;
	}
	c->broker_pid = read_broker_pid(endpoint);
	if (!(c->zctx = zmq_ctx_new()) ||
	    !(c->sock = hb_sock_dealer(c->zctx, NULL, 1, timeout_ms < SEND_WAIT_MS ? timeout_ms : SEND_WAIT_MS)) ||
	    watch_disconnects(c) < 0 || zmq_connect(c->sock, endpoint) < 0) {
		snprintf(err, errlen, "cannot connect to %s: %s", endpoint, zmq_strerror(errno));
		hb_client_close(c);
		return -1;
	}
	return 0;
}

void hb_client_close(struct hb_client *c)
{
	/* What was sent last without waiting for an answer (a bridge's
	 * deliver.done as it closes, its last timeline rows) is only queued:
	 * with the socket's linger of 0 a busy machine's I/O thread could
	 * drop it before writing it, and the broker never learnt that a
	 * message was left to the user.  A bounded linger writes it to a
	 * broker still connected; a broker that is gone costs at most this. */
	if (c->sock) {
		int linger = CLIENT_LAST_SENDS_MS;

		/* Best effort: a failure only leaves the linger at 0. */
		(void)zmq_setsockopt(c->sock, ZMQ_LINGER, &linger, sizeof linger);
		zmq_close(c->sock);
	}
	if (c->monitor)
		zmq_close(c->monitor);
	if (c->zctx)
		zmq_ctx_term(c->zctx);
	c->sock = c->monitor = c->zctx = NULL;
}

int hb_client_send(struct hb_client *c, struct hb_env *req, int64_t *id, char *err, size_t errlen)
{
	/* A disconnect before this request (a broker restarted while we were
	 * idle) does not concern it: ZeroMQ connects again. */
	(void)disconnected(c);
	*id = c->next_id++;
	hb_env_set_int(req, "id", *id);
	if (hb_send_env(c->sock, NULL, req) < 0) {
		if (errno == EAGAIN)
			snprintf(err, errlen, "no hb-broker is answering (nothing accepted the request)");
		else if (errno == EMSGSIZE)
			snprintf(err, errlen, "the request is larger than the %u MiB a frame may have; nothing was sent",
				 HB_MAX_FRAME >> 20);
		else
			snprintf(err, errlen, "cannot send to hb-broker: %s", zmq_strerror(errno));
		return -1;
	}
	return 0;
}

/* 0 when what the broker sent matches its row (opfields.h), or -1 with
 * the fault in err: a frame its client cannot trust, never read on. */
static int checked(struct hb_env *reply, char *err, size_t errlen)
{
	char fault[320];

	if (hb_client_op_check(reply, fault, sizeof fault) == 0)
		return 0;
	snprintf(err, errlen, "hb-broker sent a frame that does not match its row: %s", fault);
	hb_env_free(reply);
	return -1;
}

int hb_client_recv(struct hb_client *c, struct hb_env *reply, int timeout_ms, char *err, size_t errlen)
{
	long long deadline = hb_monotonic_ms() + timeout_ms;
	int gone = 0;

	hb_env_init(reply);
	for (;;) {
		zmq_pollitem_t items[2] = { { c->sock, 0, ZMQ_POLLIN, 0 }, { c->monitor, 0, ZMQ_POLLIN, 0 } };
		long long left = deadline - hb_monotonic_ms();
		/* in slices, to look whether the broker is stopped meanwhile */
		int rc = zmq_poll(items, 2, gone || left <= 0 ? 0 : left > STOPPED_LOOK_MS ? STOPPED_LOOK_MS : (long)left);

		if (rc < 0 && errno == EINTR)
			continue;
		if (rc > 0 && (items[0].revents & ZMQ_POLLIN)) {
			rc = hb_recv_env(c->sock, reply, err, errlen);
			if (rc > 0)
				return checked(reply, err, errlen);
			if (rc == 0)
				return -1;
			continue;
		}
		if (gone) {
			if (c->broker_pid > 0)
				snprintf(err, errlen, "hb-broker (pid %ld) went away before it answered; the outcome "
					 "of the request is unknown", c->broker_pid);
			else
				snprintf(err, errlen, "hb-broker went away before it answered; the outcome of the "
					 "request is unknown");
			return -1;
		}
		if (rc > 0 && disconnected(c)) {
			gone = 1; /* one more look: an answer sent before the end still counts */
			continue;
		}
		if (rc == 0 && c->broker_pid > 0 && hb_process_stopped((pid_t)c->broker_pid)) {
			snprintf(err, errlen,
				 "hb-broker (pid %ld) is stopped (by SIGSTOP, Ctrl-Z or a debugger), so it cannot "
				 "answer; resume it with: kill -CONT %ld",
				 c->broker_pid, c->broker_pid);
			return -1;
		}
		if (rc < 0 || hb_monotonic_ms() >= deadline) {
			/* The broker is still connected (its end would have
			 * shown above): the limit that ran out is ours. */
			snprintf(err, errlen, "%s (%d ms) ran out before hb-broker answered; hb-broker is still "
				 "running and may still be working on the request",
				 c->limit_name ? c->limit_name : "this client's own time limit", timeout_ms);
			return -1;
		}
	}
}

int hb_client_request(struct hb_client *c, struct hb_env *req, struct hb_env *reply,
		      char *err, size_t errlen)
{
	int64_t id, got;

	if (hb_client_send(c, req, &id, err, errlen) < 0)
		return -1;
	for (;;) {
		if (hb_client_recv(c, reply, c->timeout_ms, err, errlen) < 0)
			return -1;
		if (hb_env_int(reply, "id", &got) == 0 && got == id)
			return 0;
		if (!hb_env_get(reply, "id") && hb_env_str(reply, "err.code"))
			return 0; /* an error about a frame the broker could not read */
		hb_env_free(reply); /* a late answer to an earlier request */
	}
}
