/*
 * claude_lastread - the final transcript read of a run whose agent host
 * ended before it could make it (the run failed, or the host was
 * killed).  Page 003 wants one more read at run end "also for a stopped
 * or failed run", and a host without an open session reads any saved
 * conversation (`history` with sessionId and cwd,
 * docs/agent-host-pipe.md), so a second host is started for that one
 * read and closed again.  It starts no Claude Code.
 */
#ifndef HB_CLAUDE_LASTREAD_H
#define HB_CLAUDE_LASTREAD_H

#include <stddef.h>

/* Look for message uuid in conversation session (project cwd) with a new
 * host (host_argv, as the bridge starts it), within limit_ms: 1 found, 0
 * not in the transcript, -1 could not look (why says why). */
int claude_last_read(char *const host_argv[], const char *session, const char *cwd, const char *uuid, int limit_ms,
		     char *why, size_t whylen);

#endif
