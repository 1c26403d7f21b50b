/*
 * node_server - the process plumbing of node_server.h: a fork and exec of
 * node with a pipe on each of stdin and stdout, the "PORT n" line read
 * byte by byte (nothing after it is consumed), and a bounded wait when
 * stopping, so a server that ignores its stdin fails the test instead of
 * hanging it.
 */
#include "node_server.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

/* A bound on waiting for the server, so a broken one fails the test
 * instead of hanging it; never a measure of speed. */
#define PATIENCE_MS 20000
#define MAX_ARGS 30

int node_server_script(const char *script, char *out, size_t outlen)
{
	const char *build = getenv("HB_BUILD");

	snprintf(out, outlen, "%s/../%s", build ? build : "build", script);
	if (access(out, R_OK) == 0)
		return 0;
	snprintf(out, outlen, "%s", script);
	return access(out, R_OK);
}

static int read_port(struct node_server *s)
{
	char line[64];
	size_t n = 0;
	long long deadline = hb_monotonic_ms() + PATIENCE_MS;

	while (n + 1 < sizeof line && hb_monotonic_ms() < deadline) {
		struct pollfd p = { s->out_fd, POLLIN, 0 };

		if (poll(&p, 1, 100) <= 0)
			continue;
		if (read(s->out_fd, line + n, 1) != 1)
			return -1;
		if (line[n] == '\n') {
			line[n] = '\0';
			return sscanf(line, "PORT %d", &s->port) == 1 && s->port > 0 ? 0 : -1;
		}
		n++;
	}
	return -1;
}

static void spawn(const char *const *argv, int in[2], int out[2])
{
	if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
		_exit(127);
	close(in[0]);
	close(in[1]);
	close(out[0]);
	close(out[1]);
	execvp("node", (char *const *)argv);
	_exit(127);
}

int node_server_start(struct node_server *s, const char *script, const char *const *args)
{
	char path[700];
	const char *argv[MAX_ARGS + 3] = { "node", path };
	int in[2], out[2], n = 2;

	memset(s, 0, sizeof *s);
	s->pid = -1;
	s->in_fd = s->out_fd = -1;
	if (node_server_script(script, path, sizeof path) != 0) {
		fprintf(stderr, "node_server: %s not found\n", script);
		return -1;
	}
	for (; args && args[n - 2]; n++) {
		if (n - 2 == MAX_ARGS) {
			fprintf(stderr, "node_server: more than %d arguments\n", MAX_ARGS);
			return -1;
		}
		argv[n] = args[n - 2];
	}
	argv[n] = NULL;
	if (pipe(in) < 0)
		return -1;
	if (pipe(out) < 0) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	if ((s->pid = fork()) == 0)
		spawn(argv, in, out);
	close(in[0]);
	close(out[1]);
	s->in_fd = in[1];
	s->out_fd = out[0];
	if (s->pid < 0 || fcntl(s->in_fd, F_SETFD, FD_CLOEXEC) < 0 || fcntl(s->out_fd, F_SETFD, FD_CLOEXEC) < 0 ||
	    read_port(s) < 0) {
		fprintf(stderr, "node_server: node %s did not start (no PORT line)\n", path);
		node_server_stop(s);
		return -1;
	}
	return 0;
}

/* Reap pid within the patience: 0 and its status, or -1. */
static int reap(pid_t pid, int *status)
{
	long long deadline = hb_monotonic_ms() + PATIENCE_MS;
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	pid_t r;

	while (((r = waitpid(pid, status, WNOHANG)) == 0 || (r < 0 && errno == EINTR)) &&
	       hb_monotonic_ms() < deadline)
		nanosleep(&tick, NULL);
	return r == pid ? 0 : -1;
}

int node_server_stop(struct node_server *s)
{
	int status = 0, r = -1;

	if (s->in_fd >= 0)
		close(s->in_fd); /* it exits when its stdin ends */
	if (s->out_fd >= 0)
		close(s->out_fd);
	s->in_fd = s->out_fd = -1;
	if (s->pid > 0) {
		if (reap(s->pid, &status) == 0) {
			r = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
		} else {
			fprintf(stderr, "node_server: pid %ld did not end with its stdin: killed\n", (long)s->pid);
			kill(s->pid, SIGKILL);
			while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
				;
		}
	}
	s->pid = -1;
	return r;
}
