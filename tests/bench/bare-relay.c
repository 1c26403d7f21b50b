/*
 * bare-relay - the baseline of the benchmark: ZeroMQ with no logic.
 *
 *   bare-relay relay FRONT_EP BACK_EP
 *	ROUTER front (clients) and ROUTER back (one worker), bound; a client
 *	message [client, payload] goes to the worker as [worker, client,
 *	payload] and the worker's [worker, client, payload] goes back to the
 *	client as [client, payload].  Nothing is decoded: the relay only
 *	swaps identity frames.  Sockets come from hb_sock_router, so options
 *	(LINGER 0, MAXMSGSIZE, HWM, ROUTER_MANDATORY) are the broker's.
 *   bare-relay worker BACK_EP
 *	A DEALER with the fixed identity "w" that sends every message back.
 *   bare-relay svc
 *	A minimal hbcode service for the broker (started by it, from the
 *	environment the broker sets): announces `ready`, heartbeats, and
 *	answers every `call` on its loop thread with the call's json as the
 *	result text.  It shows the broker's own cost without svc-echo's
 *	worker pool.
 *
 * Each mode runs until killed (SIGTERM).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "envelope.h"
#include "sock.h"

#define WORKER_ID "w"

static int usage(void)
{
	fprintf(stderr, "usage: bare-relay relay FRONT_EP BACK_EP | worker BACK_EP | svc\n");
	return 2;
}

/* Receive one frame into m (initialised here; closed on failure). */
static int recv_frame(void *s, zmq_msg_t *m, int flags)
{
	zmq_msg_init(m);
	if (zmq_msg_recv(m, s, flags) < 0) {
		zmq_msg_close(m);
		return -1;
	}
	return 0;
}

/* Drop the rest of a message with an unexpected shape. */
static void drain(void *s, zmq_msg_t *last)
{
	while (zmq_msg_more(last)) {
		zmq_msg_close(last);
		if (recv_frame(s, last, 0) < 0)
			return;
	}
	zmq_msg_close(last);
}

/* front [client, payload] -> back [worker, client, payload] */
static void from_front(void *front, void *back)
{
	for (int n = 0; n < 256; n++) {
		zmq_msg_t id, payload;

		if (recv_frame(front, &id, ZMQ_DONTWAIT) < 0)
			return;
		if (!zmq_msg_more(&id)) {
			zmq_msg_close(&id);
			continue;
		}
		if (recv_frame(front, &payload, 0) < 0) {
			zmq_msg_close(&id);
			continue;
		}
		if (zmq_msg_more(&payload)) {
			zmq_msg_close(&id);
			drain(front, &payload);
			continue;
		}
		if (zmq_send(back, WORKER_ID, 1, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0 ||
		    zmq_msg_send(&id, back, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0 ||
		    zmq_msg_send(&payload, back, ZMQ_DONTWAIT) < 0) {
			zmq_msg_close(&id);
			zmq_msg_close(&payload);
		}
	}
}

/* back [worker, client, payload] -> front [client, payload] */
static void from_back(void *back, void *front)
{
	for (int n = 0; n < 256; n++) {
		zmq_msg_t wid, id, payload;

		if (recv_frame(back, &wid, ZMQ_DONTWAIT) < 0)
			return;
		if (!zmq_msg_more(&wid)) {
			zmq_msg_close(&wid);
			continue;
		}
		zmq_msg_close(&wid);
		if (recv_frame(back, &id, 0) < 0)
			continue;
		if (!zmq_msg_more(&id)) {
			zmq_msg_close(&id);
			continue;
		}
		if (recv_frame(back, &payload, 0) < 0) {
			zmq_msg_close(&id);
			continue;
		}
		if (zmq_msg_more(&payload)) {
			zmq_msg_close(&id);
			drain(back, &payload);
			continue;
		}
		if (zmq_msg_send(&id, front, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0 ||
		    zmq_msg_send(&payload, front, ZMQ_DONTWAIT) < 0) {
			zmq_msg_close(&id);
			zmq_msg_close(&payload);
		}
	}
}

static int relay(const char *front_ep, const char *back_ep)
{
	void *ctx = zmq_ctx_new();
	void *front = hb_sock_router(ctx), *back = hb_sock_router(ctx);

	if (!front || !back || zmq_bind(front, front_ep) < 0 || zmq_bind(back, back_ep) < 0) {
		fprintf(stderr, "bare-relay: cannot bind: %s\n", zmq_strerror(errno));
		return 1;
	}
	for (;;) {
		/* The same loop shape as the broker's: poll, back first, front. */
		zmq_pollitem_t items[2] = { { front, 0, ZMQ_POLLIN, 0 }, { back, 0, ZMQ_POLLIN, 0 } };

		if (zmq_poll(items, 2, 1000) < 0 && errno != EINTR)
			return 1;
		if (items[1].revents & ZMQ_POLLIN)
			from_back(back, front);
		if (items[0].revents & ZMQ_POLLIN)
			from_front(front, back);
	}
}

static int worker(const char *back_ep)
{
	void *ctx = zmq_ctx_new();
	void *s = hb_sock_dealer(ctx, WORKER_ID, 0, -1);

	if (!s || zmq_connect(s, back_ep) < 0) {
		fprintf(stderr, "bare-relay: cannot connect: %s\n", zmq_strerror(errno));
		return 1;
	}
	for (;;) {
		zmq_msg_t m;
		int more;

		do {
			if (recv_frame(s, &m, 0) < 0) {
				if (errno == EINTR)
					break;
				return 1;
			}
			more = zmq_msg_more(&m);
			if (zmq_msg_send(&m, s, more ? ZMQ_SNDMORE : 0) < 0)
				zmq_msg_close(&m);
		} while (more);
	}
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int svc(void)
{
	const char *id = getenv("HB_SERVICE_ID"), *ep = getenv("HB_BACK_ENDPOINT");
	const char *beat_env = getenv("HB_HEARTBEAT_MS");
	int beat_ms = beat_env ? atoi(beat_env) : 1000;
	void *ctx = zmq_ctx_new(), *s;
	struct hb_env e;
	long long next_beat;

	if (!id || !ep) {
		fprintf(stderr, "bare-relay svc: HB_SERVICE_ID and HB_BACK_ENDPOINT are set by hb-broker\n");
		return 2;
	}
	if (beat_ms < 10)
		beat_ms = 1000;
	if (!(s = hb_sock_dealer(ctx, id, 0, -1)) || zmq_connect(s, ep) < 0) {
		fprintf(stderr, "bare-relay svc: cannot connect: %s\n", zmq_strerror(errno));
		return 1;
	}
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "ready");
	hb_env_set_str(&e, "service", "bare-echo");
	hb_env_set_int(&e, "pid", getpid());
	hb_env_set_str(&e, "version", "bench");
	hb_env_set_str(&e, "tools", "becho");
	hb_env_set_int(&e, "concurrency", 1);
	hb_send_env(s, NULL, &e);
	/* Its one socket is also its one worker: calls come to it. */
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "worker");
	hb_env_set_int(&e, "slots", 1024); /* it never blocks: any number at once */
	hb_send_env(s, NULL, &e);
	next_beat = now_ms() + beat_ms;
	for (;;) {
		zmq_pollitem_t item = { s, 0, ZMQ_POLLIN, 0 };
		long long left = next_beat - now_ms();

		if (zmq_poll(&item, 1, left > 0 ? left : 0) < 0 && errno != EINTR)
			return 1;
		if (now_ms() >= next_beat) {
			hb_env_init(&e);
			hb_env_set_str(&e, "op", "heartbeat");
			hb_env_set_int(&e, "inflight", 0);
			hb_send_env(s, NULL, &e);
			next_beat = now_ms() + beat_ms;
		}
		for (;;) {
			struct hb_env in, out;
			char err[256];
			int rc = hb_recv_env(s, &in, err, sizeof err);
			const char *op;

			if (rc < 0)
				break;
			if (rc == 0)
				continue;
			op = hb_env_str(&in, "op");
			if (op && strcmp(op, "call") == 0) {
				hb_env_init(&out);
				hb_env_set_str(&out, "op", "result");
				hb_env_set_str(&out, "key", hb_env_str_or(&in, "key", ""));
				hb_env_set_bool(&out, "ok", 1);
				hb_env_set_str(&out, "text", hb_env_str_or(&in, "json", ""));
				hb_send_env(s, NULL, &out);
			}
			hb_env_free(&in);
		}
	}
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "relay") == 0)
		return relay(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "worker") == 0)
		return worker(argv[2]);
	if (argc == 2 && strcmp(argv[1], "svc") == 0)
		return svc();
	return usage();
}
