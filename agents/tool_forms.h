/*
 * tool_forms - a tool as each agent is offered it, written once for the
 * broker's catalog (broker/catalog.c: the hbcode tools) and svc-explainer's
 * worker (svc-explainer/worker_tools.c: its own tools): Codex's
 * dynamicTools entry inside one namespace, and the Claude agent host's
 * appCapabilities entry with its approval class and, for Claude Code's
 * allowedTools, its MCP name (docs/agents.md, "The catalog and settings").
 * Each returns a new reference, or NULL when the schema is not JSON or
 * out of memory.
 */
#ifndef HB_TOOL_FORMS_H
#define HB_TOOL_FORMS_H

#include <jansson.h>

struct agent_tool {
	const char *name;
	const char *description;
	const char *input_schema;  /* JSON text */
	const char *approval;      /* Claude's approval class: "read-only",
				      "desktop" or "agent" */
	int read_only;             /* Claude's readOnlyHint annotation */
};

/* {"name", "description", "inputSchema", "type":"function"}. */
json_t *tool_form_codex(const struct agent_tool *t);
/* [{"type":"namespace", "name":ns, "description", "tools":tools}]: Codex's
 * dynamicTools; steals tools. */
json_t *tool_form_codex_namespace(const char *ns, const char *description, json_t *tools);
/* {"name", "description", "inputSchema", "approval"[, "annotations":
 * {"readOnlyHint":true}]}. */
json_t *tool_form_claude(const struct agent_tool *t);
/* The tool's name to Claude Code: "mcp__hbcode__" NAME. */
json_t *tool_form_claude_allowed(const char *name);

#endif
