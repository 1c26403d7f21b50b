/*
 * watch_events - the loop of hbctl watch: the broker's events of some
 * topics (events.sock), each handed to a sink as it comes, until SIGINT
 * or SIGTERM; the sink is also called about every half second while
 * nothing comes (the live view counts a running tool's seconds then).
 */
#include "watch_events.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <zmq.h>

#include "hbctl.h"
#include "opfields.h"
#include "paths.h"
#include "protocol.h"
#include "sock.h"

static volatile sig_atomic_t watch_stop;

static void on_watch_signal(int sig)
{
	(void)sig;
	watch_stop = 1;
}

int watch_events(const char *const *prefixes, size_t n, const struct watch_sink *sink)
{
	char ep[HB_PATH_MAX + 8], err[HB_PATH_MAX + 256];
	void *ctx, *sub;
	int ok;

	if (hb_runtime_endpoint("events.sock", ep, sizeof ep, err, sizeof err) < 0) {
		fprintf(stderr, "hbctl: %s\n", err);
		return EXIT_NO_BROKER;
	}
	signal(SIGINT, on_watch_signal);
	signal(SIGTERM, on_watch_signal);
	ctx = zmq_ctx_new();
	sub = ctx ? hb_sock_sub(ctx, prefixes[0]) : NULL;
	ok = sub != NULL;
	for (size_t i = 1; ok && i < n; i++)
		ok = zmq_setsockopt(sub, ZMQ_SUBSCRIBE, prefixes[i], strlen(prefixes[i])) == 0;
	if (!ok || zmq_connect(sub, ep) < 0) {
		fprintf(stderr, "hbctl: cannot watch %s: %s\n", ep, zmq_strerror(errno));
		if (sub)
			zmq_close(sub);
		if (ctx)
			zmq_ctx_term(ctx);
		return EXIT_NO_BROKER;
	}
	while (!watch_stop) {
		zmq_pollitem_t item = { sub, 0, ZMQ_POLLIN, 0 };
		char topic[128];
		struct hb_env e;
		int got;

		if (zmq_poll(&item, 1, 500) <= 0) {
			if (sink->idle)
				sink->idle(sink->ctx);
			continue;
		}
		if ((got = zmq_recv(sub, topic, sizeof topic - 1, 0)) < 0)
			continue;
		topic[got < (int)sizeof topic - 1 ? got : (int)sizeof topic - 1] = '\0';
		if (hb_recv_env(sub, &e, err, sizeof err) == 1) {
			/* An event's json is required by its row (broker_ops.c). */
			const char *fault = strcmp(hb_env_str(&e, "op"), HB_OP_EVENT) != 0       ? "not an event"
					    : hb_client_op_check(&e, err, sizeof err) < 0 ? err
											   : NULL;

			if (fault)
				fprintf(stderr, "hbctl: an event that does not match its row was dropped: %s\n", fault);
			else
				sink->event(sink->ctx, topic, hb_req_str(&e, "json"));
			hb_env_free(&e);
		}
	}
	zmq_close(sub);
	zmq_ctx_term(ctx);
	return 0;
}

