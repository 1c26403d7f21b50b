/*
 * session_list - the HB Code sessions as hbctl reads them: through the
 * broker's maintain_sessions tool (listSessions, docs/sessions.md), the
 * read-only view svc-sessions gives every client, so hbctl never opens
 * appdata.db itself.  For hbctl sessions, and for the titles the live
 * view shows beside each row.
 */
#ifndef HBCTL_SESSION_LIST_H
#define HBCTL_SESSION_LIST_H

#include <jansson.h>
#include <stddef.h>
#include <time.h>

#define SESSION_LIST_LIMIT 200	/* maintain_sessions' largest page */

/* The sessions, most recently updated first: agent ("codex", "claude"
 * or NULL for both), archived ones too when archived.  0 with *sessions
 * (a JSON array, caller frees), else -1 with a sentence in err and
 * *exit_code EXIT_FAIL or EXIT_NO_BROKER. */
int session_list_fetch(const char *agent, int archived, json_t **sessions, int *exit_code, char *err, size_t errlen);

/* The sessions by id, read again when an id is not known, at most once
 * every SESSION_NAMES_REFRESH seconds (a watcher waits for the answer). */
#define SESSION_NAMES_REFRESH 5
struct session_names {
	json_t *by_id;
	time_t fetched;
};
void session_names_free(struct session_names *n);
/* The session with id, or NULL; read when unknown (errors are silent:
 * the view shows the id instead of a title). */
const json_t *session_names_get(struct session_names *n, const char *id);

#endif
