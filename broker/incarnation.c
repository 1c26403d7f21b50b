/*
 * incarnation - one running copy of a service: started with its identity
 * (NAME#GEN) and environment, found again by pid or by the routing id of
 * its loop or its workers, asked to stop (TERM, then KILL after the
 * grace), freed.  supervise.c decides when; this file does it.
 */
#include "incarnation.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "random.h"
#include "spawn.h"

static int add_env(char **env, int *n, const char *fmt, const char *a, long v)
{
	char buf[HB_PATH_MAX + 64];

	if (a)
		snprintf(buf, sizeof buf, fmt, a);
	else
		snprintf(buf, sizeof buf, fmt, v);
	if (!(env[*n] = strdup(buf)))
		return -1;
	(*n)++;
	return 0;
}

/* id + "~" + 32 random hex digits: the routing ids of a generation are
 * known only to it and the broker, so no process can connect with them
 * first and keep the real one out (a ROUTER refuses a second connection
 * with an id it holds). */
static int routing_id(struct instance *inst, char *err, size_t errlen)
{
	unsigned char r[16];
	int n;

	if (hb_random_bytes(r, sizeof r, err, errlen) < 0)
		return -1;
	n = snprintf(inst->rid, sizeof inst->rid, "%s~", inst->id);
	for (size_t i = 0; i < sizeof r; i++)
		n += snprintf(inst->rid + n, sizeof inst->rid - (size_t)n, "%02x", r[i]);
	return 0;
}

/* Start a new incarnation of s from exec.  NULL with err on failure. */
struct instance *incarnation_start(struct broker *b, struct service *s, const char *exec,
				       char *err, size_t errlen)
{
	struct instance *inst = calloc(1, sizeof *inst);
	char endpoint[HB_PATH_MAX + 8];
	char **env;
	int n = 0;

	if (!inst) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (!(env = spawn_service_env(&b->cfg, s->cfg, 8))) {
		free(inst);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	while (env[n])
		n++;
	inst->svc = s;
	inst->maxworkers = s->cfg->concurrency;
	if (!(inst->workers = calloc((size_t)inst->maxworkers, sizeof *inst->workers))) {
		spawn_free_env(env);
		free(inst);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	inst->gen = ++s->gen;
	snprintf(inst->id, sizeof inst->id, "%s#%u", s->cfg->name, inst->gen);
	if (routing_id(inst, err, errlen) < 0) {
		spawn_free_env(env);
		free(inst->workers);
		free(inst);
		return NULL;
	}
	snprintf(inst->exec, sizeof inst->exec, "%s", exec);
	hb_ipc_endpoint(endpoint, sizeof endpoint, &b->paths, "back.sock");
	if (add_env(env, &n, "HB_SERVICE_ID=%s", inst->rid, 0) < 0 ||
	    add_env(env, &n, "HB_BACK_ENDPOINT=%s", endpoint, 0) < 0 ||
	    add_env(env, &n, "HB_HEARTBEAT_MS=%ld", NULL, b->set.heartbeat_ms) < 0 ||
	    add_env(env, &n, "HB_STOP_GRACE_MS=%ld", NULL, b->set.stop_grace_ms) < 0 ||
	    add_env(env, &n, "HB_CONCURRENCY=%ld", NULL, s->cfg->concurrency) < 0 ||
	    add_env(env, &n, "HB_BROKER_PID=%ld", NULL, (long)getpid()) < 0 ||
	    (s->cfg->confine[0] && add_env(env, &n, "HB_CONFINE=%s", s->cfg->confine, 0) < 0)) {
		snprintf(err, errlen, "out of memory");
		inst->pid = -1;
	} else {
		inst->pid = spawn_service(exec, s->cfg->name, s->cfg->args, env, err, errlen);
	}
	spawn_free_env(env);
	if (inst->pid < 0) {
		free(inst->workers);
		free(inst);
		return NULL;
	}
	children_add(b, &inst->child, inst->pid, CHILD_SERVICE, inst);
	inst->started_ms = inst->last_beat_ms = broker_now_ms();
	log_info(inst->id, "started %s as pid %ld", exec, (long)inst->pid);
	return inst;
}

void incarnation_free(struct instance *inst)
{
	children_remove(&inst->child);
	free(inst->report);
	free(inst->workers);
	free(inst);
}

int supervisor_instances(const struct service *s, struct instance **out, int max)
{
	int n = 0;

	if (s->cur && n < max)
		out[n++] = s->cur;
	if (s->next && n < max)
		out[n++] = s->next;
	for (struct instance *o = s->old; o && n < max; o = o->older)
		out[n++] = o;
	return n;
}

/* waitid with WNOWAIT looks without reaping: a child that ended but is not
 * reaped yet still counts (its SIGCHLD is on the way); a pid that is not
 * our child at all (reaped and forgotten, perhaps recycled) does not. */
int incarnation_is_child(const struct instance *inst)
{
	siginfo_t info;

	memset(&info, 0, sizeof info);
	while (waitid(P_PID, (id_t)inst->pid, &info, WEXITED | WNOHANG | WNOWAIT) < 0)
		if (errno != EINTR)
			return errno != ECHILD;
	return 1;
}

void incarnation_terminate(struct broker *b, struct instance *inst, long long now)
{
	if (inst->term_sent)
		return;
	inst->term_sent = 1;
	inst->kill_at_ms = now + b->set.stop_grace_ms;
	if (kill(inst->pid, SIGTERM) < 0 && errno != ESRCH)
		log_warn(inst->id, "cannot send TERM: %s", strerror(errno));
}

void incarnation_check_drained(struct broker *b, struct instance *inst)
{
	if (inst != inst->svc->cur && inst != inst->svc->next && inst->inflight == 0 && inst->busy == 0 &&
	    inst->queued == 0)
		incarnation_terminate(b, inst, broker_now_ms());
}

/* The loop thread of an instance connects as its routing id RID, each
 * worker as "RID.wN" (workers answer on their own sockets), its
 * background task as "RID.task". */
static int peer_is_instance(const struct hb_peer *peer, const struct instance *inst)
{
	size_t len = strlen(inst->rid);

	if (peer->len < len || memcmp(peer->id, inst->rid, len) != 0)
		return 0;
	return peer->len == len || (peer->len > len + 2 && peer->id[len] == '.' && peer->id[len + 1] == 'w') ||
	       (peer->len == len + 5 && memcmp(peer->id + len, ".task", 5) == 0);
}

void incarnation_peer_name(const struct instance *inst, const struct hb_peer *peer, char *out, size_t outlen)
{
	size_t len;

	if (!inst) {
		hb_peer_name(peer, out, outlen);
		return;
	}
	len = strlen(inst->rid);
	snprintf(out, outlen, "%s%.*s", inst->id, (int)(peer->len > len ? peer->len - len : 0),
		 (const char *)peer->id + (peer->len > len ? len : 0));
}

struct instance *supervisor_instance(struct broker *b, const struct hb_peer *peer)
{
	struct instance *all[SUPERVISOR_MAX_LISTED];

	for (int i = 0; i < b->nservices; i++) {
		int n = supervisor_instances(&b->services[i], all, SUPERVISOR_MAX_LISTED);
		for (int j = 0; j < n; j++)
			if (peer_is_instance(peer, all[j]))
				return all[j];
	}
	return NULL;
}

