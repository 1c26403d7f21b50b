/*
 * frontends_rig - what the integration tests of the agents' doors
 * (itest_frontends.c, itest_frontends_runs.c) share: the real hb-broker
 * with svc-sessions as deploy/services.conf has it and the test service
 * svc-echo beside it, a Codex and a Claude session made by the group
 * setup, the replies to a connection's requests, Codex item/tool/call
 * frames and their answers, and the opening of a Claude run.
 */
#ifndef TEST_FRONTENDS_RIG_H
#define TEST_FRONTENDS_RIG_H

#include <stdint.h>

#include <jansson.h>

#include "../harness/harness.h"
#include "client.h"
#include "envelope.h"

extern struct fixture F;
extern char session_id[64];             /* a Codex session */
extern char claude_session[64];         /* a Claude session */

/* Send an envelope of op with string fields (NULL-terminated pairs). */
#define send_op(c, ...) checked_id(fx_send_op((c), __VA_ARGS__))

/* id, failing the test when the request could not be sent (id < 0). */
int64_t checked_id(int64_t id);
/* The reply to request id (others are not expected here). */
void reply_to(struct hb_client *c, int64_t id, struct hb_env *reply);
/* The native answer of a reply, parsed. */
json_t *native(struct hb_env *reply);
/* The text of a Codex answer's first content item. */
const char *codex_text(json_t *ans);
/* An item/tool/call frame (malloc'd) of JSON-RPC id rpcid on thread. */
char *codex_frame(int rpcid, const char *thread, const char *callid, const char *tool, const char *args);
/* A codex.call of that frame on c: its native answer, parsed. */
json_t *codex_call(struct hb_client *c, int rpcid, const char *thread, const char *callid,
		   const char *tool, const char *args);
/* run.open of a Claude run on claude_session, which must be accepted
 * with the permission mode mode for access. */
void open_claude_run(struct hb_client *c, const char *run, const char *access, const char *mode);

/* The broker with svc-sessions and svc-echo, and the two sessions. */
int frontends_setup(void **state);
int frontends_teardown(void **state);

#endif
