/*
 * codex_client - the desktop's side of the Codex app-server protocol,
 * written once for every program that drives `codex app-server`:
 * hb-codex-bridge (its --once run and the messages it carries into a
 * thread), svc-explainer's worker and hbctl timeline --codex.  The
 * handshake is initialize (with capabilities.experimentalApi, which the
 * dynamic tools need), the initialized notification, then thread/start or
 * thread/resume, then turn/start; turn/interrupt ends a turn early.  The
 * access levels (common/access.h) map to Codex's sandbox and approval
 * policies here too.  Each builder returns a whole frame (a new
 * reference) for the caller to write, or NULL when out of memory; an id
 * passed in is stolen.  The tool calls' frames are dialect.c's.
 */
#ifndef HB_CODEX_CLIENT_H
#define HB_CODEX_CLIENT_H

#include <jansson.h>

/* initialize's params: clientInfo {name, title, version} and
 * capabilities.experimentalApi = true. */
json_t *codex_initialize_params(const char *name, const char *title, const char *version);
json_t *codex_initialize(json_t *id, const char *name, const char *title, const char *version);
/* A caller's own initialize params made to ask for experimentalApi; 1
 * when they were changed, 0 when they had it (or are not an object). */
int codex_initialize_ensure_experimental(json_t *params);
/* The initialized notification that follows initialize's answer. */
json_t *codex_initialized(void);

/* thread/start with the caller's params (stolen). */
json_t *codex_thread_start(json_t *id, json_t *params);
/* thread/resume of thread at access (read-only ... unrestricted), its
 * turns left out of the answer; with model (NULL: the thread's own). */
json_t *codex_thread_resume(json_t *id, const char *thread, const char *access, const char *model);

/* A turn's input: one text item. */
json_t *codex_user_input(const char *text);
/* turn/start's params: threadId and the text as input. */
json_t *codex_turn_start_params(const char *thread, const char *text);
json_t *codex_turn_start(json_t *id, const char *thread, const char *text);
json_t *codex_turn_interrupt(json_t *id, const char *thread, const char *turn);

/* The id of what an answer started: result.<what>.id ("thread" for
 * thread/start and resume, "turn" for turn/start); NULL when absent. */
const char *codex_answered_id(const json_t *answer, const char *what);
/* Whether method is one of the server's approval requests: 2 for the v2
 * item/commandExecution/requestApproval and item/fileChange/
 * requestApproval (decisions accept | decline), 1 for the older
 * execCommandApproval and applyPatchApproval (approved | denied), 0 not. */
int codex_is_approval(const char *method);
/* The answer that allows or declines an approval request of the server
 * (method: the request's); NULL when method is not an approval request or
 * out of memory.  id is borrowed.  codex_decline_approval: allow 0. */
json_t *codex_answer_approval(const json_t *id, const char *method, int allow);
json_t *codex_decline_approval(const json_t *id, const char *method);

/* The access level's policies: approvalPolicy ("never" only unrestricted,
 * else "on-request"), the thread's sandbox mode and the turn's
 * sandboxPolicy object (a new reference; NULL: no memory). */
const char *codex_approval_policy(const char *access);
const char *codex_sandbox_mode(const char *access);
json_t *codex_sandbox_policy(const char *access);

#endif
