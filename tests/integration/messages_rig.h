/*
 * messages_rig - what the integration tests of send_session_message
 * (itest_messages.c, itest_messages_delivery.c) share: the real hb-broker,
 * svc-sessions and svc-messages with appdata.db in a temporary HB_HOME;
 * sessions of different access levels and projects (A sends; the others
 * receive); the desktop's connection (runs, hbctl's front ops), the
 * timeline events, and a bridge played by the test: it attaches for a
 * session on the front socket as hb-codex-bridge and hb-claude-bridge do
 * and answers `deliver` with `deliver.done` or another outcome.
 */
#ifndef TEST_MESSAGES_RIG_H
#define TEST_MESSAGES_RIG_H

#include <stdint.h>

#include <jansson.h>

#include "../harness/harness.h"
#include "client.h"
#include "envelope.h"

#define FIRST_LINE                                                                                        \
	"Message from another HB Code session. Answer this message in one of three ways: do it, ask one " \
	"question, or object with the reason."

extern struct fixture F;
extern struct hb_client desk;           /* the desktop's connection */
extern void *zctx, *events;             /* timeline events */
extern char failpoints[300];
/* Sessions: A sends (codex, /pa, full-auto, run "run-a"); the others
 * receive. */
extern char A[64], B[64], C[64], D[64], E[64], G[64], H[64], K[64], M[64], N[64];
int64_t checked(int64_t id);
/* The reply to request id on c; unsolicited `deliver`s are skipped. */
void reply_to(struct hb_client *c, int64_t id, struct hb_env *reply);
void op_ok(struct hb_client *c, struct hb_env *reply, int64_t id);
void open_run(const char *run, const char *session, const char *project, const char *access);
/* send_session_message from run-a with call id; returns ok, *text set. */
int send_msg(const char *call_id, const char *to, const char *message, char **text);
void expect_refused(const char *call_id, const char *to, const char *message, const char *words);
/* The receipt's first word; the op id (session-message-N) into op. */
void expect_receipt(const char *call_id, const char *to, const char *message, const char *status, char op[48]);
/* The messages.list answer for session ("" for all). */
json_t *queue_of(const char *session);
const char *status_in_queue(json_t *list, const char *op);
/* The next timeline event whose row is row (others are skipped). */
/* The next event within poll_ms (its topic in t), or NULL. */
json_t *next_event(char t[64], int poll_ms);
int is_row(const char *t, const json_t *body, const char *topic, const char *row);
json_t *event_for(const char *topic, const char *row);
/* A bridge: attach for session on its own connection. */
void bridge_attach(struct hb_client *br, const char *session, const char *agent);
/* The next `deliver` the bridge gets (replies are skipped). */
void next_delivery(struct hb_client *br, struct hb_env *d);
/* deliver.done for op: ok, or else with status and text; turn as it
 * came (a bridge that proved nothing names none).  The request id, for
 * reply_to: the broker may refuse it. */
int64_t bridge_report_send(struct hb_client *br, const char *op, int ok, const char *status, const char *turn,
			   const char *text);
void bridge_done(struct hb_client *br, const char *op, const char *turn);
/* deliver.done with status "unconfirmed": it went in, no read found it. */
void bridge_unconfirmed(struct hb_client *br, const char *op, const char *why);
int messages_setup(void **state);
/* The same with svc-messages stopped after MESSAGES_IDLE_MS without a
 * call while its outbox holds nothing still to go (itest_idle_messages). */
#define MESSAGES_IDLE_MS 500
int messages_setup_idling(void **state);
int messages_teardown(void **state);

#endif
