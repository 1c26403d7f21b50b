/*
 * claude_link - claude.link, the front op with which hb-claude-bridge records
 * the Claude conversation of its run (the session id the host reported)
 * as its session's, in svc-sessions' claude_sessions.  The session is the
 * one of the run bound to the asking connection, never the bridge's word.
 */
#ifndef HB_CLAUDE_LINK_H
#define HB_CLAUDE_LINK_H

#include "broker.h"

/* {claudeSessionId} -> svc-sessions' answer as json; errors: bad-request
 * (no Claude run on this connection, no id), unavailable (svc-sessions
 * does not run), conflict (the conversation belongs to another session),
 * link (anything else svc-sessions refused). */
void link_claude(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);

#endif
