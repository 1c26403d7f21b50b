/*
 * codex_client - see codex_client.h.  The frames are the app-server's
 * v2 protocol, as docs/agents.md describes it.
 */
#include "codex_client.h"

#include <string.h>

#include "access.h"
#include "rpc_frame.h"

json_t *codex_initialize_params(const char *name, const char *title, const char *version)
{
	return json_pack("{s:{s:s, s:s, s:s}, s:{s:b}}", "clientInfo", "name", name, "title", title, "version",
			 version, "capabilities", "experimentalApi", 1);
}

json_t *codex_initialize(json_t *id, const char *name, const char *title, const char *version)
{
	return rpc_request(id, "initialize", codex_initialize_params(name, title, version));
}

int codex_initialize_ensure_experimental(json_t *params)
{
	json_t *caps = json_object_get(params, "capabilities");

	if (!json_is_object(params) || json_is_true(json_object_get(caps, "experimentalApi")))
		return 0;
	if (!json_is_object(caps))
		json_object_set_new(params, "capabilities", caps = json_object());
	json_object_set_new(caps, "experimentalApi", json_true());
	return 1;
}

json_t *codex_initialized(void)
{
	return rpc_notification("initialized");
}

json_t *codex_thread_start(json_t *id, json_t *params)
{
	return rpc_request(id, "thread/start", params);
}

json_t *codex_thread_resume(json_t *id, const char *thread, const char *access, const char *model)
{
	return rpc_request(id, "thread/resume",
			   json_pack("{s:s, s:b, s:s, s:s, s:s*}", "threadId", thread, "excludeTurns", 1,
				     "approvalPolicy", codex_approval_policy(access), "sandbox",
				     codex_sandbox_mode(access), "model", model));
}

json_t *codex_user_input(const char *text)
{
	return json_pack("[{s:s, s:s, s:[]}]", "type", "text", "text", text, "text_elements");
}

json_t *codex_turn_start_params(const char *thread, const char *text)
{
	json_t *input = codex_user_input(text);

	return input ? json_pack("{s:s, s:o}", "threadId", thread, "input", input) : NULL;
}

json_t *codex_turn_start(json_t *id, const char *thread, const char *text)
{
	return rpc_request(id, "turn/start", codex_turn_start_params(thread, text));
}

json_t *codex_turn_interrupt(json_t *id, const char *thread, const char *turn)
{
	return rpc_request(id, "turn/interrupt", json_pack("{s:s, s:s}", "threadId", thread, "turnId", turn));
}

const char *codex_answered_id(const json_t *answer, const char *what)
{
	return json_string_value(json_object_get(json_object_get(json_object_get(answer, "result"), what), "id"));
}

int codex_is_approval(const char *method)
{
	if (strcmp(method, "item/commandExecution/requestApproval") == 0 ||
	    strcmp(method, "item/fileChange/requestApproval") == 0)
		return 2;
	if (strcmp(method, "execCommandApproval") == 0 || strcmp(method, "applyPatchApproval") == 0)
		return 1;
	return 0;
}

json_t *codex_answer_approval(const json_t *id, const char *method, int allow)
{
	static const char *const decisions[][2] = { { "denied", "approved" }, { "decline", "accept" } };
	int version = codex_is_approval(method);

	if (!version)
		return NULL;
	return json_pack("{s:O, s:{s:s}}", "id", id, "result", "decision", decisions[version - 1][allow ? 1 : 0]);
}

json_t *codex_decline_approval(const json_t *id, const char *method)
{
	return codex_answer_approval(id, method, 0);
}

const char *codex_approval_policy(const char *access)
{
	return hb_access_rank(access) == 3 ? "never" : "on-request";
}

const char *codex_sandbox_mode(const char *access)
{
	int rank = hb_access_rank(access);

	return rank <= 0 ? "read-only" : rank == 1 ? "workspace-write" : "danger-full-access";
}

json_t *codex_sandbox_policy(const char *access)
{
	int rank = hb_access_rank(access);

	if (rank <= 0)
		return json_pack("{s:s, s:b}", "type", "readOnly", "networkAccess", 0);
	if (rank == 1)
		return json_pack("{s:s, s:[], s:b, s:b, s:b}", "type", "workspaceWrite", "writableRoots",
				 "networkAccess", 0, "excludeTmpdirEnvVar", 0, "excludeSlashTmp", 0);
	return json_pack("{s:s}", "type", "dangerFullAccess");
}
