/*
 * pump - zmq_poll over two pipes and a ZeroMQ socket.  A pipe's hang-up
 * comes back from zmq_poll as ZMQ_POLLERR, not POLLIN: it is read all the
 * same, so that the end of the stream is seen.
 */
#include "pump.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#include "lines.h"

int pump_run(int agent_out, void *broker_sock, const struct pump_ops *ops, void *ctx)
{
	struct lines in, out;
	int rc = 0;

	lines_init(&in);
	lines_init(&out);
	while (!out.eof) {
		zmq_pollitem_t items[3];
		long long wait = ops->before_wait ? ops->before_wait(ctx) : -1;
		char *line;
		size_t len;
		int n = 0;

		if (wait == -2)
			break;
		memset(items, 0, sizeof items);
		if (!in.eof) {
			items[n].fd = STDIN_FILENO;
			items[n++].events = ZMQ_POLLIN;
		}
		items[n].fd = agent_out;
		items[n++].events = ZMQ_POLLIN;
		if (broker_sock) {
			items[n].socket = broker_sock;
			items[n++].events = ZMQ_POLLIN;
		}
		if (zmq_poll(items, n, wait) < 0) {
			if (errno == EINTR)
				continue;
			rc = -1;
			break;
		}
		for (int k = 0; k < n; k++) {
			if (!(items[k].revents & (ZMQ_POLLIN | ZMQ_POLLERR)))
				continue;
			if (items[k].socket) {
				ops->from_broker(ctx);
			} else if (items[k].fd == STDIN_FILENO) {
				int got = lines_fill(&in, STDIN_FILENO);
				while ((line = lines_next(&in, &len)))
					ops->from_caller(ctx, line, len);
				if (got <= 0) {
					in.eof = 1;
					ops->caller_done(ctx);
				}
			} else {
				if (lines_fill(&out, agent_out) <= 0)
					out.eof = 1;
				while ((line = lines_next(&out, &len)))
					ops->from_agent(ctx, line, len);
			}
		}
	}
	lines_free(&in);
	lines_free(&out);
	return rc;
}
