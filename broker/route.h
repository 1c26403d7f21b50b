/*
 * route - calls in flight: from a client (or a service's subcall) to the
 * service that serves the tool, and the answer back.
 *
 * Each call gets a broker-wide key.  A call for a service that is starting
 * or restarting waits, up to call_wait_ms, in that service's queue.
 */
#ifndef HB_ROUTE_H
#define HB_ROUTE_H

#include "broker.h"

void route_init(struct broker *b);
/* Start c (it has its first waiter, and its context unless it is still
 * being resolved): a duplicate of a call in flight (same identity) joins
 * it, else c is registered and sent to its service or queued. */
void route_submit(struct broker *b, struct call *c);
/* The two halves of route_submit, for a call whose context is resolved
 * first (Codex: the thread's session): register now, dispatch later. */
int route_register(struct broker *b, struct call *c);
void route_dispatch(struct broker *b, struct call *c);
struct call *route_find_identity(struct broker *b, const char *identity);
/* The broker's own request to a service tool (e.g. _resolve_thread);
 * done(b, arg, ok, text) is called once.  -1 when nothing serves it. */
int route_internal(struct broker *b, const char *tool, const char *args, call_done_fn done, void *arg);
/* Answer c now (and forget it); its service's late result is dropped. */
void route_finish(struct broker *b, struct call *c, int ok, const char *text);
/* Cancel c in its service (the handler sees it) and answer it with text. */
void route_cancel(struct broker *b, struct call *c, const char *text);
/* Cancel every call of a run. */
void route_abort_run(struct broker *b, const char *run, const char *text);
/* A front `cancel` naming a call key: the service's handler sees the
 * cancel; the caller is answered "Run stopped." at once. */
void route_front_cancel(struct broker *b, const struct hb_peer *peer, const struct hb_env *e);
/* A worker of inst announced itself: it can take calls. */
void route_worker(struct broker *b, struct instance *inst, const struct hb_peer *peer, int slots);
/* Back-socket messages of a known instance. */
void route_subcall(struct broker *b, struct instance *from, const struct hb_env *e);
void route_result(struct broker *b, struct instance *from, const struct hb_peer *peer,
		  const struct hb_env *e);
void route_progress(struct broker *b, struct instance *from, const struct hb_env *e);

/* Answer every call on inst with text (the instance is gone). */
void route_fail_instance(struct broker *b, struct instance *inst, const char *text);
/* Send waiting calls to s->cur, now ready. */
void route_flush_waiting(struct broker *b, struct service *s);
void route_fail_waiting(struct broker *b, struct service *s, const char *text);
/* The service lost its serving instance: waiting calls get call_wait_ms. */
void route_restamp_waiting(struct broker *b, struct service *s);
/* Shutdown: answer every call still open. */
void route_fail_all(struct broker *b, const char *text);

void route_tick(struct broker *b, long long now);
long long route_next_deadline(const struct broker *b);
void route_free(struct broker *b);

#endif
