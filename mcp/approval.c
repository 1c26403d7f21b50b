/*
 * approval - a card of this run's, offered to the client (approval.h).
 */
#include "approval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "jsonrpc.h"
#include "link.h"
#include "protocol.h"

struct mcp_ask {
	json_int_t out_id;              /* our elicitation/create's id */
	char card[32];                  /* the broker's card id */
	struct mcp_ask *next;
};

json_t *approval_question(const json_t *card)
{
	const char *tool = json_string_value(json_object_get(card, "tool"));
	const json_t *input = json_object_get(card, "input");
	char *args = input ? json_dumps(input, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	char message[1024];
	json_t *q;

	snprintf(message, sizeof message, "HB Code asks before %s runs (approval card %s), with the arguments "
		 "%.700s%s. Approve it?", tool ? tool : "this tool", json_string_value(json_object_get(card, "id")) ?
		 json_string_value(json_object_get(card, "id")) : "?", args ? args : "{}",
		 args && strlen(args) > 700 ? "..." : "");
	free(args);
	q = json_pack("{s:s, s:{s:s, s:{s:{s:s, s:s, s:s}}, s:[s]}}", "message", message, "requestedSchema", "type",
		      "object", "properties", "approve", "type", "boolean", "title", "Approve",
		      "description", "Run the tool call (it may act on your machine or reach the network)",
		      "required", "approve");
	return q;
}

int approval_decision(const json_t *result)
{
	const char *action = json_string_value(json_object_get(result, "action"));

	if (action && strcmp(action, "accept") == 0)
		return json_is_true(json_object_get(json_object_get(result, "content"), "approve"));
	if (action && strcmp(action, "decline") == 0)
		return 0;
	return -1; /* "cancel": dismissed, no choice made (or an action MCP does not name) */
}

/* Take the question of card out of the table: 1 when there was one. */
static struct mcp_ask *take(struct mcp *m, const char *card, json_int_t out_id)
{
	for (struct mcp_ask **pp = &m->asks; *pp; pp = &(*pp)->next) {
		struct mcp_ask *a = *pp;
		if (card ? strcmp(a->card, card) == 0 : a->out_id == out_id) {
			*pp = a->next;
			return a;
		}
	}
	return NULL;
}

/* Tell the client its question is void (answered elsewhere, or the
 * broker went away). */
static void withdraw(struct mcp *m, struct mcp_ask *a, const char *why)
{
	mcp_send(m, mcp_rpc_notification("notifications/cancelled",
					 json_pack("{s:I, s:s}", "requestId", a->out_id, "reason", why)));
	free(a);
}

static void ask(struct mcp *m, const json_t *card)
{
	const char *id = json_string_value(json_object_get(card, "id"));
	struct mcp_ask *a;
	json_t *req;

	if (!id || strlen(id) >= sizeof a->card || !(a = calloc(1, sizeof *a)))
		return;
	a->out_id = ++m->next_out_id;
	snprintf(a->card, sizeof a->card, "%s", id);
	req = json_pack("{s:I, s:s, s:o}", "id", a->out_id, "method", "elicitation/create", "params",
			approval_question(card));
	if (mcp_send(m, req) < 0) {
		free(a);
		return;
	}
	a->next = m->asks;
	m->asks = a;
}

void approval_on_event(struct mcp *m, const char *topic, const json_t *card)
{
	const char *run = json_string_value(json_object_get(card, "run"));
	const char *call_id = json_string_value(json_object_get(card, "toolUseId"));
	struct mcp_ask *a;

	if (!run || strcmp(run, m->run) != 0)
		return;
	if (strcmp(topic, "approval.requested") == 0) {
		if (!calls_known(m, call_id))
			return;
		calls_note_key(m, call_id, json_string_value(json_object_get(card, "callKey")));
		if (m->elicitation)
			ask(m, card);
	} else if (json_is_string(json_object_get(card, "id")) &&
		   (a = take(m, json_string_value(json_object_get(card, "id")), 0))) {
		/* Its call may be answered already: the card is what counts. */
		withdraw(m, a, "The approval was answered elsewhere.");
	}
}

int approval_on_response(struct mcp *m, const json_t *msg)
{
	const json_t *id = json_object_get(msg, "id");
	const json_t *result = json_object_get(msg, "result");
	struct mcp_ask *a = json_is_integer(id) ? take(m, NULL, json_integer_value(id)) : NULL;
	struct hb_env req;
	int64_t sent;
	char err[512];
	int decision;

	if (!a)
		return 0;
	if (!result || (decision = approval_decision(result)) < 0) {
		/* The client could not ask, or the person dismissed the
		 * question without choosing: no "no", so the card stays open
		 * for another answer. */
		fprintf(stderr, "hb-mcp: %s approval %s; it waits for hbctl, the desktop or the phone\n",
			result ? "the question was dismissed without an answer to" : "the client did not ask about",
			a->card);
		free(a);
		return 1;
	}
	hb_env_init(&req);
	hb_env_set_str(&req, "op", HB_OP_RUN_CHAT_RESOLVE_APPROVAL);
	hb_env_set_str(&req, "run", m->run);
	hb_env_set_str(&req, "requestId", a->card);
	hb_env_set_str(&req, "decision", decision ? "allow" : "deny");
	if (link_send(m, &req, &sent, err, sizeof err) < 0)
		fprintf(stderr, "hb-mcp: cannot answer approval %s: %s\n", a->card, err);
	free(a);
	return 1;
}

void approval_forget_all(struct mcp *m)
{
	while (m->asks) {
		struct mcp_ask *a = m->asks;
		m->asks = a->next;
		withdraw(m, a, "hb-broker went away.");
	}
}

void approval_free(struct mcp *m)
{
	while (m->asks) {
		struct mcp_ask *a = m->asks;
		m->asks = a->next;
		free(a);
	}
}
