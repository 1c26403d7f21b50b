/*
 * approval_task - the messages between the broker and the approvalTask
 * (approval_task.h): who it is, and what it is told.  What its ops mean is
 * the table of cards' (approvals.c): an answer is judged by
 * approvals_answer like a desktop's run.chatResolveApproval.
 */
#include "approval_task.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "log.h"
#include "protocol.h"
#include "services.h"
#include "wait.h"

/* The routing id of inst's approvalTask as a peer. */
static void task_peer(const struct instance *inst, struct hb_peer *to)
{
	size_t len = strlen(inst->approval_task);

	memcpy(to->id, inst->approval_task, len);
	to->len = len;
	to->pid = 0;
}

void approval_task_tell(struct broker *b, const char *event, const json_t *card)
{
	struct instance *inst = broker_approval_instance(b);
	char *text;
	struct hb_env m;
	struct hb_peer to;

	if (!inst || !card)
		return;
	if (!(text = json_dumps(card, JSON_COMPACT))) {
		log_warn(inst->id, "approval card not told: out of memory");
		return;
	}
	task_peer(inst, &to);
	hb_env_init(&m);
	hb_env_set_str(&m, "op", HB_OP_APPROVAL_CARD);
	hb_env_set_str(&m, "event", event);
	hb_env_set_str(&m, "json", text);
	if (broker_send(b, b->back, &to, &m) < 0)
		log_warn(inst->id, "approval card not told: %s", zmq_strerror(errno));
	free(text);
}

int approval_task_from(struct broker *b, struct instance *inst, const struct hb_peer *peer, const char *op)
{
	if (inst == broker_approval_instance(b) && peer->len == strlen(inst->approval_task) &&
	    memcmp(peer->id, inst->approval_task, peer->len) == 0)
		return 1;
	log_warn(inst->id, "%s dropped: not from the task that hears of approval cards", op);
	return 0;
}

void approval_task_cards(struct broker *b, struct instance *inst, const struct hb_peer *peer, const json_t *cards)
{
	char *text = cards ? json_dumps(cards, JSON_COMPACT) : NULL;
	struct hb_env m;

	if (!text) {
		log_warn(inst->id, "approval cards not told: out of memory");
		return;
	}
	hb_env_init(&m);
	hb_env_set_str(&m, "op", HB_OP_APPROVAL_CARDS);
	hb_env_set_str(&m, "json", text);
	if (broker_send(b, b->back, peer, &m) < 0)
		log_warn(inst->id, "approval cards not told: %s", zmq_strerror(errno));
	free(text);
}

void approval_task_answered(struct broker *b, struct instance *inst, const struct hb_peer *peer,
			    const char *relay_id, const char *code, const char *why)
{
	struct hb_env m;

	if (code)
		log_info(inst->id, "an answer from the approval task was refused (%s): %s", code, why);
	hb_env_init(&m);
	hb_env_set_str(&m, "op", HB_OP_APPROVAL_ANSWERED);
	hb_env_set_str(&m, "relayId", relay_id);
	hb_env_set_bool(&m, "ok", !code);
	if (code)
		hb_env_set_str(&m, "text", why);
	if (broker_send(b, b->back, peer, &m) < 0)
		log_warn(inst->id, "cannot answer the approval task: %s", zmq_strerror(errno));
}
