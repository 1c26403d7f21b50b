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
 * arguments as one line on its fd 3, and reads the answer as one line of
 * JSON {"ok":..., "text":...} on its fd 4, as the peers answer on their
 * stdio.
 *
 * It exits 0 when the run completed, whether or not the targets were met
 * (the table's last lines say pass or FAIL for each); 1 when it could not
 * run.  HB_BENCH_PEERS_ROUNDS [3] sizes the run; HB_BENCH_PEERS_TOOLS ["ours
 * chrome-devtools-mcp playwright-mcp"] and HB_BENCH_PEERS_TASKS pick
 * (browser-peers.mjs).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "browser_bench_rig.h"

#define DRIVER "tests/bench/browser-peers.mjs"
#define PEERS "tests/browser-peers"

/* path of the source tree (from $HB_BUILD/.., else from here) into out:
 * 0, or -1 when it is not there. */
static int source_path(const char *path, char *out, size_t outlen)
{
	const char *build = getenv("HB_BUILD");

	snprintf(out, outlen, "%s/../%s", build ? build : "build", path);
	if (access(out, R_OK) == 0)
		return 0;
	snprintf(out, outlen, "%s", path);
	return access(out, R_OK);
}

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

/* A pipe whose two ends close on exec (the driver gets its own copies by
 * dup2): 0, or -1. */
static int cloexec_pipe(int fds[2])
{
	if (pipe(fds) < 0)
		return -1;
	if (fcntl(fds[0], F_SETFD, FD_CLOEXEC) < 0 || fcntl(fds[1], F_SETFD, FD_CLOEXEC) < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
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

/* Run the driver with its fd 3 (calls) and fd 4 (answers) on pipes to us:
 * its exit status (0: every target met), or -1. */
static int run_driver(struct browser_bench_rig *r)
{
	char driver[600], peers[600], port[16], base[64];
	int calls[2], answers[2], status = 0, rc;
	FILE *from;
	pid_t pid;

	if (source_path(DRIVER, driver, sizeof driver) < 0 || source_path(PEERS "/node_modules", peers, sizeof peers) < 0)
		return fprintf(stderr, "bench-browser-peers: no %s or %s/node_modules (make npm-deps)\n", DRIVER, PEERS),
		       -1;
	snprintf(port, sizeof port, "%d", r->c.port);
	snprintf(base, sizeof base, "%s", r->pages.base);
	if (cloexec_pipe(calls) < 0)
		return perror("bench-browser-peers: pipe"), -1;
	if (cloexec_pipe(answers) < 0) {
		close(calls[0]);
		close(calls[1]);
		return perror("bench-browser-peers: pipe"), -1;
	}
	fflush(stdout);
	if ((pid = fork()) < 0)
		return perror("bench-browser-peers: fork"), -1;
	if (pid == 0) {
		/* dup2 clears close-on-exec on the new fds */
		if (dup2(calls[1], 3) < 0 || dup2(answers[0], 4) < 0)
			_exit(127);
		execlp("node", "node", driver, "--devtools-port", port, "--base", base, "--peers", peers, (char *)NULL);
		perror("bench-browser-peers: node");
		_exit(127);
	}
	close(calls[1]);
	close(answers[0]);
	if (!(from = fdopen(calls[0], "r")))
		return close(calls[0]), close(answers[1]), -1;
	rc = serve(r, from, answers[1]);
	fclose(from);
	close(answers[1]);
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
