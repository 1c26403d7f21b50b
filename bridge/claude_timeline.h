/*
 * claude_timeline - hb-claude-bridge's part of the shared timeline: the
 * agent host's `message` events through the Claude projector, the rows
 * published for the bridge's run (docs/timeline.md).
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
void claude_timeline_free(void);

#endif
