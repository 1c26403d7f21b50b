/*
 * service_pool - private to the service loop: calls and the worker pool.
 *
 * Ownership: the loop thread creates each call, keeps it in its table by
 * key, and frees it when the worker's "done" message arrives.  A worker
 * touches a call only between taking it from the queue and sending "done".
 * Everything a worker and the loop both touch is under pool->lock, except
 * `cancelled`, which is atomic.
 */
#ifndef HB_SERVICE_POOL_H
#define HB_SERVICE_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "service.h"

#define HB_POOL_INBOX "inproc://hb-service-inbox"
#define HB_POOL_FWD 'F'   /* frame 1 of a worker message: forward frame 2 */
#define HB_POOL_DONE 'D'  /* ... forward frame 2, then free the call */

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
	/* the worker's PUSH socket while the call runs */
	void *push;
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
	int stopping;
	uint64_t sub_seq;
	void *zctx;
	pthread_t *threads;
	int nthreads;
};

int hb_pool_start(struct hb_pool *pool, void *zctx, int nthreads);
void hb_pool_submit(struct hb_pool *pool, struct hb_call *call);
/* Cancel: wake a subcall wait; the handler sees hb_call_cancelled(). */
void hb_pool_cancel(struct hb_pool *pool, struct hb_call *call);
/* Deliver a subcall answer (loop thread). */
void hb_pool_subcall_answer(struct hb_pool *pool, struct hb_call *call, uint64_t seq, int ok,
			    const char *text);
void hb_pool_stop(struct hb_pool *pool);
void hb_call_free(struct hb_call *call);

#endif
