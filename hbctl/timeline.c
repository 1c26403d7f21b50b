/*
 * timeline - hbctl timeline CLAUDE-SESSION --cwd DIR [--thread CALL]
 * [--json|--plain]: a saved Claude conversation as the shared timeline's
 * rows (docs/timeline.md), read through one one-shot agent host
 * (claude_host.c) and projected by the same projector the live bridge
 * uses (timeline/).
 *
 * That is page 003's history path: the host pages the transcript
 * (history, 100 messages a page, joined and with empty messages dropped),
 * each saved message is projected, and a row whose id came before (a tool
 * call its result completes) replaces that row in place.  Because a live
 * row and its saved row take their identity from the same API message id
 * or tool call id, these are the rows that replace the live ones.  Each
 * subagent's saved transcript (subagents, subagentHistory) is projected
 * after the conversation that spawned it, so its rows get the depth of
 * its spawn row, and is printed right after that spawn row; --thread
 * prints one subagent's own view (page 003: a subagent is a child thread
 * with a view of its own), the spawn row's link.thread naming it.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../timeline/project.h"
#include "claude_account.h"
#include "hbctl.h"
#include "since.h"
#include "timeline_view.h"

#define PAGE_LIMIT 100		/* the host's largest page */
#define PAGES_MAX 2000		/* 200,000 messages: past that, a loop */
#define SUBAGENTS_MAX 1000

/* The rows of each message of msgs, in order, into v, each as of its
 * message's time (for --since). */
static void view_project(struct view *v, struct tl_claude *st, const json_t *msgs)
{
	const json_t *msg, *row;
	char err[256];
	size_t i, j;

	json_array_foreach(msgs, i, msg) {
		json_t *rows = json_array();

		if (!rows)
			return;
		if (tl_claude_project(st, msg, rows, err, sizeof err) < 0)
			fprintf(stderr, "hbctl: timeline: a saved message was left out: %s\n", err);
		json_array_foreach(rows, j, row)
			view_put_at(v, json_incref((json_t *)row),
				    since_iso_utc(json_string_value(json_object_get(msg, "timestamp"))));
		json_decref(rows);
	}
}

/* An error reply's sentence on stderr: EXIT_FAIL. */
static int read_failed(const char *method, const json_t *reply)
{
	const json_t *error = json_object_get(reply, "error");
	const char *message = json_string_value(json_object_get(error, "message"));
	const char *code = json_string_value(json_object_get(error, "code"));

	fprintf(stderr, "hbctl: timeline: %s: %s (%s)\n", method,
		message ? message : "the agent host answered without a result", code ? code : "no code");
	return EXIT_FAIL;
}

/* history pages an unknown conversation as an empty one; inspect says
 * it is not there (not_found).  0 or EXIT_FAIL. */
static int conversation_exists(struct claude_host *h, const char *sid, const char *cwd)
{
	json_t *reply = NULL, *params = json_pack("{s:s, s:s}", "sessionId", sid, "cwd", cwd);
	int rc = params ? claude_host_read(h, "inspect", params, &reply) : EXIT_FAIL;

	json_decref(params);
	if (rc == 0 && !json_object_get(reply, "result"))
		rc = read_failed("inspect", reply);
	json_decref(reply);
	return rc;
}

/* Every saved message of the conversation (agent NULL) or of one
 * subagent, oldest first, into *out (caller frees).  0 or EXIT_FAIL. */
static int read_all(struct claude_host *h, const char *sid, const char *cwd, const char *agent, json_t **out)
{
	const char *method = agent ? "subagentHistory" : "history";
	json_t *pages = json_array(), *reply = NULL;
	char before[TL_ID_MAX] = "";
	int rc = EXIT_FAIL;
	size_t i;

	*out = json_array();
	for (int n = 0; pages && *out; n++) {
		json_t *params = json_pack("{s:s, s:s, s:i}", "sessionId", sid, "cwd", cwd, "limit", PAGE_LIMIT);
		const json_t *result, *msgs;
		const char *first;

		if (n == PAGES_MAX) {
			fprintf(stderr, "hbctl: timeline: more than %d messages; not read\n", PAGES_MAX * PAGE_LIMIT);
			break;
		}
		if (params && agent)
			json_object_set_new(params, "agentId", json_string(agent));
		if (params && *before)
			json_object_set_new(params, "before", json_string(before));
		if (!params || claude_host_read(h, method, params, &reply) != 0) {
			json_decref(params);
			break;
		}
		json_decref(params);
		result = json_object_get(reply, "result");
		if (json_is_true(json_object_get(result, "reload"))) {
			fprintf(stderr, "hbctl: timeline: the conversation changed while it was read (compacted or "
					"rewound); run hbctl timeline again\n");
			break;
		}
		if (!json_is_array(msgs = json_object_get(result, "messages"))) {
			read_failed(method, reply);
			break;
		}
		json_array_append(pages, (json_t *)msgs);
		first = json_string_value(json_object_get(json_array_get(msgs, 0), "uuid"));
		if (!json_is_true(json_object_get(result, "hasMore")) || !first || strlen(first) >= sizeof before) {
			rc = 0;
			break;
		}
		snprintf(before, sizeof before, "%s", first);
		json_decref(reply);
		reply = NULL;
	}
	json_decref(reply);
	/* pages came newest first; each page is oldest first */
	for (i = json_array_size(pages); rc == 0 && i > 0; i--)
		if (json_array_extend(*out, json_array_get(pages, i - 1)) < 0)
			rc = EXIT_FAIL;
	json_decref(pages);
	if (rc != 0 || !*out) {
		json_decref(*out);
		*out = NULL;
		return EXIT_FAIL;
	}
	return 0;
}

/* The subagents' views: views[0] is the conversation's, projected; each
 * subagent's messages are projected once its spawning call is known, so
 * a nested subagent gets its parent's depth + 1 (page 003). */
static int project_subagents(struct claude_host *h, const char *sid, const char *cwd, struct tl_claude *st,
			     struct view *views, size_t *nviews)
{
	json_t *reply = NULL, *params = json_pack("{s:s, s:s}", "sessionId", sid, "cwd", cwd), *msgs[SUBAGENTS_MAX];
	const json_t *ids, *id;
	size_t i, n = 0, left, progress;

	if (!params || claude_host_read(h, "subagents", params, &reply) != 0) {
		json_decref(params);
		return EXIT_FAIL;
	}
	json_decref(params);
	if (!json_is_array(ids = json_object_get(json_object_get(reply, "result"), "agentIds"))) {
		read_failed("subagents", reply);
		json_decref(reply);
		return EXIT_FAIL;
	}
	json_array_foreach(ids, i, id) {
		const char *parent;

		if (n == SUBAGENTS_MAX || !json_is_string(id))
			break;
		if (read_all(h, sid, cwd, json_string_value(id), &msgs[n]) != 0)
			break;
		*nviews = n + 2; /* the caller frees views[0 .. *nviews) */
		if (view_init(&views[n + 1]) < 0) {
			json_decref(msgs[n]);
			break;
		}
		parent = json_string_value(json_object_get(json_array_get(msgs[n], 0), "parent_tool_use_id"));
		snprintf(views[n + 1].spawn, sizeof views[n + 1].spawn, "claude:%s", parent ? parent : "");
		snprintf(views[n + 1].thread, sizeof views[n + 1].thread, "%s", parent ? parent : "");
		n++;
	}
	if (n < json_array_size(ids) && n < SUBAGENTS_MAX) {
		json_decref(reply);
		while (n > 0)
			json_decref(msgs[--n]);
		return EXIT_FAIL;
	}
	json_decref(reply);
	/* Outer subagents before inner ones; what no pass can place (its
	 * spawning call is not saved) is projected last, at depth 1. */
	for (left = n; left > 0;) {
		progress = 0;
		for (i = 0; i < n; i++) {
			struct view *v = &views[i + 1];

			if (!msgs[i] || !views_hold(views, *nviews, v->spawn))
				continue;
			view_project(v, st, msgs[i]);
			json_decref(msgs[i]);
			msgs[i] = NULL;
			left--, progress++;
		}
		for (i = 0; !progress && i < n; i++)
			if (msgs[i]) {
				view_project(&views[i + 1], st, msgs[i]);
				json_decref(msgs[i]);
				msgs[i] = NULL;
				left--;
				break;
			}
	}
	return 0;
}

int cmd_timeline_claude(int argc, char **argv)
{
	const char *sid = NULL, *cwd = NULL, *thread = NULL;
	char account[HB_CLAUDE_ACCOUNT_NAME_MAX];
	int json = 0, colour = isatty(STDOUT_FILENO), rc;
	long long since = 0;
	struct view *views;
	struct claude_host *h;
	struct tl_claude st;
	size_t nviews = 1;
	json_t *msgs;

	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--cwd") == 0 && i + 1 < argc)
			cwd = argv[++i];
		else if (strcmp(argv[i], "--agent") == 0 && i + 1 < argc && strcmp(argv[i + 1], "claude") == 0)
			i++;
		else if (strcmp(argv[i], "--since") == 0 && i + 1 < argc && (since = since_parse(argv[i + 1], time(NULL))) >= 0)
			i++;
		else if (strcmp(argv[i], "--json") == 0)
			json = 1;
		else if (strcmp(argv[i], "--plain") == 0)
			colour = 0;
		else if (strcmp(argv[i], "--thread") == 0 && i + 1 < argc)
			thread = argv[++i];
		else if (argv[i][0] != '-' && !sid)
			sid = argv[i];
		else
			return timeline_usage();
	}
	if (!sid || !cwd)
		return timeline_usage();
	if (accounts_use_active(account, sizeof account) < 0)
		return EXIT_FAIL;
	if (!(views = calloc(SUBAGENTS_MAX + 1, sizeof *views))) {
		fprintf(stderr, "hbctl: out of memory\n");
		return EXIT_FAIL;
	}
	if (!(h = claude_host_start(argv[0]))) {
		free(views);
		return EXIT_FAIL;
	}
	tl_claude_init(&st);
	rc = conversation_exists(h, sid, cwd);
	if (rc == 0)
		rc = read_all(h, sid, cwd, NULL, &msgs);
	if (rc == 0 && view_init(&views[0]) < 0) {
		json_decref(msgs);
		rc = EXIT_FAIL;
	}
	if (rc == 0) {
		view_project(&views[0], &st, msgs);
		json_decref(msgs);
		rc = project_subagents(h, sid, cwd, &st, views, &nviews);
	}
	claude_host_end(h);
	if (rc == 0 && thread && views_print_thread(views, nviews, thread, json, colour, since) < 0) {
		/* one subagent's own view: its rows and those of the subagents
		 * it started, after their spawn rows */
		fprintf(stderr, "hbctl: timeline: no subagent of this conversation was started by call %s\n", thread);
		rc = EXIT_FAIL;
	} else if (rc == 0 && !thread) {
		views_print(views, nviews, json, colour, since);
	}
	for (size_t k = 0; k < nviews; k++)
		view_free(&views[k]);
	free(views);
	tl_claude_free(&st);
	return rc;
}
