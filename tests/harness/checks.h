/*
 * checks - the harness as cmocka test bodies use it.  Where an fx_
 * function of harness.h returns -1 and leaves the verdict to its caller,
 * a ck_ function that checks something fails the running test with a
 * sentence saying what came instead.  The integration programs share
 * these so that each file holds only the tests of its own subject.
 *
 * Bounds on waits are generous "it never came" limits, never speed checks.
 */
#ifndef HB_CHECKS_H
#define HB_CHECKS_H

/* cmocka.h needs these before it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>
#include <sys/types.h>

#include "client.h"
#include "envelope.h"
#include "group.h"
#include "harness.h"

#define CK_WAIT_MS 10000 /* for anything a test waits for without a bound of its own */

/* ---- running a program's tests (checks.c) ---------------------------- */

/* ck_run_group_tests: group.h. */

/* ---- brokers (checks.c) ---------------------------------------------- */

/* svc-echo with eight workers and all its tools (echo sleep subcall
 * progress exit): the test service, so no deployed section exists for it. */
extern const char ck_echo_conf[];

/* The group setup and teardown of a program whose tests share one broker:
 * svc-echo with four workers and all its tools beside svc-sessions as
 * deployed.  Each test finds that broker's fixture in *state. */
int ck_setup_front_broker(void **state);
int ck_teardown_front_broker(void **state);
/* The setup and teardown of a test that starts its own broker: a fresh
 * fixture in *state; the teardown stops what a failed test left running,
 * removes its folder and frees it. */
int ck_setup_fixture(void **state);
int ck_teardown_fixture(void **state);
#define ck_unit_test(test) cmocka_unit_test_setup_teardown(test, ck_setup_fixture, ck_teardown_fixture)
void ck_start(struct fixture *f, const char *config, const char *const *env);
void ck_prepare(struct fixture *f, const char *config);
/* A broker with svc-echo (ck_echo_conf; env for the broker, may be NULL),
 * a client c on it, and the sleep call of sleep_json running in the
 * service: the call's request id, and svc-echo's pid into *pid. */
int64_t ck_echo_call_in_flight(struct fixture *f, const char *const *env, struct hb_client *c,
			       const char *sleep_json, pid_t *pid);
/* SIGTERM must end the broker with status 0 (under the sanitizers: with
 * nothing reported); f is cleared. */
void ck_finish(struct fixture *f);

/* ---- calls (checks.c) ------------------------------------------------ */

/* A client on f's front socket, bounded by 20 s. */
void ck_client(struct fixture *f, struct hb_client *c);
/* Send a call without waiting for its answer: the request id. */
int64_t ck_send_call(struct hb_client *c, const char *tool, const char *json);
/* The next reply (any id) within timeout_ms into *reply, its id into *id. */
void ck_recv(struct hb_client *c, struct hb_env *reply, int timeout_ms, int64_t *id);
/* The next reply (any id) within CK_WAIT_MS: *id (-1 when it has none),
 * *ok, and its text or error message (malloc'd). */
char *ck_recv_text(struct hb_client *c, int64_t *id, int *ok);
/* The next reply must be the one to want_id, with want_ok and exactly the
 * text want. */
void ck_expect_reply(struct hb_client *c, int64_t want_id, int want_ok, const char *want);
/* A call the broker must answer: *ok, and the text (malloc'd). */
char *ck_call(struct fixture *f, const char *tool, const char *json, int *ok);
/* A call that must succeed, answering exactly want (any text when NULL). */
void ck_call_ok(struct fixture *f, const char *tool, const char *json, const char *want);
/* A call that must answer with want_ok and a text containing want_text. */
void ck_call_says(struct fixture *f, const char *tool, const char *json, int want_ok, const char *want_text);

/* ---- status, processes and files (checks_status.c) -------------------- */

/* A string field of a service in status (malloc'd; "" when not a string). */
char *ck_svc_str(struct fixture *f, const char *name, const char *field);
/* A boolean field of a service in status: 1, 0, or -1 when no such service. */
int ck_svc_bool(struct fixture *f, const char *name, const char *field);
void ck_svc_str_equal(struct fixture *f, const char *name, const char *field, const char *want);
/* Wait until the service's numeric field / state equals want. */
void ck_wait_num(struct fixture *f, const char *name, const char *field, long long want);
void ck_wait_state(struct fixture *f, const char *name, const char *want);
/* Wait until the service is stopped for idleness (state idle, stoppedIdle). */
void ck_wait_stopped_idle(struct fixture *f, const char *name);
/* The service stays up through ms without a call because it holds work:
 * the same generation, no idle stop, holdsWork. */
void ck_stays_up_holding_work(struct fixture *f, const char *name, int ms);
/* `hbctl status` prints want somewhere. */
void ck_hbctl_status_says(struct fixture *f, const char *want);
/* Wait until a broker spawned by hand answers status at all. */
void ck_wait_answering(struct fixture *f);
/* Wait until pid (a child of the broker) is gone, reaped by the broker. */
void ck_wait_gone(pid_t pid);
/* Wait for our child pid: its wait status (on no exit it is killed and
 * the test fails). */
int ck_wait_exit(pid_t pid);
/* Wait until the broker's log says needle. */
void ck_wait_log(struct fixture *f, const char *needle);
int ck_file_has(const char *path, const char *needle);
/* Whether dir/name exists. */
int ck_exists(const char *dir, const char *name);

/* ---- raw sockets (checks_sockets.c) ----------------------------------- */

/* A bare DEALER on the front socket: frames exactly as the test writes them. */
struct ck_raw {
	void *ctx, *sock;
};

void ck_raw_open(struct ck_raw *r, struct fixture *f);
void ck_raw_close(struct ck_raw *r);
void ck_raw_send(struct ck_raw *r, const void *buf, size_t len, int flags);
void ck_raw_send_env(struct ck_raw *r, struct hb_env *e);
/* The next envelope within timeout_ms; what names the step in a failure. */
void ck_raw_recv(struct ck_raw *r, struct hb_env *e, int timeout_ms, const char *what);
/* A hello with this id must be answered ok with the same id; after names
 * what came before it in a failure. */
void ck_raw_hello(struct ck_raw *r, int64_t id, const char *after);

/* A subscriber on the events socket. */
struct ck_sub {
	void *ctx, *sock;
};

/* Subscribe to the topics starting with prefix ("" for all). */
void ck_sub_open(struct ck_sub *s, struct fixture *f, const char *prefix);
void ck_sub_close(struct ck_sub *s);
/* The next event's body (its topic into topic), or NULL after timeout_ms. */
json_t *ck_sub_next(struct ck_sub *s, int timeout_ms, char *topic, size_t topiclen);
/* The first event of topic want whose field equals value (any when field
 * is NULL); the test fails after timeout_ms. */
json_t *ck_sub_wait(struct ck_sub *s, const char *want, const char *field, const char *value, int timeout_ms);
/* PUB drops what it publishes before a subscription has arrived: echo
 * calls on f until an event gets through, then the rest drained. */
void ck_sub_warm(struct ck_sub *s, struct fixture *f);

#endif
