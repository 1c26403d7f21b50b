/*
 * lock - one broker per runtime directory.  ipc bind would silently steal
 * the socket of a running broker, so the broker first takes an exclusive
 * flock on a lock file that holds its pid.
 */
#ifndef HB_LOCK_H
#define HB_LOCK_H

#include <stddef.h>

/* Take the lock (the fd stays open for the life of the process).  0, or -1
 * with a reason naming the pid that holds it. */
int lock_take(const char *path, char *err, size_t errlen);

#endif
