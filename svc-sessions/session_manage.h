/*
 * session_manage - manage_sessions without the service loop: the changes an
 * agent may make to sessions, on a read-write connection.
 *
 * Arguments ("action" required; a field of another action is an error):
 *   create:         title, agent ("codex"|"claude"), projectPath (absolute,
 *                   <= 4096 bytes), accessLevel? (default "full-auto"),
 *                   model?, effort?
 *   rename:         targetSessionId, title
 *   archive:        targetSessionId   (an active session stops being active)
 *   unarchive:      targetSessionId
 *   activate:       targetSessionId   (refused for an archived session)
 *   setAccessLevel: targetSessionId, accessLevel
 *   setModel:       targetSessionId, model?, effort? (each left out: the
 *                   agent's default; session_args.h says what is valid)
 * accessLevel: read-only | full-auto | full-access | unrestricted.
 * Titles are trimmed, 1..200 characters, without control characters.
 * Every action sets updated_at and returns the session row (session_row.h).
 *
 * Access is the control behind the hold of session messages, so who asks
 * matters (struct session_caller): the user may set any level; an agent
 * may lower a session's level, or set it (and create a session) up to the
 * access of its own run, never above.
 */
#ifndef SESSIONS_SESSION_MANAGE_H
#define SESSIONS_SESSION_MANAGE_H

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>

#define SESSION_DEFAULT_ACCESS_LEVEL "full-auto"

/* Who asks, from the broker's binding of the call (never its arguments):
 * an agent's call is bound to its agent (and, when one is open, its run
 * and that run's access); a call that no run and no agent binds is the
 * user's (hbctl, the desktop: see docs/trust-boundary.md). */
struct session_caller {
	int is_agent;
	const char *access;             /* the access of the agent's run; "" when it has none */
};

/* The changed (or created) row; NULL with err set. */
json_t *session_manage_run(sqlite3 *db, const json_t *args, const struct session_caller *caller,
			   char *err, size_t errlen);

#endif
