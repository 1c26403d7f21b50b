/*
 * jsonrpc - MCP's framing: JSON-RPC 2.0, one message a line on stdio.
 * Reads a line into a request, a notification or a response (or the
 * error answer JSON-RPC prescribes), writes messages with "jsonrpc":"2.0",
 * and picks the protocol revision of initialize.  Pure but for the write,
 * so the unit tests (tests/unit/test_mcp_jsonrpc.c) drive it directly.
 */
#ifndef HB_MCP_JSONRPC_H
#define HB_MCP_JSONRPC_H

#include <jansson.h>
#include <stddef.h>

#include "mcp.h"

#define MCP_PARSE_ERROR -32700
#define MCP_INVALID_REQUEST -32600
#define MCP_METHOD_NOT_FOUND -32601
#define MCP_INVALID_PARAMS -32602
#define MCP_INTERNAL_ERROR -32603

enum mcp_kind { MCP_MSG_REQUEST, MCP_MSG_NOTIFICATION, MCP_MSG_RESPONSE };

/* One line from the client.  0 with *msg (a new reference) and *kind; or
 * -1 with *answer, the error answer to send (a new reference; NULL when
 * JSON-RPC says nothing is answered: a broken notification or response). */
int mcp_rpc_read(const char *line, size_t len, json_t **msg, enum mcp_kind *kind, json_t **answer);
/* {"id":id,"result":result}; id borrowed, result stolen. */
json_t *mcp_rpc_result(const json_t *id, json_t *result);
/* {"id":id,"error":{"code","message"}}; id borrowed (NULL: null). */
json_t *mcp_rpc_error(const json_t *id, int code, const char *message);
/* {"method":method,"params":params}; params stolen. */
json_t *mcp_rpc_notification(const char *method, json_t *params);
/* msg (stolen) with "jsonrpc":"2.0" as one line on m's stdout: 0, or -1
 * when it cannot be written (the client is gone) or msg is NULL. */
int mcp_send(struct mcp *m, json_t *msg);

/* The protocol revisions hb-mcp speaks, newest first (NULL-terminated). */
extern const char *const mcp_revisions[];
/* The revision to answer a client that asked for asked (NULL: none): the
 * same when hb-mcp speaks it, else the newest (the client then decides). */
const char *mcp_negotiate(const char *asked);

#endif
