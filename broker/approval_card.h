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

#endif
