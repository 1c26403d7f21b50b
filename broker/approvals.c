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

#include "events.h"
#include "invariant.h"
#include "log.h"
#include "reply.h"
#include "runs.h"
#include "opfields.h"

struct approval {
	char id[24];
	char run[128], session[128], tool[128];
	char *input;                    /* JSON text of the tool input */
	char *tool_use_id;
	char *native_id;                /* JSON text of the permission requestId */
	struct hb_peer peer;            /* the bridge waiting for the answer */
	struct reqid reqid;
	long long created_ms;
	struct approval *next;
};

static void approval_free(struct approval *a)
{
	free(a->input);
	free(a->tool_use_id);
	free(a->native_id);
	free(a);
}

static json_t *card_json(const struct approval *a)
{
	json_t *input = json_loads(a->input, JSON_DECODE_ANY, NULL);

	return json_pack("{s:s, s:s, s:s, s:s, s:o, s:s}", "id", a->id, "run", a->run, "session", a->session,
			 "tool", a->tool, "input", input ? input : json_null(), "toolUseId", a->tool_use_id);
}

static void publish(struct broker *b, const char *topic, const struct approval *a, const char *extra_key,
		    const char *extra)
{
	json_t *body = card_json(a);

	if (body && extra_key)
		json_object_set_new(body, extra_key, json_string(extra));
	events_publish(b, topic, body);
}

/* Answer the bridge's permission request. */
static void answer_bridge(struct broker *b, const struct approval *a, int allow, const char *message)
{
	json_t *id = json_loads(a->native_id, JSON_DECODE_ANY, NULL);
	json_t *o = json_pack("{s:o, s:s}", "requestId", id ? id : json_null(), "decision", allow ? "allow" : "deny");
	char *text;

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

void approvals_request(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *text = hb_req_str(e, "json");
	struct run *r = runs_of_peer(b, peer);
	json_t *ev = json_loads(text, JSON_REJECT_DUPLICATES, NULL), *rid, *tool, *input, *tuid;
	struct approval *a = NULL;
	struct reqid id;

	reqid_from_env(&id, e);
	if (!r || r->stopped) {
		front_reply_err(b, peer, &id, "no-run", r ? "Run stopped." : "this connection has no open run");
		goto out;
	}
	rid = json_object_get(ev, "requestId");
	tool = json_object_get(ev, "tool");
	input = json_object_get(ev, "input");
	tuid = json_object_get(ev, "toolUseId");
	if (!ev || !(json_is_string(rid) || json_is_integer(rid)) || !json_is_string(tool) ||
	    (tuid && !json_is_string(tuid)) || json_string_length(tool) >= sizeof a->tool) {
		front_reply_err(b, peer, &id, "bad-request",
				"a permission event needs requestId, tool (string), input and toolUseId (string)");
		goto out;
	}
	if (!(a = calloc(1, sizeof *a)) || !(a->input = json_dumps(input ? input : json_null(), JSON_ENCODE_ANY)) ||
	    !(a->native_id = json_dumps(rid, JSON_ENCODE_ANY)) ||
	    !(a->tool_use_id = strdup(tuid ? json_string_value(tuid) : ""))) {
		front_reply_err(b, peer, &id, "internal", "out of memory");
		if (a)
			approval_free(a);
		goto out;
	}
	snprintf(a->id, sizeof a->id, "a%llu", (unsigned long long)++b->next_approval);
	memcpy(a->run, r->id, sizeof a->run);
	memcpy(a->session, r->session, sizeof a->session);
	memcpy(a->tool, json_string_value(tool), json_string_length(tool) + 1);
	a->peer = *peer;
	a->reqid = id;
	a->created_ms = broker_now_ms();
	a->next = b->approvals;
	b->approvals = a;
	log_info(a->id, "approval requested for %s in run %s", a->tool, a->run);
	publish(b, "approval.requested", a, NULL, NULL);
out:
	json_decref(ev);
}

void approvals_list(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	json_t *list = json_array();
	struct reqid id;
	char *text;

	reqid_from_env(&id, e);
	for (struct approval *a = b->approvals; list && a; a = a->next)
		json_array_append_new(list, card_json(a));
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
	answer_bridge(b, a, allow, allow ? NULL : (*message ? message : "The user declined this tool call."));
	log_info(a->id, "%s", allow ? "approved" : "declined");
	publish(b, "approval.resolved", a, "decision", allow ? "allow" : "deny");
	front_reply_ok(b, peer, &id, allow ? "{\"decision\":\"allow\"}" : "{\"decision\":\"deny\"}");
	approval_free(a);
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
