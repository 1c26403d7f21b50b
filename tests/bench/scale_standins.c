/*
 * scale_standins - see scale_standins.h.  One thread polls every bridge's
 * socket, so that a thousand of them cost one thread, not a thousand; the
 * attaches are spread over the interval as bridges started at unrelated
 * times would send them.
 */
#include "scale_standins.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "../../bridge/deliveries.h"
#include "../harness/harness.h"
#include "client.h"
#include "clock.h"
#include "envelope.h"

#define SWITCH_LIMIT_MS 30000

struct standin {
	struct hb_client c;
	struct deliveries dl;
	int ok;                  /* its first attach was answered ok */
};

static void standin_close(struct standin *b)
{
	deliveries_detach(&b->dl, 1);
	deliveries_free(&b->dl);
	hb_client_close(&b->c);
	b->ok = 0;
}

/* Open bridges until `want` are; returns how many there are. */
static int open_more(struct standins *s, int have, int want)
{
	char err[256];

	while (have < want) {
		struct standin *b = &s->b[have];
		if (hb_client_open(&b->c, s->endpoint, 5000, err, sizeof err) < 0) {
			fprintf(stderr, "bench-scale: stand-in bridge %d: %s\n", have, err);
			atomic_store(&s->failed, 1);
			atomic_store(&s->want, have);
			break;
		}
		deliveries_init(&b->dl, &b->c, s->sessions[have], "codex");
		/* Bridges start at unrelated times: their attaches spread over
		 * the interval instead of coming all at once. */
		b->dl.next_attach_ms = hb_monotonic_ms() + (long long)have * DELIVERY_ATTACH_EVERY_MS / want;
		have++;
	}
	return have;
}

/* The answers bridge i got: count them, note the broker's interval. */
static void read_replies(struct standins *s, int i)
{
	struct standin *b = &s->b[i];
	struct hb_env e;
	char err[256];

	while (hb_client_recv(&b->c, &e, 0, err, sizeof err) == 0) {
		if (strcmp(hb_env_str_or(&e, "op", ""), "reply") == 0) {
			if (!hb_env_bool(&e, "ok", 0)) {
				fprintf(stderr, "bench-scale: session.attach refused: %s\n", hb_env_str_or(&e, "err.msg", "?"));
				atomic_store(&s->failed, 1);
			} else {
				atomic_fetch_add(&s->replies, 1);
				if (!b->ok) {
					b->ok = 1;
					atomic_fetch_add(&s->attached, 1);
				}
			}
			deliveries_note_reply(&b->dl, &e);
		}
		hb_env_free(&e);
	}
}

/* The bridges' loop: keep `want` of them attached, repeat each one's
 * session.attach when due, read their answers. */
static void *standins_run(void *arg)
{
	struct standins *s = arg;
	zmq_pollitem_t *items = calloc((size_t)(s->max > 0 ? s->max : 1), sizeof *items);
	int have = 0;

	if (!items) {
		atomic_store(&s->failed, 1);
		return NULL;
	}
	while (!atomic_load(&s->stop)) {
		int want = atomic_load(&s->want);
		long long wait = 100;

		have = open_more(s, have, want);
		while (have > want) {
			standin_close(&s->b[--have]);
			atomic_fetch_sub(&s->attached, 1);
		}
		for (int i = 0; i < have; i++) {
			long long w = deliveries_attach(&s->b[i].dl);
			if (w >= 0 && w < wait)
				wait = w;
			items[i] = (zmq_pollitem_t){ s->b[i].c.sock, 0, ZMQ_POLLIN, 0 };
		}
		if (zmq_poll(items, have, (long)wait) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < have; i++)
			if (items[i].revents & ZMQ_POLLIN)
				read_replies(s, i);
	}
	while (have > 0)
		standin_close(&s->b[--have]);
	free(items);
	return NULL;
}

int standins_init(struct standins *s, const char *dir, int max)
{
	size_t room = (size_t)(max > 0 ? max : 1);

	memset(s, 0, sizeof *s);
	s->max = max;
	snprintf(s->endpoint, sizeof s->endpoint, "ipc://%s/run/front.sock", dir);
	if (!(s->sessions = calloc(room, sizeof *s->sessions)) || !(s->b = calloc(room, sizeof *s->b))) {
		standins_free(s);
		return -1;
	}
	return 0;
}

int standins_start(struct standins *s)
{
	return pthread_create(&s->thread, NULL, standins_run, s) == 0 ? 0 : -1;
}

int standins_switch(struct standins *s, int k, const volatile sig_atomic_t *stop)
{
	long long end = fx_now_ms() + SWITCH_LIMIT_MS;
	long r0;

	atomic_store(&s->want, k);
	while (atomic_load(&s->attached) != k && fx_now_ms() < end && !atomic_load(&s->failed) && !*stop)
		fx_sleep_ms(10);
	if (atomic_load(&s->attached) != k || atomic_load(&s->failed)) {
		if (!*stop)
			fprintf(stderr, "bench-scale: %d stand-in bridges did not all attach within 30 s\n", k);
		return -1;
	}
	r0 = atomic_load(&s->replies);
	while (atomic_load(&s->replies) < r0 + k && fx_now_ms() < end && !*stop)
		fx_sleep_ms(10);
	return *stop ? -1 : 0;
}

int standins_stop(struct standins *s)
{
	atomic_store(&s->stop, 1);
	return pthread_join(s->thread, NULL) == 0 ? 0 : -1;
}

void standins_free(struct standins *s)
{
	free(s->sessions);
	free(s->b);
	s->sessions = NULL;
	s->b = NULL;
}
