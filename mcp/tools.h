/*
 * tools - tools/list from the broker's catalog (front op catalog, the
 * Claude form: name, description, inputSchema, approval class), with the
 * MCP tool annotations each tool gets, kept in one table (tools.c) with
 * the reason for each row.
 */
#ifndef HB_MCP_TOOLS_H
#define HB_MCP_TOOLS_H

#include <jansson.h>
#include <stddef.h>

struct mcp_hints {
	int read_only, destructive, open_world;
};

/* The annotations of a tool of that name and approval class (read-only,
 * desktop, agent).  A tool the table does not name gets its class's row;
 * an unknown class the most careful one (agent, reaching the network). */
struct mcp_hints mcp_tool_hints(const char *name, const char *approval);
/* The tools of tools/list as a JSON array (a new reference), from the
 * catalog's JSON text; NULL with err when the text is not a catalog. */
json_t *mcp_tools_from_catalog(const char *catalog, char *err, size_t errlen);

#endif
