/*
 * tool_kind - how a Claude tool call looks as a row: which kind (command, file
 * change, plan, spawn, tool) and its readable label ("server: tool" for
 * an MCP tool).  Kept apart from the projector so the table of tool names
 * is in one place.
 */
#ifndef HB_TIMELINE_TOOL_KIND_H
#define HB_TIMELINE_TOOL_KIND_H

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

/* What a result adds to its call row: a Write over an existing file is
 * diffed again against the SDK's tool_use_result.originalFile (the call
 * alone reads as a new file).  0, or -1 when out of memory. */
int tl_claude_result_fields(json_t *row, const json_t *tool_use_result);

#endif
