/*
 * codex_deliver - messages from other sessions into this session's Codex
 * thread.  Into a running turn with turn/steer (after the agent's current
 * step, as the page says; expectedTurnId guards against a turn that just
 * ended, and a failed steer starts a turn instead), into an idle thread
 * with turn/start, under a run of its own with the access the broker
 * approved, closed when the turn completes.  One request at a time, so a
 * second message steers into the turn the first one started.  A message a
 * bridge took before (svc-messages says `handed`) is first looked for in
 * the thread's history, in case an earlier bridge carried it in and died
 * before reporting it.  Our
 * requests carry the operation id (session-message-N) as their JSON-RPC
 * id and clientUserMessageId; the caller may use neither.
 */
#include "codex_bridge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codex_client.h"
#include "log.h"
#include "rpc_frame.h"
#include "session_message.h"
#include "protocol.h"

#define STEER_SUFFIX "#steer"
#define CHECK_SUFFIX "#check"

/* A run the bridge opened for a turn it started. */
struct delivered_run {
	char run[64];
	char turn[200];
	struct delivered_run *next;
};

static void broker_op(struct bridge *br, const char *op, const char *run, const struct delivery *x)
{
	struct hb_env e;
	char err[256];
	int64_t id;

	if (!br->broker_ok)
		return;
	hb_env_init(&e);
	hb_env_set_str(&e, "op", op);
	hb_env_set_str(&e, "run", run);
	if (x) {
		hb_env_set_str(&e, "session", br->session);
		hb_env_set_str(&e, "project", x->project);
		hb_env_set_str(&e, "agent", "codex");
		hb_env_set_str(&e, "access", x->access);
	}
	if (hb_client_send(&br->broker, &e, &id, err, sizeof err) < 0)
		log_warn(run, "%s: %s", op, err);
}

/* The sandbox and approval policy of an access level (the same four
 * levels the desktop gives a Codex turn). */
static void set_access(json_t *params, const char *access)
{
	json_object_set_new(params, "sandboxPolicy", codex_sandbox_policy(access));
	json_object_set_new(params, "approvalPolicy", json_string(codex_approval_policy(access)));
}

static void send_request(struct bridge *br, struct delivery *x)
{
	char id[80];
	json_t *req, *params;
	int steer = br->turn[0] && !x->tried_steer;

	x->state = DELIVERY_WORKING;
	br->working = x;
	snprintf(id, sizeof id, "%s%s", x->op_id, steer ? STEER_SUFFIX : "");
	params = json_pack("{s:s, s:s, s:o}", "threadId", br->thread, "clientUserMessageId", x->op_id, "input",
			   codex_user_input(x->text));
	if (steer) {
		json_object_set_new(params, "expectedTurnId", json_string(br->turn));
	} else {
		set_access(params, x->access);
		/* The launcher's run opens with the session's model and
		 * effort; a desktop's thread keeps what the desktop chose. */
		if (br->once_model)
			json_object_set_new(params, "model", json_string(br->once_model));
		if (br->once_effort)
			json_object_set_new(params, "effort", json_string(br->once_effort));
		broker_op(br, HB_OP_RUN_OPEN, x->op_id, x);
	}
	req = rpc_request_str(id, steer ? "turn/steer" : "turn/start", params);
	(void)rpc_frame_write(br->server.child.in, req);
	json_decref(req);
	log_info(x->op_id, "%s into thread %s", steer ? "steering" : "starting a turn", br->thread);
}

/* A message that an earlier bridge (an earlier codex process) may have
 * carried in before its report was lost: look for its client id in the
 * thread's history first, so it never goes in twice. */
static void send_history_check(struct bridge *br, struct delivery *x)
{
	char id[80];
	json_t *req;

	x->state = DELIVERY_WORKING;
	br->working = x;
	snprintf(id, sizeof id, "%s%s", x->op_id, CHECK_SUFFIX);
	req = json_pack("{s:s, s:s, s:{s:s, s:b}}", "id", id, "method", "thread/read", "params", "threadId", br->thread,
			"includeTurns", 1);
	(void)rpc_frame_write(br->server.child.in, req);
	json_decref(req);
}

static void pump(struct bridge *br)
{
	struct delivery *x;

	if (br->working || !br->thread[0] || br->server.child.in < 0 || !(x = deliveries_next(&br->dl)))
		return;
	if (x->check_history)
		send_history_check(br, x);
	else
		send_request(br, x);
}

/* The id of the turn whose user message has client id op_id, or NULL. */
static const char *turn_with_message(json_t *thread, const char *op_id)
{
	json_t *turn, *item;
	size_t i, j;

	json_array_foreach(json_object_get(thread, "turns"), i, turn)
		json_array_foreach(json_object_get(turn, "items"), j, item) {
			const char *type = json_string_value(json_object_get(item, "type"));
			const char *client = json_string_value(json_object_get(item, "clientId"));
			if (type && client && strcmp(type, "userMessage") == 0 && strcmp(client, op_id) == 0)
				return json_string_value(json_object_get(turn, "id"));
		}
	return NULL;
}

static void on_history(struct bridge *br, struct delivery *x, json_t *msg)
{
	json_t *result = json_object_get(msg, "result");
	const char *turn = result ? turn_with_message(json_object_get(result, "thread"), x->op_id) : NULL;

	x->check_history = 0;
	if (turn) {
		log_info(x->op_id, "already in thread %s (turn %s): not sent again", br->thread, turn);
		deliveries_finish(&br->dl, x, 1, turn, NULL);
		return;
	}
	if (!result)
		log_warn(x->op_id, "cannot read the thread's history (%s); delivering",
			 json_string_value(json_object_get(json_object_get(msg, "error"), "message")));
	deliveries_requeue(&br->dl, x);
}

void codex_deliver_thread(struct bridge *br, const char *thread)
{
	if (!br->thread[0])
		snprintf(br->thread, sizeof br->thread, "%s", thread);
}

void codex_deliver(struct bridge *br, const struct hb_env *e)
{
	if (!br->thread[0])
		return; /* not attached yet: the broker will ask again */
	if (deliveries_take(&br->dl, e))
		br->handed++;
	pump(br);
}

static void remember_run(struct bridge *br, const char *run, const char *turn)
{
	struct delivered_run *r = calloc(1, sizeof *r);

	if (!r) {
		broker_op(br, HB_OP_RUN_CLOSE, run, NULL);
		return;
	}
	snprintf(r->run, sizeof r->run, "%s", run);
	snprintf(r->turn, sizeof r->turn, "%s", turn);
	r->next = br->runs;
	br->runs = r;
}

/* The turn's runs, closed once its last rows (its end among them) went out:
 * a launched bridge's rows are bound by its run, and --once ends with it. */
static void close_runs_of_turn(struct bridge *br, const char *turn)
{
	codex_timeline_flush(br);
	for (struct delivered_run **pp = &br->runs; *pp;) {
		struct delivered_run *r = *pp;
		if (strcmp(r->turn, turn) == 0) {
			broker_op(br, HB_OP_RUN_CLOSE, r->run, NULL);
			*pp = r->next;
			free(r);
		} else {
			pp = &r->next;
		}
	}
}

/* The answer to our turn/start or turn/steer. */
static void on_answer(struct bridge *br, const char *id, json_t *msg)
{
	const char *hash = strchr(id, '#');
	int steer = hash && strcmp(hash, STEER_SUFFIX) == 0, check = hash && strcmp(hash, CHECK_SUFFIX) == 0;
	char op_id[64];
	struct delivery *x;
	json_t *result = json_object_get(msg, "result");
	const char *why = json_string_value(json_object_get(json_object_get(msg, "error"), "message"));

	snprintf(op_id, sizeof op_id, "%.*s", (int)(hash ? (size_t)(hash - id) : strlen(id)), id);
	if (!(x = deliveries_find(&br->dl, op_id)) || x != br->working)
		return;
	br->working = NULL;
	if (check) {
		on_history(br, x, msg);
	} else if (steer && result) {
		deliveries_finish(&br->dl, x, 1, json_string_value(json_object_get(result, "turnId")), NULL);
	} else if (steer) {
		/* The turn ended meanwhile: start one instead. */
		log_info(op_id, "steer refused (%s); starting a turn", why ? why : "?");
		x->tried_steer = 1;
		deliveries_requeue(&br->dl, x);
	} else if (result) {
		json_t *turn = json_object_get(result, "turn");
		const char *tid = json_string_value(json_object_get(turn, "id"));
		const char *status = json_string_value(json_object_get(turn, "status"));
		if (tid && (!status || strcmp(status, "inProgress") == 0)) {
			snprintf(br->turn, sizeof br->turn, "%s", tid);
			remember_run(br, op_id, tid);
		} else {
			broker_op(br, HB_OP_RUN_CLOSE, op_id, NULL);
		}
		deliveries_finish(&br->dl, x, 1, tid, NULL);
	} else {
		broker_op(br, HB_OP_RUN_CLOSE, op_id, NULL);
		deliveries_finish(&br->dl, x, 0, NULL, why ? why : "codex refused turn/start");
	}
	pump(br);
}

int codex_deliver_from_server(struct bridge *br, json_t *msg)
{
	json_t *id = json_object_get(msg, "id");
	const char *method = json_string_value(json_object_get(msg, "method"));
	json_t *params = json_object_get(msg, "params");
	const char *thread = json_string_value(json_object_get(params, "threadId"));
	const char *turn = json_string_value(json_object_get(json_object_get(params, "turn"), "id"));

	if (!method && deliveries_reserved(id)) {
		on_answer(br, json_string_value(id), msg);
		return 1;
	}
	if (!method || !thread || !turn || strcmp(thread, br->thread) != 0)
		return 0;
	if (strcmp(method, "turn/started") == 0) {
		snprintf(br->turn, sizeof br->turn, "%s", turn);
		pump(br);
	} else if (strcmp(method, "turn/completed") == 0) {
		if (strcmp(br->turn, turn) == 0)
			br->turn[0] = '\0';
		close_runs_of_turn(br, turn);
		pump(br);
	}
	return 0;
}

int codex_deliver_refuse(struct bridge *br, json_t *msg)
{
	json_t *id = json_object_get(msg, "id");
	char *line = NULL;

	(void)br;
	if (!deliveries_reserved(id) &&
	    !deliveries_reserved(json_object_get(json_object_get(msg, "params"), "clientUserMessageId")))
		return 0;
	if (id && (line = deliveries_refusal(id, json_integer(-32600)))) {
		json_t *v = json_loads(line, 0, NULL);
		(void)rpc_frame_write(1, v);
		json_decref(v);
	}
	free(line);
	return 1;
}

long long codex_deliver_tick(struct bridge *br)
{
	if (!br->broker_ok || !br->thread[0])
		return -1;
	if (br->server.child.in < 0) {
		/* Nothing reaches the server any more: no messages for us. */
		deliveries_detach(&br->dl, 0);
		return -1;
	}
	return deliveries_attach(&br->dl);
}

void codex_deliver_close_runs(struct bridge *br)
{
	while (br->runs) {
		struct delivered_run *r = br->runs;
		br->runs = r->next;
		log_info(r->run, "the turn did not complete before the bridge's end: closing its run");
		broker_op(br, HB_OP_RUN_CLOSE, r->run, NULL);
		free(r);
	}
}

void codex_deliver_free(struct bridge *br)
{
	while (br->runs) {
		struct delivered_run *r = br->runs;
		br->runs = r->next;
		free(r);
	}
	deliveries_free(&br->dl);
}
