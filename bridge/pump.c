/*
 * pump - zmq_poll over two pipes and a ZeroMQ socket.  A pipe's hang-up
 * comes back from zmq_poll as ZMQ_POLLERR, not POLLIN: it is read all the
 * same, so that the end of the stream is seen.
 */
#include "pump.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#include "lines.h"

/* The self-pipe of the signal handler: written in the handler, read in
 * the loop.  Both ends close on exec, so the agent never holds them. */
static int signal_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
	int saved = errno;

	(void)sig;
	(void)!write(signal_pipe[1], "s", 1);
	errno = saved;
}

int pump_catch_signals(void)
{
	struct sigaction sa, was;

	if (pipe(signal_pipe) < 0)
		return -1;
	for (int i = 0; i < 2; i++)
		if (fcntl(signal_pipe[i], F_SETFD, FD_CLOEXEC) < 0 || fcntl(signal_pipe[i], F_SETFL, O_NONBLOCK) < 0)
			return -1;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) < 0 || sigaction(SIGINT, NULL, &was) < 0)
		return -1;
	return was.sa_handler == SIG_IGN ? 0 : sigaction(SIGINT, &sa, NULL);
}

/* Empty the self-pipe; 1 when a signal had come. */
static int signal_came(void)
{
	char buf[64];
	int came = 0;

	while (read(signal_pipe[0], buf, sizeof buf) > 0)
		came = 1;
	return came;
}

int pump_run(struct line_child *agent, void *broker_sock, const struct pump_ops *ops, void *ctx)
{
	struct lines in;
	int agent_open = 1, rc = 0;

	lines_init(&in);
	/* No caller (hb-codex-bridge --once): stdin is not read at all. */
	if (!ops->from_caller)
		in.eof = 1;
	while (agent_open) {
		zmq_pollitem_t items[4];
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
		items[n].fd = line_child_fd(agent);
		items[n++].events = ZMQ_POLLIN;
		if (broker_sock) {
			items[n].socket = broker_sock;
			items[n++].events = ZMQ_POLLIN;
		}
		if (signal_pipe[0] >= 0) {
			items[n].fd = signal_pipe[0];
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
			} else if (items[k].fd == signal_pipe[0]) {
				if (signal_came() && ops->signalled)
					ops->signalled(ctx);
			} else if (items[k].fd == STDIN_FILENO) {
				int got = lines_fill(&in, STDIN_FILENO);
				while ((line = lines_next(&in, &len)))
					ops->from_caller(ctx, line, len);
				if (got <= 0) {
					in.eof = 1;
					ops->caller_done(ctx);
				}
			} else if (line_child_read(agent, ops->from_agent, ctx) <= 0) {
				agent_open = 0;
			}
		}
	}
	lines_free(&in);
	return rc;
}
