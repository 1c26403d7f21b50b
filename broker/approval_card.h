/*
 * approval_card - what an approval card says of the action it asks about
 * (page 003: "A Bash call is a command approval, and a subagent's request
 * names the subagent"): its kind and the fields of that kind, who asks,
 * and the agent's own words for it.  Kept apart from the table of cards
 * (approvals.c), which only holds and answers them.
 */
#ifndef HB_APPROVAL_CARD_H
#define HB_APPROVAL_CARD_H

#include <jansson.h>

/* The card fields of a Claude host's permission event ev (docs/agent-host-
 * pipe.md) added to card:
 *   kind        "command" (Bash: "command" the command line, "cwd" the
 *               session's folder), "file" (Edit, Write, MultiEdit,
 *               NotebookEdit: "path") or "tool" (anything else), as the
 *               timeline's rows class the same tool (timeline/tool_kind.c);
 *   subagent    {id[, type][, description]} when a subagent asks;
 *   displayName, title, decisionReason, blockedPath as the SDK gave them.
 * 0, or -1 when out of memory. */
int approval_card_claude(json_t *card, const json_t *ev);

/* The card fields of a Codex server request msg (an approval method,
 * agents/codex_client.h's codex_is_approval) added to card: kind
 * "command" (item/commandExecution/requestApproval, execCommandApproval:
 * "command", "cwd") or "file" (item/fileChange/requestApproval,
 * applyPatchApproval: "path", the first file changed; the v2 request
 * names none, so path is the bridge's word from the item's start, or
 * absent), decisionReason the request's reason.  *tool gets the card's
 * tool name ("commandExecution", "fileChange") and *use_id the item or
 * call id (borrowed from msg, "" when absent).  0, or -1 when out of
 * memory. */
int approval_card_codex(json_t *card, const json_t *msg, const char *path, const char **tool, const char **use_id);

#endif
