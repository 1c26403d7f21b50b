/*
 * events - build event bodies with jansson and publish them.  Publishing
 * never blocks: a slow subscriber loses events (PUB semantics), the broker
 * never waits for one.
 */
#include "events.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <time.h>

#include <zmq.h>

#include "log.h"

/* Events carry wall-clock time (Unix ms): readers compare it with logs. */
static long long wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int events_read_subscriptions(struct broker *b)
{
	char buf[256];
	int n;

	while ((n = zmq_recv(b->pub, buf, sizeof buf, ZMQ_DONTWAIT)) >= 0) {
		if (n == 0)
			continue;
		if (buf[0] == 1)
			b->event_topics++;
		else if (buf[0] == 0 && b->event_topics > 0)
			b->event_topics--;
	}
	return errno != EAGAIN;
}

void events_publish(struct broker *b, const char *topic, json_t *body)
{
	char *text;

	if (!body)
		return;
	if (!b->event_topics) {
		json_decref(body);
		return;
	}
	json_object_set_new(body, "event", json_string(topic));
	json_object_set_new(body, "time", json_integer(wall_ms()));
	text = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	if (!text)
		return;
	if (broker_publish(b, topic, text) < 0)
		log_debug(NULL, "event %s not published", topic);
	free(text);
}

void events_service(struct broker *b, const char *topic, const struct service *s,
		    const struct instance *inst, const char *detail)
{
	json_t *body;

	if (!b->event_topics)
		return;
	body = json_pack("{s:s, s:I}", "service", s->cfg->name, "restarts", (json_int_t)s->restarts);

	if (!body)
		return;
	if (inst) {
		json_object_set_new(body, "pid", json_integer(inst->pid));
		json_object_set_new(body, "generation", json_integer(inst->gen));
	}
	if (detail)
		json_object_set_new(body, "detail", json_string(detail));
	events_publish(b, topic, body);
}

static json_t *call_body(const struct call *c)
{
	json_t *body = json_pack("{s:s, s:s, s:s}", "key", c->key, "tool", c->tool, "service", c->svc->cfg->name);

	if (body && *c->session)
		json_object_set_new(body, "session", json_string(c->session));
	if (body && *c->run)
		json_object_set_new(body, "run", json_string(c->run));
	if (body && *c->call_id)
		json_object_set_new(body, "callId", json_string(c->call_id));
	return body;
}

void events_call_start(struct broker *b, const struct call *c)
{
	if (!b->event_topics)
		return; /* the hot path: nothing to build when nobody listens */
	events_publish(b, "call.start", call_body(c));
}

void events_call_end(struct broker *b, const struct call *c, int ok, long long duration_ms)
{
	json_t *body;

	if (!b->event_topics)
		return;
	body = call_body(c);

	if (body) {
		json_object_set_new(body, "ok", json_boolean(ok));
		json_object_set_new(body, "durationMs", json_integer(duration_ms));
	}
	events_publish(b, "call.end", body);
}

void events_call_progress(struct broker *b, const struct call *c, const char *text)
{
	json_t *body;

	if (!b->event_topics)
		return;
	body = call_body(c);

	if (body)
		json_object_set_new(body, "text", json_string(text));
	events_publish(b, "call.progress", body);
}
