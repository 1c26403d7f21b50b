/*
 * tools - how a Claude tool call looks as a row: which kind (command, file
 * change, plan, spawn, tool) and its readable label ("server: tool" for
 * an MCP tool).  Kept apart from the projector so the table of tool names
 * is in one place.
 */
#ifndef HB_TIMELINE_TOOLS_H
#define HB_TIMELINE_TOOLS_H

#include <jansson.h>
#include <stddef.h>

#include "row.h"

enum tl_kind tl_claude_tool_kind(const char *name);
/* The readable label of a tool name into out: "hbcode: maintain_sessions"
 * for mcp__hbcode__maintain_sessions, "Search" for Grep. */
void tl_tool_label(const char *name, char *out, size_t outlen);
/* Fill a Claude call row of kind command/file_change/plan/spawn/tool from
 * the tool's input.  0, or -1 when out of memory. */
int tl_claude_call_fields(json_t *row, const char *name, const json_t *input);

#endif
