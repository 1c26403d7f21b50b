/*
 * status - one JSON object: the broker (pid, uptime, calls, whether
 * GEMINI_API_KEY is in its environment, the supervisor's own check of its
 * invariants) and per service its state, pid, generation, restarts, last
 * exit, calls in flight and calls served, the draining generations, and
 * what the serving incarnation last reported of itself (report.h); the
 * launched bridges and the open approval cards.
 */
#include "status.h"

#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

#include "approvals.h"
#include "invariants.h"
#include "launch.h"
#include "paths.h"
#include "report.h"
#include "supervise.h"

/* The old generations still finishing their calls, newest first. */
static json_t *draining_json(const struct service *s)
{
	json_t *list = json_array();

	for (const struct instance *o = s->old; o && list; o = o->older)
		json_array_append_new(list, json_pack("{s:I, s:I, s:I}", "generation", (json_int_t)o->gen, "pid",
						      (json_int_t)o->pid, "callsInFlight", (json_int_t)o->inflight));
	return list;
}

static json_t *service_json(const struct service *s)
{
	const struct instance *inst = s->cur ? s->cur : s->old;
	struct instance *all[SUPERVISOR_MAX_LISTED];
	int n = supervisor_instances(s, all, SUPERVISOR_MAX_LISTED);
	unsigned inflight = 0, waiting = 0;
	json_t *o;

	for (int i = 0; i < n; i++)
		inflight += all[i]->inflight;

	for (const struct call *c = s->wait_head; c; c = c->next)
		waiting++;
	o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:b, s:I, s:I, s:I}",
		      "name", s->cfg->name, "state", supervisor_state(s), "exec", s->exec,
		      "generation", (json_int_t)(inst ? inst->gen : s->gen),
		      "restarts", (json_int_t)s->restarts, "crashLoop", s->crashloop,
		      "callsInFlight", (json_int_t)inflight, "callsWaiting", (json_int_t)waiting,
		      "callsServed", (json_int_t)s->served);
	if (!o)
		return NULL;
	json_object_set_new(o, "pid", inst ? json_integer(inst->pid) : json_null());
	json_object_set_new(o, "lastExit", s->last_exit[0] ? json_string(s->last_exit) : json_null());
	/* An idling service (start = demand, or an idle line): stopped after
	 * idleMs without a call (idleStops times so far; stoppedIdle: its
	 * last end was such a stop), started again by a call or a change of
	 * its wake folder; holdsWork: its idleTask's last answer (null: none
	 * given), with holdsWhy. */
	json_object_set_new(o, "start", json_string(s->cfg->on_demand ? "demand" : "boot"));
	if (s->cfg->idles) {
		json_object_set_new(o, "idleMs", json_integer(s->cfg->idle_ms));
		json_object_set_new(o, "idleStops", json_integer(s->idle_stops));
		json_object_set_new(o, "stoppedIdle", json_boolean(s->idle_last));
		json_object_set_new(o, "wake", s->cfg->wake == HB_DIR_CONFIG ? json_string("config")
					       : s->cfg->wake == HB_DIR_DATA ? json_string("data")
					       : s->cfg->wake == HB_DIR_CACHE ? json_string("cache") : json_null());
		json_object_set_new(o, "holdsWork", s->cur && s->cur->idle_task[0] && s->cur->holds_work >= 0
							    ? json_boolean(s->cur->holds_work) : json_null());
		if (s->cur && s->cur->idle_task[0] && s->cur->holds_work >= 0 && s->cur->holds_why[0])
			json_object_set_new(o, "holdsWhy", json_string(s->cur->holds_why));
	}
	if (s->cur) {
		json_object_set_new(o, "workers", json_integer(s->cur->nworkers));
		json_object_set_new(o, "slots", json_integer(s->cur->slots));
		json_object_set_new(o, "slotsBusy", json_integer(s->cur->busy));
		json_object_set_new(o, "queuedInService", json_integer(s->cur->queued));
		/* An idle service beats not at all: tests count these. */
		json_object_set_new(o, "heartbeats", json_integer((json_int_t)s->cur->beats));
	}
	if (s->next)
		json_object_set_new(o, "replacementPid", json_integer(s->next->pid));
	json_object_set_new(o, "draining", draining_json(s));
	/* The serving incarnation's own word: a replacement's shows once it
	 * serves. */
	json_object_set_new(o, "report", report_json(s->cur));
	return o;
}

char *status_json(const struct broker *b)
{
	json_t *root, *services;
	char *text, check[256];

	const char *key = getenv("GEMINI_API_KEY");

	/* geminiKeyFromEnv: hbctl settings says that no setting removes it. */
	root = json_pack("{s:{s:I, s:I, s:s, s:s, s:I, s:b}}", "broker",
			 "pid", (json_int_t)getpid(), "uptimeMs", (json_int_t)(broker_now_ms() - b->started_ms),
			 "version", BROKER_VERSION, "state", b->stopping ? "stopping" : "running",
			 "callsInFlight", (json_int_t)b->calls.count, "geminiKeyFromEnv", key && *key);
	services = json_array();
	if (!root || !services) {
		json_decref(root);
		json_decref(services);
		return NULL;
	}
	for (int i = 0; i < b->nservices; i++)
		json_array_append_new(services, service_json(&b->services[i]));
	json_object_set_new(root, "services", services);
	/* The bridges the broker started for sessions no bridge carried. */
	json_object_set_new(root, "launches", launch_status_json(b));
	/* The open approval cards, as approval.list shows them. */
	json_object_set_new(root, "approvals", approvals_json(b));
	/* The supervisor checks itself on every status: tests and operators
	 * see a broken invariant instead of its consequences much later. */
	supervisor_selfcheck(b, check, sizeof check);
	broker_check_invariants(b);
	json_object_set_new(json_object_get(root, "broker"), "selfCheck", json_string(check));
	text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	return text;
}
