/*
 * worker_proc - see worker_proc.h.  Stopping waits for the agent without
 * reaping it first (WNOWAIT): while its zombie holds the pid, the group id
 * cannot be reused, so the last SIGKILL to the group reaches only the
 * worker's stragglers.  A drain reads a bounded number of times, so that
 * a chatty agent cannot starve a cancel.
 */
#include "worker_proc.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "images.h"
#include "tunables.h"

#define INTERRUPT_GRACE_MS 1000 /* an interrupt answered by the turn's end */
/* A cancel must stop the worker within a second (page 000): it gets a
 * shorter grace than the deadline, whose worker may still be saving
 * (HB_WORKER_CANCEL_GRACE_MS, 200 ms). */
#define STOP_EOF_GRACE_MS 3000  /* the agent ends when its input does */
#define STOP_TERM_GRACE_MS 2000
#define POLL_SLICE_MS 50        /* how often the cancel is looked at */
#define DRAIN_MAX_READS 64

int worker_proc_start(struct worker_proc *p, const char *name, char *const argv[], char *const envp[], char *err,
		      size_t errlen)
{
	memset(p, 0, sizeof *p);
	p->name = name;
	return line_child_start(&p->lc, argv, envp, CHILD_PARENT_DEATH, err, errlen);
}

void worker_proc_fail(struct worker_proc *p, const char *fmt, const char *detail)
{
	if (!p->failure[0])
		snprintf(p->failure, sizeof p->failure, fmt, detail ? detail : "");
}

void worker_proc_turn_ended(struct worker_proc *p, const char *status)
{
	snprintf(p->status, sizeof p->status, "%s", status && *status ? status : "unknown");
}

void worker_proc_send_text(struct worker_proc *p, char *text)
{
	char line[200];
	int was_open = p->lc.in_open;

	if (!text) {
		snprintf(line, sizeof line, "out of memory speaking to %s", p->name);
		worker_proc_fail(p, "%s", line);
	} else if (line_child_send_text(&p->lc, text, strlen(text)) < 0) {
		snprintf(line, sizeof line, "cannot write to %s: %s", p->name, strerror(was_open ? errno : EPIPE));
		worker_proc_fail(p, "%s", line);
	}
	free(text);
}

void worker_proc_send(struct worker_proc *p, json_t *msg)
{
	worker_proc_send_text(p, msg ? json_dumps(msg, JSON_COMPACT) : NULL);
	json_decref(msg);
}

char *worker_proc_answer(struct worker_proc *p, worker_tool_fn tool, void *tool_arg, const char *name,
			 const char *args, const char *id, worker_frame_fn frame)
{
	struct workdir_answer a = tool(tool_arg, name, args);
	struct hb_image png = { "image/png", a.png, a.png_len };
	char *images = NULL, *out, why[300];

	if (a.png && !(images = hb_images_encode(&png, 1, why, sizeof why))) {
		/* The tool's mistake: the model hears of it, not a bad image. */
		char text[400];
		snprintf(text, sizeof text, "The tool's picture cannot be shown: %s.", why);
		out = frame(id, 0, text, NULL);
	} else {
		out = frame(id, a.ok, a.text ? a.text : "", images);
	}
	free(images);
	/* Not workdir_answer_free: the worker needs none of workdir's code. */
	free(a.text);
	free(a.png);
	p->tool_calls++;
	return out;
}

/* An agent still running (or a zombie): 1 when it has ended, without
 * reaping it.  wait_ms < 0: as long as it takes. */
static int wait_exit(struct worker_proc *p, long long wait_ms)
{
	long long until = hb_monotonic_ms() + wait_ms;

	while (!p->exited) {
		siginfo_t si;
		memset(&si, 0, sizeof si);
		if (waitid(P_PID, (id_t)p->lc.child.pid, &si, WEXITED | WNOWAIT | (wait_ms < 0 ? 0 : WNOHANG)) < 0) {
			if (errno == EINTR)
				continue;
			p->exited = 1; /* ECHILD: nothing left to wait for */
			p->reaped = 1;
			break;
		}
		if (si.si_pid == p->lc.child.pid) {
			p->exited = 1;
			p->exit_status = si.si_code == CLD_EXITED ? si.si_status : 128 + si.si_status;
			break;
		}
		if (hb_monotonic_ms() >= until)
			break;
		{
			struct timespec ts = { 0, 10 * 1000000L };
			nanosleep(&ts, NULL);
		}
	}
	return p->exited;
}

static void kill_group(struct worker_proc *p, int sig)
{
	/* The pgid is the agent's pid, safe to signal until it is reaped. */
	if (!p->reaped)
		(void)killpg(p->lc.child.pid, sig);
}

/* The agent's output ended: its exit, as a sentence. */
static void agent_gone(struct worker_proc *p)
{
	char why[400];

	if (wait_exit(p, 1000))
		snprintf(why, sizeof why, "%s ended before the worker's turn did (exit status %d)", p->name,
			 p->exit_status);
	else
		snprintf(why, sizeof why, "%s ended before the worker's turn did (its output closed)", p->name);
	worker_proc_fail(p, "%s", why);
}

/* What a drain hands the agent's lines to. */
struct drain_to {
	struct worker_proc *p;
	const struct worker_proc_ops *ops;
	void *ctx;
};

/* One line of the agent's; none is wanted once the turn has ended. */
static void on_line(void *arg, const char *line, size_t len)
{
	struct drain_to *to = arg;

	if (!to->p->status[0])
		to->ops->line(to->ctx, line, len);
}

/* Take in the lines the agent has written by now: 0, or -1 when waiting
 * for it failed (err). */
static int drain(struct worker_proc *p, const struct worker_proc_ops *ops, void *ctx, int timeout_ms, char *err,
		 size_t errlen)
{
	struct drain_to to = { p, ops, ctx };

	for (int reads = 0; reads < DRAIN_MAX_READS; reads++) {
		struct pollfd pfd = { line_child_fd(&p->lc), POLLIN, 0 };
		char why[300];
		int n = poll(&pfd, 1, timeout_ms);

		if (n < 0 && errno == EINTR) {
			/* Maybe the cancel: what was written before it is
			 * read first, without waiting any more. */
			timeout_ms = 0;
			continue;
		}
		if (n < 0) {
			snprintf(err, errlen, "cannot wait for %s: %s", p->name, strerror(errno));
			return -1;
		}
		if (n == 0)
			return 0;
		timeout_ms = 0;
		switch (line_child_read(&p->lc, on_line, &to)) {
		case -1:
			if (errno != EINTR && errno != EAGAIN) {
				snprintf(why, sizeof why, "cannot read from %s: %s", p->name, strerror(errno));
				worker_proc_fail(p, "%s", why);
			}
			break;
		case 0:
			agent_gone(p);
			break;
		default:
			break;
		}
		if (p->status[0] || p->failure[0])
			return 0;
	}
	return 0;
}

enum worker_end worker_proc_wait(struct worker_proc *p, const struct worker_proc_ops *ops, void *ctx,
				 long long deadline_ms, int (*stop)(void *arg), void *stop_arg, char *err,
				 size_t errlen)
{
	enum worker_end reason = WORKER_TURN_ENDED;
	long long interrupt_by = -1;
	int timeout = 0;

	for (;;) {
		long long now;

		if (drain(p, ops, ctx, timeout, err, errlen) < 0)
			return WORKER_FAILED;
		if (p->status[0]) {
			p->hurry = reason != WORKER_TURN_ENDED;
			return reason;
		}
		if (p->failure[0]) {
			snprintf(err, errlen, "%s", p->failure);
			return WORKER_FAILED;
		}
		now = hb_monotonic_ms();
		if (reason == WORKER_TURN_ENDED && stop && stop(stop_arg))
			reason = WORKER_CANCELLED;
		else if (reason == WORKER_TURN_ENDED && now >= deadline_ms)
			reason = WORKER_TIMED_OUT;
		if (reason != WORKER_TURN_ENDED && interrupt_by < 0) {
			long long grace = reason == WORKER_CANCELLED ? hb_tunable(HB_T_WORKER_CANCEL_GRACE_MS)
								     : INTERRUPT_GRACE_MS;
			interrupt_by = ops->interrupt(ctx) == 0 ? now + grace : now;
		}
		if (interrupt_by >= 0 && (now >= interrupt_by || p->failure[0])) {
			kill_group(p, SIGKILL);
			worker_proc_turn_ended(p, "killed");
			p->hurry = 1;
			return reason;
		}
		timeout = POLL_SLICE_MS;
		if (interrupt_by >= 0 && interrupt_by - now < timeout)
			timeout = (int)(interrupt_by - now);
		if (reason == WORKER_TURN_ENDED && deadline_ms - now < timeout)
			timeout = (int)(deadline_ms - now);
	}
}

void worker_proc_stop(struct worker_proc *p)
{
	line_child_close_input(&p->lc);
	/* After a cancel or the deadline nothing the agent still has to
	 * say is wanted: no grace. */
	if (p->hurry)
		kill_group(p, SIGKILL);
	if (!wait_exit(p, STOP_EOF_GRACE_MS)) {
		kill_group(p, SIGTERM);
		if (!wait_exit(p, STOP_TERM_GRACE_MS)) {
			kill_group(p, SIGKILL);
			wait_exit(p, -1);
		}
	}
	/* Whatever the agent left in its group (a command of the worker's)
	 * goes with it. */
	kill_group(p, SIGKILL);
	if (!p->reaped)
		while (waitpid(p->lc.child.pid, NULL, 0) < 0 && errno == EINTR)
			;
	p->reaped = 1;
	close(p->lc.child.out);
	p->lc.child.out = -1;
	lines_free(&p->lc.lines);
}
