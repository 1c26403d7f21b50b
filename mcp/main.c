/*
 * hb-mcp - the hbcode tools for any MCP client (docs/mcp.md).
 *
 *	hb-mcp [--session ID] [--access read-only|full-auto|full-access|unrestricted]
 *	       [--no-elicitation]
 *
 * Speaks MCP (JSON-RPC 2.0, a message a line) on stdin and stdout with one
 * client, and hb-broker's front door for it: one connection is one run,
 * for the session --session names or the client's own (link.c).  Nothing
 * but protocol goes to stdout; what a person should read goes to stderr.
 * One loop polls stdin, the front socket (and its monitor, which sees the
 * broker go), the events socket and the watch of the settings folder
 * (server.c), so several calls run at once with no threads, and an idle
 * hb-mcp sleeps until one of them has something.  The run closes when stdin ends or on SIGTERM or SIGINT.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#include "access.h"
#include "approval.h"
#include "calls.h"
#include "jsonrpc.h"
#include "lines.h"
#include "link.h"
#include "mcp.h"
#include "server.h"

static volatile sig_atomic_t stop_asked;

static void on_stop(int sig)
{
	(void)sig;
	stop_asked = 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: hb-mcp [--session ID] [--access read-only|full-auto|full-access|unrestricted] "
		"[--no-elicitation]\n");
	return 100;
}

static int parse_args(struct mcp *m, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--session") == 0 && i + 1 < argc && !m->session_opt && *argv[i + 1] &&
		    strlen(argv[i + 1]) < sizeof m->session)
			m->session_opt = argv[++i];
		else if (strcmp(argv[i], "--access") == 0 && i + 1 < argc && hb_access_rank(argv[i + 1]) >= 0)
			m->access = argv[++i];
		else if (strcmp(argv[i], "--no-elicitation") == 0)
			m->no_elicitation = 1;
		else
			return -1;
	}
	return 0;
}

/* Read what stdin has and answer each whole line: 0, or -1 at its end. */
static int read_client(struct mcp *m, struct lines *in)
{
	char *line;
	size_t len;
	int rc = lines_fill(in, STDIN_FILENO);

	if (rc < 0 && errno == EMSGSIZE) {
		/* One line past LINES_MAX: said, dropped, and the rest of it
		 * is answered as what it is (not JSON). */
		mcp_send(m, mcp_rpc_error(NULL, MCP_INVALID_REQUEST, "Invalid request: the line is longer than "
					  "hb-mcp reads (64 MiB); it was dropped"));
		lines_free(in);
		lines_init(in);
		return 0;
	}
	while ((line = lines_next(in, &len)))
		server_line(m, line, len);
	return rc <= 0 && !(rc < 0 && (errno == EAGAIN || errno == EINTR)) ? -1 : 0;
}

static void serve(struct mcp *m)
{
	struct lines in;

	lines_init(&in);
	while (!stop_asked) {
		zmq_pollitem_t items[5] = { { NULL, STDIN_FILENO, ZMQ_POLLIN, 0 } };
		int n = 1, rc, settings_fd = server_settings_fd(m);

		if (m->connected) {
			items[n++] = (zmq_pollitem_t){ m->client.sock, 0, ZMQ_POLLIN, 0 };
			items[n++] = (zmq_pollitem_t){ m->client.monitor, 0, ZMQ_POLLIN, 0 };
		}
		if (m->sub)
			items[n++] = (zmq_pollitem_t){ m->sub, 0, ZMQ_POLLIN, 0 };
		if (settings_fd >= 0)
			items[n++] = (zmq_pollitem_t){ NULL, settings_fd, ZMQ_POLLIN, 0 };
		rc = zmq_poll(items, n, server_settings_wait_ms(m));
		if (rc < 0 && errno != EINTR) {
			fprintf(stderr, "hb-mcp: cannot wait for input: %s\n", zmq_strerror(errno));
			break;
		}
		/* Events first: a call's key and progress before its answer. */
		if (m->sub)
			link_read_events(m);
		if (m->connected)
			link_read_front(m);
		if (rc > 0 && (items[0].revents & (ZMQ_POLLIN | ZMQ_POLLERR)) && read_client(m, &in) < 0)
			break;
		server_look_at_settings(m);
	}
	lines_free(&in);
}

int main(int argc, char **argv)
{
	struct mcp m;
	struct sigaction sa;
	char err[512];

	memset(&m, 0, sizeof m);
	m.access = "read-only";
	m.out_fd = STDOUT_FILENO;
	if (parse_args(&m, argc, argv) < 0)
		return usage();
	server_init(&m);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* Best effort: without a broker yet, the first request opens it. */
	(void)link_events(&m, err, sizeof err);
	serve(&m);
	link_close_run(&m);
	calls_free(&m);
	approval_free(&m);
	server_free(&m);
	link_free(&m);
	free(m.listing);
	return 0;
}
