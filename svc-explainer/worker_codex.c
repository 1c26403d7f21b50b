/*
 * worker_codex - the desktop side of the Codex app-server protocol for
 * svc-explainer's worker (see worker_codex.h).  The requests go out one
 * after the other as their answers come back, so that nothing blocks
 * outside worker_codex_wait, whose deadline and cancel then cover the
 * whole start-up too.  Stopping waits for the bridge without reaping it
 * first (WNOWAIT): while its zombie holds the pid, the group id cannot be
 * reused, so the last SIGKILL to the group reaches only the worker's
 * stragglers.
 */
#include "worker_codex.h"

#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "clock.h"
#include "lines.h"

/* Our JSON-RPC request ids: one request each. */
enum { ID_INITIALIZE = 1, ID_THREAD_START, ID_TURN_START, ID_TURN_INTERRUPT };

#define INTERRUPT_GRACE_MS 1000 /* a turn/interrupt answered by the turn's end */
#define STOP_EOF_GRACE_MS 3000  /* the bridge ends when its input does */
#define STOP_TERM_GRACE_MS 2000
#define POLL_SLICE_MS 50        /* how often a cancel flag is looked at */
#define DRAIN_MAX_READS 64

struct worker_codex {
	struct child bridge;
	struct lines out;
	json_t *thread_params;   /* thread/start's, sent once initialize is answered */
	char *brief;
	char *thread_id, *turn_id;
	char *early_turn;        /* turn/completed before turn/start's answer: its id */
	char early_status[32];
	char status[32];         /* the ended turn's, or "killed"; "" while running */
	unsigned tool_calls;
	int exited;              /* the bridge is a zombie (not reaped yet) */
	int exit_status;         /* then: its wait status */
	int reaped;
	char failure[300];       /* a protocol failure, once one happened */
};

static void fail(struct worker_codex *w, const char *fmt, const char *detail)
{
	if (!w->failure[0])
		snprintf(w->failure, sizeof w->failure, fmt, detail ? detail : "");
}

static void send_json(struct worker_codex *w, json_t *msg)
{
	char *text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;

	if (!text)
		fail(w, "out of memory speaking to the Codex bridge%s", NULL);
	else if (w->bridge.in < 0 || write_line(w->bridge.in, text, strlen(text)) < 0)
		fail(w, "cannot write to the Codex bridge: %s", strerror(w->bridge.in < 0 ? EPIPE : errno));
	free(text);
	json_decref(msg);
}

static void send_request(struct worker_codex *w, int id, const char *method, json_t *params)
{
	send_json(w, params ? json_pack("{s:i, s:s, s:o}", "id", id, "method", method, "params", params)
			    : NULL);
}

/* A bridge still running (or a zombie): 1 when it has ended, without
 * reaping it.  wait_ms < 0: as long as it takes. */
static int wait_exit(struct worker_codex *w, long long wait_ms)
{
	long long until = hb_monotonic_ms() + wait_ms;

	while (!w->exited) {
		siginfo_t si;
		memset(&si, 0, sizeof si);
		if (waitid(P_PID, (id_t)w->bridge.pid, &si,
			   WEXITED | WNOWAIT | (wait_ms < 0 ? 0 : WNOHANG)) < 0) {
			if (errno == EINTR)
				continue;
			w->exited = 1; /* ECHILD: nothing left to wait for */
			w->reaped = 1;
			break;
		}
		if (si.si_pid == w->bridge.pid) {
			w->exited = 1;
			w->exit_status = si.si_code == CLD_EXITED ? si.si_status : 128 + si.si_status;
			break;
		}
		if (hb_monotonic_ms() >= until)
			break;
		{
			struct timespec ts = { 0, 10 * 1000000L };
			nanosleep(&ts, NULL);
		}
	}
	return w->exited;
}

static void kill_group(struct worker_codex *w, int sig)
{
	/* The pgid is the bridge's pid, safe to signal until it is reaped. */
	if (!w->reaped)
		(void)killpg(w->bridge.pid, sig);
}

static void start_turn(struct worker_codex *w)
{
	json_t *input = json_pack("[{s:s, s:s, s:[]}]", "type", "text", "text", w->brief, "text_elements");

	send_request(w, ID_TURN_START, "turn/start",
		     input ? json_pack("{s:s, s:o}", "threadId", w->thread_id, "input", input) : NULL);
}

static void turn_ended(struct worker_codex *w, const char *status)
{
	snprintf(w->status, sizeof w->status, "%s", status && *status ? status : "unknown");
}

static void on_response(struct worker_codex *w, json_int_t id, json_t *msg)
{
	json_t *error = json_object_get(msg, "error"), *result = json_object_get(msg, "result");
	const char *text;

	if (id == ID_TURN_INTERRUPT)
		return; /* the turn's end is what counts, and the deadline covers it */
	if (error) {
		const char *what = id == ID_INITIALIZE     ? "initialize"
				   : id == ID_THREAD_START ? "thread/start" : "turn/start";
		const char *why = json_string_value(json_object_get(error, "message"));
		char line[300];
		snprintf(line, sizeof line, "Codex refused %s: %s", what, why ? why : "no reason given");
		fail(w, "%s", line);
		return;
	}
	if (id == ID_INITIALIZE) {
		send_json(w, json_pack("{s:s}", "method", "initialized"));
		send_request(w, ID_THREAD_START, "thread/start", json_incref(w->thread_params));
	} else if (id == ID_THREAD_START) {
		text = json_string_value(json_object_get(json_object_get(result, "thread"), "id"));
		if (!text || !(w->thread_id = strdup(text)))
			fail(w, "Codex answered thread/start without a thread id%s", NULL);
		else
			start_turn(w);
	} else if (id == ID_TURN_START) {
		text = json_string_value(json_object_get(json_object_get(result, "turn"), "id"));
		if (!text || !(w->turn_id = strdup(text)))
			fail(w, "Codex answered turn/start without a turn id%s", NULL);
		else if (w->early_turn && strcmp(w->early_turn, text) == 0)
			turn_ended(w, w->early_status);
	}
}

/* Approvals should not come with approvalPolicy "never"; if one does, the
 * worker is told no.  Anything else we cannot answer gets an error. */
static void on_server_request(struct worker_codex *w, json_t *id, const char *method)
{
	const char *decision = NULL;

	if (strcmp(method, "item/commandExecution/requestApproval") == 0 ||
	    strcmp(method, "item/fileChange/requestApproval") == 0)
		decision = "decline";
	else if (strcmp(method, "execCommandApproval") == 0 || strcmp(method, "applyPatchApproval") == 0)
		decision = "denied";
	if (decision)
		send_json(w, json_pack("{s:O, s:{s:s}}", "id", id, "result", "decision", decision));
	else
		send_json(w, json_pack("{s:O, s:{s:i, s:s}}", "id", id, "error", "code", -32601, "message",
				       "svc-explainer's worker does not answer this request"));
}

static void on_notification(struct worker_codex *w, const char *method, json_t *params)
{
	if (strcmp(method, "turn/completed") == 0) {
		json_t *turn = json_object_get(params, "turn");
		const char *id = json_string_value(json_object_get(turn, "id"));
		const char *status = json_string_value(json_object_get(turn, "status"));
		if (!id)
			return;
		if (w->turn_id) {
			if (strcmp(w->turn_id, id) == 0)
				turn_ended(w, status);
		} else if (!w->early_turn && (w->early_turn = strdup(id))) {
			snprintf(w->early_status, sizeof w->early_status, "%s", status ? status : "unknown");
		}
	} else if (strcmp(method, "item/completed") == 0) {
		const char *type = json_string_value(json_object_get(json_object_get(params, "item"), "type"));
		if (type && strcmp(type, "dynamicToolCall") == 0)
			w->tool_calls++;
	}
}

static void on_line(struct worker_codex *w, const char *line, size_t len)
{
	json_t *msg = json_loadb(line, len, 0, NULL), *id;
	const char *method;

	if (!json_is_object(msg)) {
		json_decref(msg);
		return; /* not ours to judge: the bridge passes codex's lines on */
	}
	id = json_object_get(msg, "id");
	method = json_string_value(json_object_get(msg, "method"));
	if (method && id)
		on_server_request(w, id, method);
	else if (method)
		on_notification(w, method, json_object_get(msg, "params"));
	else if (json_is_integer(id))
		on_response(w, json_integer_value(id), msg);
	json_decref(msg);
}

int worker_codex_start(const struct worker_codex_opts *o, struct worker_codex **out, char *err, size_t errlen)
{
	struct worker_codex *w;
	json_t *tools;
	json_error_t jerr;

	*out = NULL;
	if (!o->bridge || !o->codex || !o->session || !o->cwd || !o->dynamic_tools || !o->brief) {
		snprintf(err, errlen, "the Codex worker needs the bridge, codex, a session, a work folder, "
				      "its tools and a brief");
		return -1;
	}
	if (!(tools = json_loads(o->dynamic_tools, 0, &jerr)) || !json_is_array(tools)) {
		snprintf(err, errlen, "the Codex worker's tools are not a JSON array: %s",
			 tools ? "another JSON value" : jerr.text);
		json_decref(tools);
		return -1;
	}
	/* workspace-write lets the worker write in cwd; the overrides take
	 * away the temporary folders it would also get. */
	if (!(w = calloc(1, sizeof *w)) || !(w->brief = strdup(o->brief)) ||
	    !(w->thread_params = json_pack("{s:s, s:o, s:s, s:s, s:{s:{s:b, s:b, s:b}}}", "cwd", o->cwd,
					   "dynamicTools", tools, "approvalPolicy", "never", "sandbox",
					   "workspace-write", "config", "sandbox_workspace_write",
					   "exclude_slash_tmp", 1, "exclude_tmpdir_env_var", 1, "network_access", 0)) ||
	    (o->model && json_object_set_new(w->thread_params, "model", json_string(o->model)) < 0)) {
		if (!w || !w->brief)
			json_decref(tools); /* a failed json_pack consumed it (jansson >= 2.11) */
		if (w) {
			json_decref(w->thread_params);
			free(w->brief);
		}
		free(w);
		snprintf(err, errlen, "out of memory starting the Codex worker");
		return -1;
	}
	lines_init(&w->out);
	{
		char *argv[] = { (char *)o->bridge, "--session", (char *)o->session, "--",
				 (char *)o->codex,  "app-server", NULL };
		if (child_spawn(&w->bridge, argv, o->envp, CHILD_OWN_GROUP | CHILD_PARENT_DEATH, err, errlen) < 0) {
			lines_free(&w->out);
			json_decref(w->thread_params);
			free(w->brief);
			free(w);
			return -1;
		}
	}
	send_request(w, ID_INITIALIZE, "initialize",
		     json_pack("{s:{s:s, s:s, s:s}, s:{s:b}}", "clientInfo", "name", "hbcode_explainer", "title",
			       "HB Code explainer worker", "version", "1", "capabilities", "experimentalApi", 1));
	*out = w;
	return 0;
}

/* The bridge's output ended: its exit, as a sentence. */
static void bridge_gone(struct worker_codex *w)
{
	char why[64];

	if (wait_exit(w, 1000))
		snprintf(why, sizeof why, "exit status %d", w->exit_status);
	else
		snprintf(why, sizeof why, "its output closed");
	fail(w, "the Codex bridge ended before the worker's turn did (%s)", why);
}

/* Take in the lines the bridge has written by now (a bounded number of
 * reads, so that a chatty worker cannot starve a cancel): 0, or -1 when
 * waiting for it failed (err). */
static int drain(struct worker_codex *w, int timeout_ms, char *err, size_t errlen)
{
	for (int reads = 0; reads < DRAIN_MAX_READS; reads++) {
		struct pollfd pfd = { w->bridge.out, POLLIN, 0 };
		char *line;
		size_t len;
		int n = poll(&pfd, 1, timeout_ms);

		if (n < 0 && errno == EINTR)
			return 0; /* maybe the cancel: look at it first */
		if (n < 0) {
			snprintf(err, errlen, "cannot wait for the Codex bridge: %s", strerror(errno));
			return -1;
		}
		if (n == 0)
			return 0;
		timeout_ms = 0;
		switch (lines_fill(&w->out, w->bridge.out)) {
		case -1:
			if (errno != EINTR && errno != EAGAIN)
				fail(w, "cannot read from the Codex bridge: %s", strerror(errno));
			break;
		case 0:
			bridge_gone(w);
			break;
		default:
			break;
		}
		while (!w->status[0] && (line = lines_next(&w->out, &len)))
			on_line(w, line, len);
		if (w->status[0] || w->failure[0])
			return 0;
	}
	return 0;
}

/* What the bridge has said so far counts before a cancel or the deadline
 * does: a turn that completed just before either is completed. */
enum worker_codex_end worker_codex_wait(struct worker_codex *w, long long deadline_ms,
					const volatile sig_atomic_t *cancel, char *err, size_t errlen)
{
	enum worker_codex_end reason = WORKER_CODEX_TURN_ENDED;
	long long interrupt_by = -1;
	int timeout = 0;

	for (;;) {
		long long now;

		if (drain(w, timeout, err, errlen) < 0)
			return WORKER_CODEX_FAILED;
		if (w->status[0])
			return reason;
		if (w->failure[0]) {
			snprintf(err, errlen, "%s", w->failure);
			return WORKER_CODEX_FAILED;
		}
		now = hb_monotonic_ms();
		if (reason == WORKER_CODEX_TURN_ENDED && cancel && *cancel)
			reason = WORKER_CODEX_CANCELLED;
		else if (reason == WORKER_CODEX_TURN_ENDED && now >= deadline_ms)
			reason = WORKER_CODEX_TIMED_OUT;
		if (reason != WORKER_CODEX_TURN_ENDED && interrupt_by < 0) {
			interrupt_by = now + INTERRUPT_GRACE_MS;
			if (w->turn_id)
				send_request(w, ID_TURN_INTERRUPT, "turn/interrupt",
					     json_pack("{s:s, s:s}", "threadId", w->thread_id, "turnId", w->turn_id));
			else
				interrupt_by = now; /* nothing to interrupt yet */
		}
		if (interrupt_by >= 0 && (now >= interrupt_by || w->failure[0])) {
			kill_group(w, SIGKILL);
			turn_ended(w, "killed");
			return reason;
		}
		timeout = POLL_SLICE_MS;
		if (interrupt_by >= 0 && interrupt_by - now < timeout)
			timeout = (int)(interrupt_by - now);
		if (reason == WORKER_CODEX_TURN_ENDED && deadline_ms - now < timeout)
			timeout = (int)(deadline_ms - now);
	}
}

const char *worker_codex_turn_status(const struct worker_codex *w)
{
	return w->status[0] ? w->status : NULL;
}

unsigned worker_codex_tool_calls(const struct worker_codex *w)
{
	return w->tool_calls;
}

int worker_codex_pgid(const struct worker_codex *w)
{
	return (int)w->bridge.pid;
}

void worker_codex_stop(struct worker_codex *w)
{
	if (!w)
		return;
	if (w->bridge.in >= 0)
		close(w->bridge.in);
	w->bridge.in = -1;
	if (!wait_exit(w, STOP_EOF_GRACE_MS)) {
		kill_group(w, SIGTERM);
		if (!wait_exit(w, STOP_TERM_GRACE_MS)) {
			kill_group(w, SIGKILL);
			wait_exit(w, -1);
		}
	}
	/* Whatever the bridge left in its group (codex, a command of the
	 * worker's) goes with it. */
	kill_group(w, SIGKILL);
	if (!w->reaped)
		while (waitpid(w->bridge.pid, NULL, 0) < 0 && errno == EINTR)
			;
	close(w->bridge.out);
	lines_free(&w->out);
	json_decref(w->thread_params);
	free(w->brief);
	free(w->thread_id);
	free(w->turn_id);
	free(w->early_turn);
	free(w);
}
