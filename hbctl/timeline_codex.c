/*
 * timeline_codex - hbctl timeline --codex THREAD [--thread CHILD]
 * [--json|--plain]: a saved Codex thread as the shared timeline's rows
 * (docs/timeline.md), read from codex app-server (the setting codexPath,
 * as the broker starts it) and projected by the projectors the live
 * hb-codex-bridge uses (timeline/codex_threads.c).
 *
 * The thread's turns come from thread/turns/list, oldest first with every
 * item (codex's own paging; thread/read with its turns is deprecated for
 * paginated threads).  Each saved item goes through the projector as the
 * item/completed the live bridge saw, inside its turn's turn/started and
 * turn/completed, so the saved row has the live row's id ("codex:<item
 * id>": codex keeps item ids in its rollout) and replaces it in place.
 * A sub-agent's thread, named by a spawnAgent call, is read after the
 * thread that spawned it, so its rows get that spawn's depth + 1, and is
 * printed right after the spawn row; --thread prints one sub-agent's own
 * view.  At most TL_CODEX_THREADS threads, as live.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../timeline/codex_threads.h"
#include "agent_cmd.h"
#include "codex_client.h"
#include "hbctl.h"
#include "line_rpc.h"
#include "paths.h"
#include "rpc_frame.h"
#include "secrets.h"
#include "settings.h"
#include "since.h"
#include "timeline_view.h"

#define TURNS_PAGE 50
#define PAGES_MAX 4000		/* 200,000 turns: past that, a loop */

extern char **environ;

struct codex_read {
	struct line_rpc *rpc;
	struct tl_codex_threads threads;
	struct view views[TL_CODEX_THREADS];
	size_t nviews;
	json_t *spawned;	/* [[child thread, spawn row id], ...] not read yet */
};

/* An error answer's sentence on stderr: EXIT_FAIL. */
static int answer_failed(const char *what, const json_t *reply)
{
	const char *message = rpc_error_message(reply, NULL);

	fprintf(stderr, "hbctl: timeline: %s: %s\n", what, message ? message : "codex answered without a result");
	return EXIT_FAIL;
}

static struct line_rpc *start_codex(void)
{
	char program[HB_PATH_MAX], err[HB_AGENT_PROGRAM_ERR_MAX], **envp;
	char *argv[] = { program, "app-server", NULL };
	struct hb_paths paths;
	struct line_rpc *rpc;

	if (hb_paths_resolve(&paths, err, sizeof err) < 0) {
		fprintf(stderr, "hbctl: %s\n", err);
		return NULL;
	}
	if (agent_program(&paths, program, sizeof program, err, sizeof err) < 0) {
		fprintf(stderr, "hbctl: timeline: %s\n", err);
		return NULL;
	}
	if (!(envp = hb_env_without_secrets(environ, NULL))) {
		fprintf(stderr, "hbctl: out of memory\n");
		return NULL;
	}
	rpc = line_rpc_start(argv, envp, "codex app-server");
	free(envp);
	return rpc;
}

/* initialize and initialized.  0 or EXIT_FAIL. */
static int introduce(struct line_rpc *rpc)
{
	json_t *reply = NULL, *params = codex_initialize_params("hbctl", "hbctl timeline", "0.1.0");
	int rc = params ? line_rpc_call(rpc, "initialize", params, &reply) : EXIT_FAIL;

	json_decref(params);
	if (rc == 0 && !json_object_get(reply, "result"))
		rc = answer_failed("initialize", reply);
	json_decref(reply);
	if (rc == 0)
		line_rpc_notify(rpc, "initialized");
	return rc;
}

/* One saved notification through the threads into view v, its rows as
 * of when (seconds, -1: not known); steals note. */
static void project_note(struct codex_read *cr, struct view *v, json_t *note, long long when)
{
	json_t *rows = json_array(), *row;
	char err[300];
	size_t i;

	if (note && rows && tl_codex_threads_project(&cr->threads, note, rows, err, sizeof err) < 0)
		fprintf(stderr, "hbctl: timeline: a saved item was left out: %s\n", err);
	json_array_foreach(rows, i, row)
		view_put_at(v, json_incref(row), when);
	json_decref(rows);
	json_decref(note);
}

/* A spawnAgent item's children, to read after this thread. */
static void note_spawned(struct codex_read *cr, const json_t *item)
{
	const char *id = json_string_value(json_object_get(item, "id"));
	const json_t *spawned = tl_codex_spawned_threads(item), *child;
	char spawn[TL_ID_MAX];
	size_t i;

	if (!spawned || !id)
		return;
	snprintf(spawn, sizeof spawn, "codex:%s", id);
	json_array_foreach(spawned, i, child)
		if (json_is_string(child))
			json_array_append_new(cr->spawned, json_pack("[O, s]", child, spawn));
}

/* The time of a saved item or turn, seconds: codex's completedAtMs or
 * startedAtMs of an item, completedAt or startedAt of a turn; else dflt. */
static long long saved_time(const json_t *o, long long dflt)
{
	static const char *const ms[] = { "completedAtMs", "startedAtMs" }, *const s[] = { "completedAt", "startedAt" };

	for (size_t i = 0; i < 2; i++) {
		if (json_is_integer(json_object_get(o, ms[i])))
			return json_integer_value(json_object_get(o, ms[i])) / 1000;
		if (json_is_integer(json_object_get(o, s[i])))
			return json_integer_value(json_object_get(o, s[i]));
	}
	return dflt;
}

/* A saved turn as the notifications the live bridge saw. */
static void project_turn(struct codex_read *cr, struct view *v, const char *thread, json_t *turn)
{
	const char *tid = json_string_value(json_object_get(turn, "id"));
	long long started = json_is_integer(json_object_get(turn, "startedAt"))
				    ? json_integer_value(json_object_get(turn, "startedAt"))
				    : -1;
	json_t *item;
	size_t i;

	if (!tid)
		return;
	project_note(cr, v, json_pack("{s:s, s:{s:s, s:{s:s, s:O?}}}", "method", "turn/started", "params", "threadId",
				      thread, "turn", "id", tid, "rootTurnId", json_object_get(turn, "rootTurnId")),
		     started);
	json_array_foreach(json_object_get(turn, "items"), i, item) {
		note_spawned(cr, item);
		project_note(cr, v, json_pack("{s:s, s:{s:s, s:s, s:O}}", "method", "item/completed", "params",
					      "threadId", thread, "turnId", tid, "item", item),
			     saved_time(item, started));
	}
	project_note(cr, v, json_pack("{s:s, s:{s:s, s:O}}", "method", "turn/completed", "params", "threadId", thread,
				      "turn", turn),
		     saved_time(turn, started));
}

/* One thread's saved turns into v.  0 or EXIT_FAIL. */
static int read_thread(struct codex_read *cr, struct view *v, const char *thread)
{
	json_t *reply = NULL, *params = json_pack("{s:s}", "threadId", thread), *turn;
	const char *parent;
	char what[300], cursor[4096] = "";
	int rc = params ? line_rpc_call(cr->rpc, "thread/read", params, &reply) : EXIT_FAIL;
	size_t i;

	json_decref(params);
	snprintf(what, sizeof what, "no saved Codex thread %s (codex: thread/read)", thread);
	if (rc == 0 && !json_is_object(json_object_get(json_object_get(reply, "result"), "thread")))
		rc = answer_failed(what, reply);
	if (rc == 0) {
		parent = json_string_value(json_object_get(json_object_get(json_object_get(reply, "result"), "thread"),
							   "parentThreadId"));
		tl_codex_threads_link(&cr->threads, thread, parent);
	}
	json_decref(reply);
	for (int n = 0; rc == 0; n++) {
		const json_t *result, *next;

		if (n == PAGES_MAX) {
			fprintf(stderr, "hbctl: timeline: more than %d turns in thread %s; not read\n",
				PAGES_MAX * TURNS_PAGE, thread);
			return EXIT_FAIL;
		}
		params = json_pack("{s:s, s:s, s:s, s:i}", "threadId", thread, "sortDirection", "asc", "itemsView",
				   "full", "limit", TURNS_PAGE);
		if (params && *cursor)
			json_object_set_new(params, "cursor", json_string(cursor));
		rc = params ? line_rpc_call(cr->rpc, "thread/turns/list", params, &reply) : EXIT_FAIL;
		json_decref(params);
		if (rc != 0)
			return rc;
		result = json_object_get(reply, "result");
		if (!json_is_array(json_object_get(result, "data"))) {
			snprintf(what, sizeof what, "the turns of thread %s (codex: thread/turns/list)", thread);
			rc = answer_failed(what, reply);
			json_decref(reply);
			return rc;
		}
		json_array_foreach(json_object_get(result, "data"), i, turn)
			project_turn(cr, v, thread, turn);
		next = json_object_get(result, "nextCursor");
		if (!json_is_string(next) || json_string_length(next) >= sizeof cursor || json_string_length(next) == 0) {
			json_decref(reply);
			return 0;
		}
		snprintf(cursor, sizeof cursor, "%s", json_string_value(next));
		json_decref(reply);
	}
	return rc;
}

/* The thread, then every sub-agent thread a read one spawned, each after
 * its parent (so with its depth).  0 or EXIT_FAIL. */
static int read_all(struct codex_read *cr, const char *thread)
{
	int rc;

	if (view_init(&cr->views[0]) < 0)
		return EXIT_FAIL;
	cr->nviews = 1;
	tl_codex_threads_link(&cr->threads, thread, NULL);
	if ((rc = read_thread(cr, &cr->views[0], thread)) != 0)
		return rc;
	while (rc == 0 && json_array_size(cr->spawned)) {
		json_t *next = json_incref(json_array_get(cr->spawned, 0));
		const char *child = json_string_value(json_array_get(next, 0));
		struct view *v = &cr->views[cr->nviews];
		size_t k;

		json_array_remove(cr->spawned, 0);
		for (k = 0; k < cr->nviews && strcmp(cr->views[k].thread, child) != 0; k++)
			;
		if (k < cr->nviews || strcmp(child, thread) == 0) {
			json_decref(next);	/* read already: a loop, or two spawns naming one thread */
			continue;
		}
		if (cr->nviews == TL_CODEX_THREADS) {
			fprintf(stderr, "hbctl: timeline: more than %d threads; thread %s and later ones are left out\n",
				TL_CODEX_THREADS, child);
			json_decref(next);
			break;
		}
		if (view_init(v) < 0) {
			json_decref(next);
			return EXIT_FAIL;
		}
		cr->nviews++;
		snprintf(v->thread, sizeof v->thread, "%s", child);
		snprintf(v->spawn, sizeof v->spawn, "%s", json_string_value(json_array_get(next, 1)));
		rc = read_thread(cr, v, child);
		json_decref(next);
	}
	return rc;
}


int cmd_timeline_codex(int argc, char **argv)
{
	const char *thread = NULL, *child = NULL;
	int json = 0, colour = isatty(STDOUT_FILENO), rc;
	struct codex_read *cr;
	long long since = 0;

	/* --codex THREAD, or --agent codex and THREAD */
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--codex") == 0 && i + 1 < argc && !thread)
			thread = argv[++i];
		else if (strcmp(argv[i], "--agent") == 0 && i + 1 < argc && strcmp(argv[i + 1], "codex") == 0)
			i++;
		else if (argv[i][0] != '-' && !thread)
			thread = argv[i];
		else if (strcmp(argv[i], "--since") == 0 && i + 1 < argc && (since = since_parse(argv[i + 1], time(NULL))) >= 0)
			i++;
		else if (strcmp(argv[i], "--json") == 0)
			json = 1;
		else if (strcmp(argv[i], "--plain") == 0)
			colour = 0;
		else if (strcmp(argv[i], "--thread") == 0 && i + 1 < argc)
			child = argv[++i];
		else
			return timeline_usage();
	}
	if (!thread)
		return timeline_usage();
	if (!(cr = calloc(1, sizeof *cr)) || !(cr->spawned = json_array())) {
		free(cr);
		fprintf(stderr, "hbctl: out of memory\n");
		return EXIT_FAIL;
	}
	tl_codex_threads_init(&cr->threads);
	if (!(cr->rpc = start_codex()))
		rc = EXIT_FAIL;
	else if ((rc = introduce(cr->rpc)) == 0)
		rc = read_all(cr, thread);
	line_rpc_end(cr->rpc, NULL);
	if (rc == 0 && child && views_print_thread(cr->views, cr->nviews, child, json, colour, since) < 0) {
		fprintf(stderr, "hbctl: timeline: no sub-agent of this thread has thread %s\n", child);
		rc = EXIT_FAIL;
	} else if (rc == 0 && !child) {
		views_print(cr->views, cr->nviews, json, colour, since);
	}
	for (size_t k = 0; k < cr->nviews; k++)
		view_free(&cr->views[k]);
	json_decref(cr->spawned);
	tl_codex_threads_free(&cr->threads);
	free(cr);
	return rc;
}
