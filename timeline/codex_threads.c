/*
 * codex_threads - a Codex conversation's threads, each through its own
 * projector (each keeps its own open items), with the depth of page 003's
 * child threads: the conversation's own thread is 0, a sub-agent one more
 * than the thread that spawned it.
 *
 * Codex 0.171.0 reports no thread/started for a sub-agent's thread.  Its
 * parent is named by the spawning call: the collabAgentToolCall
 * "spawnAgent" item of the parent's thread lists the new thread in
 * receiverThreadIds.  The child's first turn may start before that item
 * completes (they run on their own), so a turn whose rootTurnId is
 * another turn's marks its thread as a sub-agent (depth 1) until the spawn
 * names the parent.  Kept here, not in the bridge, so that the golden
 * tests project recorded sub-agent runs exactly as the bridge does.
 *
 * Bounded: past TL_CODEX_THREADS, a new thread's rows are not projected
 * (said once), so a flood of sub-agents cannot grow the caller.
 */
#include "codex_threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tl_thread {
	char id[TL_ID_MAX];             /* the map's key */
	struct tl_codex st;
};

void tl_codex_threads_init(struct tl_codex_threads *ts)
{
	hb_map_init(&ts->map);
	ts->full = 0;
}

void tl_codex_threads_free(struct tl_codex_threads *ts)
{
	while (ts->map.count) {
		struct tl_thread *t = hb_map_any(&ts->map);
		hb_map_del(&ts->map, t->id);
		tl_codex_free(&t->st);
		free(t);
	}
	hb_map_clear(&ts->map);
}

/* The thread's projector, made with depth when new; NULL past the bound
 * (*full_now set the first time). */
static struct tl_thread *thread_of(struct tl_codex_threads *ts, const char *thread, int depth, int *full_now)
{
	struct tl_thread *t = hb_map_get(&ts->map, thread);

	if (t || strlen(thread) >= sizeof t->id)
		return t;
	if (ts->map.count >= TL_CODEX_THREADS) {
		if (!ts->full++ && full_now)
			*full_now = 1;
		return NULL;
	}
	if (!(t = calloc(1, sizeof *t)))
		return NULL;
	memcpy(t->id, thread, strlen(thread) + 1);
	tl_codex_init(&t->st, depth);
	if (hb_map_put(&ts->map, t->id, t) < 0) {
		tl_codex_free(&t->st);
		free(t);
		return NULL;
	}
	return t;
}

/* A sub-agent's thread: its depth, and its id on its rows (the spawn
 * row's link.thread, which a viewer of one sub-agent follows). */
static void mark_child(struct tl_thread *t, int depth)
{
	t->st.depth = depth;
	snprintf(t->st.thread, sizeof t->st.thread, "%s", t->id);
}

void tl_codex_threads_link(struct tl_codex_threads *ts, const char *thread, const char *parent)
{
	struct tl_thread *p = parent ? hb_map_get(&ts->map, parent) : NULL, *t;
	int depth = !parent ? 0 : p ? p->st.depth + 1 : 1;

	if (!thread)
		return;
	if (depth > TL_DEPTH_MAX)
		depth = TL_DEPTH_MAX;
	/* A parent, once named, is the truth; a thread reported without one
	 * (a resume of it) keeps what its spawn said. */
	if ((t = thread_of(ts, thread, depth, NULL)) && parent)
		mark_child(t, depth);
}

int tl_codex_threads_depth(const struct tl_codex_threads *ts, const char *thread)
{
	const struct tl_thread *t = thread ? hb_map_get(&ts->map, thread) : NULL;

	return t ? t->st.depth : -1;
}

const json_t *tl_codex_spawned_threads(const json_t *item)
{
	const char *type = json_string_value(json_object_get(item, "type"));
	const char *tool = json_string_value(json_object_get(item, "tool"));

	if (!type || strcmp(type, "collabAgentToolCall") != 0 || !tool || strcmp(tool, "spawnAgent") != 0)
		return NULL;
	return json_object_get(item, "receiverThreadIds");
}

/* The sub-agents a notification names: a spawn's receivers, and a turn
 * that belongs to another turn. */
static void note_children(struct tl_codex_threads *ts, const char *thread, const char *method,
			  const json_t *params)
{
	const json_t *it = json_object_get(params, "item"), *turn = json_object_get(params, "turn"), *r, *spawned;
	const char *root = json_string_value(json_object_get(turn, "rootTurnId"));
	const char *tid = json_string_value(json_object_get(turn, "id"));
	size_t i;

	if (strcmp(method, "item/completed") == 0 && (spawned = tl_codex_spawned_threads(it))) {
		const char *sender = json_string_value(json_object_get(it, "senderThreadId"));

		json_array_foreach(spawned, i, r)
			if (json_is_string(r))
				tl_codex_threads_link(ts, json_string_value(r), sender ? sender : thread);
	} else if (strcmp(method, "turn/started") == 0 && root && tid && strcmp(root, tid) != 0) {
		struct tl_thread *t = thread_of(ts, thread, 1, NULL);

		if (t && t->st.depth == 0)
			mark_child(t, 1);
	}
}

int tl_codex_threads_project(struct tl_codex_threads *ts, const json_t *note, json_t *rows, char *err,
			     size_t errlen)
{
	const json_t *params = json_object_get(note, "params");
	const char *thread = json_string_value(json_object_get(params, "threadId"));
	const char *method = json_string_value(json_object_get(note, "method"));
	struct tl_thread *t;
	int full_now = 0;

	if (!thread || !method)
		return 0;	/* not a thread's notification: no rows */
	/* Before the rows: a turn/started that marks its own thread. */
	note_children(ts, thread, method, params);
	/* A thread never reported (its start came before a restart of ours)
	 * is shown as the conversation's own. */
	if (!(t = thread_of(ts, thread, 0, &full_now))) {
		if (full_now)
			snprintf(err, errlen, "more than %d threads: the timeline shows no rows of thread %s or later ones",
				 TL_CODEX_THREADS, thread);
		return full_now ? -1 : 0;
	}
	return tl_codex_project(&t->st, note, rows, err, errlen);
}
