/*
 * claude_timeline - hb-claude-bridge's part of the shared timeline: the
 * agent host's `message` events through the Claude projector, the rows
 * published for the bridge's run (docs/timeline.md).  Claude's live
 * stream never echoes what goes in, so the bridge projects the user
 * message the host writes for each accepted `send` (the person's prompt,
 * or another session's message as an agent communication row) with the
 * uuid it is saved under, and a saved message a transcript read found
 * replaces its live row in place (same id).
 */
#ifndef HB_CLAUDE_TIMELINE_H
#define HB_CLAUDE_TIMELINE_H

#include <jansson.h>

#include "client.h"

/* broker: the connection the bridge's run is open on (the broker binds
 * the rows to that run's session). */
void claude_timeline_init(struct hb_client *broker);
/* An event line of the host: a `message` event's rows are published. */
void claude_timeline_event(const json_t *ev);
/* The host accepted a `send` of text with messageId uuid: the turn it
 * starts, and the message's row (user, or agent_message for a
 * <session_message> envelope), under the ids its saved message gets. */
void claude_timeline_sent(const char *uuid, const char *text);
/* A message of a transcript read (the host's `history`): its saved rows,
 * which replace the live ones of the same ids. */
void claude_timeline_saved(const json_t *saved);
void claude_timeline_free(void);

#endif
