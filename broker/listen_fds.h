/*
 * listen_fds - the listening sockets the service manager opened for this
 * process (socket activation): systemd's LISTEN_FDS protocol on Linux,
 * launchd's launch_activate_socket() on macOS.  Only taking them lives
 * here, one small file per platform's way; what the broker accepts is
 * activation.c's.
 */
#ifndef HB_LISTEN_FDS_H
#define HB_LISTEN_FDS_H

#include <stddef.h>

/* The name of the socket in the launchd plist's Sockets dictionary
 * (deploy/ai.hbcode.broker.plist.in). */
#define LISTEN_FDS_LAUNCHD_NAME "front"

/* Take the sockets passed to this process, at most max into fds: their
 * count (0 when none was passed: started by hand, or by a manager without
 * a socket for it), or -1 with a sentence in err.  Each fd gets
 * FD_CLOEXEC, and systemd's LISTEN_PID, LISTEN_FDS and LISTEN_FDNAMES are
 * unset whatever they said, so no child inherits them. */
int listen_fds_take(int *fds, int max, char *err, size_t errlen);

#endif
