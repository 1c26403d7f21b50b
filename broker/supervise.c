/*
 * supervise - start, watch, restart and replace the services.
 *
 * State of a service, derived rather than stored: "stopped" (by hand),
 * "up" (cur ready), "starting" (cur not ready yet), "backoff" (waiting for
 * a scheduled restart), "crash-loop" (backoff after too many quick deaths),
 * "idle" (it idles, and nothing wants it now).
 *
 * A service with start = demand (Postfix's master(8) and its max_idle) is
 * not started with the broker: its first call waits in the service's
 * queue as a call waits for a restart, and the supervisor's tick starts
 * it; once it has had no call for its idle time (and its idleTask, if it
 * named one, said it holds no work: idle.h) it is retired as a replace
 * retires the old generation (calls finish, then TERM).  A boot service
 * with an `idle` line is stopped the same way and then started like a
 * demand one: by a call, or by a change of its wake folder (wake.h).
 * Its backoff (consecutive deaths, crash loop) outlives the stop; a death
 * of a demand service, or of a boot one stopped for idleness, is
 * restarted only when a call waits, a death of any other boot service
 * always.
 */
#include "supervise.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
#include "held.h"
#include "idle.h"
#include "incarnation.h"
#include "log.h"
#include "reply.h"
#include "route.h"
#include "spawn.h"

int supervisor_init(struct broker *b, char *err, size_t errlen)
{
	if (!(b->child_env = spawn_base_env(&b->cfg))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	b->nservices = b->cfg.nservices;
	for (int i = 0; i < b->nservices; i++) {
		struct service *s = &b->services[i];
		memset(s, 0, sizeof *s);
		s->cfg = &b->cfg.services[i];
		memcpy(s->exec, s->cfg->exec, sizeof s->exec); /* same size */
	}
	return 0;
}

static long long backoff_delay(const struct broker *b, unsigned consecutive)
{
	long long d = b->set.backoff_base_ms;

	if (consecutive == 0)
		return 0; /* the first restart is at once */
	for (unsigned i = 1; i < consecutive && d < b->set.backoff_cap_ms; i++)
		d *= 2;
	return d < b->set.backoff_cap_ms ? d : b->set.backoff_cap_ms;
}

static void schedule_restart(struct broker *b, struct service *s)
{
	long long now = broker_now_ms();
	long long delay = backoff_delay(b, s->consecutive);

	s->consecutive++;
	s->restart_at_ms = now + delay;
	if (s->consecutive >= (unsigned)b->set.crashloop_after && !s->crashloop) {
		s->crashloop = 1;
		log_warn(s->cfg->name, "crash loop: %u deaths in a row without a healthy period; "
			 "restarting every %lld ms at most", s->consecutive, (long long)b->set.backoff_cap_ms);
		events_service(b, "service.crashloop", s, NULL, s->last_exit);
	}
	if (delay)
		log_info(s->cfg->name, "restart in %lld ms", delay);
}

static void start_current(struct broker *b, struct service *s)
{
	char err[256];

	s->restart_at_ms = 0;
	s->wake_pending = 0;
	s->cur = incarnation_start(b, s, s->exec, err, sizeof err);
	if (!s->cur) {
		log_error(s->cfg->name, "%s", err);
		snprintf(s->last_exit, sizeof s->last_exit, "%s", err);
		route_fail_waiting(b, s, err);
		schedule_restart(b, s);
	}
}

void supervisor_start_all(struct broker *b)
{
	for (int i = 0; i < b->nservices; i++)
		if (!b->services[i].cfg->on_demand)
			start_current(b, &b->services[i]);
}

/* Whether s should have an instance now: while a call waits for it or
 * its wake folder changed; a boot service also otherwise, unless its
 * last copy was stopped for idleness. */
static int wanted(const struct service *s)
{
	return s->wait_head || s->wake_pending || (!s->cfg->on_demand && !s->idle_last);
}

static void answer_admin(struct broker *b, struct service *s, const char *errmsg)
{
	char json[256];

	if (!s->admin_waiting)
		return;
	s->admin_waiting = 0;
	if (!s->admin_peer.len) /* a service's own renew: nobody asked */
		return;
	if (errmsg) {
		front_reply_err(b, &s->admin_peer, &s->admin_id, "service", errmsg);
		return;
	}
	snprintf(json, sizeof json, "{\"service\":\"%s\",\"generation\":%u,\"pid\":%ld}",
		 s->cfg->name, s->cur->gen, (long)s->cur->pid);
	front_reply_ok(b, &s->admin_peer, &s->admin_id, json);
}

/* Take inst off the draining list; 1 when it was on it. */
static int unlink_draining(struct service *s, struct instance *inst)
{
	for (struct instance **p = &s->old; *p; p = &(*p)->older)
		if (*p == inst) {
			*p = inst->older;
			return 1;
		}
	return 0;
}

/* How an instance ended, in words for the calls it leaves behind. */
static void describe_death(const struct broker *b, const struct instance *inst, int status, char *how,
			   size_t howlen)
{
	if (inst->held_call)
		held_describe(b, inst, how, howlen);
	else if (inst->hung && inst->ready)
		snprintf(how, howlen, "stopped responding: no heartbeat for %d ms, so it was killed",
			 b->set.hang_ms);
	else if (inst->hung)
		snprintf(how, howlen, "did not become ready within %d ms of its start, so it was killed",
			 b->set.start_timeout_ms);
	else
		describe_exit(status, how, howlen);
}

/* An instance ended (how: in words): answer for its calls, then decide
 * what comes next. */
static void instance_died(struct broker *b, struct instance *inst, const char *how)
{
	struct service *s = inst->svc;
	char text[512];
	long long now = broker_now_ms();

	/* A stop we asked for is news, not a warning. */
	hb_log(inst->term_sent ? HB_LOG_INFO : HB_LOG_WARN, inst->id, "pid %ld %s", (long)inst->pid, how);
	snprintf(text, sizeof text, "%s stopped while handling this call (%s); try the call again",
		 s->cfg->name, how);
	if (inst->held_call)
		held_fail_siblings(b, inst);
	route_fail_instance(b, inst, text);

	if (unlink_draining(s, inst)) {
		if (inst->idle_stop) { /* what status says of an idle service */
			snprintf(s->last_exit, sizeof s->last_exit, "%s", how);
			s->last_death_ms = now;
			s->idle_last = 1;
		}
		events_service(b, "service.retired", s, inst, how);
		incarnation_free(inst);
		return;
	}
	snprintf(s->last_exit, sizeof s->last_exit, "%s", how);
	s->last_death_ms = now;
	s->idle_last = 0;
	if (inst == s->next) {
		s->next = NULL;
		snprintf(text, sizeof text, "the new %s %s before it was ready%s", s->cfg->name, how,
			 s->cur && s->cur->ready ? "; the old one keeps serving" : "");
		answer_admin(b, s, text);
		events_service(b, "service.down", s, inst, how);
		incarnation_free(inst);
		if (!s->cur && !s->restart_at_ms && !s->admin_stopped && !b->stopping)
			schedule_restart(b, s);
		return;
	}
	/* The serving incarnation.  Calls waiting for a free worker now wait
	 * for a new incarnation, which has a deadline. */
	s->cur = NULL;
	route_restamp_waiting(b, s);
	events_service(b, "service.down", s, inst, how);
	if (inst->ready && now - inst->started_ms >= b->set.healthy_ms) {
		s->consecutive = 0;
		s->crashloop = 0;
	}
	incarnation_free(inst);
	/* A replacement already starting is the restart: a second copy
	 * started beside it would serve the same calls twice over. */
	if (b->stopping || s->admin_stopped || s->next)
		return;
	s->restarts++;
	schedule_restart(b, s);
	if (s->restart_at_ms <= now && wanted(s))
		start_current(b, s);
}

/* Invariant: every listed instance is a live child of ours (or one whose
 * end is not reaped yet).  One that is not was reaped without being found:
 * a bug, but its calls must still be answered and its pid, which may
 * belong to somebody else by now, never signalled again. */
void supervisor_check_lost(struct broker *b)
{
	for (int i = 0; i < b->nservices; i++) {
		struct instance *all[SUPERVISOR_MAX_LISTED];
		int n = supervisor_instances(&b->services[i], all, SUPERVISOR_MAX_LISTED);

		for (int j = 0; j < n; j++) {
			if (incarnation_is_child(all[j]))
				continue;
			log_error(all[j]->id, "pid %ld is listed but is no longer a child of this broker; "
				  "dropping it", (long)all[j]->pid);
			b->lost_instances++;
			instance_died(b, all[j], "ended without the broker noticing");
		}
	}
}

int supervisor_selfcheck(const struct broker *b, char *msg, size_t msglen)
{
	int bad = 0;

	snprintf(msg, msglen, "ok");
	for (int i = 0; i < b->nservices; i++) {
		const struct service *s = &b->services[i];
		struct instance *all[SUPERVISOR_MAX_LISTED];
		int n = supervisor_instances(s, all, SUPERVISOR_MAX_LISTED), draining = 0;

		for (const struct instance *o = s->old; o; o = o->older)
			draining++;
		if (draining > SUPERVISOR_MAX_DRAINING && !bad++)
			snprintf(msg, msglen, "%s has %d draining generations, more than %d", s->cfg->name,
				 draining, SUPERVISOR_MAX_DRAINING);
		for (int j = 0; j < n; j++)
			if ((all[j]->svc != s || !incarnation_is_child(all[j])) && !bad++)
				snprintf(msg, msglen, "%s (pid %ld) is listed but is not a live child", all[j]->id,
					 (long)all[j]->pid);
	}
	if (!bad && b->lost_instances)
		snprintf(msg, msglen, "%u instances were found reaped without notice and dropped",
			 b->lost_instances);
	return bad + (int)b->lost_instances;
}

void supervisor_instance_ended(struct broker *b, struct instance *inst, int status)
{
	char how[160];

	describe_death(b, inst, status, how, sizeof how);
	instance_died(b, inst, how);
}

static void watch_instance(struct broker *b, struct instance *inst, long long now)
{
	if (!inst || inst->hung)
		return;
	if (inst->term_sent && now >= inst->kill_at_ms) {
		if (!incarnation_is_child(inst))
			return; /* never signal a pid that is not ours: supervisor_check_lost ends it */
		log_warn(inst->id, "did not stop within %d ms of TERM; killing it", b->set.stop_grace_ms);
		kill(inst->pid, SIGKILL);
		inst->kill_at_ms = now + b->set.stop_grace_ms;
		return;
	}
	if (inst->term_sent)
		return;
	if (inst->ready && held_deadline(b, inst) && now >= held_deadline(b, inst)) {
		log_warn(inst->id, "a worker was held by call %s past the %lld ms call-limit; killing pid %ld",
			 inst->held_key, inst->svc->cfg->call_limit_ms, (long)inst->pid);
		inst->hung = inst->held_call = 1;
		kill(inst->pid, SIGKILL);
		return;
	}
	if ((inst->ready && inst->inflight && now - inst->last_beat_ms > b->set.hang_ms) ||
	    (!inst->ready && now - inst->started_ms > b->set.start_timeout_ms)) {
		log_warn(inst->id, "%s; killing pid %ld", inst->ready ? "heartbeats stopped" : "never became ready",
			 (long)inst->pid);
		inst->hung = 1;
		kill(inst->pid, SIGKILL);
	}
}

static long long earliest(long long a, long long b)
{
	return !a ? b : (!b ? a : (a < b ? a : b));
}

static long long instance_deadline(const struct broker *b, const struct instance *inst)
{
	if (!inst || inst->hung)
		return 0;
	if (inst->term_sent)
		return inst->kill_at_ms;
	if (!inst->ready)
		return inst->started_ms + b->set.start_timeout_ms + 1;
	if (!inst->inflight)
		return 0; /* it beats only while it has calls */
	return earliest(inst->last_beat_ms + b->set.hang_ms + 1, held_deadline(b, inst));
}

long long supervisor_next_deadline(const struct broker *b)
{
	long long d = 0;

	for (int i = 0; i < b->nservices; i++) {
		const struct service *s = &b->services[i];
		struct instance *all[SUPERVISOR_MAX_LISTED];
		int n = supervisor_instances(s, all, SUPERVISOR_MAX_LISTED);

		for (int j = 0; j < n; j++)
			d = earliest(d, instance_deadline(b, all[j]));
		if (!s->cur && !s->next && wanted(s))
			d = earliest(d, s->restart_at_ms);
		d = earliest(d, idle_deadline(b, s));
	}
	return d;
}


static void retire(struct broker *b, struct service *s)
{
	struct instance *inst = s->cur;

	if (!inst)
		return;
	s->cur = NULL;
	inst->older = s->old;
	s->old = inst;
	incarnation_check_drained(b, inst);
}

/* A service may name only one of its own sockets (its routing id + ".x")
 * as its task that carries session messages (deliveryTask) or hears of
 * approval cards (approvalTask): out, of outlen bytes. */
static void note_task(struct instance *inst, const char *field, const char *task, char *out, size_t outlen)
{
	size_t len = strlen(inst->rid);

	if (!*task)
		return;
	if (strncmp(task, inst->rid, len) != 0 || task[len] != '.' || !task[len + 1] || strlen(task) >= outlen) {
		log_warn(inst->id, "ignored %s \"%.64s\": not one of this service's own sockets", field, task);
		return;
	}
	snprintf(out, outlen, "%s", task);
}

void supervisor_on_ready(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	struct instance *inst = supervisor_instance(b, peer);
	char name[128];
	struct service *s;
	int64_t overflow;

	incarnation_peer_name(inst, peer, name, sizeof name);
	if (!inst || inst->pid != peer->pid) {
		/* Not a child we started: a stale or foreign process. */
		log_warn(NULL, "refused ready from %s (pid %ld): not a service this broker started",
			 name, (long)peer->pid);
		return;
	}
	if (inst->ready)
		return;
	s = inst->svc;
	inst->ready = 1;
	if (hb_env_int(e, "overflow", &overflow) == 0 && overflow > 0)
		inst->overflow = overflow > 65536 ? 65536 : (int)overflow;
	note_task(inst, "deliveryTask", hb_env_str_or(e, "deliveryTask", ""), inst->delivery_task,
		  sizeof inst->delivery_task);
	note_task(inst, "approvalTask", hb_env_str_or(e, "approvalTask", ""), inst->approval_task,
		  sizeof inst->approval_task);
	note_task(inst, "idleTask", hb_env_str_or(e, "idleTask", ""), inst->idle_task, sizeof inst->idle_task);
	inst->holds_work = -1; /* not asked yet */
	inst->last_beat_ms = broker_now_ms();
	log_info(inst->id, "ready (pid %ld, version %s, tools %s)", (long)inst->pid,
		 hb_env_str_or(e, "version", "?"), hb_env_str_or(e, "tools", ""));
	if (inst == s->next) {
		retire(b, s);
		s->cur = inst;
		s->next = NULL;
		snprintf(s->exec, sizeof s->exec, "%s", inst->exec);
		answer_admin(b, s, NULL);
	}
	events_service(b, "service.up", s, inst, NULL);
	route_flush_waiting(b, s);
}

void supervisor_on_heartbeat(struct instance *inst)
{
	inst->last_beat_ms = broker_now_ms();
}

void supervisor_count_beat(struct instance *inst)
{
	inst->beats++;
}


/* 1 (with the reason) when s already has as many draining generations as
 * it may: one more would be past what the broker can list. */
static int draining_full(const struct service *s, char *err, size_t errlen)
{
	int n = 0;

	for (const struct instance *o = s->old; o; o = o->older)
		n++;
	if (n < SUPERVISOR_MAX_DRAINING)
		return 0;
	snprintf(err, errlen, "%d old generations of %s are still finishing their calls; try again later", n,
		 s->cfg->name);
	return 1;
}

/* An idling service's serving instance, quiet for its idle time (and
 * holding no work, when it has an idleTask: idle.h), is retired: its
 * calls are done, so TERM follows.  A full draining list waits another
 * idle time (idle_due looks again then), not a busy loop. */
static void stop_idle(struct broker *b, struct service *s)
{
	struct instance *inst = s->cur;
	char err[256];

	if (draining_full(s, err, sizeof err))
		return;
	log_info(inst->id, "no call for %lld ms%s: stopping it (idle)", s->cfg->idle_ms,
		 inst->idle_task[0] ? " and no work held" : "");
	inst->idle_stop = 1;
	s->idle_stops++;
	retire(b, s);
	events_service(b, "service.idle", s, inst, NULL);
}

void supervisor_on_idle_answer(struct broker *b, struct instance *inst, const struct hb_peer *peer,
			       const struct hb_env *e)
{
	if (idle_answered(b, inst, peer, e))
		stop_idle(b, inst->svc);
}

void supervisor_tick(struct broker *b, long long now)
{
	for (int i = 0; i < b->nservices; i++) {
		struct service *s = &b->services[i];
		struct instance *all[SUPERVISOR_MAX_LISTED];
		int n = supervisor_instances(s, all, SUPERVISOR_MAX_LISTED);

		for (int j = 0; j < n; j++)
			watch_instance(b, all[j], now);
		if (s->cur || s->next || b->stopping || s->admin_stopped) {
			if (idle_due(b, s, now))
				stop_idle(b, s);
		} else if (s->restart_at_ms ? now >= s->restart_at_ms && wanted(s) : s->wait_head || s->wake_pending) {
			start_current(b, s);
		}
	}
}

/* A program to run as a service must not be one a service could have
 * put there: not under the data, cache, config or runtime folder (the
 * folders services write), judged by where the path really leads. */
static int program_is_trusted(struct broker *b, const char *exec, char *err, size_t errlen)
{
	static const struct {
		enum hb_dir dir;
		const char *name;
	} dirs[] = { { HB_DIR_DATA, "data" }, { HB_DIR_CACHE, "cache" }, { HB_DIR_CONFIG, "config" },
		     { HB_DIR_RUNTIME, "runtime" } };
	char *real = realpath(exec, NULL), *dir;
	int ok = 1;

	if (!real) {
		snprintf(err, errlen, "%s cannot be run: %s", exec, strerror(errno));
		return 0;
	}
	for (size_t i = 0; ok && i < sizeof dirs / sizeof dirs[0]; i++) {
		size_t len;

		if (!(dir = realpath(hb_paths_dir(&b->paths, dirs[i].dir), NULL)))
			continue;
		len = strlen(dir);
		if (strncmp(real, dir, len) == 0 && real[len] == '/') {
			snprintf(err, errlen,
				 "%s is in hbcode's %s folder, where services write: hb-broker runs a service only "
				 "from its libexec folder or from a path outside its folders",
				 exec, dirs[i].name);
			ok = 0;
		}
		free(dir);
	}
	free(real);
	return ok;
}

int supervisor_replace(struct broker *b, struct service *s, const char *exec, const char *op,
		       const struct hb_peer *peer, const struct reqid *id, char *err, size_t errlen)
{
	if (exec[0] != '/' || access(exec, X_OK) < 0) {
		snprintf(err, errlen, "%s is not an executable file given by its absolute path", exec);
		return -1;
	}
	if (!program_is_trusted(b, exec, err, errlen))
		return -1;
	if (s->next || s->admin_waiting) {
		snprintf(err, errlen, "a new %s is already starting", s->cfg->name);
		return -1;
	}
	if (draining_full(s, err, errlen))
		return -1;
	if (!(s->next = incarnation_start(b, s, exec, err, errlen)))
		return -1;
	/* The new one is the restart that the backoff was waiting for. */
	s->restart_at_ms = 0;
	s->admin_stopped = 0;
	s->admin_waiting = 1;
	s->admin_peer = *peer;
	s->admin_id = *id;
	snprintf(s->admin_op, sizeof s->admin_op, "%s", op);
	return 0;
}

void supervisor_renew(struct broker *b, struct instance *inst, const char *why)
{
	struct service *s = inst->svc;
	struct hb_peer nobody = { .len = 0 };
	struct reqid none;
	char err[512];

	if (inst != s->cur || inst->renew_asked || s->next || s->admin_waiting)
		return;
	inst->renew_asked = 1;
	memset(&none, 0, sizeof none);
	log_info(inst->id, "asks to be started anew: %.200s", why);
	if (supervisor_replace(b, s, s->exec, "renew", &nobody, &none, err, sizeof err) < 0)
		log_warn(inst->id, "cannot start it anew: %s", err);
}

int supervisor_stop(struct broker *b, struct service *s, char *err, size_t errlen)
{
	char text[256];

	if (s->admin_stopped) {
		snprintf(err, errlen, "%s is already stopped", s->cfg->name);
		return -1;
	}
	s->admin_stopped = 1;
	s->restart_at_ms = 0;
	snprintf(text, sizeof text, "%s was stopped by an administrator; start it with: hbctl start %s",
		 s->cfg->name, s->cfg->name);
	route_fail_waiting(b, s, text);
	if (s->next)
		incarnation_terminate(b, s->next, broker_now_ms());
	retire(b, s); /* calls in flight finish, then TERM */
	events_service(b, "service.stopped", s, NULL, NULL);
	return 0;
}

int supervisor_start(struct broker *b, struct service *s, char *err, size_t errlen)
{
	if (s->cur || s->next) {
		snprintf(err, errlen, "%s is already running", s->cfg->name);
		return -1;
	}
	if (draining_full(s, err, errlen))
		return -1;
	s->admin_stopped = 0;
	s->consecutive = 0;
	s->crashloop = 0;
	start_current(b, s);
	if (!s->cur) {
		snprintf(err, errlen, "%s", s->last_exit);
		return -1;
	}
	return 0;
}

void supervisor_terminate_all(struct broker *b)
{
	long long now = broker_now_ms();

	for (int i = 0; i < b->nservices; i++) {
		struct service *s = &b->services[i];
		struct instance *all[SUPERVISOR_MAX_LISTED];
		int n = supervisor_instances(s, all, SUPERVISOR_MAX_LISTED);

		s->restart_at_ms = 0;
		for (int j = 0; j < n; j++)
			incarnation_terminate(b, all[j], now);
	}
}

int supervisor_all_exited(const struct broker *b)
{
	for (int i = 0; i < b->nservices; i++)
		if (b->services[i].cur || b->services[i].next || b->services[i].old)
			return 0;
	return 1;
}

int supervisor_all_up(const struct broker *b)
{
	for (int i = 0; i < b->nservices; i++)
		if (!b->services[i].admin_stopped && !b->services[i].cfg->on_demand && !b->services[i].idle_last &&
		    !(b->services[i].cur && b->services[i].cur->ready))
			return 0;
	return 1;
}

const char *supervisor_state(const struct service *s)
{
	if (s->admin_stopped)
		return s->old ? "stopping" : "stopped";
	if (s->cur)
		return s->cur->ready ? "up" : "starting";
	if (s->crashloop)
		return "crash-loop";
	/* an idling service: a restart nobody wants is not due */
	return !s->next && !wanted(s) ? "idle" : "backoff";
}

void supervisor_free(struct broker *b)
{
	for (int i = 0; i < b->nservices; i++) {
		struct instance *all[SUPERVISOR_MAX_LISTED];
		int n = supervisor_instances(&b->services[i], all, SUPERVISOR_MAX_LISTED);

		for (int j = 0; j < n; j++)
			incarnation_free(all[j]);
	}
	spawn_free_env(b->child_env);
}
