/*
 * service_task - private to the service loop: the thread of a service's
 * background task (the task of struct hb_service_spec in service.h).
 */
#ifndef HB_SERVICE_TASK_H
#define HB_SERVICE_TASK_H

#include "service.h"

/* Start fn on its own thread with a socket connected to endpoint; NULL
 * with errno set on failure. */
struct hb_task *hb_task_start(void *zctx, const char *endpoint, const char *identity, hb_task_fn fn, void *arg);
/* The task's routing id on the broker's back socket. */
const char *hb_task_id(const struct hb_task *t);
/* Tell the task to stop, wait for it, close its socket and free it. */
void hb_task_stop(struct hb_task *task);
/* Send a back-socket `event` {topic, json} on sock (the caller's own). */
int hb_service_send_event(void *sock, const char *topic, const char *json);
/* Wake it (any thread). */
void hb_task_wake(struct hb_task *task);

#endif
