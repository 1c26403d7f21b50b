/*
 * hbctl - status and administration of a running hb-broker.
 *
 *	hbctl status [--json]
 *	hbctl call TOOL 'JSON' [--session ID] [--run ID] [--call-id ID] [--timeout MS]
 *	hbctl watch [--text|--json] [--timeline [--session ID] [--agent A] [--thread THREAD] | TOPIC-PREFIX]
 *	                             (watch.c; the live view: watch_timeline.c)
 *	hbctl sessions [--json] [--agent A] [--all] [--since WHEN]   (sessions.c)
 *	hbctl restart|stop|start SVC
 *	hbctl replace SVC PATH
 *	hbctl catalog --for codex|claude
 *	hbctl settings ...          (settings.c)
 *	hbctl approvals|approve|decline   (approvals.c)
 *	hbctl messages [send|discard ID]  (messages.c)
 *	hbctl run open|stop|close ...
 *	hbctl claude METHOD ['JSON params']   (claude.c: one agent host read)
 *	hbctl usage [--agent A] [--json]      (usage.c: both agents' plan usage)
 *	hbctl timeline CLAUDE-SESSION --cwd DIR [--since WHEN] [--json|--plain]   (timeline.c: saved rows)
 *	hbctl timeline --codex THREAD [--since WHEN] [--json|--plain]   (timeline_codex.c: saved rows)
 *	hbctl timeline --session HB-SESSION [...]   (timeline_session.c: either, by the session)
 *	hbctl accounts [add|use|remove|login|logout ...]          (accounts.c: Claude accounts)
 *
 * Exit status: 0 done; 1 the broker answered with an error or the tool
 * failed; 2 no broker answers (said at once, never a hang: also when the
 * broker goes away during a call, see client.c); 100 usage.
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "hbctl.h"
#include "images.h"
#include "log.h"
#include "paths.h"
#include "sock.h"
#include "protocol.h"

/* A service's own summary (its report), on one line: a control
 * character (a newline in an error it quotes) shows as a space. */
static void print_summary(const char *name, const char *summary)
{
	printf("%s: ", name);
	for (const unsigned char *p = (const unsigned char *)summary; *p; p++)
		putchar(*p < 0x20 || *p == 0x7f ? ' ' : *p);
	putchar('\n');
}

/* A service's state as the table shows it: an idle one (start = demand)
 * says whether it ever ran and whether it was stopped for want of calls
 * (the LAST EXIT column says how it ended). */
static const char *state_text(const json_t *s, char *buf, size_t len)
{
	const char *state = json_string_value(json_object_get(s, "state"));

	if (!state || strcmp(state, "idle") != 0)
		return state ? state : "?";
	if (json_integer_value(json_object_get(s, "generation")) == 0)
		return "idle (not started)";
	if (!json_is_true(json_object_get(s, "stoppedIdle")))
		return "idle (not running)"; /* it ended, and no call waits for it */
	long long ms = json_integer_value(json_object_get(s, "idleMs"));
	if (ms % 1000)
		snprintf(buf, len, "idle (stopped after %lld ms)", ms);
	else
		snprintf(buf, len, "idle (stopped after %lld s)", ms / 1000);
	return buf;
}

static void print_status(const char *text)
{
	json_t *root = json_loads(text, 0, NULL), *svcs, *s, *br;
	size_t i;

	if (!root) {
		puts(text);
		return;
	}
	br = json_object_get(root, "broker");
	printf("hb-broker pid %lld, up %.1f s, %lld calls in flight, %s\n",
	       (long long)json_integer_value(json_object_get(br, "pid")),
	       (double)json_integer_value(json_object_get(br, "uptimeMs")) / 1000.0,
	       (long long)json_integer_value(json_object_get(br, "callsInFlight")),
	       json_string_value(json_object_get(br, "state")));
	printf("%-16s %-11s %8s %4s %8s %8s %8s  %s\n", "SERVICE", "STATE", "PID", "GEN", "RESTARTS",
	       "INFLIGHT", "SERVED", "LAST EXIT");
	svcs = json_object_get(root, "services");
	json_array_foreach(svcs, i, s) {
		const json_t *pid = json_object_get(s, "pid"), *last = json_object_get(s, "lastExit");
		char pidbuf[24] = "-", state[64];

		if (json_is_integer(pid))
			snprintf(pidbuf, sizeof pidbuf, "%lld", (long long)json_integer_value(pid));
		printf("%-16s %-11s %8s %4lld %8lld %8lld %8lld  %s\n",
		       json_string_value(json_object_get(s, "name")), state_text(s, state, sizeof state), pidbuf,
		       (long long)json_integer_value(json_object_get(s, "generation")),
		       (long long)json_integer_value(json_object_get(s, "restarts")),
		       (long long)json_integer_value(json_object_get(s, "callsInFlight")),
		       (long long)json_integer_value(json_object_get(s, "callsServed")),
		       json_is_string(last) ? json_string_value(last) : "-");
	}
	json_array_foreach(svcs, i, s) {
		const json_t *summary = json_object_get(json_object_get(s, "report"), "summary");
		const json_t *name = json_object_get(s, "name");

		if (json_is_string(summary) && json_is_string(name))
			print_summary(json_string_value(name), json_string_value(summary));
	}
	/* An idling service that its own word keeps up (its idleTask said it
	 * holds work): why it is not stopped for idleness. */
	json_array_foreach(svcs, i, s) {
		const json_t *why = json_object_get(s, "holdsWhy"), *name = json_object_get(s, "name");
		char line[320];

		if (json_is_true(json_object_get(s, "holdsWork")) && json_is_string(why) && json_is_string(name)) {
			snprintf(line, sizeof line, "stays up while %s", json_string_value(why));
			print_summary(json_string_value(name), line);
		}
	}
	/* The agents the broker started for sessions no bridge carried. */
	json_array_foreach(json_object_get(root, "launches"), i, s) {
		const json_t *pid = json_object_get(s, "pid"), *reason = json_object_get(s, "reason");

		printf("launch: %s agent of session %s, %s", json_string_value(json_object_get(s, "agent")),
		       json_string_value(json_object_get(s, "session")), json_string_value(json_object_get(s, "state")));
		if (json_is_integer(pid))
			printf(", pid %lld", (long long)json_integer_value(pid));
		printf("%s%s\n", json_is_string(reason) ? ": " : "", json_is_string(reason) ? json_string_value(reason) : "");
	}
	json_decref(root);
}

static int cmd_status(int argc, char **argv)
{
	struct hb_env req, reply;
	int json_out = argc > 2 && strcmp(argv[2], "--json") == 0, rc;

	if (argc > 3 || (argc == 3 && !json_out))
		return usage();
	hb_env_init(&req);
	hb_env_set_str(&req, "op", HB_OP_STATUS);
	if ((rc = request(&req, &reply, 2000)) != 0)
		return rc;
	if (json_out)
		puts(hb_env_str_or(&reply, "json", "{}"));
	else
		print_status(hb_env_str_or(&reply, "json", "{}"));
	hb_env_free(&reply);
	return 0;
}

/* A line per image of an answer (the bytes are for an agent's model, not
 * a terminal); -1 when the images are not what images.h writes. */
static int print_images(const char *wire)
{
	char err[256];
	json_t *all = hb_images_parse(wire, err, sizeof err), *img;
	size_t i;

	if (!all) {
		fprintf(stderr, "hbctl: the answer's images cannot be read: %s\n", err);
		return -1;
	}
	json_array_foreach(all, i, img)
		printf("[image: %s, %zu bytes]\n", hb_image_mime(img), hb_image_size(img));
	json_decref(all);
	return 0;
}

static int cmd_call(int argc, char **argv)
{
	const char *session = "", *run = "", *call_id = "";
	struct hb_env req, reply;
	long timeout = 600000;
	int rc;

	if (argc < 4)
		return usage();
	for (int i = 4; i < argc; i++) {
		if (strcmp(argv[i], "--session") == 0 && i + 1 < argc)
			session = argv[++i];
		else if (strcmp(argv[i], "--run") == 0 && i + 1 < argc)
			run = argv[++i];
		else if (strcmp(argv[i], "--call-id") == 0 && i + 1 < argc)
			call_id = argv[++i];
		else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc)
			timeout = strtol(argv[++i], NULL, 10);
		else
			return usage();
	}
	if (timeout <= 0 || timeout > INT_MAX)
		return usage();
	hb_env_init(&req);
	hb_env_set_str(&req, "op", HB_OP_CALL);
	hb_env_set_str(&req, "tool", argv[2]);
	hb_env_set_str(&req, "json", argv[3]);
	hb_env_set_str(&req, "session", session);
	hb_env_set_str(&req, "run", run);
	hb_env_set_str(&req, "call_id", call_id);
	if ((rc = request_limited(&req, &reply, (int)timeout, "hbctl's own --timeout")) != 0)
		return rc;
	puts(hb_env_str_or(&reply, "text", ""));
	rc = hb_env_bool(&reply, "ok", 0) ? 0 : EXIT_FAIL;
	if (hb_env_str(&reply, "images") && print_images(hb_env_str(&reply, "images")) < 0)
		rc = EXIT_FAIL;
	hb_env_free(&reply);
	return rc;
}

static int cmd_service(int argc, char **argv)
{
	struct hb_env req, reply;
	char op[32];
	int rc, replace = strcmp(argv[1], "replace") == 0;

	if (argc != (replace ? 4 : 3))
		return usage();
	snprintf(op, sizeof op, "service.%s", argv[1]);
	hb_env_init(&req);
	hb_env_set_str(&req, "op", op);
	hb_env_set_str(&req, "service", argv[2]);
	if (replace)
		hb_env_set_str(&req, "path", argv[3]);
	/* restart and replace answer when the new process is ready. */
	if ((rc = request(&req, &reply, 30000)) != 0)
		return rc;
	puts(hb_env_str_or(&reply, "json", "{}"));
	hb_env_free(&reply);
	return 0;
}

/* hbctl run open ID --session S --project DIR --agent A --access L
 * [--model M]: what the desktop does when a turn starts; the run stays
 * open until closed. */
static int run_open(int argc, char **argv, struct hb_env *req)
{
	static const char *const opts[] = { "--session", "--project", "--agent", "--access", "--model" };
	const size_t nopts = sizeof opts / sizeof opts[0];

	if (argc != 12 && argc != 14)
		return -1;
	hb_env_set_str(req, "op", HB_OP_RUN_OPEN);
	hb_env_set_str(req, "run", argv[3]);
	for (int i = 4; i < argc; i += 2) {
		size_t k;
		for (k = 0; k < nopts && strcmp(argv[i], opts[k]) != 0; k++)
			;
		if (k == nopts || hb_env_get(req, opts[k] + 2))
			return -1;
		hb_env_set_str(req, opts[k] + 2, argv[i + 1]);
	}
	return 0;
}

/* hbctl run stop|close ID: what the desktop's stop button does. */
static int cmd_run(int argc, char **argv)
{
	struct hb_env req, reply;
	int rc;

	hb_env_init(&req);
	if (argc >= 3 && strcmp(argv[2], "open") == 0) {
		if (run_open(argc, argv, &req) < 0)
			return usage();
	} else if (argc != 4 || (strcmp(argv[2], "stop") != 0 && strcmp(argv[2], "close") != 0)) {
		return usage();
	} else {
		hb_env_set_str(&req, "op", strcmp(argv[2], "stop") == 0 ? HB_OP_RUN_STOP : HB_OP_RUN_CLOSE);
		hb_env_set_str(&req, "run", argv[3]);
	}
	if ((rc = request(&req, &reply, 5000)) != 0)
		return rc;
	puts(hb_env_str_or(&reply, "json", "{}"));
	hb_env_free(&reply);
	return 0;
}

static int cmd_catalog(int argc, char **argv)
{
	struct hb_env req, reply;
	int rc;

	if (argc != 4 || strcmp(argv[2], "--for") != 0)
		return usage();
	hb_env_init(&req);
	hb_env_set_str(&req, "op", HB_OP_CATALOG);
	hb_env_set_str(&req, "for", argv[3]);
	if ((rc = request(&req, &reply, 2000)) != 0)
		return rc;
	puts(hb_env_str_or(&reply, "json", "{}"));
	hb_env_free(&reply);
	return 0;
}

/* hbctl timeline: an HB Code session's conversation (--session), a saved
 * Codex thread (--codex THREAD, --agent codex THREAD), else a saved Claude
 * conversation. */
static int cmd_timeline(int argc, char **argv)
{
	for (int i = 2; i < argc; i++)
		if (strcmp(argv[i], "--session") == 0)
			return timeline_of_session(argc, argv);
	for (int i = 2; i < argc; i++)
		if (strcmp(argv[i], "--codex") == 0 ||
		    (strcmp(argv[i], "--agent") == 0 && i + 1 < argc && strcmp(argv[i + 1], "codex") == 0))
			return cmd_timeline_codex(argc, argv);
	return cmd_timeline_claude(argc, argv);
}

int main(int argc, char **argv)
{
	hb_log_init("hbctl");
	if (argc < 2)
		return usage();
	if (strcmp(argv[1], "status") == 0)
		return cmd_status(argc, argv);
	if (strcmp(argv[1], "call") == 0)
		return cmd_call(argc, argv);
	if (strcmp(argv[1], "watch") == 0)
		return cmd_watch(argc, argv);
	if (strcmp(argv[1], "sessions") == 0)
		return cmd_sessions(argc, argv);
	if (strcmp(argv[1], "catalog") == 0)
		return cmd_catalog(argc, argv);
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc, argv);
	if (strcmp(argv[1], "settings") == 0)
		return cmd_settings(argc, argv);
	if (strcmp(argv[1], "messages") == 0)
		return cmd_messages(argc, argv);
	if (strcmp(argv[1], "claude") == 0)
		return cmd_claude(argc, argv);
	if (strcmp(argv[1], "usage") == 0)
		return cmd_usage(argc, argv);
	if (strcmp(argv[1], "timeline") == 0)
		return cmd_timeline(argc, argv);
	if (strcmp(argv[1], "accounts") == 0)
		return cmd_accounts(argc, argv);
	if (strcmp(argv[1], "approvals") == 0 || strcmp(argv[1], "approve") == 0 ||
	    strcmp(argv[1], "decline") == 0)
		return cmd_approvals(argc, argv);
	if (strcmp(argv[1], "restart") == 0 || strcmp(argv[1], "replace") == 0 ||
	    strcmp(argv[1], "stop") == 0 || strcmp(argv[1], "start") == 0)
		return cmd_service(argc, argv);
	return usage();
}
