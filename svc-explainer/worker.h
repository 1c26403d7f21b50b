/*
 * worker - what the explainer's private worker is to svc-explainer,
 * whichever agent plays it (worker_codex.h: `codex app-server`;
 * worker_claude.h: the Claude agent host).
 *
 * svc-explainer drives the agent itself, as a desktop would, and answers
 * the worker's tool calls itself: they never reach the broker, so no other
 * run can call a worker's tool, the worker's thread is never linked to the
 * session (its drafts stay out of the session's history and its messages),
 * and nothing of the worker is in the broker's catalog.  The agents' frames
 * are read and written by agents/dialect.c, as the broker does.
 *
 * The agent runs in a process group of its own, led by a guard that kills
 * the whole group when svc-explainer dies (common/child.h), so it ends
 * with the call, on a cancel, at the deadline and when svc-explainer dies.
 * The process half of both is worker_proc.c's.
 */
#ifndef EXPLAINER_WORKER_H
#define EXPLAINER_WORKER_H

#include <stddef.h>

#include "workdir.h"

/* The namespace of the worker's tools: Codex's dynamicTools namespace; for
 * Claude the host's MCP server is always "hbcode" (mcp__hbcode__NAME). */
#define WORKER_NAMESPACE "hbcode_explainer"

/* Answers one tool call of the worker: tool is the bare name, args_json
 * the arguments' JSON text.  Runs on the thread that waits for the worker
 * (worker_*_wait), which reads nothing from the agent meanwhile; the
 * answer's text and PNG (workdir_answer) are freed by the caller. */
typedef struct workdir_answer (*worker_tool_fn)(void *arg, const char *tool, const char *args_json);

/* How a wait for the worker's turn ended. */
enum worker_end {
	WORKER_TURN_ENDED, /* the turn ended by itself: *_turn_status says how */
	WORKER_CANCELLED,  /* the caller's stop test said so */
	WORKER_TIMED_OUT,  /* the deadline passed */
	WORKER_FAILED,     /* err says why (the agent ended, an error answer...) */
};

#endif
