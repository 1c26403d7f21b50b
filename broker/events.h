/*
 * events - what the broker publishes on events.sock: service state and
 * call start/end/progress, as topic + JSON (`hbctl watch` prints them).
 */
#ifndef HB_EVENTS_H
#define HB_EVENTS_H

#include <jansson.h>

#include "broker.h"

/* Read subscription changes from the events socket. */
/* Count the subscriptions; 1 when more may be queued (wait_read). */
int events_read_subscriptions(struct broker *b);
/* Publish body (taken) under topic, with "event" and "time" added. */
void events_publish(struct broker *b, const char *topic, json_t *body);
void events_service(struct broker *b, const char *topic, const struct service *s,
		    const struct instance *inst, const char *detail);
void events_call_start(struct broker *b, const struct call *c);
void events_call_end(struct broker *b, const struct call *c, int ok, long long duration_ms);
void events_call_progress(struct broker *b, const struct call *c, const char *text);

#endif
