/*
 * link - the broker's sockets, the run and its session (link.h).
 *
 * Without --session, hb-mcp's session is the client's: agent "external",
 * in the folder hb-mcp was started in (the client's working folder),
 * titled by the client's name from initialize.  A session of that
 * folder, agent and title that is not archived is used again, so a
 * client started every day in the same project keeps one session; it is
 * created (manage_sessions create, the user's own call) only when there
 * is none.  The run is opened lazily, at the first tools/list or
 * tools/call, so a client that only initializes costs the broker nothing.
 */
#include "link.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#include "clock.h"
#include "opfields.h"
#include "paths.h"
#include "protocol.h"
#include "random.h"
#include "sock.h"

#define EXTERNAL_AGENT "external"
#define LIST_LIMIT "200" /* svc-sessions' most (SESSION_LIST_MAX_LIMIT) */

/* The events a connection follows: its calls' start and progress, and
 * the approval cards (of its run: approval.c looks). */
static const char *const event_topics[] = { "call.start", "call.progress", "approval.", NULL };

static int open_events(struct mcp *m, char *err, size_t errlen)
{
	char ep[HB_PATH_MAX + 8];

	if (hb_runtime_endpoint("events.sock", ep, sizeof ep, err, errlen) < 0)
		return -1;
	if (!(m->ev_ctx = zmq_ctx_new()) || !(m->sub = hb_sock_sub(m->ev_ctx, event_topics[0])))
		goto fail;
	for (int i = 1; event_topics[i]; i++)
		if (zmq_setsockopt(m->sub, ZMQ_SUBSCRIBE, event_topics[i], strlen(event_topics[i])) < 0)
			goto fail;
	if (zmq_connect(m->sub, ep) == 0)
		return 0;
fail:
	snprintf(err, errlen, "cannot follow hb-broker's events at %s: %s", ep, zmq_strerror(errno));
	if (m->sub)
		zmq_close(m->sub);
	if (m->ev_ctx)
		zmq_ctx_term(m->ev_ctx);
	m->sub = m->ev_ctx = NULL;
	return -1;
}

int link_events(struct mcp *m, char *err, size_t errlen)
{
	return m->sub ? 0 : open_events(m, err, errlen);
}

int link_connect(struct mcp *m, char *err, size_t errlen)
{
	/* The front first: its refusal is the sentence every client says
	 * ("no hb-broker is running ..."). */
	if (!m->connected) {
		if (hb_client_open(&m->client, NULL, LINK_QUICK_MS, err, errlen) < 0)
			return -1;
		m->connected = 1;
	}
	return link_events(m, err, errlen);
}

void link_drop(struct mcp *m, const char *why)
{
	if (m->connected)
		hb_client_close(&m->client);
	m->connected = 0;
	m->run_open = 0;
	fprintf(stderr, "hb-mcp: %s\n", why);
	m->hooks.gone(m, why);
}

int link_send(struct mcp *m, struct hb_env *req, int64_t *id, char *err, size_t errlen)
{
	if (link_connect(m, err, errlen) < 0)
		return -1;
	if (hb_client_gone(&m->client)) {
		/* The broker ended (or restarted) while we were idle: nothing
		 * of ours was lost but the run, which the new one lacks. */
		m->run_open = 0;
		m->hooks.gone(m, "hb-broker went away before it answered; the outcome of the call is unknown");
	}
	return hb_client_send(&m->client, req, id, err, errlen);
}

/* Read one reply that is there: 1 with *reply, 0 when nothing (or a bad
 * frame, said on stderr), -1 when the broker went away (link dropped). */
static int read_one(struct mcp *m, struct hb_env *reply)
{
	char err[512];
	zmq_pollitem_t items[2] = { { m->client.sock, 0, ZMQ_POLLIN, 0 }, { m->client.monitor, 0, ZMQ_POLLIN, 0 } };

	if (zmq_poll(items, 2, 0) <= 0)
		return 0;
	if (items[0].revents & ZMQ_POLLIN) {
		if (hb_client_recv(&m->client, reply, 0, err, sizeof err) == 0)
			return 1;
		fprintf(stderr, "hb-mcp: %s\n", err);
		return 0;
	}
	if (hb_client_gone(&m->client)) {
		link_drop(m, "hb-broker went away before it answered; the outcome of the call is unknown");
		return -1;
	}
	return 0;
}

int link_request(struct mcp *m, struct hb_env *req, struct hb_env *reply, int timeout_ms, char *err,
		 size_t errlen)
{
	long long deadline = hb_monotonic_ms() + timeout_ms;
	int64_t id, got;

	if (link_send(m, req, &id, err, errlen) < 0)
		return -1;
	for (;;) {
		zmq_pollitem_t items[2] = { { m->client.sock, 0, ZMQ_POLLIN, 0 },
					    { m->client.monitor, 0, ZMQ_POLLIN, 0 } };
		long long left = deadline - hb_monotonic_ms();
		int rc;

		if (left <= 0) {
			snprintf(err, errlen, "hb-broker did not answer within %d ms; it is still running and may be "
				 "busy", timeout_ms);
			return -1;
		}
		if (zmq_poll(items, 2, (long)left) < 0 && errno != EINTR) {
			snprintf(err, errlen, "cannot wait for hb-broker: %s", zmq_strerror(errno));
			return -1;
		}
		if ((rc = read_one(m, reply)) < 0) {
			snprintf(err, errlen, "hb-broker went away before it answered; try again once it is back");
			return -1;
		}
		if (rc == 0)
			continue;
		if (hb_env_int(reply, "id", &got) == 0 && got == id)
			return 0;
		m->hooks.reply(m, reply);
		hb_env_free(reply);
	}
}

void link_read_front(struct mcp *m)
{
	struct hb_env reply;

	while (m->connected && read_one(m, &reply) > 0) {
		m->hooks.reply(m, &reply);
		hb_env_free(&reply);
	}
}

/* A request whose answer's err.msg (or the link's err) becomes err: 0
 * with *reply to free, or -1. */
static int ask(struct mcp *m, struct hb_env *req, struct hb_env *reply, char *err, size_t errlen)
{
	if (link_request(m, req, reply, LINK_QUICK_MS, err, errlen) < 0)
		return -1;
	if (hb_env_str(reply, "err.msg") || !hb_env_bool(reply, "ok", 1)) {
		snprintf(err, errlen, "%s", hb_env_str(reply, "err.msg") ? hb_env_str(reply, "err.msg")
									   : hb_env_str_or(reply, "text", "refused"));
		hb_env_free(reply);
		return -1;
	}
	return 0;
}

char *link_catalog(struct mcp *m, char *err, size_t errlen)
{
	struct hb_env req, reply;
	char *text;

	hb_env_init(&req);
	hb_env_set_str(&req, "op", HB_OP_CATALOG);
	hb_env_set_str(&req, "for", "claude");
	if (ask(m, &req, &reply, err, errlen) < 0)
		return NULL;
	if (!(text = strdup(hb_env_str_or(&reply, "json", ""))))
		snprintf(err, errlen, "out of memory");
	hb_env_free(&reply);
	return text;
}

/* A tool called as the user (no run): its answer's JSON, or NULL. */
static json_t *user_call(struct mcp *m, const char *tool, json_t *args, char *err, size_t errlen)
{
	char *text = args ? json_dumps(args, JSON_COMPACT) : NULL;
	struct hb_env req, reply;
	json_t *answer = NULL;

	json_decref(args);
	if (!text) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	hb_env_init(&req);
	hb_env_set_str(&req, "op", HB_OP_CALL);
	hb_env_set_str(&req, "tool", tool);
	hb_env_set_str(&req, "json", text);
	if (ask(m, &req, &reply, err, errlen) == 0) {
		if (!(answer = json_loads(hb_env_str_or(&reply, "text", ""), 0, NULL)))
			snprintf(err, errlen, "%s answered something that is not JSON", tool);
		hb_env_free(&reply);
	}
	free(text);
	return answer;
}

/* The client's session of folder dir: found again or created. */
static int find_or_create_session(struct mcp *m, const char *dir, char *err, size_t errlen)
{
	const char *title = m->client_name[0] ? m->client_name : "MCP client";
	json_t *list = user_call(m, "maintain_sessions",
				 json_pack("{s:s, s:s, s:i}", "action", "listSessions", "agent", EXTERNAL_AGENT,
					   "limit", atoi(LIST_LIMIT)),
				 err, errlen);
	json_t *s, *made;
	size_t i;

	if (!list)
		return -1;
	json_array_foreach(json_object_get(list, "sessions"), i, s) {
		const char *id = json_string_value(json_object_get(s, "id"));
		if (id && strlen(id) < sizeof m->session && json_is_false(json_object_get(s, "archived")) &&
		    json_is_string(json_object_get(s, "title")) &&
		    strcmp(json_string_value(json_object_get(s, "title")), title) == 0 &&
		    json_is_string(json_object_get(s, "projectDirectory")) &&
		    strcmp(json_string_value(json_object_get(s, "projectDirectory")), dir) == 0) {
			snprintf(m->session, sizeof m->session, "%s", id);
			json_decref(list);
			return 0;
		}
	}
	json_decref(list);
	made = user_call(m, "manage_sessions",
			 json_pack("{s:s, s:s, s:s, s:s, s:s}", "action", "create", "title", title, "agent",
				   EXTERNAL_AGENT, "projectPath", dir, "accessLevel", m->access),
			 err, errlen);
	if (!made)
		return -1;
	if (!json_is_string(json_object_get(made, "id")) ||
	    json_string_length(json_object_get(made, "id")) >= sizeof m->session) {
		snprintf(err, errlen, "manage_sessions created a session without an id");
		json_decref(made);
		return -1;
	}
	snprintf(m->session, sizeof m->session, "%s", json_string_value(json_object_get(made, "id")));
	fprintf(stderr, "hb-mcp: created session %s (\"%s\") for %s\n", m->session, title, dir);
	json_decref(made);
	return 0;
}

int link_run(struct mcp *m, char *err, size_t errlen)
{
	char dir[PATH_MAX], hex[8];
	struct hb_env req, reply;

	if (m->run_open && m->connected && !hb_client_gone(&m->client))
		return 0;
	m->run_open = 0;
	if (!getcwd(dir, sizeof dir)) {
		snprintf(err, errlen, "cannot read the working folder: %s", strerror(errno));
		return -1;
	}
	if (link_connect(m, err, errlen) < 0)
		return -1;
	if (!m->run[0]) {
		if (hb_random_bytes(hex, sizeof hex, err, errlen) < 0)
			return -1;
		snprintf(m->run, sizeof m->run, "mcp-%ld-%02x%02x%02x%02x%02x%02x%02x%02x", (long)getpid(),
			 hex[0] & 0xff, hex[1] & 0xff, hex[2] & 0xff, hex[3] & 0xff, hex[4] & 0xff, hex[5] & 0xff,
			 hex[6] & 0xff, hex[7] & 0xff);
	}
	if (!m->session[0]) {
		if (m->session_opt)
			snprintf(m->session, sizeof m->session, "%s", m->session_opt);
		else if (find_or_create_session(m, dir, err, errlen) < 0)
			return -1;
	}
	hb_env_init(&req);
	hb_env_set_str(&req, "op", HB_OP_RUN_OPEN);
	hb_env_set_str(&req, "run", m->run);
	hb_env_set_str(&req, "session", m->session);
	hb_env_set_str(&req, "project", dir);
	hb_env_set_str(&req, "agent", EXTERNAL_AGENT);
	hb_env_set_str(&req, "access", m->access);
	if (ask(m, &req, &reply, err, errlen) < 0)
		return -1;
	hb_env_free(&reply);
	m->run_open = 1;
	fprintf(stderr, "hb-mcp: run %s open for session %s (%s)\n", m->run, m->session, m->access);
	return 0;
}

void link_close_run(struct mcp *m)
{
	struct hb_env req, reply;
	char err[512];

	if (!m->run_open || !m->connected)
		return;
	hb_env_init(&req);
	hb_env_set_str(&req, "op", HB_OP_RUN_CLOSE);
	hb_env_set_str(&req, "run", m->run);
	if (ask(m, &req, &reply, err, sizeof err) < 0)
		fprintf(stderr, "hb-mcp: cannot close run %s: %s\n", m->run, err);
	else
		hb_env_free(&reply);
	m->run_open = 0;
}

void link_read_events(struct mcp *m)
{
	char topic[128], err[512];
	struct hb_env e;
	int got;

	while (m->sub && (got = zmq_recv(m->sub, topic, sizeof topic - 1, ZMQ_DONTWAIT)) >= 0) {
		json_t *body;

		topic[got < (int)sizeof topic - 1 ? got : (int)sizeof topic - 1] = '\0';
		if (hb_recv_env(m->sub, &e, err, sizeof err) != 1)
			continue;
		if (strcmp(hb_env_str_or(&e, "op", ""), HB_OP_EVENT) != 0 || hb_client_op_check(&e, err, sizeof err) < 0) {
			fprintf(stderr, "hb-mcp: an event that does not match its row was dropped\n");
		} else if ((body = json_loads(hb_req_str(&e, "json"), 0, NULL))) {
			m->hooks.event(m, topic, body);
			json_decref(body);
		}
		hb_env_free(&e);
	}
}

void link_free(struct mcp *m)
{
	if (m->connected)
		hb_client_close(&m->client);
	m->connected = 0;
	if (m->sub)
		zmq_close(m->sub);
	if (m->ev_ctx)
		zmq_ctx_term(m->ev_ctx);
	m->sub = m->ev_ctx = NULL;
}
