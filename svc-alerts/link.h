/*
 * link - svc-alerts' background task: the device link to the regional
 * relay (docs/relay-protocol.md).  It keeps one WebSocket up while the
 * settings want it (link_config.h), says hello with the device
 * credential, sends the spool's alerts in order once the relay is ready,
 * removes each from the spool when the relay acknowledges it, resends
 * what was not acknowledged after every reconnect (the same ids), pings,
 * reconnects with backoff, restarts at once when a call asks, and reports
 * its phase and last error (hbctl status, the service.report event).
 */
#ifndef ALERTS_LINK_H
#define ALERTS_LINK_H

#include "service.h"

/* The task of svc-alerts' spec; arg is the service's struct link_state. */
void link_run(struct hb_task *task, void *arg);

#endif
