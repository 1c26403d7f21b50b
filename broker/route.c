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

#include "events.h"
#include "front.h"
#include "log.h"
#include "supervise.h"
#include "tools.h"

void route_init(struct broker *b)
{
	hb_map_init(&b->calls);
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

/* "c" + the decimal number: on every call, so no printf. */
static void format_key(char out[24], uint64_t n)
{
	char digits[21];
	int len = 0;

	do
		digits[len++] = (char)('0' + n % 10);
	while ((n /= 10) && len < 20);
	out[0] = 'c';
	for (int i = 0; i < len; i++)
		out[1 + i] = digits[len - 1 - i];
	out[1 + len] = '\0';
}

/* Copy tool, args and context into one allocation. */
static struct call *new_call(struct broker *b, struct service *s, const char *tool, const char *args,
			     const char *ctx[6])
{
	const char *src[8] = { tool, args, ctx[0], ctx[1], ctx[2], ctx[3], ctx[4], ctx[5] };
	size_t lens[8], total = 0;
	struct call *c = calloc(1, sizeof *c);
	char *p;

	if (!c)
		return NULL;
	for (int i = 0; i < 8; i++)
		total += (lens[i] = strlen(src[i] ? src[i] : "")) + 1;
	if (!(c->strings = p = malloc(total))) {
		free(c);
		return NULL;
	}
	const char **dst[8] = { &c->tool, &c->args, &c->session, &c->run, &c->project,
				&c->agent, &c->access, &c->call_id };
	for (int i = 0; i < 8; i++) {
		memcpy(p, src[i] ? src[i] : "", lens[i] + 1);
		*dst[i] = p;
		p += lens[i] + 1;
	}
	format_key(c->key, ++b->next_key);
	c->svc = s;
	c->start_ms = broker_now_ms();
	return c;
}

static void free_call(struct call *c)
{
	free(c->strings);
	free(c);
}

/* Answer the caller and forget the call. */
static void finish(struct broker *b, struct call *c, int ok, const char *text)
{
	struct hb_env e;
	long long ms = broker_now_ms() - c->start_ms;

	unlink_call(c);
	hb_map_del(&b->calls, c->key);
	hb_env_init(&e);
	if (c->origin == FROM_FRONT) {
		hb_env_set_str(&e, "op", "reply");
		reqid_put(&e, &c->id);
		hb_env_set_str(&e, "key", c->key);
		hb_env_set_bool(&e, "ok", ok);
		hb_env_set_str(&e, "text", text);
		if (hb_send_env(b->front, &c->peer, &e) < 0)
			log_warn(c->key, "the caller is gone (%s); answer dropped", zmq_strerror(errno));
	} else {
		hb_env_set_str(&e, "op", "subcall.result");
		hb_env_set_str(&e, "key", c->parent_key);
		hb_env_set_str(&e, "sub", c->sub);
		hb_env_set_bool(&e, "ok", ok);
		hb_env_set_str(&e, "text", text);
		if (hb_send_env(b->back, &c->peer, &e) < 0)
			log_warn(c->key, "the calling service is gone; subcall answer dropped");
	}
	log_debug(c->key, "%s %s in %lld ms", c->tool, ok ? "ok" : "failed", ms);
	events_call_end(b, c, ok, ms);
	free_call(c);
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

/* Send c to a free worker of inst (or its overflow queue); -1 when
 * neither has room. */
static int send_to_instance(struct broker *b, struct call *c, struct instance *inst)
{
	struct hb_env e;
	int w;

	hb_env_init(&e);
	hb_env_set_str(&e, "op", "call");
	hb_env_set_str(&e, "key", c->key);
	hb_env_set_str(&e, "tool", c->tool);
	hb_env_set_str(&e, "json", c->args);
	hb_env_set_str(&e, "session", c->session);
	hb_env_set_str(&e, "run", c->run);
	hb_env_set_str(&e, "project", c->project);
	hb_env_set_str(&e, "agent", c->agent);
	hb_env_set_str(&e, "access", c->access);
	hb_env_set_str(&e, "call_id", c->call_id);
	if (inst->busy >= inst->slots && inst->queued < inst->overflow) {
		/* Every worker busy: the service's own queue, for whichever
		 * worker is free first. */
		struct hb_peer loop;
		loop.len = strlen(inst->id);
		memcpy(loop.id, inst->id, loop.len);
		if (hb_send_env(b->back, &loop, &e) < 0)
			return -1;
		inst->queued++;
		c->worker = -1;
		c->inst = inst;
		inst->inflight++;
		list_push(&inst->calls, NULL, c);
		return 0;
	}
	while ((w = least_busy_worker(inst)) >= 0) {
		struct worker *wk = &inst->workers[w];
		if (hb_send_env(b->back, &wk->peer, &e) == 0)
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
	c->inst = inst;
	inst->inflight++;
	list_push(&inst->calls, NULL, c);
	return 0;
}

/* Send c to its service now, or queue it until the service is ready. */
static void dispatch(struct broker *b, struct call *c)
{
	struct service *s = c->svc;
	char text[256];

	if (hb_map_put(&b->calls, c->key, c) < 0) {
		log_error(c->key, "out of memory: call dropped");
		free_call(c);
		return;
	}
	events_call_start(b, c);
	if (s->cur && has_room(s->cur) && send_to_instance(b, c, s->cur) == 0)
		return;
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

/* The call's context from the request; -1 with a reason when a part is
 * too long to travel on (see HB_MAX_CONTEXT). */
static int call_context(const struct hb_env *e, const char *ctx[6], char *err, size_t errlen)
{
	static const char *const keys[6] = { "session", "run", "project", "agent", "access", "call_id" };

	for (int i = 0; i < 6; i++) {
		ctx[i] = hb_env_str_or(e, keys[i], "");
		if (strlen(ctx[i]) > HB_MAX_CONTEXT) {
			snprintf(err, errlen, "\"%s\" is %zu bytes; at most %d are accepted", keys[i],
				 strlen(ctx[i]), HB_MAX_CONTEXT);
			return -1;
		}
	}
	return 0;
}

static int check_args_size(const char *args, char *err, size_t errlen)
{
	if (strlen(args) <= HB_MAX_PAYLOAD)
		return 0;
	snprintf(err, errlen, "the arguments are %zu bytes; at most %u are accepted", strlen(args),
		 HB_MAX_PAYLOAD);
	return -1;
}

/* Why nobody serves tool: a tool of the catalog whose service is not
 * here yet gets an honest sentence, anything else is unknown. */
static void unserved_tool_text(const char *tool, char *out, size_t outlen)
{
	const struct hb_tool_def *t = tool[0] == '_' ? NULL : hb_tool_find(tool);

	if (t && strcmp(t->name, "use_user_browser") == 0)
		snprintf(out, outlen, "The browser bridge is off: use_user_browser cannot reach your browser "
			 "in this HB Code yet.");
	else if (t)
		snprintf(out, outlen, "%s is not available: its service (%s) does not run in this HB Code yet.",
			 t->name, t->family);
	else
		snprintf(out, outlen, "unknown tool \"%.64s\": no service of this broker serves it", tool);
}

void route_front_call(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *tool = hb_env_str(e, "tool"), *args = hb_env_str_or(e, "json", "{}");
	const char *ctx[6];
	struct reqid id;
	struct service *s;
	struct call *c;
	char text[256];

	reqid_from_env(&id, e);
	if (!tool || !*tool) {
		front_reply_err(b, peer, &id, "bad-request", "a call needs a \"tool\" string");
		return;
	}
	if (b->stopping) {
		front_reply_err(b, peer, &id, "stopping", "hb-broker is shutting down; try the call again when it is back");
		return;
	}
	s = tool[0] == '_' ? NULL : broker_service_by_tool(b, tool);
	if (!s) {
		unserved_tool_text(tool, text, sizeof text);
		front_reply_err(b, peer, &id, "unknown-tool", text);
		return;
	}
	if (call_context(e, ctx, text, sizeof text) < 0 || check_args_size(args, text, sizeof text) < 0) {
		front_reply_err(b, peer, &id, "too-large", text);
		return;
	}
	if (!(c = new_call(b, s, tool, args, ctx))) {
		front_reply_err(b, peer, &id, "internal", "hb-broker is out of memory");
		return;
	}
	c->origin = FROM_FRONT;
	c->peer = *peer;
	c->id = id;
	dispatch(b, c);
}

void route_front_cancel(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	const char *key = hb_env_str_or(e, "key", "");
	struct call *c = hb_map_get(&b->calls, key);
	struct reqid id;

	reqid_from_env(&id, e);
	if (!c) {
		front_reply_err(b, peer, &id, "unknown-call", "no call in flight has this key");
		return;
	}
	if (c->inst) {
		struct hb_peer to;
		struct hb_env m;
		to.len = strlen(c->inst->id);
		memcpy(to.id, c->inst->id, to.len);
		hb_env_init(&m);
		hb_env_set_str(&m, "op", "cancel");
		hb_env_set_str(&m, "key", c->key);
		if (hb_send_env(b->back, &to, &m) < 0)
			log_warn(c->key, "cannot pass the cancel on: %s", zmq_strerror(errno));
		/* The worker stays busy until its late result comes. */
	}
	finish(b, c, 0, "Run stopped.");
	front_reply_ok(b, peer, &id, "{\"cancelled\":true}");
}

void route_subcall(struct broker *b, struct instance *from, const struct hb_env *e)
{
	const char *tool = hb_env_str_or(e, "tool", ""), *parent = hb_env_str_or(e, "key", "");
	struct call *pc = hb_map_get(&b->calls, parent), *c;
	const char *ctx[6] = { "", "", "", "", "", "" };
	struct service *s = tool[0] == '_' ? NULL : broker_service_by_tool(b, tool);
	struct hb_env m;
	char why[128] = "";

	if (check_args_size(hb_env_str_or(e, "json", "{}"), why, sizeof why) < 0)
		s = NULL;
	if (pc) {
		const char *pctx[6] = { pc->session, pc->run, pc->project, pc->agent, pc->access, pc->call_id };
		memcpy(ctx, pctx, sizeof ctx);
	}
	if (!s || !pc || !(c = new_call(b, s, tool, hb_env_str_or(e, "json", "{}"), ctx))) {
		struct hb_peer to;
		to.len = strlen(from->id);
		memcpy(to.id, from->id, to.len);
		hb_env_init(&m);
		hb_env_set_str(&m, "op", "subcall.result");
		hb_env_set_str(&m, "key", parent);
		hb_env_set_str(&m, "sub", hb_env_str_or(e, "sub", ""));
		hb_env_set_bool(&m, "ok", 0);
		hb_env_set_str(&m, "text", why[0] ? why : !s ? "no service of this broker serves that tool"
							     : "the calling call is no longer in flight");
		hb_send_env(b->back, &to, &m);
		return;
	}
	c->origin = FROM_SERVICE;
	c->peer.len = strlen(from->id);
	memcpy(c->peer.id, from->id, c->peer.len);
	snprintf(c->parent_key, sizeof c->parent_key, "%s", parent);
	snprintf(c->sub, sizeof c->sub, "%s", hb_env_str_or(e, "sub", ""));
	dispatch(b, c);
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

void route_result(struct broker *b, struct instance *from, const struct hb_peer *peer,
		  const struct hb_env *e)
{
	const char *key = hb_env_str_or(e, "key", "");
	struct call *c = hb_map_get(&b->calls, key);

	if (hb_env_bool(e, "queued", 0)) {
		if (from->queued > 0)
			from->queued--;
	} else {
		release_worker(from, peer);
	}
	if (c && c->inst == from) {
		from->svc->served++;
		finish(b, c, hb_env_bool(e, "ok", 0), hb_env_str_or(e, "text", ""));
	} /* else cancelled or answered already: only the worker is freed */
	if (from == from->svc->cur)
		route_flush_waiting(b, from->svc);
	else
		supervisor_check_drained(b, from);
}

void route_progress(struct broker *b, struct instance *from, const struct hb_env *e)
{
	struct call *c = hb_map_get(&b->calls, hb_env_str_or(e, "key", ""));

	if (c && c->inst == from)
		events_call_progress(b, c, hb_env_str_or(e, "text", ""));
}

void route_fail_instance(struct broker *b, struct instance *inst, const char *text)
{
	while (inst->calls)
		finish(b, inst->calls, 0, text);
	inst->inflight = 0;
}

void route_flush_waiting(struct broker *b, struct service *s)
{
	while (s->wait_head && s->cur && has_room(s->cur)) {
		struct call *c = s->wait_head;
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
		struct instance *all[SUPERVISOR_MAX_DRAINING + 2];
		int n = supervisor_instances(s, all, SUPERVISOR_MAX_DRAINING + 2);

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
		free_call(c);
	}
	hb_map_clear(&b->calls);
}
