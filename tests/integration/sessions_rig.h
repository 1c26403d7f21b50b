/*
 * sessions_rig - what the integration tests of svc-sessions
 * (itest_sessions.c, itest_sessions_store.c) share: the real hb-broker
 * with the service entry of deploy/services.conf and appdata.db in a
 * temporary HB_HOME, two project folders (their real paths and hashes,
 * checked against sha256sum), and the tools called through the front
 * socket with checks of their answers.
 */
#ifndef TEST_SESSIONS_RIG_H
#define TEST_SESSIONS_RIG_H

#include <limits.h>
#include <stddef.h>

#include <jansson.h>

#include "../harness/harness.h"
#include "sha256.h"

extern struct fixture fx;
/* The two project folders the fixture makes: real paths and hashes. */
extern char proj_a[PATH_MAX], proj_b[PATH_MAX];
extern char hash_a[HB_SHA256_HEX_LEN + 1], hash_b[HB_SHA256_HEX_LEN + 1];
/* Ids of the sessions test_manage creates, for the tests after it. */
extern char id_a1[64], id_b1[64], id_a2[64];

/* ---- helpers --------------------------------------------------------------- */

const char *jstr(const json_t *o, const char *key);
/* Call tool with args (stolen); *text is the answer.  Returns ok. */
int call_args(const char *tool, json_t *args, char **text);
/* A call that must succeed with a JSON object answer. */
json_t *call_ok(const char *tool, json_t *args);
/* A call that must fail with want in its text. */
void call_fails(const char *tool, json_t *args, const char *want);
json_t *create(const char *title, const char *agent, const char *path);
json_t *change(const char *action, const char *id);
/* listSessions with extra fields (stolen, may be NULL); the sessions array
 * is borrowed from the returned object. */
json_t *list(json_t *extra);
json_t *find_row(const json_t *res, const char *id);
void expect_order(const json_t *res, const char *want);
/* updated_at has millisecond resolution: keep "newer" unambiguous. */
void tick(void);
void check_row(const json_t *row, const char *title, const char *agent, const char *dir,
	       const char *hash);
int is_active(const json_t *res, const char *id);

/* ---- fixture ------------------------------------------------------------- */

/* svc-sessions exactly as deploy/services.conf runs it. */
/* The broker with svc-sessions as deployed, and the two projects. */
int setup_broker(void **state);
int teardown_broker(void **state);

#endif
