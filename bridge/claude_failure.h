/*
 * claude_failure - the error log of a failed Claude run: one line under the
 * key `claude_run` with the session, run and operation ids and the reason
 * (docs/agents.md, "Failed Claude runs").
 */
#ifndef HB_CLAUDE_FAILURE_H
#define HB_CLAUDE_FAILURE_H

#include <jansson.h>

/* One line of the pipe, as it passes: from_desktop 1 for the desktop's
 * requests (a `send` names the turn's operation), 0 for the host's lines
 * (replies, `message` and `failed` events). */
void claude_failure_seen(const char *session, const char *run, int from_desktop, const json_t *msg);

#endif
