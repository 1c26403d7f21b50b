/*
 * test_broker_wait - the broker's sleep (broker/wait.c) on real ZeroMQ
 * sockets: a new socket is read first; a socket read to its end is not
 * read again until its descriptor fires; a read cut short is; and a send
 * on a socket makes it due, because libzmq may process the socket's
 * commands inside that send and take the wake-up of a message that came
 * meanwhile (which is why every broker send goes through broker_send).
 * No time is asserted: a wait that wrongly sleeps shows as a socket not
 * due after a sleep bounded by SLEEP_MS.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <zmq.h>

#include "broker.h"
#include "sock.h"
#include "wait.h"

/* The longest one wait may sleep in these tests (it is cut short by any
 * fired descriptor, which every passing case has). */
#define SLEEP_MS 10000

struct rig {
	char dir[64];
	void *ctx, *pub, *back, *front, *peer; /* peer: a service's DEALER on back */
	struct broker b;
};

static int setup(void **state)
{
	struct rig *r = calloc(1, sizeof *r);
	char ep[128];

	assert_non_null(r);
	snprintf(r->dir, sizeof r->dir, "/tmp/test_broker_wait.XXXXXX");
	assert_non_null(mkdtemp(r->dir));
	r->ctx = zmq_ctx_new();
	r->pub = hb_sock_pub(r->ctx);
	r->back = hb_sock_router(r->ctx);
	r->front = hb_sock_router(r->ctx);
	assert_non_null(r->pub);
	assert_non_null(r->back);
	assert_non_null(r->front);
	snprintf(ep, sizeof ep, "ipc://%s/back.sock", r->dir);
	assert_int_equal(zmq_bind(r->back, ep), 0);
	r->peer = hb_sock_dealer(r->ctx, "svc#1", 0, 5000);
	assert_non_null(r->peer);
	assert_int_equal(zmq_connect(r->peer, ep), 0);
	snprintf(ep, sizeof ep, "ipc://%s/front.sock", r->dir);
	assert_int_equal(zmq_bind(r->front, ep), 0);
	snprintf(ep, sizeof ep, "ipc://%s/events.sock", r->dir);
	assert_int_equal(zmq_bind(r->pub, ep), 0);
	r->b.pub = r->pub;
	r->b.back = r->back;
	r->b.front = r->front;
	assert_int_equal(wait_init(&r->b.wait, r->pub, r->back, r->front), 0);
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct rig *r = *state;
	char path[128];

	zmq_close(r->peer);
	zmq_close(r->pub);
	zmq_close(r->back);
	zmq_close(r->front);
	zmq_ctx_term(r->ctx);
	for (const char *const *n = (const char *const[]){ "back.sock", "front.sock", "events.sock", NULL }; *n; n++) {
		snprintf(path, sizeof path, "%s/%s", r->dir, *n);
		unlink(path);
	}
	rmdir(r->dir);
	free(r);
	return 0;
}

/* Read socket s to its end as the loop does; how many messages. */
static int read_to_end(struct rig *r, enum wait_sock s, int budget)
{
	int n = 0;

	for (;;) {
		zmq_msg_t m;
		zmq_msg_init(&m);
		if (n == budget) {
			zmq_msg_close(&m);
			wait_read(&r->b.wait, s, 1);
			return n;
		}
		if (zmq_msg_recv(&m, r->b.wait.sock[s], ZMQ_DONTWAIT) < 0) {
			zmq_msg_close(&m);
			assert_int_equal(errno, EAGAIN);
			wait_read(&r->b.wait, s, 0);
			return n;
		}
		if (!zmq_msg_more(&m))
			n++;
		zmq_msg_close(&m);
	}
}

/* The peer sends one envelope on back. */
static void peer_sends(struct rig *r, const char *op)
{
	struct hb_env e;

	hb_env_init(&e);
	hb_env_set_str(&e, "op", op);
	assert_int_equal(hb_send_env(r->peer, NULL, &e), 0);
}

static void sleep_once(struct rig *r)
{
	assert_int_equal(wait_sleep(&r->b.wait, NULL, 0, SLEEP_MS), 0);
}

/* Until the peer's message is in: the connection comes up on its own. */
static int read_back_until(struct rig *r, int want)
{
	int got = 0;

	for (int round = 0; round < 100 && got < want; round++) {
		sleep_once(r);
		if (wait_due(&r->b.wait, WAIT_BACK))
			got += read_to_end(r, WAIT_BACK, 256);
	}
	return got;
}

static void test_new_sockets_are_due(void **state)
{
	struct rig *r = *state;

	for (int s = 0; s < WAIT_SOCKS; s++)
		assert_true(wait_due(&r->b.wait, s));
	for (int s = 0; s < WAIT_SOCKS; s++)
		read_to_end(r, s, 256);
	for (int s = 0; s < WAIT_SOCKS; s++)
		assert_false(wait_due(&r->b.wait, s));
}

static void test_message_fires_descriptor(void **state)
{
	struct rig *r = *state;

	for (int s = 0; s < WAIT_SOCKS; s++)
		read_to_end(r, s, 256);
	peer_sends(r, "heartbeat");
	assert_int_equal(read_back_until(r, 1), 1);
	assert_false(wait_due(&r->b.wait, WAIT_BACK));
	/* A second message after the first was read to the end wakes the
	 * sleep again. */
	peer_sends(r, "heartbeat");
	assert_int_equal(read_back_until(r, 1), 1);
}

static void test_budget_keeps_socket_due(void **state)
{
	struct rig *r = *state;
	int seen = 0, idle = 0;

	for (int s = 0; s < WAIT_SOCKS; s++)
		read_to_end(r, s, 256);
	for (int i = 0; i < 5; i++)
		peer_sends(r, "heartbeat");
	/* Read two at a time: what a cut-short read leaves is read in the
	 * next rounds, though no descriptor fires for it.  A sleep that
	 * finds nothing due (SLEEP_MS with no wake-up) is a message left
	 * behind. */
	while (seen < 5 && idle < 2) {
		sleep_once(r);
		if (!wait_due(&r->b.wait, WAIT_BACK)) {
			idle++;
			continue;
		}
		int got = read_to_end(r, WAIT_BACK, 2);
		assert_int_equal(wait_due(&r->b.wait, WAIT_BACK), got == 2);
		seen += got;
	}
	assert_int_equal(seen, 5);
	read_to_end(r, WAIT_BACK, 256);
	assert_false(wait_due(&r->b.wait, WAIT_BACK));
}

static void test_send_makes_socket_due(void **state)
{
	struct rig *r = *state;
	struct hb_peer to = { .len = 5 };
	struct hb_env e;
	struct timespec pause = { 0, 5 * 1000 * 1000 };
	int got;

	memcpy(to.id, "svc#1", 5);
	for (int s = 0; s < WAIT_SOCKS; s++)
		read_to_end(r, s, 256);
	peer_sends(r, "heartbeat");
	assert_int_equal(read_back_until(r, 1), 1);
	/* A message comes in; then, more than libzmq's command throttle
	 * (about a millisecond) later, the broker sends on the same socket
	 * before reading it: that send may take the message's wake-up. */
	peer_sends(r, "heartbeat");
	nanosleep(&pause, NULL);
	hb_env_init(&e);
	hb_env_set_str(&e, "op", "heartbeat");
	assert_int_equal(broker_send(&r->b, r->back, &to, &e), 0);
	sleep_once(r);
	assert_true(wait_due(&r->b.wait, WAIT_BACK));
	got = read_to_end(r, WAIT_BACK, 256);
	if (got == 0) /* it was still on its way: its own wake-up comes */
		got = read_back_until(r, 1);
	assert_int_equal(got, 1);
}

static void test_publish_makes_pub_due(void **state)
{
	struct rig *r = *state;

	for (int s = 0; s < WAIT_SOCKS; s++)
		read_to_end(r, s, 256);
	(void)broker_publish(&r->b, "service.up", "{}"); /* no subscriber: dropped, still a send */
	assert_true(wait_due(&r->b.wait, WAIT_PUB));
	assert_false(wait_due(&r->b.wait, WAIT_FRONT));
}

static void test_plain_descriptor(void **state)
{
	struct rig *r = *state;
	struct pollfd fd;
	int p[2];

	for (int s = 0; s < WAIT_SOCKS; s++)
		read_to_end(r, s, 256);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "x", 1), 1);
	fd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	assert_int_equal(wait_sleep(&r->b.wait, &fd, 1, SLEEP_MS), 0);
	assert_true(fd.revents & POLLIN);
	assert_int_equal(wait_sleep(&r->b.wait, &fd, WAIT_MAX_FDS + 1, 0), -1);
	assert_int_equal(errno, EINVAL);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_new_sockets_are_due, setup, teardown),
		cmocka_unit_test_setup_teardown(test_message_fires_descriptor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_budget_keeps_socket_due, setup, teardown),
		cmocka_unit_test_setup_teardown(test_send_makes_socket_due, setup, teardown),
		cmocka_unit_test_setup_teardown(test_publish_makes_pub_due, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plain_descriptor, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
