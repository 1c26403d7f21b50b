/*
 * worker-drive - runs one svc-explainer worker (worker.c with worker_codex.c or
 * worker_claude.c) the way the explainer tool will, for
 * tests/e2e/worker-codex.sh and worker-claude.sh: start, wait for the turn
 * (or its cancel), stop, and print one JSON line saying how it ended, so
 * that the scripts can check the worker against the real agents.  Its
 * one tool, echo, answers with the arguments' JSON text it got (and with
 * --png, that PNG as the image); any other tool is refused.  The agent
 * gets this program's environment without the secrets
 * (hb_env_without_secrets), as svc-explainer will give it.  SIGUSR1 is
 * the cancel: the scripts send it once the mock shows the turn stalled, a
 * moment that does not depend on timing.
 *
 *   worker-drive [--agent codex] --codex P --cwd DIR --tools FILE --brief TEXT
 *                [--model M] [--timeout-ms N] [--png FILE]
 *   worker-drive --agent claude --cwd DIR --tools FILE --brief TEXT
 *                [--model M] [--timeout-ms N] [--png FILE] -- HOST ARGS...
 *
 * FILE holds the agent's own form of the tools: Codex's dynamicTools
 * array, or the host's appCapabilities array.
 */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "secrets.h"
#include "../../svc-explainer/worker.h"

extern char **environ;

#define USAGE                                                                                          \
	"usage: worker-drive [--agent codex] --codex P --cwd DIR --tools FILE --brief TEXT\n"           \
	"                    [--model M] [--timeout-ms N] [--png FILE]\n"                              \
	"       worker-drive --agent claude --cwd DIR --tools FILE --brief TEXT\n"                     \
	"                    [--model M] [--timeout-ms N] [--png FILE] -- HOST ARGS...\n"

/* The cancel arrives as a signal, and a handler can reach only
 * file-scope state: the one flag of this program. */
static volatile sig_atomic_t cancel_requested;

static int cancel_raised(void *arg)
{
	(void)arg;
	return cancel_requested;
}

static void on_cancel(int sig)
{
	(void)sig;
	cancel_requested = 1;
}

struct drive {
	const char *agent, *codex, *cwd, *tools_path, *brief, *model, *png_path;
	char **host_argv;
	long long timeout_ms;
	unsigned char *png; /* --png's bytes */
	size_t png_len;
};

static int usage(const char *why)
{
	fprintf(stderr, "worker-drive: %s\n" USAGE, why);
	return 2;
}

static int parse_ms(const char *text, long long *ms)
{
	char *end;

	errno = 0;
	*ms = strtoll(text, &end, 10);
	return errno || end == text || *end || *ms < 0 ? -1 : 0;
}

/* 0, or the exit status of a usage error. */
static int parse_args(struct drive *d, int argc, char **argv)
{
	d->agent = "codex";
	d->timeout_ms = 60000;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		const char **slot = strcmp(a, "--agent") == 0 ? &d->agent
				  : strcmp(a, "--codex") == 0 ? &d->codex
				  : strcmp(a, "--cwd") == 0 ? &d->cwd
				  : strcmp(a, "--tools") == 0 ? &d->tools_path
				  : strcmp(a, "--brief") == 0 ? &d->brief
				  : strcmp(a, "--model") == 0 ? &d->model
				  : strcmp(a, "--png") == 0 ? &d->png_path : NULL;
		if (strcmp(a, "--") == 0) {
			d->host_argv = argv + i + 1;
			break;
		}
		if (!v)
			return usage("every option takes a value");
		if (strcmp(a, "--timeout-ms") == 0) {
			if (parse_ms(v, &d->timeout_ms) < 0)
				return usage("--timeout-ms wants milliseconds");
		} else if (!slot) {
			return usage("unknown option");
		} else {
			*slot = v;
		}
		i++;
	}
	if (!d->tools_path)
		return usage("--tools is required");
	if (strcmp(d->agent, "codex") != 0 && strcmp(d->agent, "claude") != 0)
		return usage("--agent is codex or claude");
	if (strcmp(d->agent, "claude") == 0 && (!d->host_argv || !d->host_argv[0]))
		return usage("--agent claude needs the host's command after --");
	return 0;
}

static struct workdir_answer echo_tool(void *arg, const char *tool, const char *args)
{
	const struct drive *d = arg;
	struct workdir_answer a = { 0, NULL, NULL, 0 };
	char text[200];

	if (strcmp(tool, "echo") != 0) {
		snprintf(text, sizeof text, "worker-drive has no tool %.100s", tool);
		a.text = strdup(text);
	} else {
		a.ok = 1;
		a.text = strdup(args);
		if (d->png && (a.png = malloc(d->png_len))) {
			memcpy(a.png, d->png, d->png_len);
			a.png_len = d->png_len;
		}
	}
	if (!a.text) {
		fprintf(stderr, "worker-drive: out of memory\n");
		exit(1);
	}
	return a;
}

static const char *end_name(enum worker_end end)
{
	switch (end) {
	case WORKER_TURN_ENDED:
		return "turn-ended";
	case WORKER_CANCELLED:
		return "cancelled";
	case WORKER_TIMED_OUT:
		return "timed-out";
	case WORKER_FAILED:
		break;
	}
	return "failed";
}

/* The file at path, whole: malloc'd, or NULL. */
static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long size;

	if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)size)) && fread(buf, 1, (size_t)size, f) == (size_t)size) {
		*len = (size_t)size;
	} else {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	return buf;
}

/* Run the worker; the summary line's fields go into summary. */
static enum worker_end run(struct drive *d, char *const *envp, const char *tools, json_t *summary, char *err,
			   size_t errlen)
{
	char *codex_argv[] = { (char *)d->codex, "app-server", NULL };
	int codex = strcmp(d->agent, "codex") == 0;
	struct worker_opts o = { .argv = codex ? codex_argv : d->host_argv, .envp = envp, .model = d->model,
				 .cwd = d->cwd, .tools = tools, .brief = d->brief, .tool = echo_tool, .tool_arg = d };
	long long deadline = hb_monotonic_ms() + d->timeout_ms;
	enum worker_end end;
	struct worker *w;
	unsigned calls;
	const char *status;
	int pgid;

	if (worker_start(codex ? &worker_codex : &worker_claude, &o, &w, err, errlen) < 0)
		return WORKER_FAILED;
	pgid = worker_pgid(w);
	end = worker_wait(w, deadline, cancel_raised, NULL, err, errlen);
	status = worker_turn_status(w);
	json_object_set_new(summary, "status", status ? json_string(status) : json_null());
	calls = worker_tool_calls(w);
	worker_stop(w);
	json_object_set_new(summary, "toolCalls", json_integer(calls));
	json_object_set_new(summary, "pgid", json_integer(pgid));
	json_object_set_new(summary, "end", json_string(end_name(end)));
	return end;
}

int main(int argc, char **argv)
{
	struct drive d = { 0 };
	enum worker_end end;
	struct sigaction sa;
	char err[512] = "", *tools_text = NULL, *line = NULL, **envp = NULL;
	json_error_t jerr;
	json_t *tools, *summary = NULL;
	int rc = 1;

	if ((rc = parse_args(&d, argc, argv)) != 0)
		return rc;
	rc = 1;
	if (!(tools = json_load_file(d.tools_path, 0, &jerr))) {
		fprintf(stderr, "worker-drive: cannot read %s: %s\n", d.tools_path, jerr.text);
		return 1;
	}
	tools_text = json_dumps(tools, JSON_COMPACT);
	json_decref(tools);
	if (d.png_path && !(d.png = slurp(d.png_path, &d.png_len))) {
		fprintf(stderr, "worker-drive: cannot read %s\n", d.png_path);
		goto out;
	}
	if (!tools_text || !(envp = hb_env_without_secrets(environ, NULL)) || !(summary = json_object())) {
		fprintf(stderr, "worker-drive: out of memory\n");
		goto out;
	}
	/* What svc-explainer's service loop does too: a dead agent is an
	 * error on write, not our end. */
	signal(SIGPIPE, SIG_IGN);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_cancel;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGUSR1, &sa, NULL) < 0) {
		fprintf(stderr, "worker-drive: cannot arm the cancel: %s\n", strerror(errno));
		goto out;
	}
	end = run(&d, envp, tools_text, summary, err, sizeof err);
	if (!json_object_get(summary, "end")) {
		fprintf(stderr, "worker-drive: %s\n", err);
		goto out;
	}
	if (end == WORKER_FAILED)
		json_object_set_new(summary, "error", json_string(err));
	line = json_dumps(summary, JSON_COMPACT);
	if (line && printf("%s\n", line) >= 0 && fflush(stdout) == 0)
		rc = end == WORKER_FAILED ? 1 : 0;
out:
	free(line);
	json_decref(summary);
	free(envp);
	free(d.png);
	free(tools_text);
	return rc;
}
