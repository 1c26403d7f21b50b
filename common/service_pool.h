/*
 * service_pool - private to the service loop: calls and the worker pool.
 *
 * Each worker has its own DEALER to the broker (routing id "<service
 * id>.w<n>"), so an answer goes from the worker straight to the broker
 * without waking the loop thread: one thread handoff less per call.
 *
 * Ownership: the loop thread creates each call and puts it in the pool's
 * table and queue; the worker that ran it takes it out of the table and
 * frees it after sending the answer.  The table, the queue and the subcall
 * fields are under pool->lock; `cancelled` is atomic.
 */
#ifndef HB_SERVICE_POOL_H
#define HB_SERVICE_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "map.h"
#include "service.h"

struct hb_pool;

struct hb_call {
	struct hb_pool *pool;
	char *strings;                 /* one allocation for all the fields below */
	const char *args;
	size_t args_len;
	struct hb_call_context ctx;
	hb_tool_fn fn;
	atomic_int cancelled;
	/* the handler's result */
	int answered, ok;
	char *text;
	/* the worker's DEALER while the call runs */
	void *sock;
	/* one subcall at a time, under pool->lock */
	int sub_waiting, sub_answered, sub_ok;
	uint64_t sub_seq;
	char *sub_text;
	struct hb_call *next;          /* work queue */
};

struct hb_pool {
	pthread_mutex_t lock;
	pthread_cond_t work;           /* the queue has a call, or stopping */
	pthread_cond_t sub;            /* a subcall was answered or cancelled */
	struct hb_call *head, *tail;
	struct hb_map calls;           /* key -> call, queued or running */
	int stopping;
	uint64_t sub_seq;
	unsigned long served;
	void *zctx;
	const char *endpoint, *identity; /* the broker, and the loop's routing id */
	pthread_t *threads;
	int nthreads;
};

int hb_pool_start(struct hb_pool *pool, void *zctx, const char *endpoint, const char *identity,
		  int nthreads);
/* Queue a call; -1 when its key is in flight already or out of memory. */
int hb_pool_submit(struct hb_pool *pool, struct hb_call *call);
/* Cancel by key (a handler sees hb_call_cancelled()); all: every call. */
void hb_pool_cancel(struct hb_pool *pool, const char *key);
void hb_pool_cancel_all(struct hb_pool *pool);
/* Deliver a subcall answer (loop thread). */
void hb_pool_subcall_answer(struct hb_pool *pool, const char *key, uint64_t seq, int ok,
			    const char *text);
/* Calls queued or running, and calls answered so far. */
size_t hb_pool_inflight(struct hb_pool *pool);
unsigned long hb_pool_served(struct hb_pool *pool);
/* Stop the workers (they finish what they run) and free what is left. */
void hb_pool_stop(struct hb_pool *pool);
void hb_call_free(struct hb_call *call);

#endif
