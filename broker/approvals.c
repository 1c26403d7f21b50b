/*
 * approvals - a card is the bridge's pending permission request: the
 * broker answers that request only when the card is resolved, so the
 * Claude host waits exactly as long as the person takes.  Every change is
 * published (approval.requested, approval.resolved, approval.cancelled).
 */
#include "approvals.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "approval_card.h"
#include "approval_task.h"
#include "call.h"
#include "codex_client.h"
#include "events.h"
#include "invariant.h"
#include "log.h"
#include "reply.h"
#include "route.h"
#include "runs.h"
#include "opfields.h"
#include "protocol.h"

struct approval {
	char id[24];
	char run[128], session[128], tool[128];
	json_t *card;                   /* what approval.list and the events show */
	char *native_id;                /* JSON text of the permission requestId */
	char request_id[128];           /* its bare text (perm-1, 7): the agent's name for it */
	char call_key[24];              /* a held call's key (an external run's), or "" */
	struct hb_peer peer;            /* the bridge waiting for the answer */
	struct reqid reqid;
	long long created_ms;
	struct approval *next;
};

static void approval_free(struct approval *a)
{
	json_decref(a->card);
	free(a->native_id);
	free(a);
}

static json_t *card_json(const struct approval *a)
{
	return json_deep_copy(a->card);
}

static void publish(struct broker *b, const char *topic, const struct approval *a, const char *extra_key,
		    const char *extra)
{
	json_t *body = card_json(a);

	if (body && extra_key)
		json_object_set_new(body, extra_key, json_string(extra));
	approval_task_tell(b, topic, body);
	events_publish(b, topic, body);
}

/* Answer the bridge's permission request, or run or refuse the held call
 * (gone already when it was cancelled meanwhile). */
static void answer_bridge(struct broker *b, const struct approval *a, int allow, const char *message)
{
	json_t *id, *o;
	char *text;

	if (a->call_key[0]) {
		struct call *c = hb_map_get(&b->calls, a->call_key);
		if (c && allow) {
			c->on_end = NULL; /* its card is answered */
			route_dispatch(b, c);
		} else if (c)
			route_finish(b, c, 0, message && *message ? message : "The user declined this tool call.");
		return;
	}
	id = json_loads(a->native_id, JSON_DECODE_ANY, NULL);
	o = json_pack("{s:o, s:s}", "requestId", id ? id : json_null(), "decision", allow ? "allow" : "deny");
	if (o && message && *message)
		json_object_set_new(o, "message", json_string(message));
	text = o ? json_dumps(o, JSON_COMPACT) : NULL;
	if (text)
		front_reply_ok(b, &a->peer, &a->reqid, text);
	else
		front_reply_err(b, &a->peer, &a->reqid, "internal", "out of memory");
	free(text);
	json_decref(o);
}

/* The agent's id of its request (JSON text and bare text) into a; 0, or -1
 * when it is not a string or integer of a fitting size, or out of memory. */
static int set_request_id(struct approval *a, const json_t *rid)
{
	if (!(json_is_string(rid) || json_is_integer(rid)) ||
	    (json_is_string(rid) && json_string_length(rid) >= sizeof a->request_id))
		return -1;
	if (json_is_string(rid))
		memcpy(a->request_id, json_string_value(rid), json_string_length(rid) + 1);
	else
		snprintf(a->request_id, sizeof a->request_id, "%" JSON_INTEGER_FORMAT, json_integer_value(rid));
	return (a->native_id = json_dumps(rid, JSON_ENCODE_ANY)) ? 0 : -1;
}

/* Hold a (its request id and fields set) as the card of run r that the
 * bridge at peer waits on (or, peer NULL, the held call a->call_key): the card is {id, run, session, tool, input,
 * toolUseId} and fields (taken); published.  a is the table's, or freed
 * after an answer on failure. */
static void hold(struct broker *b, const struct hb_peer *peer, const struct reqid *id, const struct run *r,
		 struct approval *a, const char *tool, const json_t *input, const char *use_id, json_t *fields)
{
	snprintf(a->id, sizeof a->id, "a%llu", (unsigned long long)++b->next_approval);
	memcpy(a->run, r->id, sizeof a->run);
	memcpy(a->session, r->session, sizeof a->session);
	snprintf(a->tool, sizeof a->tool, "%s", tool);
	a->card = json_pack("{s:s, s:s, s:s, s:s, s:O, s:s}", "id", a->id, "run", a->run, "session", a->session,
			    "tool", a->tool, "input", input ? input : json_null(), "toolUseId", use_id);
	if (!fields || !a->card || json_object_update(a->card, fields) < 0) {
		struct call *c = a->call_key[0] ? hb_map_get(&b->calls, a->call_key) : NULL;
		if (peer)
			front_reply_err(b, peer, id, "internal", "out of memory");
		else if (c)
			route_finish(b, c, 0, "hb-broker is out of memory");
		json_decref(fields);
		approval_free(a);
		return;
	}
	json_decref(fields);
	if (peer) {
		a->peer = *peer;
		a->reqid = *id;
	}
	a->created_ms = broker_now_ms();
	a->next = b->approvals;
	b->approvals = a;
	log_info(a->id, "approval requested for %s in run %s", a->tool, a->run);
	publish(b, "approval.requested", a, NULL, NULL);
}

void approvals_request(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *text = hb_req_str(e, "json");
	struct run *r = runs_of_peer(b, peer);
	json_t *ev = json_loads(text, JSON_REJECT_DUPLICATES, NULL), *tool, *tuid, *fields = NULL;
	struct approval *a = NULL;
	struct reqid id;

	reqid_from_env(&id, e);
	if (!r || r->stopped) {
		front_reply_err(b, peer, &id, "no-run", r ? "Run stopped." : "this connection has no open run");
		goto out;
	}
	tool = json_object_get(ev, "tool");
	tuid = json_object_get(ev, "toolUseId");
	if (!ev || !json_is_string(tool) || (tuid && !json_is_string(tuid)) ||
	    json_string_length(tool) >= sizeof a->tool || !(a = calloc(1, sizeof *a)) ||
	    set_request_id(a, json_object_get(ev, "requestId")) < 0) {
		front_reply_err(b, peer, &id, "bad-request",
				"a permission event needs requestId, tool (string), input and toolUseId (string)");
		if (a)
			approval_free(a);
		goto out;
	}
	if ((fields = json_object()) && approval_card_claude(fields, ev) < 0) {
		json_decref(fields);
		fields = NULL;
	}
	hold(b, peer, &id, r, a, json_string_value(tool), json_object_get(ev, "input"),
	     tuid ? json_string_value(tuid) : "", fields);
out:
	json_decref(ev);
}

void approvals_request_codex(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *text = hb_req_str(e, "json"), *method, *tool, *use_id;
	const struct run *mine = runs_of_peer(b, peer);
	/* A Codex request belongs to its session's active run, as its calls. */
	const struct run *r = mine ? runs_active(b, mine->session) : NULL;
	json_t *msg = json_loads(text, JSON_REJECT_DUPLICATES, NULL), *fields = NULL;
	struct approval *a = NULL;
	struct reqid id;

	reqid_from_env(&id, e);
	method = json_string_value(json_object_get(msg, "method"));
	if (!r) {
		front_reply_err(b, peer, &id, "no-run", mine ? "Run stopped." : "this connection has no open run");
		goto out;
	}
	if (!method || !codex_is_approval(method) || !json_is_object(json_object_get(msg, "params")) ||
	    !(a = calloc(1, sizeof *a)) || set_request_id(a, json_object_get(msg, "id")) < 0) {
		front_reply_err(b, peer, &id, "bad-request",
				"codex.approval carries one of the server's approval requests (JSON-RPC, with an id)");
		if (a)
			approval_free(a);
		goto out;
	}
	if ((fields = json_object()) &&
	    approval_card_codex(fields, msg, hb_env_str_or(e, "path", NULL), &tool, &use_id) < 0) {
		json_decref(fields);
		fields = NULL;
	}
	if (!fields)
		tool = use_id = "";
	hold(b, peer, &id, r, a, tool, json_object_get(msg, "params"), use_id, fields);
out:
	json_decref(msg);
}

/* A held call ended first (cancelled, or its run ended): its card goes. */
static void withdraw_card(struct broker *b, const struct call *c)
{
	for (struct approval **pp = &b->approvals; *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->call_key, c->key) == 0) {
			struct approval *a = *pp;
			*pp = a->next;
			log_info(a->id, "withdrawn: its call %s ended first", c->key);
			publish(b, "approval.cancelled", a, "decision", "deny");
			approval_free(a);
			return;
		}
}

void approvals_hold_call(struct broker *b, struct call *c, const struct run *r)
{
	struct approval *a = calloc(1, sizeof *a);
	json_t *input = json_loads(c->args, JSON_DECODE_ANY, NULL);

	if (!a || strlen(c->call_id) >= sizeof a->request_id || route_register(b, c) < 0) {
		call_answer(b, c, 0, a ? "the call's call_id is too long to hold it for approval"
				       : "hb-broker is out of memory");
		call_free(c);
		free(a);
		json_decref(input);
		return;
	}
	snprintf(a->call_key, sizeof a->call_key, "%s", c->key);
	snprintf(a->request_id, sizeof a->request_id, "%s", c->call_id);
	c->on_end = withdraw_card;
	hold(b, NULL, NULL, r, a, c->tool, input, c->call_id,
	     json_pack("{s:s, s:s}", "kind", "tool", "callKey", c->key));
	json_decref(input);
}

void approvals_end_held(struct broker *b, const char *text)
{
	struct approval **pp = &b->approvals;

	while (*pp) {
		struct approval *a = *pp;
		struct call *c;
		if (!a->call_key[0]) {
			pp = &a->next;
			continue;
		}
		*pp = a->next;
		if ((c = hb_map_get(&b->calls, a->call_key)))
			route_finish(b, c, 0, text);
		publish(b, "approval.cancelled", a, "decision", "deny");
		approval_free(a);
	}
}

json_t *approvals_json(const struct broker *b)
{
	json_t *list = json_array();

	for (const struct approval *a = b->approvals; list && a; a = a->next)
		json_array_append_new(list, card_json(a));
	return list;
}

void approvals_list(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	json_t *list = approvals_json(b);
	struct reqid id;
	char *text;

	reqid_from_env(&id, e);
	text = list ? json_dumps(list, JSON_COMPACT) : NULL;
	if (text)
		front_reply_ok(b, peer, &id, text);
	else
		front_reply_err(b, peer, &id, "internal", "out of memory");
	free(text);
	json_decref(list);
}

/* Take card id out of the list; NULL when there is none. */
static struct approval *take_card(struct broker *b, const char *id)
{
	for (struct approval **pp = &b->approvals; *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->id, id) == 0) {
			struct approval *a = *pp;
			*pp = a->next;
			return a;
		}
	return NULL;
}

/* Answer card a (out of the table now): its bridge gets the decision, the
 * watchers the event; a is freed. */
static void settle(struct broker *b, struct approval *a, int allow, const char *message)
{
	answer_bridge(b, a, allow, allow ? NULL : (message && *message ? message : "The user declined this tool call."));
	log_info(a->id, "%s", allow ? "approved" : "declined");
	publish(b, "approval.resolved", a, "decision", allow ? "allow" : "deny");
	approval_free(a);
}

void approvals_resolve(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *decision = hb_req_str(e, "decision"), *message = hb_env_str_or(e, "message", "");
	int allow = strcmp(decision, "allow") == 0;
	struct approval *a;
	struct reqid id;

	reqid_from_env(&id, e);
	if (!allow && strcmp(decision, "deny") != 0) {
		front_reply_err(b, peer, &id, "bad-request", "decision must be allow or deny");
		return;
	}
	if (!(a = take_card(b, hb_req_str(e, "approval")))) {
		front_reply_err(b, peer, &id, "unknown-approval", "no open approval has this id");
		return;
	}
	settle(b, a, allow, message);
	front_reply_ok(b, peer, &id, allow ? "{\"decision\":\"allow\"}" : "{\"decision\":\"deny\"}");
}

/* The open card of run that request names, taken out of the table: the
 * agent adapter's own request id first (page 003: the Claude adapter
 * answers first when it holds that id), then a card id. */
static struct approval *take_run_card(struct broker *b, const char *run, const char *request)
{
	for (int by_card = 0; by_card < 2; by_card++)
		for (struct approval **pp = &b->approvals; *pp; pp = &(*pp)->next) {
			struct approval *a = *pp;
			if (strcmp(a->run, run) == 0 && strcmp(by_card ? a->id : a->request_id, request) == 0) {
				*pp = a->next;
				return a;
			}
		}
	return NULL;
}

int approvals_answer(struct broker *b, const char *run, const char *request, const char *decision,
		     const char *message, const char **code, char *why, size_t whylen)
{
	int allow = strcmp(decision, "allow") == 0;
	const struct run *r = runs_find(b, run);
	struct approval *a;

	*code = "bad-request";
	if (!allow && strcmp(decision, "deny") != 0) {
		snprintf(why, whylen, "decision must be allow or deny");
		return -1;
	}
	if (!r) {
		*code = "unknown-run";
		snprintf(why, whylen, "There is no open run %.128s, so its approval %.128s cannot be answered.", run,
			 request);
		return -1;
	}
	if (!(a = take_run_card(b, run, request))) {
		*code = "unknown-approval";
		snprintf(why, whylen,
			 "Run %.128s has no open approval %.128s: it was answered already, or never asked. Nothing "
			 "was changed.",
			 run, request);
		return -1;
	}
	settle(b, a, allow, message);
	return 0;
}

void approvals_task_sync(struct broker *b, struct instance *inst, const struct hb_peer *peer, const struct hb_env *e)
{
	json_t *cards;

	(void)e;
	if (!approval_task_from(b, inst, peer, HB_OP_APPROVAL_SYNC))
		return;
	cards = approvals_json(b);
	approval_task_cards(b, inst, peer, cards);
	json_decref(cards);
}

void approvals_task_answer(struct broker *b, struct instance *inst, const struct hb_peer *peer,
			   const struct hb_env *e)
{
	const char *code;
	char why[512];

	if (!approval_task_from(b, inst, peer, HB_OP_RUN_CHAT_RESOLVE_APPROVAL))
		return;
	if (approvals_answer(b, hb_req_str(e, "run"), hb_req_str(e, "requestId"), hb_req_str(e, "decision"),
			     hb_env_str_or(e, "message", ""), &code, why, sizeof why) == 0)
		code = NULL;
	approval_task_answered(b, inst, peer, hb_req_str(e, "relayId"), code, why);
}

void approvals_chat_resolve(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *decision = hb_req_str(e, "decision"), *code;
	char why[512];
	struct reqid id;

	reqid_from_env(&id, e);
	if (approvals_answer(b, hb_req_str(e, "run"), hb_req_str(e, "requestId"), decision,
			     hb_env_str_or(e, "message", ""), &code, why, sizeof why) < 0) {
		front_reply_err(b, peer, &id, code, why);
		return;
	}
	front_reply_ok(b, peer, &id,
		       strcmp(decision, "allow") == 0 ? "{\"decision\":\"allow\"}" : "{\"decision\":\"deny\"}");
}

void approvals_end_run(struct broker *b, const char *run, int stop)
{
	struct approval **pp = &b->approvals;

	while (*pp) {
		struct approval *a = *pp;
		if (strcmp(a->run, run) != 0) {
			pp = &a->next;
			continue;
		}
		*pp = a->next;
		answer_bridge(b, a, 0, stop ? "Run stopped." : "The run ended before anyone answered.");
		publish(b, stop ? "approval.resolved" : "approval.cancelled", a, "decision", "deny");
		approval_free(a);
	}
}

void approvals_check(const struct broker *b)
{
	for (const struct approval *a = b->approvals; a; a = a->next) {
		const struct run *r = b->runs;

		while (r && strcmp(r->id, a->run) != 0)
			r = r->next;
		HB_ASSERT(r && !r->stopped);
		for (const struct approval *o = a->next; o; o = o->next)
			HB_ASSERT(strcmp(a->id, o->id) != 0);
	}
}

void approvals_free(struct broker *b)
{
	while (b->approvals) {
		struct approval *a = b->approvals;
		b->approvals = a->next;
		approval_free(a);
	}
}
