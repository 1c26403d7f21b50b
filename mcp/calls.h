/*
 * calls - tools/call through hb-broker: each call in flight, its answer
 * as MCP content (text, and images as image content), its progress as
 * notifications/progress, and notifications/cancelled as the front op
 * cancel.  Several calls run at once; each carries a call id of its own
 * (mcp-N), by which the broker's events (call.start, call.progress, the
 * approval cards) name it.
 */
#ifndef HB_MCP_CALLS_H
#define HB_MCP_CALLS_H

#include <jansson.h>

#include "envelope.h"
#include "mcp.h"

/* A tools/call request: sent on, or answered at once (an error). */
void calls_start(struct mcp *m, const json_t *id, const json_t *params);
/* A reply from the broker that nobody waits for in turn: a call's answer
 * (or the answer of a cancel or of an approval's resolve: ignored). */
void calls_on_reply(struct mcp *m, const struct hb_env *reply);
/* call.start and call.progress events (any run's: those of others are
 * ignored). */
void calls_on_event(struct mcp *m, const char *topic, const json_t *ev);
/* The broker's key of the call with call id call_id (from an approval
 * card, before the call starts). */
void calls_note_key(struct mcp *m, const char *call_id, const char *key);
/* notifications/cancelled: the call with that request id is cancelled
 * in the broker and never answered. */
void calls_cancel(struct mcp *m, const json_t *request_id);
/* Answer every call in flight with why (isError): the broker went away. */
void calls_fail_all(struct mcp *m, const char *why);
/* Whether a call of this connection has call id call_id. */
int calls_known(const struct mcp *m, const char *call_id);
void calls_free(struct mcp *m);

/* The MCP result of a tool's answer (a new reference): text as a text
 * item, images (the wire form of common/images.h, or NULL) as image
 * items, isError when not ok.  NULL when the images cannot be read. */
json_t *calls_result(int ok, const char *text, const char *images);

#endif
