/*
 * frontends_rig - see frontends_rig.h.
 */
#include "frontends_rig.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The test service, started beside svc-sessions as deploy/services.conf has it. */
static const char echo_conf[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 4\n"
	"tools = echo sleep whoami\n";

struct fixture F;
char session_id[64];             /* a Codex session */
char claude_session[64];         /* a Claude session */

int64_t checked_id(int64_t id)
{
	if (id < 0)
		fail_msg("a request could not be sent");
	return id;
}

void reply_to(struct hb_client *c, int64_t id, struct hb_env *reply)
{
	char err[256];
	int64_t got = -1;

	if (hb_client_recv(c, reply, 15000, err, sizeof err) < 0)
		fail_msg("no reply: %s", err);
	hb_env_int(reply, "id", &got);
	assert_int_equal(got, id);
}

json_t *native(struct hb_env *reply)
{
	json_t *j = json_loads(hb_env_str_or(reply, "json", ""), 0, NULL);

	if (!j)
		fail_msg("no native answer: %s", hb_env_str_or(reply, "err.msg", hb_env_str_or(reply, "text", "?")));
	return j;
}

const char *codex_text(json_t *ans)
{
	return json_string_value(json_object_get(
		json_array_get(json_object_get(json_object_get(ans, "result"), "contentItems"), 0), "text"));
}

char *codex_frame(int rpcid, const char *thread, const char *callid, const char *tool, const char *args)
{
	char *out = malloc(4096);

	assert_non_null(out);
	snprintf(out, 4096, "{\"method\":\"item/tool/call\",\"id\":%d,\"params\":{\"threadId\":\"%s\","
		 "\"turnId\":\"turn-1\",\"callId\":\"%s\",\"namespace\":\"hbcode\",\"tool\":\"%s\","
		 "\"arguments\":%s}}", rpcid, thread, callid, tool, args);
	return out;
}

json_t *codex_call(struct hb_client *c, int rpcid, const char *thread, const char *callid,
		   const char *tool, const char *args)
{
	char *frame = codex_frame(rpcid, thread, callid, tool, args);
	struct hb_env reply;
	json_t *ans;
	int64_t id = send_op(c, "codex.call", "json", frame, (char *)NULL);

	free(frame);
	reply_to(c, id, &reply);
	ans = native(&reply);
	assert_int_equal(json_integer_value(json_object_get(ans, "id")), rpcid);
	hb_env_free(&reply);
	return ans;
}

void open_claude_run(struct hb_client *c, const char *run, const char *access, const char *mode)
{
	struct hb_env reply;
	json_t *j;

	reply_to(c, send_op(c, "run.open", "run", run, "session", claude_session, "project", "/tmp/claude",
			    "agent", "claude", "access", access, (char *)NULL), &reply);
	if (!hb_env_bool(&reply, "ok", 0))
		fail_msg("run.open %s refused: %s", run, hb_env_str_or(&reply, "err.msg", "?"));
	j = json_loads(hb_env_str_or(&reply, "json", ""), 0, NULL);
	assert_string_equal(json_string_value(json_object_get(j, "permissionMode")), mode);
	json_decref(j);
	hb_env_free(&reply);
}

int frontends_setup(void **state)
{
	char *conf = fx_deployed_config(echo_conf, "svc-sessions", (char *)NULL), *text = NULL;
	json_t *row;
	int ok, rc;

	(void)state;
	rc = conf ? fx_start(&F, conf, NULL) : -1;
	free(conf);
	if (rc < 0)
		return -1;
	if (fx_call(&F, "manage_sessions", "{\"action\":\"create\",\"title\":\"Front\",\"agent\":\"codex\","
		    "\"projectPath\":\"/tmp\",\"accessLevel\":\"full-auto\"}", &ok, &text) < 0 || !ok)
		return -1;
	row = json_loads(text, 0, NULL);
	snprintf(session_id, sizeof session_id, "%s", json_string_value(json_object_get(row, "id")));
	json_decref(row);
	free(text);
	return fx_create_session(&F, "Front Claude", "claude", "/tmp/claude", "full-auto", claude_session,
				 sizeof claude_session);
}

int frontends_teardown(void **state)
{
	int st = 0;

	(void)state;
	return fx_stop(&F, &st) == 0 ? 0 : -1;
}
