/*
 * hb-codex-bridge - sits on the stdio pipe of `codex app-server`.
 *
 *	hb-codex-bridge [--session ID] -- codex app-server [ARGS...]
 *	hb-codex-bridge --session ID --resume THREAD --access LEVEL [--model M] [--effort E] --once
 *	                -- codex app-server
 *
 * The second form is the broker's launcher's (codex_once.c): no caller,
 * the bridge resumes the session's thread itself (with the session's
 * model), carries in the messages the broker hands it (turns with the
 * session's model and effort) and ends when their turns have ended.
 *
 * Every line passes through both ways, in order and byte for byte, except:
 * - the caller's `initialize` gets capabilities.experimentalApi = true
 *   when missing (dynamicTools needs it);
 * - a `thread/start` whose dynamicTools have no hbcode namespace gets the
 *   catalog's (from the broker, read at that moment);
 * - every `item/tool/call` from the server is answered here, through the
 *   broker (codex.call); the caller never sees it;
 * - threads the server reports (thread/started, and the answers to
 *   thread/start, resume and fork) are linked to --session, or to their
 *   parent for a fork or a sub-agent, through the broker (thread.link).
 * - the model of each thread, as the server reports it (those answers,
 *   thread/started, and thread/settings/updated, which also follows a
 *   turn/start that names another model), goes with the thread's tool
 *   calls, so that a service knows which model it answers (codex.call's
 *   model).
 * - the server's notifications of the session's threads become rows of
 *   the shared timeline, published through the broker (codex_timeline.c);
 * - the plan's rate limits it reports (account/rateLimits/updated) are
 *   kept for hbctl usage (claude_usage.h).
 * It ends with the server, with the server's exit status, and detaches its
 * session then.  The end of its input closes the server's; SIGTERM or
 * SIGINT does that too and sends the server SIGTERM (SIGKILL after 10 s).
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

#include "access.h"
#include "child.h"
#include "claude_usage.h"
#include "client.h"
#include "clock.h"
#include "codex_bridge.h"
#include "codex_client.h"
#include "dialect.h"
#include "lines.h"
#include "rpc_frame.h"
#include "pump.h"
#include "log.h"
#include "secrets.h"
#include "map.h"
#include "sock.h"
#include "status_fd.h"
#include "protocol.h"

/* A request sent to the broker, waiting for its answer. */
struct pending {
	char key[24];                   /* the broker request id, as text */
	char *rpcid;                    /* a tool call: the server's JSON-RPC id, as JSON;
					   NULL for a thread link or a cancel */
	int link;                       /* a thread link (tool calls wait for it) */
	char thread[200], turn[200], call[200];
};

/* A tool call that arrived while a thread link was on its way: sent once
 * the links are confirmed, so the broker never looks up a link that is
 * still being written. */
struct held {
	char *line;
	struct held *next;
};

/* The model a thread runs, by the server's latest word: never the
 * caller's request, which the server may refuse. */
struct thread_model {
	char thread[200];               /* the map's key */
	char model[128];
};

static void note_model(struct bridge *br, const char *thread, const char *model)
{
	struct thread_model *tm;

	/* No word (null: the server does not know), or more than a model id
	 * takes: the model stays as it was. */
	if (!thread || !model || !*model || strlen(thread) >= sizeof tm->thread || strlen(model) >= sizeof tm->model)
		return;
	if (!(tm = hb_map_get(&br->models, thread))) {
		if (!(tm = calloc(1, sizeof *tm)))
			return;
		memcpy(tm->thread, thread, strlen(thread) + 1);
		if (hb_map_put(&br->models, tm->thread, tm) < 0) {
			free(tm);
			return;
		}
	}
	memcpy(tm->model, model, strlen(model) + 1);
}

static int track(struct bridge *br, int64_t id, char *rpcid)
{
	struct pending *p = calloc(1, sizeof *p);

	if (!p)
		return -1;
	snprintf(p->key, sizeof p->key, "%lld", (long long)id);
	p->rpcid = rpcid;
	if (hb_map_put(&br->pending, p->key, p) < 0) {
		free(p);
		return -1;
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: hb-codex-bridge [--session ID] -- codex app-server [ARGS...]\n"
			"       hb-codex-bridge --session ID --resume THREAD --access LEVEL [--model M] [--effort E] --once\n"
			"                       -- codex app-server\n"
			"  LEVEL: read-only, full-auto, full-access or unrestricted\n");
	return 100;
}

static void to_server(struct bridge *br, const char *line, size_t len)
{
	if (line_child_send_text(&br->server, line, len) < 0)
		log_warn(NULL, "cannot write to the server: %s", strerror(errno));
}

static void to_caller(struct bridge *br, const char *line, size_t len)
{
	if (br->once)
		return; /* nobody is there: stdout is a log */
	if (write_line(STDOUT_FILENO, line, len) < 0)
		log_warn(NULL, "cannot write to the caller: %s", strerror(errno));
}

/* Answer the server's item/tool/call ourselves: a tool result, never a
 * JSON-RPC error (the model would only see "dynamic tool request failed"). */
static void answer_tool_call(struct bridge *br, json_t *rpcid, const char *text)
{
	char *id = json_dumps(rpcid, JSON_COMPACT | JSON_ENCODE_ANY);
	char *ans = id ? dialect_codex_answer(id, 0, text, NULL) : NULL;

	if (!ans || line_child_send_text(&br->server, ans, strlen(ans)) < 0)
		log_warn(NULL, "cannot answer the server's tool call");
	free(ans);
	free(id);
}

static void send_tool_call(struct bridge *br, json_t *msg, const char *line)
{
	json_t *params = json_object_get(msg, "params");
	const char *thread = json_string_value(json_object_get(params, "threadId"));
	struct thread_model *tm = thread ? hb_map_get(&br->models, thread) : NULL;
	struct hb_env req;
	char err[256], *rpcid;
	int64_t id;

	hb_env_init(&req);
	hb_env_set_str(&req, "op", HB_OP_CODEX_CALL);
	hb_env_set_str(&req, "json", line);
	if (tm)
		hb_env_set_str(&req, "model", tm->model);
	if (!br->broker_ok || hb_client_send(&br->broker, &req, &id, err, sizeof err) < 0) {
		answer_tool_call(br, json_object_get(msg, "id"),
				 "HB Code's tool broker is not running, so the tool could not run. Try the call again.");
		return;
	}
	rpcid = json_dumps(json_object_get(msg, "id"), JSON_COMPACT | JSON_ENCODE_ANY);
	if (!rpcid || track(br, id, rpcid) < 0) {
		free(rpcid);
		log_error(NULL, "out of memory tracking a tool call");
		return;
	}
	{
		/* What turn/interrupt needs to find it again. */
		const char *turn = json_string_value(json_object_get(params, "turnId"));
		const char *callid = json_string_value(json_object_get(params, "callId"));
		char key[24];
		struct pending *p;
		snprintf(key, sizeof key, "%lld", (long long)id);
		p = hb_map_get(&br->pending, key);
		snprintf(p->thread, sizeof p->thread, "%s", thread ? thread : "");
		snprintf(p->turn, sizeof p->turn, "%s", turn ? turn : "");
		snprintf(p->call, sizeof p->call, "%s", callid ? callid : "");
	}
}

/* Link a thread; tool calls wait until the broker confirms it. */
static void link_thread(struct bridge *br, const char *thread, const char *session, const char *parent)
{
	struct hb_env req;
	char err[256];
	int64_t id;

	if (!br->broker_ok)
		return;
	hb_env_init(&req);
	hb_env_set_str(&req, "op", HB_OP_THREAD_LINK);
	hb_env_set_str(&req, "threadId", thread);
	if (parent)
		hb_env_set_str(&req, "parentThreadId", parent);
	else
		hb_env_set_str(&req, "sessionId", session);
	if (hb_client_send(&br->broker, &req, &id, err, sizeof err) < 0) {
		log_warn(NULL, "cannot link thread %s: %s", thread, err);
		return;
	}
	if (track(br, id, NULL) == 0) {
		char key[24];
		snprintf(key, sizeof key, "%lld", (long long)id);
		((struct pending *)hb_map_get(&br->pending, key))->link = 1;
		br->links_pending++;
	}
}

/* A thread object the server reported: link it, and note its model
 * (model: the answer's own, which names the model even where the thread
 * object has none; NULL for a notification). */
static void note_thread(struct bridge *br, json_t *thread, const char *model)
{
	const char *id = json_string_value(json_object_get(thread, "id"));
	const char *parent = json_string_value(json_object_get(thread, "parentThreadId"));

	note_model(br, id, model ? model : json_string_value(json_object_get(thread, "model")));

	if (!parent)
		parent = json_string_value(json_object_get(thread, "forkedFromId"));
	if (!id)
		return;
	codex_timeline_thread(br, id, parent);
	if (parent) {
		link_thread(br, id, NULL, parent);
	} else if (br->session) {
		link_thread(br, id, br->session, NULL);
		codex_deliver_thread(br, id);
	}
}

/* A sub-agent's thread has no thread/started (codex 0.171.0): the spawning
 * call names it, and its link makes it the session's like its parent. */
static void note_spawn(struct bridge *br, json_t *item)
{
	const char *sender = json_string_value(json_object_get(item, "senderThreadId"));
	const json_t *spawned = tl_codex_spawned_threads(item), *r;
	size_t i;

	if (!spawned || !sender)
		return;
	json_array_foreach(spawned, i, r)
		if (json_is_string(r))
			link_thread(br, json_string_value(r), NULL, sender);
}

static int has_hbcode_namespace(json_t *tools)
{
	json_t *t;
	size_t i;

	json_array_foreach(tools, i, t)
		if (json_is_string(json_object_get(t, "name")) &&
		    strcmp(json_string_value(json_object_get(t, "name")), "hbcode") == 0)
			return 1;
	return 0;
}

/* The catalog's dynamicTools, or NULL (then thread/start goes unchanged). */
static json_t *fetch_catalog(struct bridge *br)
{
	struct hb_env req, reply;
	char err[256];
	json_t *cat, *tools;

	if (!br->broker_ok)
		return NULL;
	hb_env_init(&req);
	hb_env_set_str(&req, "op", HB_OP_CATALOG);
	hb_env_set_str(&req, "for", "codex");
	/* Other replies may be in flight: hb_client_request skips them, so
	 * pending tool answers must not be lost; the catalog is asked on a
	 * socket of its own. */
	{
		struct hb_client c;
		if (hb_client_open(&c, NULL, 2000, err, sizeof err) < 0)
			return NULL;
		if (hb_client_request(&c, &req, &reply, err, sizeof err) < 0) {
			hb_client_close(&c);
			return NULL;
		}
		hb_client_close(&c);
	}
	cat = json_loads(hb_env_str_or(&reply, "json", ""), 0, NULL);
	hb_env_free(&reply);
	tools = json_incref(json_object_get(cat, "dynamicTools"));
	json_decref(cat);
	return tools;
}

struct interrupt_match {
	const char *thread, *turn;
	struct pending *found[64];
	int n;
};

static void match_turn(void *value, void *arg)
{
	struct pending *p = value;
	struct interrupt_match *m = arg;

	if (p->rpcid && m->n < 64 && strcmp(p->thread, m->thread) == 0 &&
	    (!*m->turn || strcmp(p->turn, m->turn) == 0))
		m->found[m->n++] = p;
}

/* turn/interrupt: the tool calls of that turn stop in their services too
 * (Codex itself only drops their late answers). */
static void cancel_turn(struct bridge *br, json_t *params)
{
	struct interrupt_match m = { json_string_value(json_object_get(params, "threadId")),
				     json_string_value(json_object_get(params, "turnId")), { 0 }, 0 };

	if (!m.thread || !br->broker_ok)
		return;
	if (!m.turn)
		m.turn = "";
	hb_map_each(&br->pending, match_turn, &m);
	for (int i = 0; i < m.n; i++) {
		struct hb_env req;
		char err[256] = "";
		int64_t id;
		hb_env_init(&req);
		hb_env_set_str(&req, "op", HB_OP_CODEX_CANCEL);
		hb_env_set_str(&req, "threadId", m.found[i]->thread);
		hb_env_set_str(&req, "callId", m.found[i]->call);
		if (hb_client_send(&br->broker, &req, &id, err, sizeof err) < 0 || track(br, id, NULL) < 0)
			log_warn(NULL, "cannot cancel call %s: %s", m.found[i]->call, err);
	}
}

/* A line from the caller (desktop) to the server. */
static void from_caller(struct bridge *br, char *line, size_t len)
{
	json_t *msg = json_loadb(line, len, 0, NULL), *params;
	const char *method = json_string_value(json_object_get(msg, "method"));

	if (msg && codex_deliver_refuse(br, msg)) {
		json_decref(msg);
		return;
	}
	if (method && strcmp(method, "turn/interrupt") == 0)
		cancel_turn(br, json_object_get(msg, "params"));
	if (method && strcmp(method, "initialize") == 0) {
		if (codex_initialize_ensure_experimental(json_object_get(msg, "params"))) {
			(void)rpc_frame_write(br->server.child.in, msg);
			json_decref(msg);
			return;
		}
	} else if (method && strcmp(method, "thread/start") == 0) {
		json_t *tools;
		params = json_object_get(msg, "params");
		tools = json_object_get(params, "dynamicTools");
		if (json_is_object(params) && !has_hbcode_namespace(tools)) {
			json_t *cat = fetch_catalog(br);
			if (cat) {
				if (!json_is_array(tools))
					json_object_set_new(params, "dynamicTools", tools = json_array());
				json_array_extend(tools, cat);
				json_decref(cat);
				(void)rpc_frame_write(br->server.child.in, msg);
				json_decref(msg);
				return;
			}
		}
	}
	json_decref(msg);
	to_server(br, line, len);
}

/* A line from the server to the caller. */
/* The plan's rate limits as codex reports them after its model's answers:
 * kept for hbctl usage (claude_usage.h).  A report without a window (an
 * API key's, or a provider that sends none) replaces nothing. */
static void note_rate_limits(const json_t *limits)
{
	struct hb_paths paths;
	char err[512];

	if (!json_is_object(json_object_get(limits, "primary")) && !json_is_object(json_object_get(limits, "secondary")))
		return;
	if (hb_paths_resolve(&paths, err, sizeof err) < 0 ||
	    hb_codex_usage_store(&paths, limits, time(NULL), err, sizeof err) < 0)
		log_warn(NULL, "Codex's rate limits are not kept for hbctl usage: %s", err);
}

static void from_server(struct bridge *br, const char *line, size_t len)
{
	json_t *msg = json_loadb(line, len, 0, NULL), *params = json_object_get(msg, "params");
	const char *method = json_string_value(json_object_get(msg, "method"));
	json_t *ns = json_object_get(params, "namespace");

	if (msg) {
		codex_timeline_note(br, msg);
		codex_approval_note(br, msg);
	}
	if (msg && br->once && codex_once_from_server(br, msg)) {
		json_decref(msg);
		return; /* --once's own requests, and those nobody can answer */
	}
	if (msg && codex_deliver_from_server(br, msg)) {
		json_decref(msg);
		return; /* the answer to our own turn/start or turn/steer */
	}
	if (method && strcmp(method, "item/tool/call") == 0 && json_object_get(msg, "id") &&
	    (!ns || json_is_null(ns) || (json_is_string(ns) && strcmp(json_string_value(ns), "hbcode") == 0))) {
		struct held *h;
		if (!br->links_pending)
			send_tool_call(br, msg, line);
		else if ((h = calloc(1, sizeof *h)) && (h->line = strdup(line))) {
			*br->held_tail = h;
			br->held_tail = &h->next;
		} else {
			free(h);
			answer_tool_call(br, json_object_get(msg, "id"), "out of memory in hb-codex-bridge");
		}
		json_decref(msg);
		return; /* the caller never sees it */
	}
	if (method && strcmp(method, "thread/started") == 0)
		note_thread(br, json_object_get(params, "thread"), NULL);
	else if (method && strcmp(method, "item/completed") == 0)
		note_spawn(br, json_object_get(params, "item"));
	else if (method && strcmp(method, "thread/settings/updated") == 0)
		note_model(br, json_string_value(json_object_get(params, "threadId")),
			   json_string_value(json_object_get(json_object_get(params, "threadSettings"), "model")));
	else if (method && strcmp(method, "account/rateLimits/updated") == 0)
		note_rate_limits(json_object_get(params, "rateLimits"));
	else if (!method && json_is_object(json_object_get(json_object_get(msg, "result"), "thread")))
		note_thread(br, json_object_get(json_object_get(msg, "result"), "thread"),
			    json_string_value(json_object_get(json_object_get(msg, "result"), "model")));
	json_decref(msg);
	to_caller(br, line, len);
}

/* The links are in: send the tool calls that waited for them. */
static void release_held(struct bridge *br)
{
	while (br->held && !br->links_pending) {
		struct held *h = br->held;
		json_t *msg = json_loads(h->line, 0, NULL);
		br->held = h->next;
		if (!br->held)
			br->held_tail = &br->held;
		if (msg)
			send_tool_call(br, msg, h->line);
		json_decref(msg);
		free(h->line);
		free(h);
	}
}

/* A delivery from the broker: a message for the session. */
static void on_delivery(void *ctx, const struct hb_env *msg)
{
	codex_deliver(ctx, msg);
}

/* The broker's answer to request id: an approval card, a thread link, a
 * cancel or a tool call of ours. */
static void on_answer(void *ctx, int64_t id, const struct hb_env *reply)
{
	struct bridge *br = ctx;
	struct pending *p;
	char key[32];

	if (codex_approval_answer(br, id, reply))
		return;
	snprintf(key, sizeof key, "%lld", (long long)id);
	if ((p = hb_map_get(&br->pending, key)) && !p->rpcid) {
		if (hb_env_str(reply, "err.msg"))
			log_warn(NULL, "%s refused: %s", p->link ? "thread link" : "cancel", hb_env_str(reply, "err.msg"));
		hb_map_del(&br->pending, key);
		if (p->link) {
			br->links_pending--;
			free(p);
			release_held(br);
		} else {
			free(p);
		}
	} else if (p) {
		const char *native = hb_env_str(reply, "json");
		if (native) {
			if (line_child_send_text(&br->server, native, strlen(native)) < 0)
				log_warn(NULL, "cannot answer the server: %s", strerror(errno));
		} else {
			json_t *idv = json_loads(p->rpcid, JSON_DECODE_ANY, NULL);
			answer_tool_call(br, idv, hb_env_str_or(reply, "err.msg", "the tool call failed"));
			json_decref(idv);
		}
		hb_map_del(&br->pending, key);
		free(p->rpcid);
		free(p);
	} else if (hb_env_str(reply, "err.msg")) {
		log_warn(NULL, "broker: %s", hb_env_str(reply, "err.msg"));
	}
}

static void from_broker(struct bridge *br)
{
	deliveries_drain(&br->dl, br->broker.sock, on_delivery, on_answer, br);
}

static void on_caller_line(void *ctx, char *line, size_t len)
{
	from_caller(ctx, line, len);
}

/* The caller is done: so is the server's input. */
static void on_caller_done(void *ctx)
{
	struct bridge *br = ctx;

	line_child_close_input(&br->server);
}

static void on_server_line(void *ctx, const char *line, size_t len)
{
	from_server(ctx, line, len);
}

static void on_broker(void *ctx)
{
	from_broker(ctx);
}

/* Signalled: the server ends as at the end of our input, and is told so;
 * one that does not end in STOP_WAIT_MS is killed. */
#define STOP_WAIT_MS 10000

static void on_signal(void *ctx)
{
	struct bridge *br = ctx;

	if (br->stop_deadline_ms)
		return;
	log_info(NULL, "signalled: ending codex app-server");
	on_caller_done(br);
	kill(br->server.child.pid, SIGTERM);
	br->stop_deadline_ms = hb_monotonic_ms() + STOP_WAIT_MS;
}

static long long before_wait(void *ctx)
{
	struct bridge *br = ctx;
	long long once = br->once ? codex_once_tick(br) : -1, wait, left;

	wait = codex_deliver_tick(br); /* attaches first: the rows are bound by it */
	codex_timeline_flush(br);      /* the rows of this wake-up, in one request */

	if (once >= 0 && (wait < 0 || once < wait))
		wait = once;
	if (!br->stop_deadline_ms)
		return wait;
	if ((left = br->stop_deadline_ms - hb_monotonic_ms()) <= 0) {
		log_warn(NULL, "codex app-server did not end within %d ms of SIGTERM; killing it", STOP_WAIT_MS);
		kill(br->server.child.pid, SIGKILL);
		return -2;
	}
	return wait >= 0 && wait < left ? wait : left;
}

static const struct pump_ops codex_pump = { on_caller_line, on_caller_done, on_server_line, on_broker,
					    before_wait, on_signal };
/* --once: no caller. */
static const struct pump_ops once_pump = { NULL, NULL, on_server_line, on_broker, before_wait, on_signal };

/* The options before "--"; the index of "--", or -1 (usage). */
static int parse_options(struct bridge *br, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--session") == 0 && i + 1 < argc)
			br->session = argv[++i];
		else if (strcmp(argv[i], "--resume") == 0 && i + 1 < argc)
			br->once_resume = argv[++i];
		else if (strcmp(argv[i], "--access") == 0 && i + 1 < argc)
			br->once_access = argv[++i];
		else if (strcmp(argv[i], "--model") == 0 && i + 1 < argc)
			br->once_model = argv[++i];
		else if (strcmp(argv[i], "--effort") == 0 && i + 1 < argc)
			br->once_effort = argv[++i];
		else if (strcmp(argv[i], "--once") == 0)
			br->once = 1;
		else
			return -1;
	}
	if (i + 1 >= argc)
		return -1;
	/* --resume and --access belong to --once, which needs all three. */
	if ((br->once || br->once_resume || br->once_access || br->once_model || br->once_effort) &&
	    (!br->once || !br->session || !*br->session || !br->once_resume || !*br->once_resume ||
	     hb_access_rank(br->once_access ? br->once_access : "") < 0))
		return -1;
	return i;
}

int main(int argc, char **argv)
{
	struct bridge br;
	char err[512];
	int i, status;

	hb_log_init("hb-codex-bridge");
	/* Launched by hb-broker: its failures go on the status fd too. */
	hb_log_errors_to(hb_status_fd_take());
	/* The agent it starts runs the model's commands: no secret of the
	 * user's may reach it. */
	hb_forget_secrets();
	memset(&br, 0, sizeof br);
	if ((i = parse_options(&br, argc, argv)) < 0)
		return usage();
	signal(SIGPIPE, SIG_IGN);
	if (pump_catch_signals() < 0)
		log_warn(NULL, "cannot catch SIGTERM and SIGINT: %s", strerror(errno));
	hb_map_init(&br.pending);
	hb_map_init(&br.models);
	hb_map_init(&br.approvals);
	hb_map_init(&br.file_items);
	br.held_tail = &br.held;
	br.broker_ok = hb_client_open(&br.broker, NULL, 5000, err, sizeof err) == 0;
	if (!br.broker_ok)
		log_warn(NULL, "%s; hbcode tool calls will fail until it runs", err);
	deliveries_init(&br.dl, br.broker_ok ? &br.broker : NULL, br.session, "codex");
	codex_timeline_init(&br);
	if (line_child_start(&br.server, argv + i + 1, NULL, LINE_CHILD_OUR_GROUP, err, sizeof err) < 0) {
		log_error(NULL, "%s", err);
		return 111;
	}
	if (br.once)
		codex_once_start(&br);
	pump_run(&br.server, br.broker_ok ? br.broker.sock : NULL, br.once ? &once_pump : &codex_pump, &br);
	status = line_child_end(&br.server, 0);
	if (br.once_failed && status == 0)
		status = 1;
	codex_timeline_free(&br); /* the last rows, before the detach unbinds them */
	codex_deliver_close_runs(&br);
	deliveries_detach(&br.dl, 1);
	while (br.pending.count) {
		struct pending *p = hb_map_any(&br.pending);
		hb_map_del(&br.pending, p->key);
		free(p->rpcid);
		free(p);
	}
	hb_map_clear(&br.pending);
	codex_approval_free(&br);
	while (br.models.count)
		free(hb_map_del(&br.models, ((struct thread_model *)hb_map_any(&br.models))->thread));
	hb_map_clear(&br.models);
	while (br.held) { /* tool calls whose links never came: the server is gone */
		struct held *h = br.held;
		br.held = h->next;
		free(h->line);
		free(h);
	}
	codex_deliver_free(&br);
	if (br.broker_ok)
		hb_client_close(&br.broker);
	return status;
}
