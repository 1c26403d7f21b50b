/*
 * service_pool - private to the service loop: the worker threads and the
 * calls they run.
 *
 * Each worker has its own DEALER to the broker (routing id "<service
 * id>.w<n>"); the broker sends it one call at a time and it answers on the
 * same socket, so a call never changes thread inside the service.  When
 * every worker is busy the broker may send calls to the loop's socket
 * instead (up to the overflow window the service announced); those wait
 * in a queue that the next free worker takes from, so a slow call never
 * holds one up.
 *
 * Ownership: the worker that receives a call creates it, puts it in the
 * pool's table (so the loop thread can cancel it or hand it a subcall
 * answer by key), and takes it out and frees it after answering.  The
 * table, `stopping` and the subcall fields are under pool->lock;
 * `cancelled` is atomic.  The loop thread alone enqueues, starts a stop
 * and answers the queue, so no call joins the queue once it was answered.
 */
#ifndef HB_SERVICE_POOL_H
#define HB_SERVICE_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "envelope.h"
#include "map.h"
#include "service.h"

struct hb_pool;

/* How long a socket that carries answers keeps trying to send them at
 * close: a last answer still gets out when the service stops right
 * after it. */
#define HB_ANSWER_LINGER_MS 1000
/* How long a service waits for each of its sockets to the broker to be
 * connected at start (the broker listens before it starts services). */
#define HB_CONNECT_WAIT_MS 10000

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
	int queued;                    /* came through the loop's overflow queue */
	long long started_ms;          /* when a worker began it (monotonic), 0 before; under pool->lock */
	char *text;
	char *images;                  /* the wire form of images.h, or NULL */
	const char *code;              /* a fail_codes.h code, or NULL */
	/* the worker's DEALER while the call runs */
	void *sock;
	/* one subcall at a time, under pool->lock */
	int sub_waiting, sub_answered, sub_ok;
	uint64_t sub_seq;
	char *sub_text;
	struct hb_call *next;          /* overflow queue */
};

struct hb_pool {
	pthread_mutex_t lock;
	pthread_cond_t sub;            /* a subcall was answered or cancelled */
	struct hb_map calls;           /* key -> queued or running call */
	struct hb_call *qhead, *qtail; /* overflow: calls for whichever worker is free */
	/* Waking: each worker has its own pipe, and one that found the queue
	 * empty and is about to wait is on the idle stack.  A queued call
	 * wakes one idle worker, or none when all are busy (the first to
	 * finish takes it): no herd, and no pipe traffic under load. */
	int (*wake)[2];                /* per worker, nwake of them */
	int nwake;
	int *idle;                     /* worker indexes, nidle of them */
	unsigned char *is_idle;        /* per worker: on the idle stack */
	int nidle;
	int stopping;
	/* A byte when the first call of a busy time is taken: the loop,
	 * which beats only while calls are in flight, wakes and beats. */
	int busy[2];
	uint64_t sub_seq;
	unsigned long served;
	void *zctx;
	const char *service;
	const char *endpoint, *identity; /* the broker, and the loop's routing id */
	const struct hb_service_tool *tools;
	pthread_t *threads;
	int nthreads;
	struct hb_task *task;          /* the service's background task, or NULL */
	void *service_arg;             /* the spec's task_arg (hb_call_service_arg) */
};

/* service_arg: what handlers reach with hb_call_service_arg, set before
 * any worker runs. */
int hb_pool_start(struct hb_pool *pool, void *zctx, const char *service, const char *endpoint,
		  const char *identity, const struct hb_service_tool *tools, int nthreads, void *service_arg);
/* Overflow: a call the broker sent to the loop because every worker was
 * busy (e, checked by hb_broker_op_check); the next free worker takes it.
 * -1 with a reason to answer. */
int hb_pool_enqueue(struct hb_pool *pool, const struct hb_env *e, char *why, size_t whylen);
/* Cancel by key (a handler sees hb_call_cancelled()).  cancel_all is the
 * start of a stop: every running call is cancelled and workers take no
 * new one. */
void hb_pool_cancel(struct hb_pool *pool, const char *key);
void hb_pool_cancel_all(struct hb_pool *pool);
/* Answer on loop_sock every queued call no worker has started (after
 * hb_pool_cancel_all, which keeps workers from taking more): a stopping
 * service does not keep them waiting for its stop deadline. */
void hb_pool_answer_queued(struct hb_pool *pool, void *loop_sock);
/* Deliver a subcall answer (loop thread). */
void hb_pool_subcall_answer(struct hb_pool *pool, const char *key, uint64_t seq, int ok,
			    const char *text);
/* How long (ms) the call a worker has held longest has run so far, its
 * key into key (keylen bytes); 0 (key "") when no worker runs one.  A
 * call that was cancelled but whose handler still runs counts: its worker
 * is held all the same.  For the heartbeat, which tells the broker. */
long long hb_pool_longest_held(struct hb_pool *pool, char *key, size_t keylen);
/* Calls running, and calls answered so far. */
size_t hb_pool_inflight(struct hb_pool *pool);
/* The descriptor that becomes readable when the pool goes from no call to
 * one (for the loop's poll), and its drain. */
int hb_pool_busy_fd(const struct hb_pool *pool);
void hb_pool_busy_drain(struct hb_pool *pool);
unsigned long hb_pool_served(struct hb_pool *pool);
/* Stop the workers: queued calls nobody took are answered on stop_sock,
 * running ones are cancelled (the loop has waited for their answers, up
 * to its stop deadline). */
void hb_pool_stop(struct hb_pool *pool, void *stop_sock);
void hb_call_free(struct hb_call *call);

#endif
