/*
 * back - dispatch of service messages.  A frame from an unknown identity
 * or with an unknown op is logged and dropped: services are our children,
 * so a wrong message is a bug to see in the log, not a client to answer.
 */
#include "back.h"

#include <string.h>

#include "deliver.h"
#include "log.h"
#include "route.h"
#include "supervise.h"

static void dispatch(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *op = hb_env_str(e, "op");
	struct instance *inst;
	char name[128];

	if (strcmp(op, "ready") == 0) {
		supervisor_on_ready(b, peer, e);
		return;
	}
	inst = supervisor_instance(b, peer);
	if (strcmp(op, "worker") == 0 && inst && inst->pid == peer->pid) {
		int64_t slots = 1;
		hb_env_int(e, "slots", &slots);
		/* A worker may say so before the loop's ready arrives. */
		route_worker(b, inst, peer, slots < 1 ? 1 : slots > 1024 ? 1024 : (int)slots);
		return;
	}
	if (!inst || !inst->ready || inst->pid != peer->pid) {
		hb_peer_name(peer, name, sizeof name);
		log_warn(NULL, "back: %s from %s (pid %ld) dropped: not a ready service of this broker",
			 op, name, (long)peer->pid);
		return;
	}
	supervisor_on_heartbeat(inst); /* any message shows it is alive */
	if (strcmp(op, "result") == 0)
		route_result(b, inst, peer, e);
	else if (strcmp(op, "progress") == 0)
		route_progress(b, inst, e);
	else if (strcmp(op, "subcall") == 0)
		route_subcall(b, inst, e);
	else if (strcmp(op, "deliver") == 0)
		deliver_request(b, inst, peer, e);
	else if (strcmp(op, "event") == 0)
		deliver_event(b, inst, e);
	else if (strcmp(op, "heartbeat") != 0) {
		char shown[200];
		hb_escape(op, strlen(op), 48, shown, sizeof shown);
		log_warn(inst->id, "back: unknown op \"%s\" dropped", shown);
	}
}

void back_handle(struct broker *b)
{
	for (int n = 0; n < 256; n++) {
		struct hb_peer peer;
		struct hb_env e;
		char err[256], name[128];
		int rc = hb_recv_routed(b->back, &peer, &e, err, sizeof err);

		if (rc < 0)
			return;
		if (rc == 0) {
			hb_peer_name(&peer, name, sizeof name);
			log_warn(NULL, "back: bad frame from %s: %s", name, err);
			continue;
		}
		dispatch(b, &peer, &e);
		hb_env_free(&e);
	}
}
