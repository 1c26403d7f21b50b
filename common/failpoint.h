/*
 * failpoint - one-shot crash points for the tests of "nothing lost".
 *
 * hb_failpoint("messages.after-commit") kills the calling process with
 * SIGKILL when the file of that name exists in the folder $HB_FAILPOINTS
 * and this process is the one that removes it.  So a test can kill a
 * service or the broker at an exact point between two steps (which an
 * outside kill can only hit by luck), and the restarted process, which
 * finds no file, goes on.  Without $HB_FAILPOINTS it is one getenv.
 */
#ifndef HB_FAILPOINT_H
#define HB_FAILPOINT_H

#include <stdatomic.h>

void hb_failpoint(const char *name);
/* A pause instead of a crash, for the tests of "a cancel in the middle":
 * while $HB_FAILPOINTS/NAME.hold exists, the caller waits (up to a
 * minute), after creating NAME.reached so that the test knows it is
 * there; it goes on once the test removes the .hold file or *release
 * (NULL: none) becomes nonzero. */
void hb_holdpoint(const char *name, const atomic_int *release);

#endif
