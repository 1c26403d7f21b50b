/*
 * service_task - the thread of a service's background task.
 *
 * Work that no call drives (svc-messages delivering its outbox) needs a
 * thread that lives as long as the service and a socket of its own: a
 * ZeroMQ socket is never shared between threads.  The task is woken by a
 * pipe, so a handler that committed work wakes it without touching any
 * socket, and the stop reaches it the same way.
 */
#include "service_task.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zmq.h>

#include "log.h"
#include "service_pool.h"
#include "sock.h"
#include "protocol.h"

struct hb_task {
	pthread_t thread;
	void *zctx, *sock;
	int wake[2];
	atomic_int stopping;
	hb_task_fn fn;
	void *arg;
	char id[192];          /* its routing id, "<service id>.task" */
};

static void *task_main(void *p)
{
	struct hb_task *t = p;

	t->fn(t, t->arg);
	return NULL;
}

struct hb_task *hb_task_start(void *zctx, const char *endpoint, const char *identity, hb_task_fn fn, void *arg)
{
	struct hb_task *t = calloc(1, sizeof *t);

	if (!t)
		return NULL;
	t->wake[0] = t->wake[1] = -1;
	t->zctx = zctx;
	t->fn = fn;
	t->arg = arg;
	atomic_init(&t->stopping, 0);
	snprintf(t->id, sizeof t->id, "%s.task", identity);
	if (pipe(t->wake) < 0 || fcntl(t->wake[0], F_SETFL, O_NONBLOCK) < 0 ||
	    fcntl(t->wake[1], F_SETFL, O_NONBLOCK) < 0)
		goto fail;
	if (!(t->sock = hb_sock_dealer(zctx, t->id, 0, -1)) ||
	    hb_sock_connect_confirmed(zctx, t->sock, endpoint, HB_CONNECT_WAIT_MS) < 0)
		goto fail;
	if (pthread_create(&t->thread, NULL, task_main, t) != 0)
		goto fail;
	return t;
fail:
	if (t->sock)
		zmq_close(t->sock);
	if (t->wake[0] >= 0)
		close(t->wake[0]);
	if (t->wake[1] >= 0)
		close(t->wake[1]);
	free(t);
	return NULL;
}

void hb_task_wake(struct hb_task *t)
{
	/* A full pipe already wakes it. */
	(void)!write(t->wake[1], "w", 1);
}

void hb_task_stop(struct hb_task *t)
{
	if (!t)
		return;
	atomic_store(&t->stopping, 1);
	hb_task_wake(t);
	pthread_join(t->thread, NULL);
	zmq_close(t->sock);
	close(t->wake[0]);
	close(t->wake[1]);
	free(t);
}

void *hb_task_socket(struct hb_task *t)
{
	return t->sock;
}

void *hb_task_zctx(struct hb_task *t)
{
	return t->zctx;
}

int hb_task_stopping(struct hb_task *t)
{
	return atomic_load(&t->stopping);
}

int hb_task_wake_fd(struct hb_task *t)
{
	return t->wake[0];
}

void hb_task_drain_wake(struct hb_task *t)
{
	char buf[64];

	while (read(t->wake[0], buf, sizeof buf) > 0)
		;
}

int hb_service_send_event(void *sock, const char *topic, const char *json)
{
	struct hb_env e;

	hb_env_init(&e);
	hb_env_set_str(&e, "op", HB_OP_EVENT);
	hb_env_set_str(&e, "topic", topic);
	hb_env_set_str(&e, "json", json);
	return hb_send_env(sock, NULL, &e);
}

int hb_task_publish(struct hb_task *t, const char *topic, const char *json)
{
	return hb_service_send_event(t->sock, topic, json);
}

int hb_task_report(struct hb_task *t, const char *json)
{
	struct hb_env e;

	hb_env_init(&e);
	hb_env_set_str(&e, "op", HB_OP_REPORT);
	hb_env_set_str(&e, "json", json);
	return hb_send_env(t->sock, NULL, &e);
}

const char *hb_task_id(const struct hb_task *t)
{
	return t->id;
}

int hb_task_answer_idle(struct hb_task *t, const struct hb_env *ask, int holds_work, const char *why)
{
	struct hb_env e;
	int64_t id = 0;

	hb_env_int(ask, "ask", &id);
	hb_env_init(&e);
	hb_env_set_str(&e, "op", HB_OP_IDLE_ANSWER);
	hb_env_set_int(&e, "ask", id);
	hb_env_set_bool(&e, "holdsWork", holds_work);
	if (why && *why)
		hb_env_set_str(&e, "why", why);
	return hb_send_env(t->sock, NULL, &e);
}
