/*
 * route - the call table and the paths of a call through the broker.
 *
 * A call answered here (service died, wait expired, cancelled) leaves the
 * table at once; a late result for its key is then simply dropped, so no
 * caller is ever answered twice.
 */
#include "route.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "call.h"
#include "events.h"
#include "fail_codes.h"
#include "log.h"
#include "reply.h"
#include "services.h"
#include "incarnation.h"
#include "tools.h"
#include "protocol.h"
#include "opfields.h"

void route_init(struct broker *b)
{
	hb_map_init(&b->calls);
	hb_map_init(&b->identities);
}

static void list_push(struct call **head, struct call **tail, struct call *c)
{
	c->prev = tail ? *tail : NULL;
	c->next = NULL;
	if (tail) {
		if (*tail)
			(*tail)->next = c;
		else
			*head = c;
		*tail = c;
	} else {
		c->next = *head;
		if (*head)
			(*head)->prev = c;
		*head = c;
	}
}

static void unlink_call(struct call *c)
{
	struct call **head;

	if (c->inst) {
		head = &c->inst->calls;
		c->inst->inflight--;
	} else {
		head = &c->svc->wait_head;
		if (c->svc->wait_tail == c)
			c->svc->wait_tail = c->prev;
	}
	if (c->prev)
		c->prev->next = c->next;
	else
		*head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->prev = c->next = NULL;
}

/* Answer every waiter and forget the call. */
static void finish(struct broker *b, struct call *c, int ok, const char *text)
{
	long long ms = broker_now_ms() - c->start_ms;

	if (c->state != CALL_RESOLVING)
		unlink_call(c);
	hb_map_del(&b->calls, c->key);
	if (c->identity)
		hb_map_del(&b->identities, c->identity);
	log_debug(c->key, "%s %s in %lld ms", c->tool, ok ? "ok" : "failed", ms);
	if (c->on_end)
		c->on_end(b, c);
	events_call_end(b, c, ok, ms);
	call_answer(b, c, ok, text);
	call_free(c);
}

void route_finish(struct broker *b, struct call *c, int ok, const char *text)
{
	finish(b, c, ok, text);
}

/* The worker with a free slot and the fewest calls, or -1. */
static int least_busy_worker(const struct instance *inst)
{
	int best = -1;

	for (int w = 0; w < inst->nworkers; w++) {
		const struct worker *wk = &inst->workers[w];
		if (wk->gone || wk->busy >= wk->slots)
			continue;
		if (best < 0 || wk->busy < inst->workers[best].busy)
			best = w;
	}
	return best;
}

/* Whether inst can take a call now: a free worker slot or room in its
 * overflow queue. */
static int has_room(const struct instance *inst)
{
	return inst->ready && (inst->busy < inst->slots || inst->queued < inst->overflow);
}

/* c was sent to inst.  An instance beats only while it has calls: its
 * first call starts the hang watch afresh (supervise.c). */
static void put_in_flight(struct instance *inst, struct call *c)
{
	if (inst->inflight == 0)
		inst->last_beat_ms = broker_now_ms();
	c->inst = inst;
	c->state = CALL_SENT;
	inst->inflight++;
	list_push(&inst->calls, NULL, c);
}

/* Send c to a free worker of inst (or its overflow queue); -1 when
 * neither has room. */
static int send_to_instance(struct broker *b, struct call *c, struct instance *inst)
{
	struct hb_env e;
	int w;

	hb_env_init(&e);
	hb_env_set_str(&e, "op", HB_OP_CALL);
	hb_env_set_str(&e, "key", c->key);
	hb_env_set_str(&e, "tool", c->tool);
	hb_env_set_str(&e, "json", c->args);
	hb_env_set_str(&e, "session", c->session);
	hb_env_set_str(&e, "run", c->run);
	hb_env_set_str(&e, "project", c->project);
	hb_env_set_str(&e, "agent", c->agent);
	hb_env_set_str(&e, "access", c->access);
	hb_env_set_str(&e, "call_id", c->call_id);
	hb_env_set_str(&e, "model", c->model);
	if (inst->busy >= inst->slots && inst->queued < inst->overflow) {
		/* Every worker busy: the service's own queue, for whichever
		 * worker is free first. */
		struct hb_peer loop;
		loop.len = strlen(inst->rid);
		memcpy(loop.id, inst->rid, loop.len);
		if (broker_send(b, b->back, &loop, &e) < 0)
			return -1;
		inst->queued++;
		c->worker = -1;
		put_in_flight(inst, c);
		return 0;
	}
	while ((w = least_busy_worker(inst)) >= 0) {
		struct worker *wk = &inst->workers[w];
		if (broker_send(b, b->back, &wk->peer, &e) == 0)
			break;
		log_warn(inst->id, "worker %d unreachable (%s); not used again", w, zmq_strerror(errno));
		wk->gone = 1;
		inst->slots -= wk->slots;
		inst->busy -= wk->busy;
	}
	if (w < 0)
		return -1;
	inst->workers[w].busy++;
	inst->busy++;
	c->worker = w;
	put_in_flight(inst, c);
	return 0;
}

/* Send c to its service now, or queue it until the service is ready. */
void route_dispatch(struct broker *b, struct call *c)
{
	struct service *s = c->svc;
	char text[256];

	events_call_start(b, c);
	if (s->cur && has_room(s->cur) && send_to_instance(b, c, s->cur) == 0)
		return;
	c->state = CALL_WAITING;
	if (s->admin_stopped) {
		list_push(&s->wait_head, &s->wait_tail, c);
		snprintf(text, sizeof text, "%s is stopped; start it with: hbctl start %s",
			 s->cfg->name, s->cfg->name);
		finish(b, c, 0, text);
		return;
	}
	/* Busy workers: wait as long as it takes.  No serving instance: wait
	 * call_wait_ms for one (route_restamp_waiting when it dies). */
	c->wait_deadline_ms = s->cur && s->cur->ready ? 0 : broker_now_ms() + b->set.call_wait_ms;
	list_push(&s->wait_head, &s->wait_tail, c);
}

int route_register(struct broker *b, struct call *c)
{
	c->state = CALL_RESOLVING;
	if (hb_map_put(&b->calls, c->key, c) < 0)
		return -1;
	if (c->identity && hb_map_put(&b->identities, c->identity, c) < 0) {
		hb_map_del(&b->calls, c->key);
		return -1;
	}
	return 0;
}

struct call *route_find_identity(struct broker *b, const char *identity)
{
	return hb_map_get(&b->identities, identity);
}

void route_submit(struct broker *b, struct call *c)
{
	struct call *running = c->identity ? route_find_identity(b, c->identity) : NULL;

	if (running && c->waiters) {
		/* A duplicate of a call in flight joins it instead of running twice. */
		log_info(running->key, "a duplicate of %s joins it", c->identity);
		if (call_add_waiter(running, c->waiters) < 0)
			call_answer(b, c, 0, "hb-broker is out of memory");
		call_free(c);
		return;
	}
	if (route_register(b, c) < 0) {
		call_answer(b, c, 0, "hb-broker is out of memory");
		call_free(c);
		return;
	}
	route_dispatch(b, c);
}

int route_internal(struct broker *b, const char *tool, const char *args, call_done_fn done, void *arg)
{
	struct service *s = broker_service_by_tool(b, tool);
	struct waiter w;
	struct call *c;

	if (!s || !(c = call_new(b, s, tool, args)))
		return -1;
	memset(&w, 0, sizeof w);
	w.origin = FROM_BROKER;
	w.done = done;
	w.arg = arg;
	if (call_add_waiter(c, &w) < 0) {
		call_free(c);
		return -1;
	}
	route_submit(b, c);
	return 0;
}

struct child_match {
	const char *parent;
	struct call *found;
};

/* A call that a service asked for while it ran the call m->parent. */
static void match_child(void *value, void *arg)
{
	struct call *c = value;
	struct child_match *m = arg;

	if (!m->found && c->waiters && c->waiters->origin == FROM_SERVICE &&
	    strcmp(c->waiters->parent_key, m->parent) == 0)
		m->found = c;
}

void route_cancel(struct broker *b, struct call *c, const char *text)
{
	char key[sizeof c->key];
	struct child_match sub = { key, NULL };

	/* Its subcalls go with it (svc-explainer's narrations): their
	 * answers would have no one to read them.  One at a time, since
	 * finishing a call changes the table. */
	snprintf(key, sizeof key, "%s", c->key);
	if (c->state == CALL_SENT) {
		struct hb_peer to;
		struct hb_env m;
		to.len = strlen(c->inst->rid);
		memcpy(to.id, c->inst->rid, to.len);
		hb_env_init(&m);
		hb_env_set_str(&m, "op", HB_OP_CANCEL);
		hb_env_set_str(&m, "key", c->key);
		if (broker_send(b, b->back, &to, &m) < 0)
			log_warn(c->key, "cannot pass the cancel on: %s", zmq_strerror(errno));
		/* The worker stays busy until its late result comes. */
	}
	finish(b, c, 0, text);
	for (;;) {
		sub.found = NULL;
		hb_map_each(&b->calls, match_child, &sub);
		if (!sub.found)
			return;
		route_cancel(b, sub.found, text);
	}
}

struct run_match {
	const char *run;
	struct call *found;
};

static void match_run(void *value, void *arg)
{
	struct call *c = value;
	struct run_match *m = arg;

	if (!m->found && strcmp(c->run, m->run) == 0)
		m->found = c;
}

void route_abort_run(struct broker *b, const char *run, const char *text)
{
	struct run_match m = { run, NULL };

	/* One at a time: finishing a call changes the table. */
	for (;;) {
		m.found = NULL;
		hb_map_each(&b->calls, match_run, &m);
		if (!m.found)
			return;
		route_cancel(b, m.found, text);
	}
}

void route_front_cancel(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *key = hb_req_str(e, "key");
	struct call *c = hb_map_get(&b->calls, key);
	struct reqid id;

	reqid_from_env(&id, e);
	if (!c) {
		front_reply_err(b, peer, &id, "unknown-call", "no call in flight has this key");
		return;
	}
	route_cancel(b, c, "Run stopped.");
	front_reply_ok(b, peer, &id, "{\"cancelled\":true}");
}

void route_subcall(struct broker *b, struct instance *from, const struct hb_env *e)
{
	const char *tool = hb_req_str(e, "tool"), *parent = hb_req_str(e, "key");
	const char *args = hb_env_str_or(e, "json", "{}");
	struct call *pc = hb_map_get(&b->calls, parent), *c = NULL;
	struct service *s = broker_service_for_caller(b, tool);
	struct waiter w;

	memset(&w, 0, sizeof w);
	w.origin = FROM_SERVICE;
	w.peer.len = strlen(from->rid);
	memcpy(w.peer.id, from->rid, w.peer.len);
	snprintf(w.parent_key, sizeof w.parent_key, "%s", parent);
	snprintf(w.sub, sizeof w.sub, "%s", hb_req_str(e, "sub"));
	if (strlen(args) > HB_MAX_PAYLOAD) {
		call_answer_waiter(b, &w, NULL, 0, "the subcall's arguments are larger than a call can carry");
		return;
	}
	if (!s || !pc) {
		call_answer_waiter(b, &w, NULL, 0, !s ? "no service of this broker serves that tool"
						: "the calling call is no longer in flight");
		return;
	}
	if (!(c = call_new(b, s, tool, args)) || call_add_waiter(c, &w) < 0) {
		if (c)
			call_free(c);
		call_answer_waiter(b, &w, NULL, 0, "hb-broker is out of memory");
		return;
	}
	{
		/* A subcall runs with the context of the call that made it. */
		const char *ctx[CALL_CONTEXT_FIELDS] = { pc->session, pc->run, pc->project, pc->agent,
							 pc->access, pc->call_id, pc->model };
		if (call_set_context(c, ctx) < 0) {
			call_answer(b, c, 0, "hb-broker is out of memory");
			call_free(c);
			return;
		}
	}
	route_submit(b, c);
}

void route_worker(struct broker *b, struct instance *inst, const struct hb_peer *peer, int slots)
{
	for (int w = 0; w < inst->nworkers; w++)
		if (inst->workers[w].peer.len == peer->len &&
		    memcmp(inst->workers[w].peer.id, peer->id, peer->len) == 0)
			return; /* announced twice */
	if (inst->nworkers == inst->maxworkers) {
		log_warn(inst->id, "more workers than its concurrency of %d; extra ignored", inst->maxworkers);
		return;
	}
	inst->workers[inst->nworkers].peer = *peer;
	inst->workers[inst->nworkers].slots = slots;
	inst->nworkers++;
	inst->slots += slots;
	if (inst == inst->svc->cur && inst->ready)
		route_flush_waiting(b, inst->svc);
}

/* The worker behind peer is free again. */
static void release_worker(struct instance *inst, const struct hb_peer *peer)
{
	for (int w = 0; w < inst->nworkers; w++) {
		struct worker *wk = &inst->workers[w];
		if (wk->peer.len == peer->len && memcmp(wk->peer.id, peer->id, peer->len) == 0) {
			if (wk->busy > 0) {
				wk->busy--;
				if (!wk->gone)
					inst->busy--;
			}
			return;
		}
	}
}

/* A call its service gave back for its next generation (HB_FAIL_RENEW),
 * once and only while that generation is on its way: it waits for it,
 * with the deadline of a call waiting for a restart.  1 when taken. */
static int renew_call(struct broker *b, struct call *c, const char *code)
{
	struct service *s = c->svc;

	if (strcmp(code, HB_FAIL_RENEW) != 0 || c->min_gen || !s->next)
		return 0;
	unlink_call(c);
	c->inst = NULL;
	c->worker = -1;
	c->state = CALL_WAITING;
	c->min_gen = s->next->gen;
	c->wait_deadline_ms = broker_now_ms() + b->set.call_wait_ms;
	list_push(&s->wait_head, &s->wait_tail, c);
	log_info(c->key, "%s gave it back for its generation %u", s->cfg->name, c->min_gen);
	return 1;
}

void route_result(struct broker *b, struct instance *from, const struct hb_peer *peer,
		  const struct hb_env *e)
{
	const char *key = hb_req_str(e, "key");
	struct call *c = hb_map_get(&b->calls, key);

	if (hb_env_bool(e, "queued", 0)) {
		if (from->queued > 0)
			from->queued--;
	} else {
		release_worker(from, peer);
	}
	if (c && c->inst == from && renew_call(b, c, hb_env_str_or(e, "code", ""))) {
		/* it waits for the new generation */
	} else if (c && c->inst == from) {
		from->svc->served++;
		snprintf(c->fail_code, sizeof c->fail_code, "%s", hb_env_str_or(e, "code", ""));
		c->images = hb_env_str(e, "images"); /* e outlives the answer */
		finish(b, c, hb_req_bool(e, "ok"), hb_req_str(e, "text"));
	} /* else cancelled or answered already: only the worker is freed */
	if (from == from->svc->cur)
		route_flush_waiting(b, from->svc);
	else
		incarnation_check_drained(b, from);
}

void route_progress(struct broker *b, struct instance *from, const struct hb_env *e)
{
	struct call *c = hb_map_get(&b->calls, hb_req_str(e, "key"));

	if (c && c->inst == from)
		events_call_progress(b, c, hb_req_str(e, "text"));
}

void route_fail_instance(struct broker *b, struct instance *inst, const char *text)
{
	while (inst->calls)
		finish(b, inst->calls, 0, text);
	inst->inflight = 0;
}

void route_flush_waiting(struct broker *b, struct service *s)
{
	struct call *next;

	for (struct call *c = s->wait_head; c && s->cur && has_room(s->cur); c = next) {
		next = c->next;
		if (c->min_gen > s->cur->gen)
			continue; /* given back for a newer generation (renew_call) */
		unlink_call(c);
		if (send_to_instance(b, c, s->cur) < 0) {
			/* Every free worker turned out gone: wait for the next. */
			list_push(&s->wait_head, &s->wait_tail, c);
			break;
		}
	}
}

void route_restamp_waiting(struct broker *b, struct service *s)
{
	long long deadline = broker_now_ms() + b->set.call_wait_ms;

	for (struct call *c = s->wait_head; c; c = c->next)
		c->wait_deadline_ms = deadline;
}

void route_fail_waiting(struct broker *b, struct service *s, const char *text)
{
	while (s->wait_head)
		finish(b, s->wait_head, 0, text);
}

void route_fail_all(struct broker *b, const char *text)
{
	for (int i = 0; i < b->nservices; i++) {
		struct service *s = &b->services[i];
		struct instance *all[SUPERVISOR_MAX_LISTED];
		int n = supervisor_instances(s, all, SUPERVISOR_MAX_LISTED);

		route_fail_waiting(b, s, text);
		for (int j = 0; j < n; j++)
			while (all[j]->calls)
				finish(b, all[j]->calls, 0, text);
	}
}

void route_tick(struct broker *b, long long now)
{
	char text[256];

	for (int i = 0; i < b->nservices; i++) {
		struct service *s = &b->services[i];
		if (s->cur && s->cur->ready)
			continue; /* waiting for a free worker: no deadline */
		/* Deadlines run in queue order (restamped together on a death). */
		while (s->wait_head && s->wait_head->wait_deadline_ms && now >= s->wait_head->wait_deadline_ms) {
			snprintf(text, sizeof text, "%s did not come back within %d ms (%s); try the call again",
				 s->cfg->name, b->set.call_wait_ms, s->last_exit[0] ? s->last_exit : "starting");
			finish(b, s->wait_head, 0, text);
		}
	}
}

long long route_next_deadline(const struct broker *b)
{
	long long d = 0;

	for (int i = 0; i < b->nservices; i++) {
		const struct service *s = &b->services[i];
		const struct call *c = s->wait_head;
		if (s->cur && s->cur->ready)
			continue;
		if (c && c->wait_deadline_ms && (!d || c->wait_deadline_ms < d))
			d = c->wait_deadline_ms;
	}
	return d;
}

void route_free(struct broker *b)
{
	while (b->calls.count) {
		struct call *c = hb_map_any(&b->calls);
		hb_map_del(&b->calls, c->key);
		call_free(c);
	}
	hb_map_clear(&b->calls);
	hb_map_clear(&b->identities);
}
