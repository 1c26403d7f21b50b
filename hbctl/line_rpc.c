/*
 * line_rpc - a child hbctl asks questions of over its standard input and
 * output, a JSON line each way: the one-shot Claude agent host
 * (claude_host.c) and codex app-server (timeline_codex.c), driven by
 * agents/line_child.c, with hbctl's limits and sentences.  The child runs
 * in a process group of its own, so its end takes whatever it started
 * (Claude Code, a shell) with it; one child answers any number of
 * requests in turn.  Lines that are not the answer awaited (events,
 * notifications, earlier answers) are read past.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "hbctl.h"
#include "line_child.h"
#include "line_rpc.h"
#include "rpc_frame.h"

/* The desktop's limits (page 003): 35 s for a request, 10 s for a child
 * to end after its input closed. */
#define REPLY_MS 35000
#define END_MS 10000

struct line_rpc {
	char name[64];
	char command[512];	/* for messages */
	struct line_child lc;
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
	if (line_child_start(&r->lc, argv, envp, CHILD_PARENT_DEATH, err, sizeof err) < 0) {
		fprintf(stderr, "hbctl: cannot start %s (%s): %s\n", name, argv[0], err);
		free(r);
		return NULL;
	}
	return r;
}

int line_rpc_call(struct line_rpc *r, const char *method, json_t *params, json_t **reply)
{
	enum line_child_miss miss;

	*reply = line_child_call(&r->lc, method, params, hb_monotonic_ms() + REPLY_MS, NULL, NULL, &miss);
	if (*reply)
		return 0;
	if (!miss)
		fputs("hbctl: out of memory\n", stderr);
	else
		fprintf(stderr, "hbctl: %s (%s) %s\n", r->name, r->command,
			miss == LINE_CHILD_TIMED_OUT ? "did not answer within 35 seconds"
			: miss == LINE_CHILD_ENDED   ? "ended without answering (its messages, if any, are above)"
						     : "could not be read");
	return EXIT_FAIL;
}

void line_rpc_notify(struct line_rpc *r, const char *method)
{
	json_t *note = rpc_notification(method);

	/* A child that is gone is seen at the next call. */
	if (!note)
		fputs("hbctl: out of memory\n", stderr);
	else
		(void)line_child_send(&r->lc, note);
}

void line_rpc_end(struct line_rpc *r, const char *close_method)
{
	if (!r)
		return;
	if (close_method)
		(void)line_child_send(&r->lc, json_pack("{s:s, s:I}", "method", close_method, "id",
							 (json_int_t)r->lc.next_id++));
	line_child_end(&r->lc, END_MS);
	free(r);
}
