/*
 * owned - the names of what a copy of svc-explainer leaves in the cache
 * while a call runs (its open timeline rows, its worker's private
 * folder), so that the next copy can tell a killed writer's leftovers
 * from those of a copy that still runs (during a `replace` two do).
 *
 * Each name starts "PID-START-": the writer's pid and its start time
 * (proc_state.h), so a later process that got the same pid is not taken
 * for it.
 */
#ifndef EXPLAINER_OWNED_H
#define EXPLAINER_OWNED_H

#include <stddef.h>

#include "paths.h"

/* <cache>/name, made private (0700) when missing, into dir: 0, or -1 with err. */
int owned_dir(const struct hb_paths *p, const char *name, char *dir, size_t len, char *err, size_t errlen);
/* "PID-START-" of this process into out: 0, or -1 when it does not fit. */
int owned_prefix(char *out, size_t len);
/* What follows entry's "PID-START-" when its writer is gone, else NULL
 * (a writer that runs, or a name of another shape). */
const char *owned_by_gone(const char *entry);

#endif
