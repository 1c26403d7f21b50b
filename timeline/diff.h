/*
 * diff - the unified diff of one file change from its old and new text.
 *
 * Claude's Edit, MultiEdit and Write give the old and the new text, never
 * line numbers, so each hunk has a bare "@@" header (page 003).  Bounded:
 * inputs past TL_DIFF_MAX are cut before diffing and the result is cut to
 * TL_DIFF_MAX, both with the "(cut)" mark.
 */
#ifndef HB_TIMELINE_DIFF_H
#define HB_TIMELINE_DIFF_H

#include <stddef.h>

/* The hunks ("@@" header, 3 lines of context, ' '/'-'/'+' lines) turning
 * old into new; "" when they are equal.  Malloc'd; NULL when out of memory. */
char *tl_diff_hunks(const char *old_text, const char *new_text);
/* A whole file diff: "--- a/PATH\n+++ b/PATH\n" (a/home/… for /home/…; old_text NULL: a new
 * file, "--- /dev/null") and the hunks of each pair (MultiEdit's edits
 * follow one another).  n pairs; malloc'd, cut to TL_DIFF_MAX. */
char *tl_diff_file(const char *path, const char *const *olds, const char *const *news, size_t n);

#endif
