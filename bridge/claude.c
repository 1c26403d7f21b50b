/*
 * hb-claude-bridge - the desktop side of one Claude run's agent-host pipe
 * (docs/agent-host-pipe.md).
 *
 *	hb-claude-bridge --session ID --run ID --project DIR --access LEVEL
 *	                 [--claude-session UUID] [--model M] [--effort E] [--once] -- node HOST.mjs [ARGS...]
 *
 * It opens the run with the broker, starts the host in its own process
 * group with the nine child-session markers removed from its environment,
 * and sends `open` with the catalog, allowedTools, the permission mode of
 * the access level, and the model and effort: --model and --effort, else
 * the session's, which the broker's answer to run.open carries (none:
 * Claude Code's defaults).  Then it passes the desktop's lines (its stdin) to
 * the host and the host's lines back (its stdout), giving each desktop
 * request 35 seconds, and handles itself: toolCall (through the broker,
 * answered with toolResult), toolCancel (the call is aborted in its
 * service) and permission (an approval card in the broker; the answer goes
 * back as `permission`).  A desktop `send` without a messageId gets one,
 * so the live rows of the prompt (claude_timeline.h) carry the uuid Claude
 * saves it under.  The Claude session id the host reports in the
 * open's answer is linked to the run's session (claude.link) before the
 * desktop hears `opened`; a conversation that belongs to another session
 * ends the run instead.  At the end (the desktop's close or end of input,
 * SIGTERM, SIGINT) it lets a session message that waits for its proof
 * have its final transcript read (claude_deliver.h), then sends close,
 * closes the host's stdin, waits up to 10 seconds, kills the host's
 * process group, detaches its session and closes the run; when the host
 * ends by itself, the last two.
 *
 * --once: no desktop (the broker starts the bridge for a session whose
 * agent does not run, to carry in its messages).  Its stdin is not read,
 * nothing is written to its stdout, messages go in as soon as the open is
 * answered, and the run closes itself as claude_once.h says.
 */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "line_child.h"
#include "claude_host_client.h"
#include "clock.h"
#include "claude_deliver.h"
#include "claude_failure.h"
#include "claude_account.h"
#include "claude_usage_end.h"
#include "claude_once.h"
#include "client.h"
#include "tunables.h"
#include "dialect.h"
#include "lines.h"
#include "pump.h"
#include "random.h"
#include "rpc_frame.h"
#include "failpoint.h"
#include "log.h"
#include "secrets.h"
#include "map.h"
#include "session_message.h"
#include "claude_timeline.h"
#include "sock.h"
#include "status_fd.h"
#include "protocol.h"

/* Page 003: 35 s per request, 10 s after close (HB_HOST_REQUEST_MS,
 * HB_HOST_CLOSE_MS in common/tunables.c, for tests only).  Messages from
 * other sessions wait for the run's own first prompt up to
 * HB_CLAUDE_FIRST_SEND_MS after `opened`: the desktop sends it as soon as
 * it has recorded the operation, and a run opened only to receive
 * messages must not wait for ever. */

struct options {
	const char *session, *run, *project, *access, *claude_session, *model, *effort;
	int once;                       /* --once: headless */
	char **host_argv;
};

/* A request in flight: to the broker (key "b<id>") or to the host
 * (key "h<id>" for ours, "d<json id>" for the desktop's). */
struct pending {
	char key[80];
	enum { P_TOOL, P_CANCEL, P_PERMISSION, P_OURS, P_DESKTOP, P_LINK } kind;
	char *host_request_id;          /* P_TOOL / P_PERMISSION: the host's requestId (JSON) */
	long long deadline_ms;          /* P_DESKTOP, P_LINK */
	char *desktop_id;               /* P_DESKTOP: the id as JSON */
	int send;                       /* P_DESKTOP: a `send` (messages wait for it) */
	char *send_text;                /* ... its text and messageId, for its live row */
	char send_uuid[37];
};

struct bridge {
	struct options opt;
	struct line_child host;
	struct hb_client broker;
	struct hb_map pending;
	long long next_host_id;
	int closing;
	long long close_deadline_ms;
	int request_limit_ms, close_wait_ms;
	struct claude_deliver cd;       /* messages from other sessions */
	struct claude_once once;        /* --once: when the run ends */
	json_t *open_result;            /* the host's answer to open, until the link is answered */
};

static int usage(void)
{
	fprintf(stderr, "usage: hb-claude-bridge --session ID --run ID --project DIR --access LEVEL\n"
			"                        [--claude-session UUID] [--model M] [--effort E] [--once] -- node HOST.mjs "
			"[ARGS...]\n");
	return 100;
}

static struct pending *track(struct bridge *br, const char *key, int kind)
{
	struct pending *p = calloc(1, sizeof *p);

	if (!p)
		return NULL;
	snprintf(p->key, sizeof p->key, "%s", key);
	p->kind = kind;
	if (hb_map_put(&br->pending, p->key, p) < 0) {
		free(p);
		return NULL;
	}
	return p;
}

static void forget(struct bridge *br, struct pending *p)
{
	hb_map_del(&br->pending, p->key);
	free(p->host_request_id);
	free(p->desktop_id);
	free(p->send_text);
	free(p);
}

static void begin_close(struct bridge *br);

static void send_json(int fd, json_t *v)
{
	if (rpc_frame_write(fd, v) < 0)
		log_warn(NULL, "cannot write a line: %s", strerror(errno));
}

/* A request of ours to the host; its reply is not the desktop's. */
static void host_request(struct bridge *br, const char *method, json_t *params)
{
	char id[32], key[40];
	json_t *req;

	snprintf(id, sizeof id, "hb-%lld", ++br->next_host_id);
	req = rpc_request_str(id, method, params ? params : json_object());
	snprintf(key, sizeof key, "h%s", id);
	track(br, key, P_OURS);
	send_json(br->host.child.in, req);
	json_decref(req);
}

static int broker_send(struct bridge *br, const char *op, const char *json, int kind, const char *host_rid)
{
	struct hb_env req;
	char err[256], key[40];
	struct pending *p;
	int64_t id;

	hb_env_init(&req);
	hb_env_set_str(&req, "op", op);
	hb_env_set_str(&req, "json", json);
	if (hb_client_send(&br->broker, &req, &id, err, sizeof err) < 0) {
		log_warn(NULL, "broker: %s", err);
		return -1;
	}
	snprintf(key, sizeof key, "b%lld", (long long)id);
	if ((p = track(br, key, kind)) && host_rid)
		p->host_request_id = strdup(host_rid);
	return 0;
}

static void tool_result(struct bridge *br, const char *rid, int is_error, const char *text)
{
	host_request(br, "toolResult", claude_host_tool_result(rid, !is_error, text, NULL));
}

/* The desktop hears `opened` (once the link is answered) and messages
 * from other sessions may start. */
static void announce_open(struct bridge *br)
{
	json_t *ev;

	if (!br->open_result)
		return;
	if (!br->closing) {
		if (br->opt.once) {
			const char *id = json_string_value(json_object_get(br->open_result, "sessionId"));
			log_info(NULL, "Claude session %s open (resumed: %s)", id ? id : br->opt.claude_session,
				 json_is_true(json_object_get(br->open_result, "resumed")) ? "yes" : "no");
		} else {
			ev = json_pack("{s:s, s:O}", "event", "opened", "result", br->open_result);
			send_json(STDOUT_FILENO, ev);
			json_decref(ev);
		}
		claude_deliver_opened(&br->cd, br->host.child.in,
				      json_string_value(json_object_get(br->open_result, "sessionId")), br->opt.project);
		claude_once_opened(&br->once);
	}
	json_decref(br->open_result);
	br->open_result = NULL;
}

/* The host answered our open with the Claude session id it runs: link it
 * to the run's session first (the broker takes the session from this
 * connection's run), so that nothing goes into a conversation that
 * belongs to another session. */
static void opened_by_host(struct bridge *br, json_t *result)
{
	const char *claude = json_string_value(json_object_get(result, "sessionId"));
	struct hb_env req;
	char err[256], key[40];
	struct pending *p = NULL;
	int64_t id;

	br->open_result = json_incref(result);
	hb_env_init(&req);
	hb_env_set_str(&req, "op", HB_OP_CLAUDE_LINK);
	hb_env_set_str(&req, "claudeSessionId", claude ? claude : br->opt.claude_session);
	if (hb_client_send(&br->broker, &req, &id, err, sizeof err) < 0) {
		log_warn(NULL, "cannot link the Claude session: %s", err);
	} else {
		snprintf(key, sizeof key, "b%lld", (long long)id);
		if ((p = track(br, key, P_LINK)))
			p->deadline_ms = hb_monotonic_ms() + br->request_limit_ms;
	}
	if (!p)
		announce_open(br);
}

/* The broker's answer to claude.link.  Only a conversation that belongs
 * to another session stops the run: without svc-sessions the run works
 * all the same, its link is just not recorded. */
static void linked(struct bridge *br, const struct hb_env *reply)
{
	const char *why = hb_env_str_or(reply, "err.msg", "the link was refused");
	json_t *ev;

	if (hb_env_bool(reply, "ok", 0) || strcmp(hb_env_str_or(reply, "err.code", ""), "conflict") != 0) {
		if (!hb_env_bool(reply, "ok", 0))
			log_warn(NULL, "the Claude session is not linked to %s: %s", br->opt.session, why);
		announce_open(br);
		return;
	}
	log_error(NULL, "%s", why);
	if (!br->opt.once) {
		ev = json_pack("{s:s, s:s}", "event", "failed", "error", why);
		send_json(STDOUT_FILENO, ev);
		json_decref(ev);
	}
	json_decref(br->open_result);
	br->open_result = NULL;
	begin_close(br);
}

/* An event from the host that the bridge handles; 1 when it did. */
static int handle_event(struct bridge *br, json_t *msg, const char *line)
{
	const char *ev = json_string_value(json_object_get(msg, "event"));
	char *rtext;

	if (!ev)
		return 0;
	if (strcmp(ev, "toolCall") == 0 || strcmp(ev, "permission") == 0) {
		int tool = strcmp(ev, "toolCall") == 0;
		rtext = claude_host_request_id(msg);
		if (broker_send(br, tool ? HB_OP_CLAUDE_CALL : HB_OP_CLAUDE_PERMISSION, line, tool ? P_TOOL : P_PERMISSION,
				rtext) < 0) {
			if (tool)
				tool_result(br, rtext, 1, "HB Code's tool broker is not running; try the call again.");
			else
				host_request(br, "permission",
					     claude_host_permission(rtext, 0, "HB Code could not ask you: its tool "
									      "broker is not running."));
		}
		free(rtext);
		return 1;
	}
	if (strcmp(ev, "toolCancel") == 0) {
		broker_send(br, HB_OP_CLAUDE_CANCEL, line, P_CANCEL, NULL);
		return 1;
	}
	return 0; /* message, permissionResolved, failed, closed: the desktop's */
}

/* --once: what would go to the desktop goes nowhere (the run is in
 * Claude's transcript and on the broker's events; a copy of the
 * conversation in whatever log stdout is would be one more place for it);
 * only the end of the host is said, on stderr. */
static void headless_event(json_t *msg)
{
	const char *ev = json_string_value(json_object_get(msg, "event"));
	const char *error = json_string_value(json_object_get(msg, "error"));
	const char *reason = json_string_value(json_object_get(msg, "reason"));

	if (ev && strcmp(ev, "failed") == 0)
		log_error(NULL, "the agent host failed: %s", error ? error : "it gave no reason");
	else if (ev && strcmp(ev, "closed") == 0)
		log_info(NULL, "the agent host closed (%s)", reason ? reason : "no reason given");
}

static void from_host(struct bridge *br, const char *line, size_t len)
{
	json_t *msg = json_loadb(line, len, 0, NULL), *id = json_object_get(msg, "id");
	char key[80];
	struct pending *p;

	claude_failure_seen(br->opt.session, br->opt.run, 0, msg);
	if (msg && claude_deliver_from_host(&br->cd, msg)) {
		json_decref(msg);
		return; /* the answer to our own send of a session message */
	}
	if (msg && !id)
		claude_timeline_event(msg); /* a `message` event's rows, for the shared timeline */
	if (msg && !id && handle_event(br, msg, line)) {
		json_decref(msg);
		return;
	}
	if (msg && id) {
		char *idtext = json_dumps(id, JSON_COMPACT | JSON_ENCODE_ANY);
		snprintf(key, sizeof key, json_is_string(id) && strncmp(json_string_value(id), "hb-", 3) == 0 ? "h%s" : "d%s",
			 json_is_string(id) ? json_string_value(id) : (idtext ? idtext : ""));
		free(idtext);
		p = hb_map_get(&br->pending, key);
		if (p && p->kind == P_DESKTOP && p->send) {
			claude_deliver_desktop_answered(&br->cd, !json_object_get(msg, "error"));
			/* Accepted: its turn and the person's row, live (the stream
			 * never echoes the prompt). */
			if (!json_object_get(msg, "error") && p->send_text)
				claude_timeline_sent(p->send_uuid, p->send_text);
		}
		if (p && p->kind == P_OURS) {
			if (json_object_get(msg, "error"))
				log_warn(NULL, "host refused our request: %s", line);
			if (json_is_object(json_object_get(msg, "result")) &&
			    json_object_get(json_object_get(msg, "result"), "inheritedMarkers"))
				/* The open's answer: the desktop sees it as an event. */
				opened_by_host(br, json_object_get(msg, "result"));
			forget(br, p);
			json_decref(msg);
			return;
		}
		if (p)
			forget(br, p);
		else if (key[0] == 'd') {
			/* Answered after its 35 s: the desktop has had its error. */
			json_decref(msg);
			return;
		}
	}
	if (br->opt.once) {
		headless_event(msg);
		json_decref(msg);
		return;
	}
	json_decref(msg);
	if (write_line(STDOUT_FILENO, line, len) < 0)
		log_warn(NULL, "cannot write to the desktop: %s", strerror(errno));
}

static void close_host(struct bridge *br)
{
	/* For tests that must act on the host's process group before the
	 * host ends (e2e messages-claude.sh "unconfirmed"). */
	hb_holdpoint("bridge.before-host-close", NULL);
	br->close_deadline_ms = hb_monotonic_ms() + br->close_wait_ms;
	host_request(br, "close", NULL);
	line_child_close_input(&br->host);
	claude_deliver_host_closed(&br->cd);
}

/* A message that went in last waits for its final transcript read, which
 * needs the host: close it once the read is done (or after the request
 * limit). */
static void begin_close(struct bridge *br)
{
	if (br->closing)
		return;
	br->closing = 1;
	if (claude_deliver_closing(&br->cd, br->request_limit_ms, br->close_wait_ms))
		br->close_deadline_ms = hb_monotonic_ms() + br->request_limit_ms;
	else
		close_host(br);
}

/* A `send` of the desktop with a text: its messageId into uuid, one of
 * ours added when it has none, so the bridge knows the uuid Claude saves
 * the person's message under (its live row's id).  1 when msg is such a
 * send (written then from msg), 0 to pass the line as it came. */
static int name_the_prompt(json_t *msg, char uuid[37])
{
	json_t *params = json_object_get(msg, "params"), *given = json_object_get(params, "messageId");
	char why[256] = "out of memory";

	if (!json_is_string(json_object_get(params, "text")))
		return 0;
	if (json_is_string(given) && json_string_length(given) == 36) {
		memcpy(uuid, json_string_value(given), 37);
		return 1;
	}
	if (given)
		return 0;	/* the host judges a bad messageId itself */
	if (hb_random_uuid(uuid, why, sizeof why) < 0 ||
	    json_object_set_new(params, "messageId", json_string(uuid)) < 0) {
		log_warn(NULL, "the prompt goes without a messageId of ours, so without its live row: %s", why);
		return 0;
	}
	return 1;
}

static void from_desktop(struct bridge *br, char *line, size_t len)
{
	json_t *msg = json_loadb(line, len, 0, NULL), *id = json_object_get(msg, "id");
	const char *method = json_string_value(json_object_get(msg, "method"));
	char key[80], *idtext;
	struct pending *p;
	int named = 0;

	if (br->closing || (msg && claude_deliver_refuse(&br->cd, msg)))
		goto out;
	claude_failure_seen(br->opt.session, br->opt.run, 1, msg);
	if (method && strcmp(method, "close") == 0) {
		json_t *ok = json_pack("{s:O, s:{}}", "id", id ? id : json_null(), "result");
		send_json(STDOUT_FILENO, ok);
		json_decref(ok);
		begin_close(br);
		goto out;
	}
	if (msg && id && (idtext = json_dumps(id, JSON_COMPACT | JSON_ENCODE_ANY))) {
		snprintf(key, sizeof key, "d%s", json_is_string(id) ? json_string_value(id) : idtext);
		if ((p = track(br, key, P_DESKTOP))) {
			p->deadline_ms = hb_monotonic_ms() + br->request_limit_ms;
			p->desktop_id = idtext;
			if ((p->send = method && strcmp(method, "send") == 0)) {
				claude_deliver_desktop_send(&br->cd);
				if ((named = name_the_prompt(msg, p->send_uuid)))
					p->send_text = strdup(
						json_string_value(json_object_get(json_object_get(msg, "params"), "text")));
			}
		} else {
			free(idtext);
		}
	}
	if (named)
		send_json(br->host.child.in, msg); /* with the messageId it may have got */
	else if (write_line(br->host.child.in, line, len) < 0)
		log_warn(NULL, "cannot write to the host: %s", strerror(errno));
out:
	json_decref(msg);
}

/* A delivery from the broker: a message for the session. */
static void on_delivery(void *ctx, const struct hb_env *msg)
{
	struct bridge *br = ctx;

	claude_deliver(&br->cd, msg);
	if (claude_deliver_in_flight(&br->cd))
		claude_once_handed(&br->once);
}

/* The broker's answer to request id: a link, a tool call or a permission
 * question of ours. */
static void on_answer(void *ctx, int64_t id, const struct hb_env *reply)
{
	struct bridge *br = ctx;
	struct pending *p;
	char key[40];

	snprintf(key, sizeof key, "b%lld", (long long)id);
	if (!(p = hb_map_get(&br->pending, key)))
		return;
	if (p->kind == P_LINK) {
		linked(br, reply);
	} else if (p->kind == P_TOOL) {
		json_t *ans = claude_host_tool_answer(p->host_request_id, hb_env_str_or(reply, "json", ""));
		if (ans)
			host_request(br, "toolResult", ans);
		else
			tool_result(br, p->host_request_id, 1, hb_env_str_or(reply, "err.msg", "the tool call failed"));
	} else if (p->kind == P_PERMISSION) {
		json_t *ans = json_loads(hb_env_str_or(reply, "json", ""), 0, NULL);
		const char *decision = json_string_value(json_object_get(ans, "decision"));
		const char *message = json_string_value(json_object_get(ans, "message"));
		int allow = decision && strcmp(decision, "allow") == 0;
		host_request(br, "permission",
			     claude_host_permission(p->host_request_id, allow,
						    message ? message
							    : hb_env_str_or(reply, "err.msg", "HB Code could not ask you.")));
		json_decref(ans);
	}
	forget(br, p);
}

static void from_broker(struct bridge *br)
{
	deliveries_drain(&br->cd.dl, br->broker.sock, on_delivery, on_answer, br);
}

static void on_desktop_line(void *ctx, char *line, size_t len)
{
	from_desktop(ctx, line, len);
}

static void on_desktop_done(void *ctx)
{
	begin_close(ctx); /* the desktop is gone: end the run */
}

static void on_host_line(void *ctx, const char *line, size_t len)
{
	from_host(ctx, line, len);
}

static void on_broker(void *ctx)
{
	from_broker(ctx);
}

static void on_signal(void *ctx)
{
	log_info(NULL, "signalled: closing the run");
	begin_close(ctx);
}

static void check_deadlines(struct bridge *br);

/* Between waits: the request limits, and the end of the close wait. */
static long long claude_before_wait(void *ctx)
{
	struct bridge *br = ctx;
	long long left;

	check_deadlines(br);
	if (!br->closing) {
		long long attach = claude_deliver_tick(&br->cd);
		long long once = claude_once_tick(&br->once, claude_deliver_in_flight(&br->cd));
		if (once >= 0 && (attach < 0 || once < attach))
			attach = once;
		if (once != -2)
			return attach >= 0 && attach < 1000 ? attach : 1000;
		begin_close(br);
	}
	if (br->host.child.in >= 0 && (claude_deliver_settled(&br->cd) || hb_monotonic_ms() >= br->close_deadline_ms))
		close_host(br);
	if ((left = br->close_deadline_ms - hb_monotonic_ms()) > 0)
		return br->host.child.in >= 0 && left > 1000 ? 1000 : left;
	log_warn(NULL, "the host did not end within %d ms of close; killing its process group", br->close_wait_ms);
	kill(-br->host.child.pid, SIGKILL);
	return -2;
}

static const struct pump_ops claude_pump = {
	on_desktop_line, on_desktop_done, on_host_line, on_broker, claude_before_wait, on_signal,
};

/* --once: nobody on stdin. */
static const struct pump_ops headless_pump = {
	NULL, NULL, on_host_line, on_broker, claude_before_wait, on_signal,
};

/* Desktop requests past their 35 seconds get an error of their own; a
 * link the broker did not answer in that time lets the open through. */
static void expire(void *value, void *arg)
{
	struct pending *p = value, **first = arg;

	if ((p->kind == P_DESKTOP || p->kind == P_LINK) && hb_monotonic_ms() >= p->deadline_ms && !*first)
		*first = p;
}

static void check_deadlines(struct bridge *br)
{
	for (;;) {
		struct pending *p = NULL;
		json_t *id, *err;

		hb_map_each(&br->pending, expire, &p);
		if (!p)
			return;
		if (p->kind == P_LINK) {
			log_warn(NULL, "the broker did not answer claude.link in time; the link may be missing");
			forget(br, p);
			announce_open(br);
			continue;
		}
		id = json_loads(p->desktop_id, JSON_DECODE_ANY, NULL);
		err = json_pack("{s:o, s:{s:s, s:s}}", "id", id ? id : json_null(), "error", "code", "timeout",
				"message", "the agent host did not answer in time (35 seconds)");
		send_json(STDOUT_FILENO, err);
		json_decref(err);
		if (p->send)
			claude_deliver_desktop_answered(&br->cd, 0);
		/* Keep the key so the late answer is dropped, not forwarded. */
		p->kind = P_OURS;
	}
}

/* A request answered at once, on the bridge's own connection: the run is
 * bound to the connection that opens it, so run.open must go on the one
 * that later carries the calls.  Used before and after the loop only. */
static int broker_request(struct hb_client *c, const char *op, const char *const *kv, json_t **out)
{
	struct hb_env req, reply;
	char err[256];
	int rc;

	hb_env_init(&req);
	hb_env_set_str(&req, "op", op);
	for (; kv && kv[0]; kv += 2)
		hb_env_set_str(&req, kv[0], kv[1]);
	rc = hb_client_request(c, &req, &reply, err, sizeof err);
	if (rc < 0 || !hb_env_bool(&reply, "ok", 0)) {
		log_error(NULL, "%s: %s", op, rc < 0 ? err : hb_env_str_or(&reply, "err.msg", "refused"));
		if (rc == 0)
			hb_env_free(&reply);
		return -1;
	}
	if (out)
		*out = json_loads(hb_env_str_or(&reply, "json", "{}"), 0, NULL);
	hb_env_free(&reply);
	return 0;
}

static int parse_options(struct options *o, int argc, char **argv)
{
	int i;

	memset(o, 0, sizeof *o);
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char **slot = strcmp(argv[i], "--session") == 0 ? &o->session
				  : strcmp(argv[i], "--run") == 0 ? &o->run
				  : strcmp(argv[i], "--project") == 0 ? &o->project
				  : strcmp(argv[i], "--access") == 0 ? &o->access
				  : strcmp(argv[i], "--claude-session") == 0 ? &o->claude_session
				  : strcmp(argv[i], "--model") == 0 ? &o->model
				  : strcmp(argv[i], "--effort") == 0 ? &o->effort : NULL;
		if (!slot && strcmp(argv[i], "--once") == 0) {
			o->once = 1; /* a flag: no value */
			continue;
		}
		if (!slot || i + 1 >= argc)
			return -1;
		*slot = argv[++i];
	}
	if (i + 1 >= argc || !o->session || !o->run || !o->project || !o->access)
		return -1;
	o->host_argv = argv + i + 1;
	return 0;
}

/* The open request's params from the catalog and the run (opened: the
 * broker's answer to run.open, with the session's model and effort). */
static json_t *open_params(const struct options *o, json_t *catalog, const json_t *opened)
{
	const char *mode = json_string_value(json_object_get(opened, "permissionMode"));
	const char *model = o->model ? o->model : json_string_value(json_object_get(opened, "model"));
	const char *effort = o->effort ? o->effort : json_string_value(json_object_get(opened, "effort"));
	json_t *tools = json_array(), *t, *params;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(catalog, "appCapabilities"), "tools"), i, t)
		json_array_append_new(tools, json_pack("{s:O, s:O, s:O, s:O}", "name", json_object_get(t, "name"),
						       "description", json_object_get(t, "description"),
						       "inputSchema", json_object_get(t, "inputSchema"),
						       "approval", json_object_get(t, "approval")));
	params = json_pack("{s:s, s:s, s:s, s:O, s:s, s:o}", "sessionId", o->claude_session, "cwd", o->project,
			   "permissionMode", mode, "allowedTools", json_object_get(catalog, "allowedTools"),
			   "appendSystemPrompt", HB_SESSION_MESSAGE_CLAUDE_RULE, "appCapabilities", tools);
	if (params && model)
		json_object_set_new(params, "model", json_string(model));
	if (params && effort)
		json_object_set_new(params, "effort", json_string(effort));
	return params;
}

static void clean_environment(void)
{
	for (const char *const *m = hb_claude_child_markers; *m; m++)
		unsetenv(*m);
}

/* The run's Claude account (page 003): the active one now, kept for the
 * whole run however the setting changes meanwhile; an added account's
 * folder becomes the host's CLAUDE_CONFIG_DIR.  0, or -1 (logged). */
static int choose_account(const char *run, char *account, size_t len)
{
	struct hb_paths paths;
	char dir[HB_PATH_MAX], err[640];

	if (hb_paths_resolve(&paths, err, sizeof err) < 0 ||
	    hb_claude_account_for_run(&paths, account, len, dir, sizeof dir, err, sizeof err) < 0) {
		log_error(NULL, "the run cannot start: %s", err);
		return -1;
	}
	if (*dir && setenv("CLAUDE_CONFIG_DIR", dir, 1) < 0) {
		log_error(NULL, "the run cannot start: %s", strerror(errno));
		return -1;
	}
	log_info(NULL, "run %s on Claude account %s", run, account);
	return 0;
}

int main(int argc, char **argv)
{
	struct bridge br;
	json_t *opened = NULL, *catalog = NULL;
	char err[512], uuid[40], account[HB_CLAUDE_ACCOUNT_NAME_MAX] = "";
	int status = 1;

	hb_log_init("hb-claude-bridge");
	/* Launched by hb-broker: its failures go on the status fd too. */
	hb_log_errors_to(hb_status_fd_take());
	/* The agent host it starts runs the model's commands: no secret of
	 * the user's may reach it. */
	hb_forget_secrets();
	memset(&br, 0, sizeof br);
	if (parse_options(&br.opt, argc, argv) < 0)
		return usage();
	br.request_limit_ms = hb_tunable(HB_T_HOST_REQUEST_MS);
	br.close_wait_ms = hb_tunable(HB_T_HOST_CLOSE_MS);
	signal(SIGPIPE, SIG_IGN);
	if (pump_catch_signals() < 0)
		log_warn(NULL, "cannot catch SIGTERM and SIGINT: %s", strerror(errno));
	if (!br.opt.claude_session) {
		/* A new conversation: a random UUID of our own. */
		if (hb_random_uuid(uuid, err, sizeof err) < 0) {
			log_error(NULL, "%s", err);
			return 111;
		}
		br.opt.claude_session = uuid;
	}
	if (hb_client_open(&br.broker, NULL, 5000, err, sizeof err) < 0) {
		log_error(NULL, "%s", err);
		return 1;
	}
	{
		/* The run's model, for the services its calls reach: --model,
		 * the same the host's open names (none: Claude Code's default,
		 * which the broker does not know). */
		const char *open_kv[] = { "session", br.opt.session, "run", br.opt.run, "project", br.opt.project,
					  "agent", "claude", "access", br.opt.access,
					  br.opt.model ? "model" : NULL, br.opt.model, NULL };
		const char *cat_kv[] = { "for", "claude", NULL };
		if (broker_request(&br.broker, HB_OP_RUN_OPEN, open_kv, &opened) < 0) {
			hb_client_close(&br.broker);
			return 1;
		}
		if (broker_request(&br.broker, "catalog", cat_kv, &catalog) < 0) {
			const char *kv[] = { "run", br.opt.run, NULL };
			broker_request(&br.broker, HB_OP_RUN_CLOSE, kv, NULL);
			hb_client_close(&br.broker);
			json_decref(opened);
			return 1;
		}
	}
	hb_map_init(&br.pending);
	claude_deliver_init(&br.cd, &br.broker, br.opt.session,
			    hb_tunable(HB_T_CLAUDE_FIRST_SEND_MS));
	claude_timeline_init(&br.broker);
	claude_once_init(&br.once, br.opt.once, hb_tunable(HB_T_ONCE_IDLE_MS));
	if (br.opt.once)
		claude_deliver_headless(&br.cd);
	clean_environment();
	if (choose_account(br.opt.run, account, sizeof account) < 0)
		goto end;
	if (line_child_start(&br.host, br.opt.host_argv, NULL, 0, err, sizeof err) < 0) {
		log_error(NULL, "%s", err);
		goto end;
	}
	host_request(&br, "open", open_params(&br.opt, catalog, opened));
	pump_run(&br.host, br.broker.sock, br.opt.once ? &headless_pump : &claude_pump, &br);
	/* Before the detach: reports need the attachment. */
	claude_deliver_host_gone(&br.cd, br.opt.host_argv, br.request_limit_ms);
	status = line_child_end(&br.host, 0); /* and whatever is left of its group */
end:
	{
		const char *kv[] = { "run", br.opt.run, NULL };
		/* Late answers to our requests may come first: skipped by id. */
		deliveries_detach(&br.cd.dl, 1);
		broker_request(&br.broker, HB_OP_RUN_CLOSE, kv, NULL);
	}
	while (br.pending.count)
		forget(&br, hb_map_any(&br.pending));
	hb_map_clear(&br.pending);
	claude_deliver_free(&br.cd);
	claude_timeline_free();
	if (*account)
		claude_usage_run_ended(account);
	json_decref(br.open_result);
	hb_client_close(&br.broker);
	json_decref(opened);
	json_decref(catalog);
	return status;
}
