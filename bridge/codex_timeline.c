/*
 * codex_timeline - hb-codex-bridge's part of the shared timeline
 * (docs/timeline.md): the server's notifications of the session's threads
 * through the Codex projector, one projector per thread (each keeps its
 * own open items), the rows published once per wake-up of the pump.
 *
 * A thread's depth comes from the links the bridge records anyway: its
 * own thread is 0, a sub-agent or fork one more than its parent.  Only a
 * bridge with --session publishes (the broker binds the rows to that
 * session's attachment; an unlinked thread has no session to show in).
 * The threads are bounded: past CODEX_TL_THREADS, a new thread's rows are
 * not projected (logged once), so a flood of sub-agents cannot grow the
 * bridge.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../timeline/project.h"
#include "codex.h"
#include "log.h"

#define CODEX_TL_THREADS 64

struct tl_thread {
	char id[200];                   /* the map's key */
	struct tl_codex st;
};

void codex_timeline_init(struct bridge *br)
{
	hb_map_init(&br->tl_threads);
	tl_pub_init(&br->tl_pub, br->session && br->broker_ok ? &br->broker : NULL, "codex");
}

/* The thread's projector, made with depth when new; NULL past the bound. */
static struct tl_thread *thread_of(struct bridge *br, const char *thread, int depth)
{
	struct tl_thread *t = hb_map_get(&br->tl_threads, thread);

	if (t || strlen(thread) >= sizeof t->id)
		return t;
	if (br->tl_threads.count >= CODEX_TL_THREADS) {
		if (!br->tl_full++)
			log_warn(NULL, "more than %d threads: the timeline shows no rows of thread %s or later ones",
				 CODEX_TL_THREADS, thread);
		return NULL;
	}
	if (!(t = calloc(1, sizeof *t)))
		return NULL;
	memcpy(t->id, thread, strlen(thread) + 1);
	tl_codex_init(&t->st, depth);
	if (hb_map_put(&br->tl_threads, t->id, t) < 0) {
		tl_codex_free(&t->st);
		free(t);
		return NULL;
	}
	return t;
}

void codex_timeline_thread(struct bridge *br, const char *thread, const char *parent)
{
	struct tl_thread *p = parent ? hb_map_get(&br->tl_threads, parent) : NULL;
	int depth = !parent ? 0 : p ? p->st.depth + 1 : 1;

	if (!br->tl_pub.broker || !thread)
		return;
	if (depth > TL_DEPTH_MAX)
		depth = TL_DEPTH_MAX;
	(void)thread_of(br, thread, depth);
}

void codex_timeline_note(struct bridge *br, const json_t *msg)
{
	const char *thread = json_string_value(json_object_get(json_object_get(msg, "params"), "threadId"));
	struct tl_thread *t;
	json_t *rows;
	char err[200];

	/* Notifications only: a request of the server has an id. */
	if (!br->tl_pub.broker || !thread || json_object_get(msg, "id") ||
	    !json_is_string(json_object_get(msg, "method")))
		return;
	/* A thread never reported (its start came before a restart of ours)
	 * is shown as the conversation's own. */
	if (!(t = thread_of(br, thread, 0)) || !(rows = json_array()))
		return;
	if (tl_codex_project(&t->st, msg, rows, err, sizeof err) < 0)
		log_debug(NULL, "timeline: %s", err);
	tl_pub_add(&br->tl_pub, rows);
	json_decref(rows);
}

void codex_timeline_flush(struct bridge *br)
{
	tl_pub_flush(&br->tl_pub);
}

void codex_timeline_free(struct bridge *br)
{
	tl_pub_flush(&br->tl_pub);
	while (br->tl_threads.count) {
		struct tl_thread *t = hb_map_any(&br->tl_threads);
		hb_map_del(&br->tl_threads, t->id);
		tl_codex_free(&t->st);
		free(t);
	}
	hb_map_clear(&br->tl_threads);
	tl_pub_free(&br->tl_pub);
}
