/*
 * link - hb-mcp's side of hb-broker: the front socket (common/client.c),
 * the events socket, this connection's run and its session.  Requests
 * that hb-mcp waits for (catalog, run.open) pass every other reply that
 * comes meanwhile on to calls.c, so a tools/call in flight never loses
 * its answer.  A broker that goes away drops the link: the calls in
 * flight are answered with a sentence, and the next request connects
 * again and opens the run anew in the new broker.
 */
#ifndef HB_MCP_LINK_H
#define HB_MCP_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "envelope.h"
#include "mcp.h"

/* How long hb-mcp waits for the broker's quick answers (not calls). */
#define LINK_QUICK_MS 10000

/* The events socket, opened when not open (main opens it at the start,
 * so that a subscription is in place before the first call's events). */
int link_events(struct mcp *m, char *err, size_t errlen);
/* The front socket and the events socket, opened when not open. */
int link_connect(struct mcp *m, char *err, size_t errlen);
/* The broker went away (why says so): close, forget the run, and tell
 * m->hooks.gone (the calls in flight are answered, the questions
 * withdrawn). */
void link_drop(struct mcp *m, const char *why);
/* Send req (a fresh id in *id), connecting first when needed. */
int link_send(struct mcp *m, struct hb_env *req, int64_t *id, char *err, size_t errlen);
/* Send req and wait for its reply (which may carry err.msg; the caller
 * frees it); other replies go to m->hooks.reply meanwhile.  0, or -1 with
 * err. */
int link_request(struct mcp *m, struct hb_env *req, struct hb_env *reply, int timeout_ms, char *err,
		 size_t errlen);
/* This connection's run, opened when it is not (and its session found or
 * created first, without --session).  0, or -1 with err. */
int link_run(struct mcp *m, char *err, size_t errlen);
/* Close the run (the client went). */
void link_close_run(struct mcp *m);
/* The catalog's JSON text (malloc'd), or NULL with err. */
char *link_catalog(struct mcp *m, char *err, size_t errlen);
/* The front socket or its monitor is readable: each reply to
 * m->hooks.reply. */
void link_read_front(struct mcp *m);
/* The events socket is readable: each event to m->hooks.event. */
void link_read_events(struct mcp *m);
void link_free(struct mcp *m);

#endif
