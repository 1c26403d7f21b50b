/*
 * wake - start a service that was stopped for idleness when a folder its
 * `wake` line names changes (systemd's path units): svc-alerts idles
 * while the settings want no relay link, and a change of the config
 * folder (`hbctl settings remote-access on`, the desktop writing
 * settings.json) starts it to look again.  The broker learns no setting:
 * it knows a folder changed, and the service judges what the change
 * means (its idleTask, idle.h).  A watch of each such folder
 * (lib/dirwatch.h: inotify on Linux) in the broker's sleep; where there is
 * none, or a folder's watch ended, a service with a wake line is never
 * stopped for idleness, since nothing would start it again.
 */
#ifndef HB_WAKE_H
#define HB_WAKE_H

#include <poll.h>

#include "broker.h"

/* Watch the folders the config's wake lines name (logs what it cannot). */
void wake_init(struct broker *b);
/* The descriptors to sleep on, into fds (room for WAKE_DIRS): how many. */
int wake_poll_fds(const struct broker *b, struct pollfd *fds);
/* Read what changed (call it when one of the descriptors is readable): each service woken by it is started by the
 * supervisor's next tick (wake_pending), or, when it runs, its idle ask
 * still out is voided (the answer may be from before the change). */
void wake_read(struct broker *b);
/* Whether a change of s's wake folder would be seen (1 without a line). */
int wake_watching(const struct broker *b, const struct service *s);
void wake_free(struct broker *b);

#endif
