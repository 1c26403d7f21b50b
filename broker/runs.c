/*
 * runs - open, close and stop runs.  Closing or stopping a run answers
 * every call still open on it with "Run stopped." (the service's handler
 * sees the cancel), and settles its approval cards: a stop denies them
 * with "Run stopped.", the end of a run marks them cancelled.
 */
#include "runs.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "approvals.h"
#include "front.h"
#include "log.h"
#include "route.h"
#include "session_message.h"

static const char *const agents[] = { "codex", "claude", NULL };
/* Page 003: access level (in the order of the one access scale, see
 * session_message.h) -> Claude permission mode. */
static const char *const permission_modes[] = { "plan", "acceptEdits", "auto", "bypassPermissions" };

const char *runs_permission_mode(const char *access)
{
	int rank = hb_access_rank(access);

	return rank < 0 ? NULL : permission_modes[rank];
}

static int one_of(const char *v, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(*list, v) == 0)
			return 1;
	return 0;
}

struct run *runs_find(struct broker *b, const char *id)
{
	for (struct run *r = b->runs; r; r = r->next)
		if (strcmp(r->id, id) == 0)
			return r;
	return NULL;
}

struct run *runs_of_peer(struct broker *b, const struct hb_peer *peer)
{
	for (struct run *r = b->runs; r; r = r->next)
		if (r->owner.len == peer->len && memcmp(r->owner.id, peer->id, peer->len) == 0)
			return r;
	return NULL;
}

struct run *runs_active(struct broker *b, const char *session)
{
	struct run *best = NULL;

	for (struct run *r = b->runs; r; r = r->next)
		if (!r->stopped && strcmp(r->session, session) == 0 && (!best || r->opened_ms >= best->opened_ms))
			best = r;
	return best;
}

/* Copy field key of e into out; -1 with err when absent, empty or too long. */
static int take(const struct hb_env *e, const char *key, char *out, size_t outlen, char *err, size_t errlen)
{
	const char *v = hb_env_str(e, key);

	if (!v || !*v || strlen(v) >= outlen) {
		snprintf(err, errlen, "run.open needs \"%s\" (1 to %zu bytes)", key, outlen - 1);
		return -1;
	}
	memcpy(out, v, strlen(v) + 1);
	return 0;
}

void runs_open(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	struct run *r = calloc(1, sizeof *r);
	char err[256], *json;
	struct reqid id;

	reqid_from_env(&id, e);
	if (!r) {
		front_reply_err(b, peer, &id, "internal", "out of memory");
		return;
	}
	if (take(e, "run", r->id, sizeof r->id, err, sizeof err) < 0 ||
	    take(e, "session", r->session, sizeof r->session, err, sizeof err) < 0 ||
	    take(e, "project", r->project, sizeof r->project, err, sizeof err) < 0 ||
	    take(e, "agent", r->agent, sizeof r->agent, err, sizeof err) < 0 ||
	    take(e, "access", r->access, sizeof r->access, err, sizeof err) < 0)
		goto bad;
	if (r->project[0] != '/') {
		snprintf(err, sizeof err, "the project directory must be an absolute path");
		goto bad;
	}
	if (!one_of(r->agent, agents) || hb_access_rank(r->access) < 0) {
		snprintf(err, sizeof err, "agent must be codex or claude; access one of read-only, full-auto, "
			 "full-access, unrestricted");
		goto bad;
	}
	if (runs_find(b, r->id)) {
		snprintf(err, sizeof err, "run %.64s is open already", r->id);
		goto bad;
	}
	r->owner = *peer;
	r->opened_ms = broker_now_ms();
	r->next = b->runs;
	b->runs = r;
	log_info(NULL, "run %s opened for session %s (%s, %s)", r->id, r->session, r->agent, r->access);
	json = NULL;
	{
		json_t *o = json_pack("{s:s, s:s, s:s}", "run", r->id, "session", r->session, "permissionMode",
				      runs_permission_mode(r->access));
		json = o ? json_dumps(o, JSON_COMPACT) : NULL;
		json_decref(o);
	}
	front_reply_ok(b, peer, &id, json ? json : "{}");
	free(json);
	return;
bad:
	free(r);
	front_reply_err(b, peer, &id, "bad-request", err);
}

static void end_run(struct broker *b, const struct hb_peer *peer, const struct hb_env *e, int stop)
{
	const char *rid = hb_env_str_or(e, "run", "");
	struct run *r = runs_find(b, rid), **pp;
	struct reqid id;

	reqid_from_env(&id, e);
	if (!r) {
		front_reply_err(b, peer, &id, "unknown-run", "no open run has this id");
		return;
	}
	r->stopped = 1;
	route_abort_run(b, r->id, "Run stopped.");
	approvals_end_run(b, r->id, stop);
	if (!stop) {
		for (pp = &b->runs; *pp != r; pp = &(*pp)->next)
			;
		*pp = r->next;
		log_info(NULL, "run %s closed", r->id);
		free(r);
	} else {
		log_info(NULL, "run %s stopped", r->id);
	}
	front_reply_ok(b, peer, &id, stop ? "{\"stopped\":true}" : "{\"closed\":true}");
}

void runs_close(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	end_run(b, peer, e, 0);
}

void runs_stop(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	end_run(b, peer, e, 1);
}

void runs_free(struct broker *b)
{
	while (b->runs) {
		struct run *r = b->runs;
		b->runs = r->next;
		free(r);
	}
}
