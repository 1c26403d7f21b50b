/*
 * service - the shared skeleton of every svc-* process.
 *
 * A service's main.c is a table of tools, a spec and one call:
 *
 *	static const struct hb_service_tool tools[] = {
 *		{ "maintain_sessions", maintain_sessions },
 *		{ NULL, NULL }
 *	};
 *	static const struct hb_service_spec spec = { "svc-sessions", tools };
 *	int main(int argc, char **argv) { return hb_service_run(argc, argv, &spec); }
 *
 * The spec's optional hooks are what a family needs beyond the loop, in
 * the way Postfix's single_server_main takes CA_MAIL_SERVER_PRE_INIT: a
 * pre-init run before any thread exists (libcurl's global set-up,
 * fontconfig), a background task (svc-messages' delivery loop), and an
 * exit hook run after every thread has ended.
 *
 * hb_service_run connects a DEALER to the broker's back socket, announces
 * `ready`, sends heartbeats from its own thread of control (so a slow handler
 * never looks like a hung service), and runs calls on a small worker pool.
 * A handler runs on a worker thread; it may block.  It must not keep any
 * pointer from the call after it returns.
 *
 * Settings come from the environment the broker sets (HB_SERVICE_ID,
 * HB_BACK_ENDPOINT, HB_HEARTBEAT_MS, HB_CONCURRENCY) or from
 * `--concurrency N` and `--endpoint EP`, so a service runs as well by hand.
 */
#ifndef HB_SERVICE_H
#define HB_SERVICE_H

#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>

#include "images.h"

struct hb_call;

/* Returns 0 after hb_call_succeed*, -1 after hb_call_fail*. */
typedef int (*hb_tool_fn)(struct hb_call *call, const json_t *args);

struct hb_service_tool {
	const char *name;
	hb_tool_fn fn;
};

/* Who is calling: from the broker's binding, never from the arguments.
 * Absent values are "" (never NULL). */
struct hb_call_context {
	const char *key;      /* the broker's call key, for logs */
	const char *tool;
	const char *session;  /* HB Code session id */
	const char *run;      /* run id */
	const char *project;  /* project directory */
	const char *agent;    /* codex | claude | "" */
	const char *access;   /* read-only | full-auto | full-access | unrestricted | "" */
	const char *call_id;  /* the agent's call identity (callId / toolUseId) */
	const char *model;    /* the run's model id (e.g. what Codex's thread/start answered) | "" */
};

/* A service's own background task (svc-messages' delivery loop): it runs
 * on a thread of its own from `ready` to the stop, with its own DEALER to
 * the broker's back socket (routing id "<service id>.task"), which only
 * that thread touches.  It must return soon after hb_task_stopping().
 * With task_delivers set, `ready` names the task as the service's
 * deliveryTask: the broker takes `deliver` from it and sends it each
 * `deliver.result`, and knows no other way to find who carries session
 * messages.  With task_approvals set, `ready` names the task as the
 * service's approvalTask: the broker sends it `approval.card` for every
 * card opened or settled, and takes `run.chatResolveApproval` from it,
 * which may only answer an open card (svc-alerts: a phone's answer,
 * docs/relay-protocol.md).  With task_idles set, `ready` names the task
 * as the service's idleTask: before it stops the service for want of
 * calls (an `idle` line in services.conf), the broker asks the task
 * (`idle.ask`) whether the service holds work that no call would bring
 * back (svc-messages: an outbox row still to go; svc-alerts: the relay
 * link the settings want), and stops it only on a "no" given to that
 * ask: the task answers with hb_task_answer_idle, from what it reads
 * after the ask came. */
struct hb_task;
typedef void (*hb_task_fn)(struct hb_task *task, void *arg);

/* What a service is: its name and tools, then optional hooks (NULL: none). */
struct hb_service_spec {
	const char *name;
	const struct hb_service_tool *tools;      /* ends with { NULL, NULL } */
	int (*pre_init)(void);                    /* before any thread; -1 stops the start */
	hb_task_fn task;                          /* the background task, with task_arg */
	void *task_arg;                           /* the service's shared state (below) */
	int task_delivers;                        /* the task carries session messages (below) */
	int task_approvals;                       /* the task hears of approval cards (below) */
	int task_idles;                           /* the task answers the broker's idle.ask (below) */
	void (*at_exit)(void);                    /* after every thread has ended */
};

/* Runs the service until SIGTERM or the broker's end; the exit status. */
int hb_service_run(int argc, char **argv, const struct hb_service_spec *spec);
void *hb_task_socket(struct hb_task *task);
void *hb_task_zctx(struct hb_task *task);
int hb_task_stopping(struct hb_task *task);
/* Readable after hb_call_wake_task() or at the stop; hb_task_drain_wake()
 * empties it. */
int hb_task_wake_fd(struct hb_task *task);
void hb_task_drain_wake(struct hb_task *task);
/* Wake the service's task (e.g. a handler committed work for it). */
void hb_call_wake_task(struct hb_call *call);
/* The spec's task_arg: the service's shared state, which the task gets as
 * its arg and every handler reaches here (with no task as well).  What in
 * it more than one thread touches is the service's to lock. */
void *hb_call_service_arg(const struct hb_call *call);

/* Publish a timeline event through the broker (topic "timeline.*", json an
 * object), from a handler or from the task.  Best effort: 0 or -1. */
int hb_call_publish(struct hb_call *call, const char *topic, const char *json);
int hb_task_publish(struct hb_task *task, const char *topic, const char *json);

/* A service's own state for `hbctl status` and the `service.report` event:
 * a JSON object of at most 4 KiB, by convention with a "summary" string a
 * person reads (e.g. "relay link ready"); the broker keeps the latest of
 * the current incarnation, and drops (and logs) anything else.  It must
 * never hold a secret.  From the task, which may report before the
 * service is ready.  Best effort: 0 or -1. */
int hb_task_report(struct hb_task *task, const char *json);

struct hb_env;
/* The answer to the broker's idle.ask (the env the task received): whether
 * the service holds work no call would bring back, and why (for the log
 * and status; no secret).  Judged from what the task reads after the ask
 * came, never from what it knew before: a call answered before the ask
 * may have left work.  Best effort: 0 or -1 (unanswered, the broker asks
 * again after another idle time). */
int hb_task_answer_idle(struct hb_task *task, const struct hb_env *ask, int holds_work, const char *why);

const struct hb_call_context *hb_call_context(const struct hb_call *call);
/* Nonzero once the caller cancelled or the service is stopping. */
int hb_call_cancelled(const struct hb_call *call);
/* The same as a flag to hand to code that polls one (a render stops
 * within a frame of it); valid until the handler returns. */
const atomic_int *hb_call_cancel_flag(const struct hb_call *call);

/* The result text the agent reads.  Both return what the handler returns. */
int hb_call_succeed(struct hb_call *call, const char *text);
int hb_call_succeedf(struct hb_call *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Text and n images (images.h: PNG or JPEG bytes, copied here), which
 * the agent's model sees beside the text.  The text and the images as
 * base64 together must fit the 4 MiB an answer may carry; past that, or
 * with a type other than image/png and image/jpeg or bytes that are not
 * of their declared type, the call fails with a sentence saying so (and
 * this returns -1). */
int hb_call_succeed_with_images(struct hb_call *call, const char *text, const struct hb_image *images, size_t n);
int hb_call_fail(struct hb_call *call, const char *text);
int hb_call_failf(struct hb_call *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A failure the broker must tell apart: code is one of fail_codes.h. */
int hb_call_fail_code(struct hb_call *call, const char *code, const char *text);

/* Publish a progress line for the timeline (best effort). */
int hb_call_progress(struct hb_call *call, const char *text);
/* Answer call by asking the broker to start this service anew (why, for
 * its log) and to give call to the new generation: a new generation
 * takes the calls from now on while this one finishes its own, as in a
 * replace by the same program.  For a service whose confinement, fixed
 * at its start, no longer covers what the call needs (svc-browser: a
 * port file Chrome wrote later).  The broker does it once a generation
 * and once a call; otherwise the caller gets text.  Like hb_call_fail. */
int hb_call_renew(struct hb_call *call, const char *why, const char *text);

/* Call another family's tool through the broker.  Blocks up to timeout_ms;
 * returns 0 with *ok set and *text (caller frees) the tool's answer, or -1
 * with *text an explanation (cancelled, timed out, broker gone). */
int hb_call_subcall(struct hb_call *call, const char *tool, const char *args_json,
		    int timeout_ms, int *ok, char **text);

#endif
