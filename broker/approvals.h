/*
 * approvals - Claude's permission requests, and the approval requests of a
 * Codex server no desktop drives (hb-codex-bridge --once), held as
 * approval cards until a person answers them (hbctl approve/decline, a
 * desktop through the front operations, a phone through svc-alerts).
 * Codex never asks before an hbcode tool call.  The calls of external
 * runs (hb-mcp, docs/mcp.md) for agent-class tools are held here too,
 * until their card is answered, so no MCP client can skip it.
 */
#ifndef HB_APPROVALS_H
#define HB_APPROVALS_H

#include <jansson.h>

#include "broker.h"
#include "runs.h"

/* claude.permission {json: the host's permission event}: held; the reply
 * goes out when the card is resolved. */
void approvals_request(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);
/* codex.approval {json: the server's approval request, path?: the file a
 * fileChange item changes, as the bridge saw it start}: a card of the
 * active run of the session of a run the bridge opened (hb-codex-bridge
 * --once, which has no desktop to ask); the reply, when it is resolved,
 * is {requestId, decision, message?} as for Claude. */
void approvals_request_codex(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);
/* A call c of an external run r (hb-mcp's) for an agent-class tool: held
 * (registered, not sent) under a card {id, run, session, tool, input,
 * toolUseId: the call's call_id, kind "tool", callKey: c's key}; an
 * approval sends it on, a refusal answers it with the refusal's message
 * or "The user declined this tool call.", and one that ends first
 * (cancelled, its run ended) withdraws its card (approval.cancelled).
 * Either way c is the table's. */
void approvals_hold_call(struct broker *b, struct call *c, const struct run *r);
/* The broker stops: every held call is answered text and its card
 * withdrawn (approval.cancelled). */
void approvals_end_held(struct broker *b, const char *text);
/* The open cards as a JSON array (NULL when out of memory): approval.list's
 * answer and the status' "approvals". */
json_t *approvals_json(const struct broker *b);
/* approval.list: the open cards as JSON. */
void approvals_list(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);
/* approval.resolve {approval, decision: allow|deny, message?}. */
void approvals_resolve(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);
/* run.chatResolveApproval {run, requestId, decision, message?}: a phone's
 * answer (through svc-alerts, approval_task.c) or a desktop's.  requestId
 * is the agent's own id of the request (the Claude host's perm-N), looked
 * up first, or the card's id; only an open card of that run is answered. */
void approvals_chat_resolve(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);
/* back.sock approval.sync from inst (only from its declared approvalTask,
 * approval_task.h): answered with approval.cards, every open card. */
void approvals_task_sync(struct broker *b, struct instance *inst, const struct hb_peer *peer, const struct hb_env *e);
/* back.sock run.chatResolveApproval {run, requestId, decision, relayId,
 * message?} from the approvalTask: judged as the front op; answered with
 * approval.answered {relayId, ok, text?}. */
void approvals_task_answer(struct broker *b, struct instance *inst, const struct hb_peer *peer,
			   const struct hb_env *e);
/* The common part: 0 when the card was answered, or -1 with the refusal's
 * code (unknown-run, unknown-approval, bad-request) and sentence; nothing
 * changes then. */
int approvals_answer(struct broker *b, const char *run, const char *request, const char *decision,
		     const char *message, const char **code, char *why, size_t whylen);
/* The run ended: stop denies each open card "Run stopped.", close marks
 * them cancelled. */
void approvals_end_run(struct broker *b, const char *run, int stop);
/* HB_ASSERT the table's rules (invariants.c): ids unique, every card's
 * run open (a stop or a close settles its cards). */
void approvals_check(const struct broker *b);
void approvals_free(struct broker *b);

#endif
