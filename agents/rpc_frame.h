/*
 * rpc_frame - the line frames both agents speak on their stdio: a request
 * {"id":…,"method":…,"params":…}, a notification {"method":…}, and the
 * error sentence of an answer.  Codex's app-server (JSON-RPC without the
 * "jsonrpc" member) and the Claude agent host (docs/agent-host-pipe.md)
 * frame their requests alike, so codex_client.c and claude_host_client.c
 * build theirs here.
 */
#ifndef HB_RPC_FRAME_H
#define HB_RPC_FRAME_H

#include <jansson.h>

/* {"id":id,"method":method,"params":params}; steals id and params.  A new
 * reference, or NULL: no memory, or id or params NULL (a builder that
 * failed before: pass json_object() for no params). */
json_t *rpc_request(json_t *id, const char *method, json_t *params);
/* The same with an integer or a text id. */
json_t *rpc_request_int(long long id, const char *method, json_t *params);
json_t *rpc_request_str(const char *id, const char *method, json_t *params);
/* {"method":method}: a notification without params. */
json_t *rpc_notification(const char *method);
/* {"id":id,"error":{"code":code,"message":message}}: an error answer to a
 * request of the agent's; id is borrowed.  NULL: no memory. */
json_t *rpc_error_answer(const json_t *id, int code, const char *message);
/* An answer's error: its message, or fallback when the error has none;
 * NULL when the answer is not an error. */
const char *rpc_error_message(const json_t *answer, const char *fallback);
/* v as one compact line on fd (the agent's stdin, or the caller's
 * stdout): 0, or -1 (no memory, or the write failed: errno). */
int rpc_frame_write(int fd, const json_t *v);

#endif
