/*
 * line_rpc - a child hbctl asks questions of, a JSON line each way
 * ({"id","method","params"} out, {"id","result"|"error"} back): the Claude
 * agent host's reads and codex app-server's JSON-RPC (line_rpc.c).
 */
#ifndef HBCTL_LINE_RPC_H
#define HBCTL_LINE_RPC_H

#include <jansson.h>

struct line_rpc;

/* Start argv with envp in a process group of its own that ends with
 * hbctl; name says what it is in messages ("the Claude agent host").
 * NULL with a sentence on stderr. */
struct line_rpc *line_rpc_start(char *const argv[], char **envp, const char *name);
/* Ask method with params (borrowed); *reply (caller frees) is the answer
 * with the request's id, result or error.  0, or EXIT_FAIL with a
 * sentence on stderr (the child ended, did not answer in 35 s). */
int line_rpc_call(struct line_rpc *r, const char *method, json_t *params, json_t **reply);
/* A notification (no id, no answer). */
void line_rpc_notify(struct line_rpc *r, const char *method);
/* Send close_method as a request first (NULL: none), close the child's
 * input, give it 10 s to end, then end its group; frees r. */
void line_rpc_end(struct line_rpc *r, const char *close_method);

#endif
