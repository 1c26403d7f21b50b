/*
 * notify - tell the service manager how we are: systemd's sd_notify
 * protocol (one datagram on $NOTIFY_SOCKET) without libsystemd.  Where
 * there is no NOTIFY_SOCKET (launchd, a terminal) it does nothing.
 */
#ifndef HB_NOTIFY_H
#define HB_NOTIFY_H

/* state e.g. "READY=1\nSTATUS=serving".  0, or -1 when it could not send. */
int notify_manager(const char *state);

#endif
