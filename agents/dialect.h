/*
 * dialect - the agents' own frames, parsed and written in one place:
 * Codex's item/tool/call request and its DynamicToolCallResponse, and the
 * agent host's toolCall event and toolResult (docs/agent-host-pipe.md).
 * Pure functions on JSON text, so the recorded frames of the real programs
 * can be replayed through them in unit tests.
 */
#ifndef HB_DIALECT_H
#define HB_DIALECT_H

#include <stddef.h>

/* A parsed item/tool/call.  Strings are owned (free with
 * dialect_codex_free).  args is the arguments' JSON text without the
 * sessionId, runId and projectDirectory that older threads send. */
struct codex_tool_call {
	char *rpcid;                    /* the JSON-RPC id, as JSON text */
	char *thread, *turn, *call_id, *tool, *args;
};

/* 0 parsed; -1 not an item/tool/call request (no id to answer: *err);
 * -2 a request whose params are wrong or not ours: rpcid is set, answer
 * it natively with *err.  A call names the namespace ns (a call without
 * one, as older threads send, counts as ns); dialect_codex_parse takes the
 * catalog's "hbcode", svc-explainer's worker its own (worker.h). */
int dialect_codex_parse_ns(const char *line, size_t len, const char *ns, struct codex_tool_call *out, char *err,
			   size_t errlen);
int dialect_codex_parse(const char *line, size_t len, struct codex_tool_call *out, char *err, size_t errlen);
void dialect_codex_free(struct codex_tool_call *c);
/* {"id":…,"result":{"contentItems":[{"type":"inputText","text":…}],"success":…}},
 * always a result, never a JSON-RPC error.  images (NULL: none) is the
 * wire form of images.h; each becomes an item after the text,
 * {"type":"inputImage","imageUrl":"data:image/png;base64,…"} (Codex's
 * DynamicToolCallOutputContentItem).  malloc'd, or NULL (no memory, or
 * images that images.h does not accept). */
char *dialect_codex_answer(const char *rpcid, int ok, const char *text, const char *images);

/* The host's one MCP server: a catalog tool NAME is mcp__hbcode__NAME to
 * Claude Code (allowedTools, permission events, toolCall's tool). */
#define DIALECT_CLAUDE_TOOL_PREFIX "mcp__hbcode__"

/* A parsed toolCall event of the agent host. */
struct claude_tool_call {
	char *request_id;               /* JSON text */
	char *tool;                     /* the catalog name (mcp__hbcode__ stripped) */
	char *tool_use_id;              /* "" when absent */
	char *call_id;                  /* the call's identity: toolUseId, or the bare requestId text */
	char *args;                     /* JSON text */
	char *binding;                  /* the first of sessionId/runId/projectDirectory it names, or NULL */
};

/* 0 parsed (check binding); -1 not a toolCall with requestId and tool. */
int dialect_claude_parse(const char *line, size_t len, struct claude_tool_call *out, char *err, size_t errlen);
void dialect_claude_free(struct claude_tool_call *c);
/* {"requestId":…,"content":[{"type":"text","text":…}],"isError":…}: the
 * params of the toolResult request.  images as for Codex; each becomes an
 * MCP content block after the text,
 * {"type":"image","data":"<base64>","mimeType":"image/png"}.  malloc'd,
 * or NULL. */
char *dialect_claude_result(const char *request_id, int ok, const char *text, const char *images);
/* The identity of a Claude call in a toolCall or toolCancel event line:
 * toolUseId, or without one the requestId as bare text ("tool-1" for
 * "tool-1", "7" for 7), so that both events of one call name it alike.
 * malloc'd; NULL when the line has neither. */
char *dialect_claude_call_id(const char *line, size_t len);
/* "codex:<thread>:<call>" or "claude:<run>:<toolUseId|requestId>". */
int dialect_identity(char *out, size_t outlen, const char *agent, const char *scope, const char *id);

#endif
