/*
 * approval_task - cards to the approvalTask, and its answers to them
 * (approval_task.h).  The task is told of every card that opens and
 * settles, so that it knows which are open without asking; the answer is
 * judged by approvals_answer like a desktop's run.chatResolveApproval.
 */
#include "approval_task.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "approvals.h"
#include "log.h"
#include "opfields.h"
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

/* Whether peer is inst's declared approvalTask, that of the service that
 * holds the role now; a log line when not. */
static int from_task(struct broker *b, struct instance *inst, const struct hb_peer *peer, const char *op)
{
	if (inst == broker_approval_instance(b) && peer->len == strlen(inst->approval_task) &&
	    memcmp(peer->id, inst->approval_task, peer->len) == 0)
		return 1;
	log_warn(inst->id, "%s dropped: not from the task that hears of approval cards", op);
	return 0;
}

void approval_task_sync(struct broker *b, struct instance *inst, const struct hb_peer *peer, const struct hb_env *e)
{
	json_t *cards;
	char *text;
	struct hb_env m;

	(void)e;
	if (!from_task(b, inst, peer, HB_OP_APPROVAL_SYNC))
		return;
	cards = approvals_json(b);
	if (!(text = cards ? json_dumps(cards, JSON_COMPACT) : NULL)) {
		log_warn(inst->id, "approval cards not told: out of memory");
		json_decref(cards);
		return;
	}
	hb_env_init(&m);
	hb_env_set_str(&m, "op", HB_OP_APPROVAL_CARDS);
	hb_env_set_str(&m, "json", text);
	if (broker_send(b, b->back, peer, &m) < 0)
		log_warn(inst->id, "approval cards not told: %s", zmq_strerror(errno));
	free(text);
	json_decref(cards);
}

void approval_task_answer(struct broker *b, struct instance *inst, const struct hb_peer *peer,
			  const struct hb_env *e)
{
	const char *code;
	char why[512];
	struct hb_env m;
	int ok;

	if (!from_task(b, inst, peer, HB_OP_RUN_CHAT_RESOLVE_APPROVAL))
		return;
	ok = approvals_answer(b, hb_req_str(e, "run"), hb_req_str(e, "requestId"), hb_req_str(e, "decision"),
			      hb_env_str_or(e, "message", ""), &code, why, sizeof why) == 0;
	if (!ok)
		log_info(inst->id, "an answer from the approval task was refused (%s): %s", code, why);
	hb_env_init(&m);
	hb_env_set_str(&m, "op", HB_OP_APPROVAL_ANSWERED);
	hb_env_set_str(&m, "relayId", hb_req_str(e, "relayId"));
	hb_env_set_bool(&m, "ok", ok);
	if (!ok)
		hb_env_set_str(&m, "text", why);
	if (broker_send(b, b->back, peer, &m) < 0)
		log_warn(inst->id, "cannot answer the approval task: %s", zmq_strerror(errno));
}
