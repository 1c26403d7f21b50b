/*
 * line_rpc - a child hbctl asks questions of over its standard input and
 * output, a JSON line each way: the one-shot Claude agent host
 * (claude_host.c) and codex app-server (timeline_codex.c).  The child
 * runs in a process group of its own, so its end takes whatever it
 * started (Claude Code, a shell) with it; one child answers any number of
 * requests in turn.  Lines that are not the answer awaited (events,
 * notifications, earlier answers) are read past.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "clock.h"
#include "hbctl.h"
#include "line_rpc.h"
#include "lines.h"

/* The desktop's limits (page 003): 35 s for a request, 10 s for a child
 * to end after its input closed. */
#define REPLY_MS 35000
#define END_MS 10000

struct line_rpc {
	char name[64];
	char command[512];	/* for messages */
	struct child c;
	struct lines l;
	int next_id;
	int in_open;		/* 0 once the input was closed or a write failed */
};

struct line_rpc *line_rpc_start(char *const argv[], char **envp, const char *name)
{
	struct line_rpc *r = calloc(1, sizeof *r);
	char err[512];
	size_t len = 0;

	if (!r) {
		fprintf(stderr, "hbctl: out of memory\n");
		return NULL;
	}
	snprintf(r->name, sizeof r->name, "%s", name);
	for (char *const *w = argv; *w && len < sizeof r->command; w++)
		len += (size_t)snprintf(r->command + len, sizeof r->command - len, "%s%s", w == argv ? "" : " ", *w);
	signal(SIGPIPE, SIG_IGN); /* a child that died is seen at its output */
	if (child_spawn(&r->c, argv, envp, CHILD_OWN_GROUP | CHILD_PARENT_DEATH, err, sizeof err) < 0) {
		fprintf(stderr, "hbctl: cannot start %s (%s): %s\n", name, argv[0], err);
		free(r);
		return NULL;
	}
	lines_init(&r->l);
	r->next_id = 1;
	r->in_open = 1;
	return r;
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

/* The answer to request id, or NULL at the end of the child's output, on
 * an error or when time is up (*why says which). */
static json_t *read_reply(struct line_rpc *r, int id, const char **why)
{
	long long deadline = hb_monotonic_ms() + REPLY_MS;

	for (;;) {
		size_t len;
		char *line;
		int n;

		while ((line = lines_next(&r->l, &len))) {
			json_t *msg = json_loadb(line, len, 0, NULL), *got = json_object_get(msg, "id");

			if (json_is_integer(got) && json_integer_value(got) == id)
				return msg;
			json_decref(msg);
		}
		if ((n = wait_readable(r->c.out, deadline)) <= 0) {
			*why = n == 0 ? "did not answer within 35 seconds" : "could not be read";
			return NULL;
		}
		if ((n = lines_fill(&r->l, r->c.out)) <= 0) {
			*why = n == 0 ? "ended without answering (its messages, if any, are above)" : "could not be read";
			return NULL;
		}
	}
}

/* Write one line; a child that is gone fails the write, which shows as
 * the end of its output, read next. */
static void send_line(struct line_rpc *r, const char *line)
{
	if (r->in_open && write_line(r->c.in, line, strlen(line)) < 0) {
		close(r->c.in);
		r->in_open = 0;
	}
}

/* Send {id?, method, params?}; -1 out of memory. */
static int send_request(struct line_rpc *r, int id, const char *method, json_t *params)
{
	json_t *req = json_pack("{s:s}", "method", method);
	char *line;

	if (req && id > 0)
		json_object_set_new(req, "id", json_integer(id));
	if (req && params)
		json_object_set(req, "params", params);
	line = req ? json_dumps(req, JSON_COMPACT) : NULL;
	json_decref(req);
	if (!line)
		return -1;
	send_line(r, line);
	free(line);
	return 0;
}

int line_rpc_call(struct line_rpc *r, const char *method, json_t *params, json_t **reply)
{
	int id = r->next_id++;
	const char *why = "could not be asked";

	*reply = NULL;
	if (send_request(r, id, method, params) < 0) {
		fputs("hbctl: out of memory\n", stderr);
		return EXIT_FAIL;
	}
	if (!(*reply = read_reply(r, id, &why))) {
		fprintf(stderr, "hbctl: %s (%s) %s\n", r->name, r->command, why);
		return EXIT_FAIL;
	}
	return 0;
}

void line_rpc_notify(struct line_rpc *r, const char *method)
{
	if (send_request(r, 0, method, NULL) < 0)
		fputs("hbctl: out of memory\n", stderr);
}

void line_rpc_end(struct line_rpc *r, const char *close_method)
{
	long long deadline = hb_monotonic_ms() + END_MS;

	if (!r)
		return;
	if (close_method)
		(void)send_request(r, r->next_id++, close_method, NULL);
	if (r->in_open)
		close(r->c.in);
	/* Let the child end by itself, then end its group. */
	while (wait_readable(r->c.out, deadline) > 0 && lines_fill(&r->l, r->c.out) > 0)
		while (lines_next(&r->l, &(size_t){ 0 }))
			;
	kill(-r->c.pid, SIGKILL); /* the group: what it started too, should it linger */
	close(r->c.out);
	child_wait(&r->c);
	lines_free(&r->l);
	free(r);
}
