/*
 * run_ops - the front operations run.open, run.close and run.stop.
 * Closing or stopping a run answers every call still open on it with "Run
 * stopped." (the service's handler sees the cancel), and settles its
 * approval cards: a stop denies them with "Run stopped.", the end of a run
 * marks them cancelled.
 *
 * A run opens only on a session that exists and runs the run's agent (an
 * external run, an MCP client's through hb-mcp, on a session of any agent):
 * the broker owns no database, so it asks svc-sessions (_session_info)
 * and decides when the answer comes, against the table as it is then.
 * The same answer has the session's model and effort, which run.open's
 * answer hands to the opener (page 003: the run opens its agent with
 * them) and which give the run its model when the opener named none.
 * A session has one active Claude run at a time (page 003), and a
 * Claude run whose bridge is gone (it said session.detach, or stopped
 * repeating session.attach: killed) gives way to the next one, which
 * would otherwise be refused until somebody closed it by hand; Codex runs
 * may be several (the desktop's turn, and the turns session messages
 * start, each under a run of its own), and its calls use the newest.
 */
#include "run_ops.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "approvals.h"
#include "launch.h"
#include "log.h"
#include "reply.h"
#include "route.h"
#include "runs.h"
#include "protocol.h"
#include "opfields.h"

static const char *const agents[] = { "codex", "claude", RUN_AGENT_EXTERNAL, NULL };

static int one_of(const char *v, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(*list, v) == 0)
			return 1;
	return 0;
}

/* Copy field key of e (a string there: front.c checked) into out; -1 with
 * err when empty or too long. */
static int take(const struct hb_env *e, const char *key, char *out, size_t outlen, char *err, size_t errlen)
{
	const char *v = hb_req_str(e, key);

	if (!*v || strlen(v) >= outlen) {
		snprintf(err, errlen, "run.open needs \"%s\" (1 to %zu bytes)", key, outlen - 1);
		return -1;
	}
	memcpy(out, v, strlen(v) + 1);
	return 0;
}

/* The agent as a sentence names it. */
static const char *agent_name(const char *agent)
{
	return strcmp(agent, "codex") == 0 ? "Codex" : strcmp(agent, "claude") == 0 ? "Claude" : agent;
}

/* A run.open waiting for svc-sessions' word on its session. */
struct pending_open {
	struct hb_peer peer;
	struct reqid id;
	struct run *run;
};

/* Why r cannot open now (into err, with *code), or 0 when it can. */
static int refuse_open(struct broker *b, const struct run *r, int ok, const char *text, char *err, size_t errlen,
		       const char **code)
{
	json_t *info = ok ? json_loads(text, 0, NULL) : NULL;
	const json_t *exists = json_object_get(info, "exists");
	const char *agent = json_string_value(json_object_get(info, "agent"));
	const struct run *other;
	int refused = 1;

	if (!json_is_boolean(exists)) {
		*code = "no-session-service";
		snprintf(err, errlen, "run.open cannot check session %.128s: %.300s", r->session,
			 ok ? "svc-sessions answered something else" : text);
	} else if (!json_is_true(exists)) {
		*code = "unknown-session";
		snprintf(err, errlen, "session %.128s does not exist; a run opens only on a session of HB Code",
			 r->session);
	} else if (!agent || (strcmp(agent, r->agent) != 0 && strcmp(r->agent, RUN_AGENT_EXTERNAL) != 0)) {
		*code = "agent-mismatch";
		snprintf(err, errlen, "session %.128s is a %.32s session; a %s run cannot open on it", r->session,
			 agent_name(agent ? agent : "an unknown agent's"), r->agent);
	} else if (runs_find(b, r->id)) {
		*code = "bad-request";
		snprintf(err, errlen, "run %.64s is open already", r->id);
	} else if (strcmp(r->agent, "claude") == 0 && (other = runs_active_claude(b, r->session))) {
		*code = "run-conflict";
		snprintf(err, errlen, "session %.128s already has an active Claude run %.128s; stop or close it "
			 "first", r->session, other->id);
	} else {
		refused = 0;
	}
	json_decref(info);
	return refused;
}

/* Answer r's calls with "Run stopped." and settle its cards; a stop keeps
 * it listed (stopped), a close frees it. */
static void finish_run(struct broker *b, struct run *r, int stop)
{
	r->stopped = 1;
	route_abort_run(b, r->id, "Run stopped.");
	approvals_end_run(b, r->id, stop);
	if (stop) {
		log_info(NULL, "run %s stopped", r->id);
		/* A headless run: no desktop will interrupt its turn. */
		(void)launch_stop_bridge(b, r->owner.pid, r->id);
		return;
	}
	log_info(NULL, "run %s closed", r->id);
	runs_remove(b, r);
}

/* The session's model and effort (svc-sessions' answer, text) into *o,
 * the start of run.open's answer: the opener opens its agent with them
 * (page 003).  A model the opener named is the run's; without one, the
 * session's is, so that the services its calls reach know it. */
static void session_model(struct run *r, const char *text, json_t **o)
{
	json_t *info = json_loads(text, 0, NULL);
	const char *model = json_string_value(json_object_get(info, "model"));
	const char *effort = json_string_value(json_object_get(info, "effort"));

	*o = json_object();
	if (*o && model)
		json_object_set_new(*o, "model", json_string(model));
	if (*o && effort)
		json_object_set_new(*o, "effort", json_string(effort));
	if (!r->model[0] && model && strlen(model) < sizeof r->model)
		memcpy(r->model, model, strlen(model) + 1);
	json_decref(info);
}

static void session_checked(struct broker *b, void *arg, int ok, const char *fail_code, const char *text)
{
	struct pending_open *p = arg;
	struct run *r = p->run;
	const char *code = NULL;
	char err[600], *json = NULL;
	struct run *gone;
	json_t *o, *base;

	(void)fail_code;
	while (strcmp(r->agent, "claude") == 0 && (gone = runs_active_claude(b, r->session)) &&
	       runs_bridge_gone(b, gone, broker_now_ms())) {
		log_warn(NULL, "run %s: its bridge is gone (no session.attach for %d ms); closed so that run %s "
			 "can open", gone->id, b->set.attach_ttl_ms, r->id);
		finish_run(b, gone, 0);
	}
	if (refuse_open(b, r, ok, text, err, sizeof err, &code)) {
		log_info(NULL, "run.open %s refused: %s", r->id, err);
		front_reply_err(b, &p->peer, &p->id, code, err);
		free(r);
		free(p);
		return;
	}
	session_model(r, text, &o);
	r->opened_ms = broker_now_ms();
	runs_insert(b, r);
	log_info(NULL, "run %s opened for session %s (%s, %s%s%s)", r->id, r->session, r->agent, r->access,
		 r->model[0] ? ", " : "", r->model);
	base = json_pack("{s:s, s:s, s:s}", "run", r->id, "session", r->session, "permissionMode",
			 runs_permission_mode(r->access));
	if (!o || !base || json_object_update_missing(o, base) < 0) {
		json_decref(o);
		o = NULL;
	}
	json_decref(base);
	json = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	front_reply_ok(b, &p->peer, &p->id, json ? json : "{}");
	free(json);
	free(p);
}

void run_op_open(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	struct run *r = calloc(1, sizeof *r);
	struct pending_open *p = NULL;
	const char *model = hb_env_str_or(e, "model", "");
	char err[256], *query = NULL;
	struct reqid id;
	json_t *q;

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
	if (strlen(model) >= sizeof r->model) {
		snprintf(err, sizeof err, "run.open's \"model\" is at most %zu bytes", sizeof r->model - 1);
		goto bad;
	}
	memcpy(r->model, model, strlen(model) + 1); /* optional: "" when the opener does not know it */
	if (r->project[0] != '/') {
		snprintf(err, sizeof err, "the project directory must be an absolute path");
		goto bad;
	}
	if (!one_of(r->agent, agents) || hb_access_rank(r->access) < 0) {
		snprintf(err, sizeof err, "agent must be codex, claude or external; access one of read-only, full-auto, "
			 "full-access, unrestricted");
		goto bad;
	}
	r->owner = *peer;
	q = json_pack("{s:s}", "sessionId", r->session);
	query = q ? json_dumps(q, JSON_COMPACT) : NULL;
	json_decref(q);
	if (!query || !(p = calloc(1, sizeof *p))) {
		free(query);
		free(r);
		front_reply_err(b, peer, &id, "internal", "out of memory");
		return;
	}
	p->peer = *peer;
	p->id = id;
	p->run = r;
	if (route_internal(b, HB_TOOL_SESSION_INFO, query, session_checked, p) < 0) {
		snprintf(err, sizeof err, "run.open cannot check session %.128s: no service of this broker answers "
			 "_session_info (svc-sessions)", r->session);
		free(p);
		free(r);
		free(query);
		front_reply_err(b, peer, &id, "no-session-service", err);
		return;
	}
	free(query);
	return;
bad:
	free(r);
	front_reply_err(b, peer, &id, "bad-request", err);
}

static void end_run(struct broker *b, const struct hb_peer *peer, const struct hb_env *e, int stop)
{
	const char *rid = hb_req_str(e, "run");
	struct run *r = runs_find(b, rid);
	struct reqid id;

	reqid_from_env(&id, e);
	if (!r) {
		front_reply_err(b, peer, &id, "unknown-run", "no open run has this id");
		return;
	}
	finish_run(b, r, stop);
	front_reply_ok(b, peer, &id, stop ? "{\"stopped\":true}" : "{\"closed\":true}");
}

void run_op_close(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	end_run(b, peer, e, 0);
}

void run_op_stop(struct broker *b, const struct hb_peer *peer, const struct hb_env *e)
{
	end_run(b, peer, e, 1);
}
