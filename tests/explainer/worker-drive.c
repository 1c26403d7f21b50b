/*
 * worker-drive - runs one svc-explainer Codex worker (worker_codex.c) the
 * way the explainer tool will, for tests/e2e/worker-codex.sh: start, wait
 * for the turn (or cancel it after --cancel-after-ms), stop, and print one
 * JSON line saying how it ended, so that the script can check the worker
 * against the real codex, bridge and broker.  SIGUSR1 is the cancel: the
 * script sends it once the mock shows the turn stalled, a moment that does
 * not depend on timing.
 *
 *   worker-drive --bridge P --codex P --session S --cwd DIR --tools FILE
 *                --brief TEXT [--model M] [--timeout-ms N]
 */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "../../svc-explainer/worker_codex.h"

/* The cancel arrives as a signal, and a handler can reach only
 * file-scope state: the one flag of this program. */
static volatile sig_atomic_t cancel_requested;

static void on_cancel(int sig)
{
	(void)sig;
	cancel_requested = 1;
}

static int usage(const char *why)
{
	fprintf(stderr, "worker-drive: %s\nusage: worker-drive --bridge P --codex P --session S --cwd DIR "
			"--tools FILE --brief TEXT [--model M] [--timeout-ms N]\n",
		why);
	return 2;
}

static int parse_ms(const char *text, long long *ms)
{
	char *end;

	errno = 0;
	*ms = strtoll(text, &end, 10);
	return errno || end == text || *end || *ms < 0 ? -1 : 0;
}

static int arm_cancel(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_cancel;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	return sigaction(SIGUSR1, &sa, NULL);
}

static const char *end_name(enum worker_codex_end end)
{
	switch (end) {
	case WORKER_CODEX_TURN_ENDED:
		return "turn-ended";
	case WORKER_CODEX_CANCELLED:
		return "cancelled";
	case WORKER_CODEX_TIMED_OUT:
		return "timed-out";
	case WORKER_CODEX_FAILED:
		break;
	}
	return "failed";
}

int main(int argc, char **argv)
{
	struct worker_codex_opts o = { 0 };
	const char *tools_path = NULL;
	long long timeout_ms = 60000;
	struct worker_codex *w;
	enum worker_codex_end end;
	char err[512] = "";
	json_error_t jerr;
	json_t *tools, *summary;
	char *tools_text, *line;
	int pgid;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			return usage("every option takes a value");
		if (strcmp(a, "--bridge") == 0)
			o.bridge = v;
		else if (strcmp(a, "--codex") == 0)
			o.codex = v;
		else if (strcmp(a, "--session") == 0)
			o.session = v;
		else if (strcmp(a, "--cwd") == 0)
			o.cwd = v;
		else if (strcmp(a, "--tools") == 0)
			tools_path = v;
		else if (strcmp(a, "--brief") == 0)
			o.brief = v;
		else if (strcmp(a, "--model") == 0)
			o.model = v;
		else if (strcmp(a, "--timeout-ms") == 0) {
			if (parse_ms(v, &timeout_ms) < 0)
				return usage("--timeout-ms wants milliseconds");
		} else
			return usage("unknown option");
		i++;
	}
	if (!tools_path)
		return usage("--tools is required");
	if (!(tools = json_load_file(tools_path, 0, &jerr))) {
		fprintf(stderr, "worker-drive: cannot read %s: %s\n", tools_path, jerr.text);
		return 1;
	}
	tools_text = json_dumps(tools, JSON_COMPACT);
	json_decref(tools);
	if (!tools_text) {
		fprintf(stderr, "worker-drive: out of memory\n");
		return 1;
	}
	o.dynamic_tools = tools_text;
	/* What svc-explainer's service loop does too: a dead bridge is an
	 * error on write, not our end. */
	signal(SIGPIPE, SIG_IGN);
	if (arm_cancel() < 0) {
		fprintf(stderr, "worker-drive: cannot arm the cancel: %s\n", strerror(errno));
		free(tools_text);
		return 1;
	}
	if (worker_codex_start(&o, &w, err, sizeof err) < 0) {
		fprintf(stderr, "worker-drive: %s\n", err);
		free(tools_text);
		return 1;
	}
	pgid = worker_codex_pgid(w);
	end = worker_codex_wait(w, hb_monotonic_ms() + timeout_ms, &cancel_requested, err, sizeof err);
	summary = json_pack("{s:s, s:s?, s:i, s:i}", "end", end_name(end), "status",
			    worker_codex_turn_status(w), "toolCalls", (json_int_t)worker_codex_tool_calls(w),
			    "pgid", (json_int_t)pgid);
	worker_codex_stop(w);
	free(tools_text);
	if (!summary) {
		fprintf(stderr, "worker-drive: out of memory\n");
		return 1;
	}
	if (end == WORKER_CODEX_FAILED)
		json_object_set_new(summary, "error", json_string(err));
	line = json_dumps(summary, JSON_COMPACT);
	json_decref(summary);
	if (!line || printf("%s\n", line) < 0 || fflush(stdout) != 0) {
		free(line);
		return 1;
	}
	free(line);
	return end == WORKER_CODEX_FAILED ? 1 : 0;
}
