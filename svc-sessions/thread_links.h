/*
 * thread_links - the broker's internal operations on agent links:
 * which HB Code session a Codex thread belongs to, and a session's Claude id.
 *
 * Arguments and results (ids are 1..200 bytes):
 *   _resolve_thread {threadId}
 *       -> {"sessionId","threadId","viaParent": ancestor thread | null}
 *       An unlinked thread fails with THREAD_NOT_LINKED_MESSAGE and the
 *       code HB_FAIL_NOT_LINKED (common/fail_codes.h).
 *   _link_thread {threadId, sessionId | parentThreadId}  (exactly one)
 *       -> {"threadId","sessionId"|null,"parentThreadId"|null,"created":bool}
 *   _link_claude {sessionId, claudeSessionId}
 *       -> {"sessionId","claudeSessionId"}
 *       A session has one Claude conversation at a time (a new one
 *       replaces the old), and a conversation belongs to at most one
 *       session: another session's claim fails with the code
 *       HB_FAIL_LINK_TAKEN (common/fail_codes.h).
 * A Codex sub-agent thread is linked to its parent thread, not to a session;
 * resolution follows parent links up to THREAD_PARENT_DEPTH_MAX steps.
 */
#ifndef SESSIONS_THREAD_LINKS_H
#define SESSIONS_THREAD_LINKS_H

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>

#define THREAD_NOT_LINKED_MESSAGE "is not linked to a HB Code session yet. Try the call again."
#define THREAD_PARENT_DEPTH_MAX 16

/* Each returns the result object, or NULL with err set (and *code, where
 * given, set to a fail_codes.h code for the failures the broker acts on). */
json_t *thread_links_resolve(sqlite3 *db, const json_t *args, const char **code, char *err, size_t errlen);
json_t *thread_links_link_thread(sqlite3 *db, const json_t *args, char *err, size_t errlen);
json_t *thread_links_link_claude(sqlite3 *db, const json_t *args, const char **code, char *err, size_t errlen);

#endif
