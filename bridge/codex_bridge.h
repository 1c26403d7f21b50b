/*
 * codex_bridge - the state of hb-codex-bridge, shared by its files: codex.c
 * (the pipe, tool calls, thread links), codex_deliver.c (messages from
 * other sessions into this session's thread), codex_once.c (--once) and
 * codex_approval.c (--once's approval cards).
 */
#ifndef HB_CODEX_BRIDGE_H
#define HB_CODEX_BRIDGE_H

#include <jansson.h>

#include "line_child.h"
#include "client.h"
#include "deliveries.h"
#include "map.h"
#include "timeline_pub.h"
#include "../timeline/codex_threads.h"

struct held;
struct delivered_run;

struct bridge {
	const char *session;            /* --session, or NULL */
	struct line_child server;
	struct hb_client broker;
	int broker_ok;
	struct hb_map pending;          /* broker request id -> struct pending */
	int links_pending;              /* thread links not yet confirmed */
	struct held *held, **held_tail; /* tool calls waiting for those links */
	struct hb_map models;           /* thread id -> struct thread_model (codex.c) */
	/* messages from other sessions (codex_deliver.c) */
	struct deliveries dl;
	char thread[200];               /* the session's own thread, once known */
	char turn[200];                 /* its running turn, or "" */
	struct delivery *working;       /* the one turn/start or turn/steer in flight */
	struct delivered_run *runs;     /* runs opened for turns we started */
	unsigned handed;                /* deliveries taken (a repeat is not counted) */
	long long stop_deadline_ms;     /* signalled: the server is killed then */
	/* --once (codex_once.c) */
	int once;
	const char *once_resume;        /* --resume THREAD */
	const char *once_access;        /* --access LEVEL */
	const char *once_model;         /* --model M, --effort E: the session's; NULL: */
	const char *once_effort;        /* what the thread has (codex's defaults) */
	int once_idle_ms;
	long long once_since_ms;        /* when it attached */
	int once_ending;                /* the server's input is closed */
	int once_failed;                /* initialize or the resume failed */
	struct hb_map approvals;        /* broker request id -> its card (codex_approval.c) */
	struct hb_map file_items;       /* fileChange item id -> its first file (codex_approval.c) */
	/* the shared timeline (codex_timeline.c) */
	struct tl_codex_threads tl_threads;
	struct tl_pub tl_pub;
};

/* codex_deliver.c */
/* The session's own thread became known (thread/start or resume). */
void codex_deliver_thread(struct bridge *br, const char *thread);
/* The broker's `deliver`. */
void codex_deliver(struct bridge *br, const struct hb_env *e);
/* A line from the server: 1 when it was the answer to our own request
 * (the caller never sees it); notifications update the turn state. */
int codex_deliver_from_server(struct bridge *br, json_t *msg);
/* A line from the caller that uses a reserved id: refused (1). */
int codex_deliver_refuse(struct bridge *br, json_t *msg);
/* Before each wait: repeat session.attach, or detach once the server's
 * input is closed (the bridge is ending); ms until the next time. */
long long codex_deliver_tick(struct bridge *br);
/* The bridge ends with turns it started still open (it was signalled, or
 * the server is gone): their runs end with it.  Before the detach, whose
 * answer shows the broker has them. */
void codex_deliver_close_runs(struct bridge *br);
void codex_deliver_free(struct bridge *br);

/* codex_timeline.c: the session's threads into timeline rows */
void codex_timeline_init(struct bridge *br);
/* A thread the server reported, with its parent (a sub-agent, a fork) or NULL. */
void codex_timeline_thread(struct bridge *br, const char *thread, const char *parent);
/* A line of the server: its rows wait for the next flush. */
void codex_timeline_note(struct bridge *br, const json_t *msg);
/* Publish what waits (once per wake-up). */
void codex_timeline_flush(struct bridge *br);
void codex_timeline_free(struct bridge *br);

/* codex_approval.c: --once's approval cards */
/* A line of the server: the files of fileChange items (--once only). */
void codex_approval_note(struct bridge *br, const json_t *msg);
/* An approval request of the server: held as a card in the broker (or
 * declined when the broker cannot hold it); 1 when msg was one. */
int codex_approval_ask(struct bridge *br, const json_t *msg);
/* The broker's answer to request id: 1 when it was a card's, and the
 * server got its decision. */
int codex_approval_answer(struct bridge *br, int64_t id, const struct hb_env *reply);
void codex_approval_free(struct bridge *br);

/* codex_once.c: --once, without a caller */
/* Send initialize; initialized and thread/resume follow its answer. */
void codex_once_start(struct bridge *br);
/* A line from the server: 1 when it was for --once alone. */
int codex_once_from_server(struct bridge *br, json_t *msg);
/* Before each wait: end when the work is done or nothing came; ms until
 * the next look (-1: no limit). */
long long codex_once_tick(struct bridge *br);

#endif
