/*
 * phone_cards - see phone_cards.h.  The cards are a short list in the
 * order they opened (at most CARDS_MAX: a card past that is not shown,
 * and a log line says so); the outcomes wait in a queue until the link
 * is ready to carry them.
 */
#include "phone_cards.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "opfields.h"
#include "protocol.h"
#include "sock.h"
#include "utf8.h"

#define CARDS_MAX 256
#define OUTCOMES_MAX 64

struct card {
	struct hb_relay_approval a;
	int shown;                      /* sent on the current link */
	struct card *next;
};

struct outcome {
	char *text;                     /* an approval-result, ready to send */
	struct outcome *next;
};

struct phone_cards {
	struct card *cards;
	int ncards;
	struct outcome *outcomes, **outcomes_tail;
	int noutcomes;
};

struct phone_cards *phone_cards_new(void)
{
	struct phone_cards *pc = calloc(1, sizeof *pc);

	if (pc)
		pc->outcomes_tail = &pc->outcomes;
	return pc;
}

static void forget_all(struct phone_cards *pc)
{
	while (pc->cards) {
		struct card *c = pc->cards;
		pc->cards = c->next;
		free(c);
	}
	pc->ncards = 0;
}

void phone_cards_free(struct phone_cards *pc)
{
	if (!pc)
		return;
	forget_all(pc);
	while (pc->outcomes) {
		struct outcome *o = pc->outcomes;
		pc->outcomes = o->next;
		free(o->text);
		free(o);
	}
	free(pc);
}

/* s cut to at most max_chars characters that fit out (outlen bytes). */
static void fit(char *out, size_t outlen, const char *s, size_t max_chars)
{
	size_t n;

	if (!s)
		s = "";
	n = hb_utf8_fit(s, strlen(s), max_chars, outlen - 1);
	memcpy(out, s, n);
	out[n] = '\0';
}

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* What the card asks, for the phone: the command line, the file's path,
 * or the tool's input. */
static void card_text(const json_t *card, struct hb_relay_approval *a)
{
	char *input;

	if (strcmp(a->kind, "command") == 0 || strcmp(a->kind, "file") == 0) {
		fit(a->text, sizeof a->text, str(card, strcmp(a->kind, "command") == 0 ? "command" : "path"),
		    HB_RELAY_ASK_MAX);
		return;
	}
	input = json_dumps(json_object_get(card, "input"), JSON_COMPACT | JSON_ENCODE_ANY);
	fit(a->text, sizeof a->text, input, HB_RELAY_ASK_MAX);
	free(input);
}

/* The card JSON of approval.list as the relay's approval-requested; 0, or
 * -1 when it cannot be shown (a log line says why). */
static int card_of(const char *json, struct hb_relay_approval *a)
{
	json_t *card = json_loads(json, 0, NULL), *sub = json_object_get(card, "subagent");
	char err[256], *text;
	int rc = -1;

	memset(a, 0, sizeof *a);
	if (!card || !str(card, "id") || !str(card, "run")) {
		log_warn(NULL, "an approval card the broker sent cannot be read");
		json_decref(card);
		return -1;
	}
	fit(a->approval_id, sizeof a->approval_id, str(card, "id"), HB_RELAY_ID_MAX);
	fit(a->session_id, sizeof a->session_id, str(card, "session"), HB_RELAY_REF_MAX);
	fit(a->run_id, sizeof a->run_id, str(card, "run"), HB_RELAY_REF_MAX);
	fit(a->kind, sizeof a->kind, str(card, "kind") ? str(card, "kind") : "tool", HB_RELAY_KIND_MAX);
	fit(a->tool, sizeof a->tool, str(card, "tool"), HB_RELAY_REF_MAX);
	card_text(card, a);
	fit(a->cwd, sizeof a->cwd, str(card, "cwd"), HB_RELAY_ASK_MAX);
	if (sub)
		fit(a->subagent, sizeof a->subagent,
		    str(sub, "description") ? str(sub, "description") : str(sub, "type") ? str(sub, "type") : str(sub, "id"),
		    HB_RELAY_SESSION_TITLE_MAX);
	fit(a->reason, sizeof a->reason, str(card, "decisionReason"), HB_RELAY_TEXT_MAX);
	if ((text = hb_relay_approval(a, err, sizeof err)))
		rc = 0;
	else
		log_warn(NULL, "approval card %s is not shown on the phone: %s", a->approval_id, err);
	free(text);
	json_decref(card);
	return rc;
}

static void card_opened(struct phone_cards *pc, const char *json)
{
	struct card *c, **tail = &pc->cards;
	json_t *card = json_loads(json, 0, NULL);
	const char *id = str(card, "id");

	/* one the broker told twice (approval.cards after approval.card) */
	for (c = pc->cards; id && c; c = c->next)
		if (strcmp(c->a.approval_id, id) == 0)
			break;
	json_decref(card);
	if (c)
		return;

	if (pc->ncards >= CARDS_MAX) {
		log_warn(NULL, "%d approval cards are open; a newer one is not shown on the phone", CARDS_MAX);
		return;
	}
	if (!(c = calloc(1, sizeof *c))) {
		log_warn(NULL, "an approval card is not shown on the phone: out of memory");
		return;
	}
	if (card_of(json, &c->a) < 0) {
		free(c);
		return;
	}
	while (*tail)
		tail = &(*tail)->next;
	*tail = c;
	pc->ncards++;
}

/* approval.cards: every open card, the list anew; a card already shown
 * on this link stays shown. */
static void cards_now(struct phone_cards *pc, const char *json)
{
	json_t *cards = json_loads(json, 0, NULL), *c;
	struct card *old;
	size_t i;

	if (!json_is_array(cards)) {
		log_warn(NULL, "the approval cards the broker sent cannot be read");
		json_decref(cards);
		return;
	}
	old = pc->cards;
	pc->cards = NULL;
	pc->ncards = 0;
	json_array_foreach(cards, i, c) {
		const char *id = str(c, "id");
		struct card **pp = &old;
		char *text;

		while (id && *pp && strcmp((*pp)->a.approval_id, id) != 0)
			pp = &(*pp)->next;
		if (id && *pp) { /* known: moved over as it was */
			struct card *known = *pp, **tail = &pc->cards;
			*pp = known->next;
			known->next = NULL;
			while (*tail)
				tail = &(*tail)->next;
			*tail = known;
			pc->ncards++;
		} else if ((text = json_dumps(c, JSON_COMPACT))) {
			card_opened(pc, text);
			free(text);
		}
	}
	while (old) { /* settled meanwhile */
		struct card *gone = old;
		old = gone->next;
		free(gone);
	}
	json_decref(cards);
}

static void card_settled(struct phone_cards *pc, const char *json)
{
	json_t *card = json_loads(json, 0, NULL);
	const char *id = str(card, "id");

	for (struct card **pp = &pc->cards; id && *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->a.approval_id, id) == 0) {
			struct card *c = *pp;
			*pp = c->next;
			free(c);
			pc->ncards--;
			break;
		}
	json_decref(card);
}

/* An approval-result for the relay: relay_id's answer ok, or refused. */
static void add_outcome(struct phone_cards *pc, const char *relay_id, int ok, const char *why)
{
	char err[256], msg[HB_RELAY_TEXT_MAX * 4 + 1];
	struct outcome *o;

	fit(msg, sizeof msg, ok ? "" : why, HB_RELAY_TEXT_MAX);
	if (pc->noutcomes >= OUTCOMES_MAX || !(o = calloc(1, sizeof *o))) {
		log_warn(NULL, "the outcome of the phone's answer %s is not sent: too many wait", relay_id);
		return;
	}
	if (!(o->text = hb_relay_result(relay_id, ok, msg, err, sizeof err))) {
		log_warn(NULL, "the outcome of the phone's answer cannot be sent: %s", err);
		free(o);
		return;
	}
	*pc->outcomes_tail = o;
	pc->outcomes_tail = &o->next;
	pc->noutcomes++;
}

void phone_cards_from_broker(struct phone_cards *pc, void *sock, void (*other)(void *arg, const struct hb_env *e),
			     void *arg)
{
	for (;;) {
		struct hb_env e;
		char err[256];
		int rc = hb_recv_env(sock, &e, err, sizeof err);
		const char *op;

		if (rc < 0)
			return;
		if (rc == 1 && hb_broker_op_check(&e, err, sizeof err) < 0) {
			hb_env_free(&e);
			rc = 0;
		}
		if (rc == 0) {
			log_warn(NULL, "bad frame from the broker: %s", err);
			continue;
		}
		op = hb_env_str(&e, "op");
		if (strcmp(op, HB_OP_APPROVAL_CARD) == 0 && strcmp(hb_req_str(&e, "event"), "approval.requested") == 0)
			card_opened(pc, hb_req_str(&e, "json"));
		else if (strcmp(op, HB_OP_APPROVAL_CARD) == 0)
			card_settled(pc, hb_req_str(&e, "json"));
		else if (strcmp(op, HB_OP_APPROVAL_CARDS) == 0)
			cards_now(pc, hb_req_str(&e, "json"));
		else if (strcmp(op, HB_OP_APPROVAL_ANSWERED) == 0)
			add_outcome(pc, hb_req_str(&e, "relayId"), hb_req_bool(&e, "ok"),
				    hb_env_str_or(&e, "text", "The answer was refused."));
		else
			other(arg, &e);
		hb_env_free(&e);
	}
}

void phone_cards_relink(struct phone_cards *pc, void *sock)
{
	struct hb_env e;

	for (struct card *c = pc->cards; c; c = c->next)
		c->shown = 0;
	hb_env_init(&e);
	hb_env_set_str(&e, "op", HB_OP_APPROVAL_SYNC);
	if (hb_send_env(sock, NULL, &e) < 0)
		log_warn(NULL, "the open approval cards cannot be asked for: the broker's socket refused");
}

int phone_cards_pending(const struct phone_cards *pc)
{
	if (pc->outcomes)
		return 1;
	for (const struct card *c = pc->cards; c; c = c->next)
		if (!c->shown)
			return 1;
	return 0;
}

char *phone_cards_next(struct phone_cards *pc)
{
	char err[256], *text;

	if (pc->outcomes) {
		struct outcome *o = pc->outcomes;
		pc->outcomes = o->next;
		if (!pc->outcomes)
			pc->outcomes_tail = &pc->outcomes;
		pc->noutcomes--;
		text = o->text;
		free(o);
		return text;
	}
	for (struct card *c = pc->cards; c; c = c->next)
		if (!c->shown) {
			c->shown = 1;
			if ((text = hb_relay_approval(&c->a, err, sizeof err)))
				return text;
			log_warn(NULL, "approval card %s is not shown on the phone: %s", c->a.approval_id, err);
		}
	return NULL;
}

void phone_cards_answer(struct phone_cards *pc, void *sock, const struct hb_relay_msg *m)
{
	struct hb_env e;

	hb_env_init(&e);
	hb_env_set_str(&e, "op", HB_OP_RUN_CHAT_RESOLVE_APPROVAL);
	hb_env_set_str(&e, "run", m->approval.run_id);
	hb_env_set_str(&e, "requestId", m->approval.approval_id);
	hb_env_set_str(&e, "decision", m->allow ? "allow" : "deny");
	hb_env_set_str(&e, "relayId", m->id);
	if (!m->allow)
		hb_env_set_str(&e, "message", "The user declined this tool call from the phone.");
	log_info(NULL, "the phone answered approval %s of run %s: %s", m->approval.approval_id, m->approval.run_id,
		 m->allow ? "allow" : "deny");
	if (hb_send_env(sock, NULL, &e) < 0)
		add_outcome(pc, m->id, 0, "The desktop could not pass the answer on; answer it in HB Code.");
}
