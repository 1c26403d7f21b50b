/*
 * claude_host_client - the desktop's side of the Claude agent host's pipe
 * (docs/agent-host-pipe.md), written once for every program that drives
 * a host: hb-claude-bridge, svc-explainer's worker and hbctl's reads.
 * The requests (open, send, history, interrupt, close, and the answers
 * toolResult and permission) are built here, and so is everything about
 * the host's `requestId`: the host gives one to each toolCall and
 * permission event, and this module alone reads it from the event and
 * writes it into the answer, so a call is always answered under the id it
 * came with.  A requestId travels as JSON text ("\"tool-1\"", or "7" from a
 * host that numbers them), the form dialect.c parses it into.  Each
 * builder returns a new reference, or NULL when out of memory (or when a
 * request id it needs is NULL); an id passed in is stolen.
 */
#ifndef HB_CLAUDE_HOST_CLIENT_H
#define HB_CLAUDE_HOST_CLIENT_H

#include <jansson.h>

/* The requests of ours, each a whole frame. */
json_t *claude_host_open(json_t *id, json_t *params);
/* send: text, and messageId (the user message's uuid) unless NULL. */
json_t *claude_host_send(json_t *id, const char *text, const char *message_id);
json_t *claude_host_interrupt(json_t *id);
json_t *claude_host_close(json_t *id);
/* history: a page of limit entries of session in cwd, before the entry
 * before (NULL: the newest). */
json_t *claude_host_history(json_t *id, const char *session, const char *cwd, int limit, const char *before);

/* The requestId of a toolCall or permission event as JSON text (malloc'd);
 * NULL when it has none that is a string or an integer. */
char *claude_host_request_id(const json_t *event);
/* toolResult's params answering request_id: the text (and images: the
 * wire form of images.h, NULL for none), an error when !ok. */
json_t *claude_host_tool_result(const char *request_id, int ok, const char *text, const char *images);
/* toolResult's params from a whole answer's JSON text (the broker's
 * claude.call answer: content, isError), set to answer request_id
 * whatever requestId it carried; NULL when answer is not a JSON object. */
json_t *claude_host_tool_answer(const char *request_id, const char *answer);
/* permission's params: allow, or deny with message (NULL: none). */
json_t *claude_host_permission(const char *request_id, int allow, const char *message);

#endif
