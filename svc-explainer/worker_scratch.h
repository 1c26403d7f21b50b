/*
 * worker_scratch - the private folder where the explainer's worker keeps
 * what its agent would otherwise write among the user's own: Codex's
 * SQLite state and logs (CODEX_SQLITE_HOME: logs_2.sqlite held the
 * worker's turn text even with an ephemeral thread) and Claude Code's
 * cache (XDG_CACHE_HOME: its MCP logs named the worker's tool calls).
 * The worker is private, so nothing of it may stay in the user's history
 * or folders: the folder goes when the worker ends, and a copy of
 * svc-explainer that was killed leaves one that the next removes.
 *
 * <cache>/explainer-worker/PID-START-XXXXXX, named like open_rows.h's
 * files: a folder whose writer (the process PID that started at START)
 * is gone is an orphan; one of a copy still running (a replace) is not.
 */
#ifndef EXPLAINER_WORKER_SCRATCH_H
#define EXPLAINER_WORKER_SCRATCH_H

#include <stddef.h>

#include "paths.h"

#define WORKER_SCRATCH_DIR "explainer-worker"

/* A new private folder (0700) into out: 0, or -1 with err. */
int worker_scratch_make(const struct hb_paths *p, char *out, size_t outlen, char *err, size_t errlen);
/* The folder and everything in it, gone (a failure is logged under key). */
void worker_scratch_remove(const char *dir, const char *key);
/* Every folder whose writer is gone, removed: how many. */
int worker_scratch_remove_orphans(const struct hb_paths *p);

#endif
