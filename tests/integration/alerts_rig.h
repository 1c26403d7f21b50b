/*
 * alerts_rig - what the integration tests of send_mobile_notification
 * (itest_alerts.c, itest_alerts_relay.c) share: one hb-broker with
 * svc-sessions and svc-alerts whose environment alone trusts a throwaway
 * CA, the tests' fake regional relay (tests/fake-relay/relay.mjs, wss on
 * 127.0.0.1) stopped and started again on the same port and record file
 * whenever a test needs another behaviour, a Claude run whose toolCalls
 * bind each alert to its session and whose permission events open
 * approval cards, the events of the whole run (searched
 * for the device credential), the relay's record and the spool.
 *
 * Waits are bounded patience (PATIENCE_MS) for what must come, never a
 * measure of speed.
 */
#ifndef TEST_ALERTS_RIG_H
#define TEST_ALERTS_RIG_H

#include <stddef.h>

#include <jansson.h>

#include "../harness/checks.h"
#include "../harness/fake_relay.h"
#include "../harness/tls_fixture.h"

/* How long a test waits for what must come; never a speed check. */
#define PATIENCE_MS 20000
/* A distinctive device credential: it must reach the relay (its hello
 * says credentialOk) and nothing else. */
#define CRED "devcred-ALERTS-7c1e9b04-never-printed"
#define RUN "run-alerts-1"
/* Quotes and a multibyte character, as the session's title travels. */
#define SESSION_TITLE "Fix the \"flaky\" build \xe2\x9c\x93"

#define RECEIPT_END "Delivery to the phone is not confirmed"
#define NOT_READY "is not ready after 9 attempts"
#define REMOTE_OFF "Allow Remote Access is off"

extern struct fixture F;
extern struct tls_fixture tls;       /* the certificates; the record file lives there too */
extern struct fake_relay relay;
extern char record[200];
extern char ca_env[400];
extern const char *broker_env[];
extern char session[64];
extern struct ck_sub events;
extern int events_open, events_seen, reports_seen, cred_in_events;

/* ---- the events of the whole run ---------------------------------------- */

/* Read what the events socket holds: counted, and searched for the
 * credential (topic and body). */
void drain_events(void);
void pause_ms(int ms);

/* ---- the fake relay ---------------------------------------------------- */

/* The relay in mode (cut after cut_after events when not NULL), on the
 * port it had before and the same record file: the same relay, restarted. */
int relay_as(const char *mode, const char *cut_after);
/* The relay restarted in accept mode with a phone that answers each
 * approval card (allow, deny; NULL: never), after a card nobody has when
 * answer_unknown; the link ready on it again. */
void relay_phone(const char *answer, int answer_unknown);
/* The records so far (a line being written may be cut: read again). */
json_t *records(void);
size_t mark(void);
/* Records of kind from index from on. */
int count_kind(const char *kind, size_t from);
/* Wait until at least want records of kind came from index from on. */
int wait_kind(const char *kind, size_t from, int want);
/* The event records from index from on, in the order they came. */
json_t *events_since(size_t from);

/* ---- the spool, the status and the settings ---------------------------- */

/* The alerts waiting in svc-alerts' spool; -1 when there is no spool. */
int spool_rows(void);
void wait_spool_empty(void);
/* svc-alerts' report in status (a copy), or NULL when it has none. */
json_t *alerts_report(void);
/* Wait until status says the link is phase; the report then (a copy). */
json_t *wait_link(const char *phase);
/* hbctl settings what [value]; it must succeed. */
void settings(const char *what, const char *value);

/* ---- calls as the Claude run -------------------------------------------- */

int open_claude(void);
void close_claude(void);
/* send_mobile_notification with these arguments as the run's toolCall:
 * whether it succeeded, and its text (malloc'd). */
int call_alert(const char *args_json, char **text);
char *args_of(const char *title, const char *body);
/* A permission event of the Claude run (an approval card): its request
 * id; and the broker's answer to it when the card is settled (the
 * host's permission params {requestId, decision, message?}). */
int64_t claude_permission(const char *event_json);
json_t *claude_answer(int64_t id);
/* An alert that must be receipted: its id into id. */
void receipted(const char *title, const char *body, char id[80]);
/* A call that must fail saying each of the NULL-terminated words. */
void refused(const char *args_json, ...);
/* Remote access on and the relay accepting: the link ready. */
void link_ready(void);
/* The relay restarted in mode, and the link back on it: its hello came
 * (stall: and nothing more), refused (refuse), or ready (accept, hold). */
void relay_switch(const char *mode, const char *cut_after);
/* The text of n copies of the UTF-8 character c (malloc'd). */
char *repeat(const char *c, int n);
/* The event record of id among evs, which must hold exactly one. */
json_t *the_event(json_t *evs, const char *id);
/* The events from index from on hold exactly the ids (in this order of
 * first arrival), each once as new (duplicate: false); other records of
 * them only as duplicates, and no other id. */
void exactly_these(size_t from, char ids[][80], int n);

/* ---- the group --------------------------------------------------------- */

int alerts_setup(void **state);
/* The same with svc-alerts stopped after ALERTS_IDLE_MS without a call
 * while the settings want no relay link, and started again by a change
 * of the config folder (itest_idle_alerts). */
#define ALERTS_IDLE_MS 500
int alerts_setup_idling(void **state);
int alerts_teardown(void **state);

#endif
