/*
 * front-call - the two baselines of hb-mcp's tool call round trip, for
 * tests/bench/mcp.mjs: the same call sent straight to the broker's front
 * door, and the same call through `hbctl call`.
 *
 *   front-call HBCTL TOOL JSON
 *
 * It finds the broker as every client does (HB_HOME and the others,
 * docs/deploying.md) and keeps one front-socket client open.  Each line
 * read on stdin asks for one call of TOOL with JSON: "front" on that
 * client (hb_client_request: the path hb-mcp takes, without the MCP face
 * and without a run), or "hbctl" as a new `HBCTL call TOOL JSON` process
 * (fork, exec, its own connection, its exit waited for).  For each it
 * writes one line: the microseconds from the request sent (or the fork)
 * to the answer decoded (or the exit), and 1 when the call was answered
 * ok, else 0.  The driver asks for one call at a time, alternating with
 * hb-mcp's own, so that the machine's noise hits every path alike; timing
 * here instead of in the driver keeps Node's pipe and process start out
 * of the baselines.  Exits 0 at the end of stdin, 1 when it could not
 * reach the broker.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_stats.h"
#include "client.h"
#include "envelope.h"

#define CALL_TIMEOUT_MS 30000

/* One call of tool with json on c: 0 with *ok, or -1 when the client
 * failed (the reason on stderr). */
static int front_call(struct hb_client *c, const char *tool, const char *json, int *ok)
{
	struct hb_env req, reply;
	char err[256];

	hb_env_init(&req);
	if (hb_env_set_str(&req, "op", "call") < 0 || hb_env_set_str(&req, "tool", tool) < 0 ||
	    hb_env_set_str(&req, "json", json) < 0) {
		hb_env_free(&req);
		return fprintf(stderr, "front-call: out of memory\n"), -1;
	}
	if (hb_client_request(c, &req, &reply, err, sizeof err) < 0) {
		hb_env_free(&req);
		return fprintf(stderr, "front-call: %s\n", err), -1;
	}
	*ok = hb_env_bool(&reply, "ok", 0);
	hb_env_free(&req);
	hb_env_free(&reply);
	return 0;
}

/* One `hbctl call tool json`, its output to /dev/null: 0 with *ok (its
 * exit status was 0), or -1 when it could not be run. */
static int hbctl_call(const char *hbctl, const char *tool, const char *json, int *ok)
{
	int status = 0;
	pid_t pid = fork();

	if (pid < 0)
		return perror("front-call: fork"), -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null < 0 || dup2(null, 1) < 0)
			_exit(127);
		execl(hbctl, hbctl, "call", tool, json, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return perror("front-call: waitpid"), -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return fprintf(stderr, "front-call: cannot run %s\n", hbctl), -1;
	*ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	return 0;
}

int main(int argc, char **argv)
{
	struct hb_client c;
	char err[256], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;

	if (argc != 4)
		return fprintf(stderr, "usage: front-call HBCTL TOOL JSON\n"), 2;
	if (hb_client_open(&c, NULL, CALL_TIMEOUT_MS, err, sizeof err) < 0)
		return fprintf(stderr, "front-call: %s\n", err), 1;
	while ((len = getline(&line, &cap, stdin)) > 0) {
		int ok = 0, r;
		double t0;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		t0 = bench_now_us();
		if (strcmp(line, "front") == 0)
			r = front_call(&c, argv[2], argv[3], &ok);
		else if (strcmp(line, "hbctl") == 0)
			r = hbctl_call(argv[1], argv[2], argv[3], &ok);
		else {
			fprintf(stderr, "front-call: unknown path \"%s\"\n", line);
			r = -1;
		}
		if (r < 0) {
			rc = 1;
			break;
		}
		if (printf("%.0f %d\n", bench_now_us() - t0, ok) < 0 || fflush(stdout) == EOF) {
			rc = 1;
			break;
		}
	}
	free(line);
	hb_client_close(&c);
	return rc;
}
