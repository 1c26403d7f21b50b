/*
 * claude_link - the words shared by the processes that link a HB Code
 * session to its Claude conversation: svc-sessions refuses a second
 * session's claim with a sentence that holds HB_CLAUDE_LINK_TAKEN, and the
 * broker, which only gets a service's answer as text, recognises it to
 * give hb-claude-bridge the error code "conflict" (the bridge then ends
 * the run instead of writing into another session's conversation).
 */
#ifndef HB_CLAUDE_LINK_H
#define HB_CLAUDE_LINK_H

#define HB_CLAUDE_LINK_TAKEN "already belongs to HB Code session"

#endif
