/*
 * codex_threads - a Codex conversation's threads, each projected with its
 * depth (codex_threads.c).
 */
#ifndef HB_TIMELINE_CODEX_THREADS_H
#define HB_TIMELINE_CODEX_THREADS_H

#include <jansson.h>

#include "../lib/map.h"
#include "project.h"

#define TL_CODEX_THREADS 64

struct tl_codex_threads {
	struct hb_map map;	/* thread id -> its projector */
	int full;		/* threads refused past TL_CODEX_THREADS */
};

void tl_codex_threads_init(struct tl_codex_threads *ts);
void tl_codex_threads_free(struct tl_codex_threads *ts);
/* A thread the server reported; parent NULL for the conversation's own. */
void tl_codex_threads_link(struct tl_codex_threads *ts, const char *thread, const char *parent);
/* The threads a spawnAgent item started (its receiverThreadIds, borrowed
 * from item), or NULL when item is not a spawnAgent call. */
const json_t *tl_codex_spawned_threads(const json_t *item);
/* The thread's depth, or -1 for a thread not seen. */
int tl_codex_threads_depth(const struct tl_codex_threads *ts, const char *thread);
/* The rows of one notification of any thread, appended to rows; notes the
 * sub-agent threads it names.  0, or -1 with err set (a malformed
 * notification, or the first thread past the bound). */
int tl_codex_threads_project(struct tl_codex_threads *ts, const json_t *note, json_t *rows, char *err,
			     size_t errlen);

#endif
