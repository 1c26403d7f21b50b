/*
 * claude_host - a one-shot Claude agent host for reads (docs/agent-host-
 * pipe.md, "Reads"), as the desktop starts one for a read that needs no
 * open conversation: the setting agentHost or the host beside hbctl
 * (agent_cmd.h), without the nine markers a parent Claude Code session
 * leaves in the environment (else the host would run as a child session),
 * in a process group of its own.  One host answers any number of reads in
 * turn, so a command that pages a whole conversation starts Node and the
 * SDK once; its end closes the pipe and ends the whole group.
 */
#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_cmd.h"
#include "child.h"
#include "clock.h"
#include "exe_path.h"
#include "hbctl.h"
#include "lines.h"
#include "paths.h"
#include "secrets.h"

/* The desktop's limits (page 003): 35 s for a request, 10 s for the host
 * to end after close. */
#define REPLY_MS 35000
#define END_MS 10000

extern char **environ;

struct claude_host {
	char words[HB_AGENT_HOST_LINE_MAX];
	char *argv[HB_AGENT_HOST_ARGS_MAX + 1];
	struct child c;
	struct lines l;
	int next_id;
	int in_open;	/* 0 once close was written or a write failed */
};

/* The host's command line: the setting, or the host beside hbctl. */
static int host_argv(const char *argv0, char *words, size_t wordslen, char *argv[HB_AGENT_HOST_ARGS_MAX + 1])
{
	struct hb_paths paths;
	char dir[HB_PATH_MAX], err[1024];

	if (hb_paths_resolve(&paths, err, sizeof err) < 0 || hb_exe_dir(argv0, dir, sizeof dir, err, sizeof err) < 0 ||
	    hb_agent_host_argv(&paths, dir, words, wordslen, argv, err, sizeof err) < 0) {
		fprintf(stderr, "hbctl: %s\n", err);
		return -1;
	}
	return 0;
}

struct claude_host *claude_host_start(const char *argv0)
{
	struct claude_host *h = calloc(1, sizeof *h);
	char err[512], **envp;
	int rc;

	if (!h) {
		fprintf(stderr, "hbctl: out of memory\n");
		return NULL;
	}
	if (host_argv(argv0, h->words, sizeof h->words, h->argv) < 0) {
		free(h);
		return NULL;
	}
	if (!(envp = hb_env_without_secrets(environ, hb_claude_child_markers))) {
		fprintf(stderr, "hbctl: out of memory\n");
		free(h);
		return NULL;
	}
	signal(SIGPIPE, SIG_IGN); /* a host that died is seen at its output */
	rc = child_spawn(&h->c, h->argv, envp, CHILD_OWN_GROUP | CHILD_PARENT_DEATH, err, sizeof err);
	free(envp); /* one allocation; the child has its copy */
	if (rc < 0) {
		fprintf(stderr, "hbctl: cannot start the Claude agent host (%s): %s\n", h->argv[0], err);
		free(h);
		return NULL;
	}
	lines_init(&h->l);
	h->next_id = 1;
	h->in_open = 1;
	return h;
}

/* Wait until fd is readable or deadline; 1 readable, 0 time is up, -1. */
static int wait_readable(int fd, long long deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	for (;;) {
		long long left = deadline - hb_monotonic_ms();
		int n;

		if (left <= 0)
			return 0;
		n = poll(&pfd, 1, left > 1000 ? 1000 : (int)left);
		if (n > 0)
			return 1;
		if (n < 0 && errno != EINTR)
			return -1;
	}
}

/* The reply to request id, or NULL at the end of the host's output, on
 * an error or when time is up (*why says which). */
static json_t *read_reply(struct claude_host *h, int id, const char **why)
{
	long long deadline = hb_monotonic_ms() + REPLY_MS;

	for (;;) {
		size_t len;
		char *line;
		int r;

		while ((line = lines_next(&h->l, &len))) {
			json_t *msg = json_loadb(line, len, 0, NULL), *got = json_object_get(msg, "id");

			if (json_is_integer(got) && json_integer_value(got) == id)
				return msg;
			json_decref(msg); /* events, and earlier replies */
		}
		if ((r = wait_readable(h->c.out, deadline)) <= 0) {
			*why = r == 0 ? "did not answer within 35 seconds" : "could not be read";
			return NULL;
		}
		if ((r = lines_fill(&h->l, h->c.out)) <= 0) {
			*why = r == 0 ? "ended without answering (its messages, if any, are above)" : "could not be read";
			return NULL;
		}
	}
}

/* Write one line to the host; a host that is gone fails the write, which
 * shows as the end of its output, read next. */
static void send_line(struct claude_host *h, const char *line)
{
	if (h->in_open && write_line(h->c.in, line, strlen(line)) < 0) {
		close(h->c.in);
		h->in_open = 0;
	}
}

int claude_host_read(struct claude_host *h, const char *method, json_t *params, json_t **reply)
{
	int id = h->next_id++;
	json_t *req = json_pack("{s:i, s:s, s:O}", "id", id, "method", method, "params", params);
	char *line = req ? json_dumps(req, JSON_COMPACT) : NULL;
	const char *why = "could not be asked";

	json_decref(req);
	*reply = NULL;
	if (!line) {
		fputs("hbctl: out of memory\n", stderr);
		return EXIT_FAIL;
	}
	send_line(h, line);
	free(line);
	if (!(*reply = read_reply(h, id, &why))) {
		fputs("hbctl: the Claude agent host (", stderr);
		for (char **w = h->argv; *w; w++)
			fprintf(stderr, "%s%s", w == h->argv ? "" : " ", *w);
		fprintf(stderr, ") %s\n", why);
		return EXIT_FAIL;
	}
	return 0;
}

void claude_host_end(struct claude_host *h)
{
	char close_line[48];
	long long deadline = hb_monotonic_ms() + END_MS;

	if (!h)
		return;
	snprintf(close_line, sizeof close_line, "{\"id\":%d,\"method\":\"close\"}", h->next_id++);
	send_line(h, close_line);
	if (h->in_open)
		close(h->c.in);
	/* Let the host end by itself after close, then end its group. */
	while (wait_readable(h->c.out, deadline) > 0 && lines_fill(&h->l, h->c.out) > 0)
		while (lines_next(&h->l, &(size_t){ 0 }))
			;
	kill(-h->c.pid, SIGKILL); /* the group: Claude Code too, should it linger */
	close(h->c.out);
	child_wait(&h->c);
	lines_free(&h->l);
	free(h);
}

int claude_read(const char *argv0, const char *method, json_t *params, json_t **reply)
{
	struct claude_host *h = claude_host_start(argv0);
	int rc;

	*reply = NULL;
	if (!h)
		return EXIT_FAIL;
	rc = claude_host_read(h, method, params, reply);
	claude_host_end(h);
	return rc;
}
