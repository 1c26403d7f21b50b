/*
 * bench-browser-peers - use_user_browser beside the two tools an agent
 * would otherwise drive a browser with, chrome-devtools-mcp and
 * @playwright/mcp (pinned in tests/browser-peers), on the same tasks in
 * the same headless Chromium: one table.
 *
 *   HB_BUILD=build bench-browser-peers
 *
 * This program brings up the fixture (browser_bench_rig.h: hb-broker with
 * svc-browser as deployed, the test pages, a real headless Chromium) and
 * runs the Node driver tests/bench/browser-peers.mjs, which starts each
 * peer on that Chromium in turn, scripts the tasks with each tool, checks
 * the page's real state and prints the table.  Our tool is reached
 * through this program, on one front-socket client (the path hbctl takes,
 * without a process start per call): the driver writes each call's JSON
 * arguments as one line on a pipe (its --calls-fd), and reads the answer
 * as one line of JSON {"ok":..., "text":...} on its stdin, as the peers
 * answer on their stdio.  The driver's stdout and stderr are ours: the
 * table.
 *
 * It exits 0 when the run completed, whether or not the targets were met
 * (the table's last lines say pass or FAIL for each); 1 when it could not
 * run.  HB_BENCH_PEERS_ROUNDS [3] sizes the run; HB_BENCH_PEERS_TOOLS ["ours
 * chrome-devtools-mcp playwright-mcp"] and HB_BENCH_PEERS_TASKS pick
 * (browser-peers.mjs).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "browser_bench_rig.h"
#include "child.h"
#include "../harness/node_server.h"

#define DRIVER "tests/bench/browser-peers.mjs"
#define PEERS "tests/browser-peers"

/* Write all of text to fd: 0, or -1. */
static int write_all(int fd, const char *text, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		text += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Answer the driver's calls (one JSON line each on from) on to, until it
 * closes its side: 0, or -1 when our side failed. */
static int serve(struct browser_bench_rig *r, FILE *from, int to)
{
	char *line = NULL, *text, *out;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;

	while ((len = getline(&line, &cap, from)) > 0) {
		int ok = 0;
		json_t *answer;

		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		text = NULL;
		if (browser_bench_call(r, line, &ok, &text) < 0) {
			rc = -1;
			break;
		}
		answer = json_pack("{s:b,s:s}", "ok", ok, "text", text);
		free(text);
		out = answer ? json_dumps(answer, JSON_COMPACT) : NULL;
		json_decref(answer);
		if (!out || write_all(to, out, strlen(out)) < 0 || write_all(to, "\n", 1) < 0) {
			free(out);
			rc = -1;
			break;
		}
		free(out);
	}
	free(line);
	return rc;
}

/* Run the driver with its stdin (answers) and a descriptor of its own
 * (calls) on pipes to us: its exit status (0: it ran), or -1. */
static int run_driver(struct browser_bench_rig *r)
{
	char driver[600], peers[600], port[16], calls_fd[16], err[256];
	int calls[2], answers[2], status = 0, rc;
	FILE *from;
	pid_t pid;

	if (node_server_script(DRIVER, driver, sizeof driver) < 0 ||
	    node_server_script(PEERS "/node_modules", peers, sizeof peers) < 0)
		return fprintf(stderr, "bench-browser-peers: no %s or %s/node_modules (make npm-deps)\n", DRIVER, PEERS),
		       -1;
	if (child_pipe(calls) < 0)
		return perror("bench-browser-peers: pipe"), -1;
	if (child_pipe(answers) < 0) {
		close(calls[0]);
		close(calls[1]);
		return perror("bench-browser-peers: pipe"), -1;
	}
	snprintf(port, sizeof port, "%d", r->c.port);
	snprintf(calls_fd, sizeof calls_fd, "%d", calls[1]);
	{
		char *argv[] = { "node", driver, "--devtools-port", port, "--base", r->pages.base, "--peers", peers,
				 "--calls-fd", calls_fd, NULL };
		struct child_exec x = { .argv = argv, .in = answers[0], .out = -1, .err = -1, .keep = calls[1],
					.flags = CHILD_PARENT_DEATH };

		fflush(stdout);
		pid = child_start(&x, err, sizeof err);
	}
	close(calls[1]);
	close(answers[0]);
	if (pid < 0) {
		close(calls[0]);
		close(answers[1]);
		return fprintf(stderr, "bench-browser-peers: node: %s\n", err), -1;
	}
	if (!(from = fdopen(calls[0], "r"))) {
		close(calls[0]);
		close(answers[1]);
		rc = -1;
	} else {
		rc = serve(r, from, answers[1]);
		fclose(from);
		close(answers[1]);
	}
	/* our side failed: the driver would wait for an answer for ever */
	if (rc < 0)
		kill(pid, SIGTERM);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (rc < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(void)
{
	static struct browser_bench_rig r;
	int rc = -1;

	/* a driver that died mid-answer is an error of the write, not the
	 * end of this program with the broker and the browser left running */
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		return 1;
	if (browser_bench_rig_start(&r, "bench-browser-peers") == 0)
		rc = run_driver(&r);
	browser_bench_rig_stop(&r, rc < 0);
	return rc == 0 ? 0 : 1;
}
