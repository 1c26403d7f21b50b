/*
 * outbox - svc-messages' delivery loop, the service's background task.
 */
#ifndef MESSAGES_OUTBOX_H
#define MESSAGES_OUTBOX_H

#include "service.h"

void outbox_run(struct hb_task *task, void *arg);

#endif
