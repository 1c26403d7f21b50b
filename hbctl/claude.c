/*
 * claude - hbctl claude METHOD ['JSON params']: one read of the Claude
 * agent host (docs/agent-host-pipe.md, "Reads") for a person at a shell,
 * e.g. the saved conversations of a folder.
 *
 * It does what the desktop does for a read that needs no open
 * conversation: start a one-shot host (agent_cmd.h: the setting agentHost,
 * or the host beside hbctl), without the nine markers a parent Claude Code
 * session leaves in the environment (else the host would run as a child
 * session), write the read and close, print the reply, and end the host's
 * whole process group.  No broker is needed: the host reads Claude's own
 * folder.
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

/* The reads; the run's requests need a desktop on the pipe. */
static const char *const reads[] = {
	"history", "list", "inspect", "subagents", "subagentHistory", "toolOutput", "catalog", "usage", "title",
	NULL
};

static int is_read(const char *method)
{
	for (const char *const *r = reads; *r; r++)
		if (strcmp(*r, method) == 0)
			return 1;
	return 0;
}

static int claude_usage(void)
{
	fprintf(stderr, "usage: hbctl claude METHOD ['JSON params']\n"
			"  METHOD: history list inspect subagents subagentHistory toolOutput catalog usage title\n"
			"  e.g. hbctl claude list '{\"cwd\":\"/home/you/project\"}'\n");
	return EXIT_USAGE;
}

/* The request line and the close, written at once: the host answers the
 * read before it ends.  A host that is gone fails the write; that shows
 * as the end of its output, which the caller reads next. */
static void write_requests(int fd, const char *method, json_t *params)
{
	json_t *req = json_pack("{s:i, s:s, s:O}", "id", 1, "method", method, "params", params);
	char *line = req ? json_dumps(req, JSON_COMPACT) : NULL;
	static const char close_line[] = "{\"id\":2,\"method\":\"close\"}";

	if (!line)
		fputs("hbctl: out of memory\n", stderr);
	else if (write_line(fd, line, strlen(line)) == 0)
		write_line(fd, close_line, sizeof close_line - 1);
	free(line);
	json_decref(req);
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

/* The reply to request 1, or NULL at the end of the host's output, on an
 * error or when time is up (*why says which). */
static json_t *read_reply(int fd, struct lines *l, const char **why)
{
	long long deadline = hb_monotonic_ms() + REPLY_MS;

	for (;;) {
		size_t len;
		char *line;
		int r;

		while ((line = lines_next(l, &len))) {
			json_t *msg = json_loadb(line, len, 0, NULL), *id = json_object_get(msg, "id");

			if (json_is_integer(id) && json_integer_value(id) == 1)
				return msg;
			json_decref(msg); /* events, and the close's reply */
		}
		if ((r = wait_readable(fd, deadline)) <= 0) {
			*why = r == 0 ? "did not answer within 35 seconds" : "could not be read";
			return NULL;
		}
		if ((r = lines_fill(l, fd)) <= 0) {
			*why = r == 0 ? "ended without answering (its messages, if any, are above)" : "could not be read";
			return NULL;
		}
	}
}

/* Let the host end by itself after close, then end its group. */
static int end_host(struct child *c, struct lines *l)
{
	long long deadline = hb_monotonic_ms() + END_MS;

	while (wait_readable(c->out, deadline) > 0 && lines_fill(l, c->out) > 0)
		while (lines_next(l, &(size_t){ 0 }))
			;
	kill(-c->pid, SIGKILL); /* the group: Claude Code too, should it linger */
	close(c->out);
	return child_wait(c);
}

/* Print the reply: the result as JSON on stdout, or the error's sentence. */
static int print_reply(const char *method, json_t *reply)
{
	json_t *result = json_object_get(reply, "result"), *error = json_object_get(reply, "error");
	const char *message = json_string_value(json_object_get(error, "message"));
	const char *code = json_string_value(json_object_get(error, "code"));
	char *text;

	if (result) {
		if (!(text = json_dumps(result, JSON_COMPACT | JSON_ENCODE_ANY))) {
			fprintf(stderr, "hbctl: out of memory\n");
			return EXIT_FAIL;
		}
		puts(text);
		free(text);
		return 0;
	}
	fprintf(stderr, "hbctl: claude %s: %s (%s)\n", method,
		message ? message : "the agent host answered with an error", code ? code : "no code");
	return EXIT_FAIL;
}

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

/* One read in a one-shot host: 0 with *reply (the host's reply, an
 * error reply too), or EXIT_FAIL after saying why on stderr. */
int claude_read(const char *argv0, const char *method, json_t *params, json_t **reply)
{
	char words[HB_AGENT_HOST_LINE_MAX], *host[HB_AGENT_HOST_ARGS_MAX + 1], err[512], **envp;
	const char *why = NULL;
	struct child c;
	struct lines l;
	int rc;

	*reply = NULL;
	if (host_argv(argv0, words, sizeof words, host) < 0)
		return EXIT_FAIL;
	if (!(envp = hb_env_without_secrets(environ, hb_claude_child_markers))) {
		fprintf(stderr, "hbctl: out of memory\n");
		return EXIT_FAIL;
	}
	signal(SIGPIPE, SIG_IGN); /* a host that died is seen at its output */
	rc = child_spawn(&c, host, envp, CHILD_OWN_GROUP | CHILD_PARENT_DEATH, err, sizeof err);
	free(envp); /* one allocation; the child has its copy */
	if (rc < 0) {
		fprintf(stderr, "hbctl: cannot start the Claude agent host (%s): %s\n", host[0], err);
		return EXIT_FAIL;
	}
	lines_init(&l);
	/* A host that ended at once (a wrong agentHost) may be gone before
	 * the write or after it; either way its output ends unanswered. */
	write_requests(c.in, method, params);
	close(c.in);
	*reply = read_reply(c.out, &l, &why);
	end_host(&c, &l);
	lines_free(&l);
	if (!*reply) {
		fputs("hbctl: the Claude agent host (", stderr);
		for (char **w = host; *w; w++)
			fprintf(stderr, "%s%s", w == host ? "" : " ", *w);
		fprintf(stderr, ") %s\n", why);
		return EXIT_FAIL;
	}
	return 0;
}

int cmd_claude(int argc, char **argv)
{
	json_t *params, *reply;
	int rc;

	if (argc < 3 || argc > 4 || !is_read(argv[2]))
		return claude_usage();
	params = argc == 4 ? json_loads(argv[3], JSON_REJECT_DUPLICATES, NULL) : json_object();
	if (!json_is_object(params)) {
		fprintf(stderr, "hbctl: claude %s: the params must be one JSON object, e.g. '{\"cwd\":\"/home/you/project\"}'\n",
			argv[2]);
		json_decref(params);
		return EXIT_USAGE;
	}
	rc = claude_read(argv[0], argv[2], params, &reply);
	json_decref(params);
	if (rc != 0)
		return rc;
	rc = print_reply(argv[2], reply);
	json_decref(reply);
	return rc;
}
