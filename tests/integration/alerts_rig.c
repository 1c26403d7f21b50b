/*
 * alerts_rig - see alerts_rig.h.
 */
#include "alerts_rig.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "../harness/checks.h"
#include "../harness/fake_relay.h"

struct fixture F;

struct tls_fixture tls;       /* the certificates; the record file lives there too */
struct fake_relay relay;

static int relay_running, relay_port;

char record[200];

char ca_env[400];

const char *broker_env[] = {
	ca_env,
	/* no reconnects of a stalled link of their own: the count at the
	 * relay is the call's alone */
	"HB_ALERTS_READY_MS=60000",
	/* a dropped link comes back soon, and a refused one is tried again
	 * within a short while */
	"HB_ALERTS_BACKOFF_MS=50",
	"HB_ALERTS_BACKOFF_CAP_MS=400",
	NULL,
};

static struct hb_client claude;      /* the Claude run's connection */
static int claude_open, requests;

char session[64];

struct ck_sub events;

int events_open, events_seen, reports_seen, cred_in_events;

/* ---- the events of the whole run ---------------------------------------- */

/* Read what the events socket holds: counted, and searched for the
 * credential (topic and body). */
void drain_events(void)
{
	char topic[128];
	json_t *body;

	while (events_open && (body = ck_sub_next(&events, 0, topic, sizeof topic))) {
		char *text = json_dumps(body, JSON_COMPACT);

		events_seen++;
		if (strncmp(topic, "service.report", 14) == 0 && text && strstr(text, "svc-alerts"))
			reports_seen++;
		if (strstr(topic, CRED) || (text && strstr(text, CRED)))
			cred_in_events++;
		free(text);
		json_decref(body);
	}
}

void pause_ms(int ms)
{
	drain_events();
	fx_sleep_ms(ms);
}

/* ---- the fake relay ---------------------------------------------------- */

/* The relay in mode (cut after cut_after events when not NULL), on the
 * port it had before and the same record file: the same relay, restarted. */
/* The relay restarted with o (its port, credential, record and TLS are
 * the rig's). */
static int relay_with(struct fake_relay_opts *o)
{
	o->credential = CRED;
	o->record = record;
	o->port = relay_port;
	o->tls = &tls;
	if (relay_running && fake_relay_stop(&relay) < 0)
		fprintf(stderr, "itest_alerts: the fake relay did not end cleanly\n");
	relay_running = 0;
	if (fake_relay_start(&relay, o) < 0)
		return -1;
	relay_running = 1;
	relay_port = relay.node.port;
	return 0;
}

int relay_as(const char *mode, const char *cut_after)
{
	struct fake_relay_opts o = { .mode = mode, .cut_after = cut_after };

	return relay_with(&o);
}

void relay_phone(const char *answer, int answer_unknown)
{
	struct fake_relay_opts o = { .mode = "accept", .answer = answer, .answer_unknown = answer_unknown };
	size_t m = mark();

	if (relay_with(&o) < 0)
		fail_msg("the fake relay did not start with a phone that answers %s", answer ? answer : "nothing");
	wait_kind("hello", m, 1);
	json_decref(wait_link("ready"));
}

/* The records so far (a line being written may be cut: read again). */
json_t *records(void)
{
	for (int i = 0; i < 50; i++) {
		json_t *all = fake_relay_records(record);

		if (all)
			return all;
		fx_sleep_ms(20);
	}
	fail_msg("the relay's record %s cannot be read", record);
	return NULL;
}

size_t mark(void)
{
	json_t *all = records();
	size_t n = json_array_size(all);

	json_decref(all);
	return n;
}

/* Records of kind from index from on. */
int count_kind(const char *kind, size_t from)
{
	json_t *all = records(), *r;
	size_t i;
	int n = 0;

	json_array_foreach(all, i, r)
		if (i >= from && strcmp(fx_jstr(r, "kind"), kind) == 0)
			n++;
	json_decref(all);
	return n;
}

/* Wait until at least want records of kind came from index from on. */
int wait_kind(const char *kind, size_t from, int want)
{
	long long end = fx_now_ms() + PATIENCE_MS;
	int n;

	while ((n = count_kind(kind, from)) < want && fx_now_ms() < end)
		pause_ms(20);
	if (n < want)
		fail_msg("the relay recorded %d %s records, not %d", n, kind, want);
	return n;
}

/* The event records from index from on, in the order they came. */
json_t *events_since(size_t from)
{
	json_t *all = records(), *out = json_array(), *r;
	size_t i;

	json_array_foreach(all, i, r)
		if (i >= from && strcmp(fx_jstr(r, "kind"), "event") == 0)
			json_array_append(out, r);
	json_decref(all);
	return out;
}

/* ---- the spool, the status and the settings ---------------------------- */

/* The alerts waiting in svc-alerts' spool; -1 when there is no spool. */
int spool_rows(void)
{
	char path[400];
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int n = -1;

	snprintf(path, sizeof path, "%s/data/alerts/spool.db", F.dir);
	if (access(path, F_OK) < 0)
		return -1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_busy_timeout(db, 5000) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT count(*) FROM spool", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	else
		fail_msg("the spool %s cannot be read: %s", path, db ? sqlite3_errmsg(db) : "no memory");
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

void wait_spool_empty(void)
{
	long long end = fx_now_ms() + PATIENCE_MS;
	int n;

	while ((n = spool_rows()) != 0 && fx_now_ms() < end)
		pause_ms(20);
	if (n != 0)
		fail_msg("the spool still holds %d alerts", n);
}

/* svc-alerts' report in status (a copy), or NULL when it has none. */
json_t *alerts_report(void)
{
	json_t *st = fx_status(&F), *svc = st ? fx_find_service(st, "svc-alerts") : NULL;
	json_t *rep = svc ? json_deep_copy(json_object_get(svc, "report")) : NULL;

	json_decref(st);
	return rep;
}

/* Wait until status says the link is phase; the report then (a copy). */
json_t *wait_link(const char *phase)
{
	long long end = fx_now_ms() + PATIENCE_MS;
	json_t *rep = NULL;

	while (fx_now_ms() < end) {
		json_decref(rep);
		rep = alerts_report();
		if (rep && strcmp(fx_jstr(rep, "link"), phase) == 0)
			return rep;
		pause_ms(20);
	}
	{
		char *text = rep ? json_dumps(rep, JSON_COMPACT) : NULL;

		fail_msg("status never said the link is %s; its report: %s", phase, text ? text : "(none)");
	}
	return NULL;
}

/* hbctl settings what [value]; it must succeed. */
void settings(const char *what, const char *value)
{
	const char *args[] = { "settings", what, value, NULL };
	char *out = NULL;
	int rc = fx_hbctl(&F, &out, args);

	if (rc != 0)
		fail_msg("hbctl settings %s %s exited %d: %s", what, value ? value : "", rc, out ? out : "");
	free(out);
}

/* ---- calls as the Claude run -------------------------------------------- */

int open_claude(void)
{
	if (fx_client(&F, &claude, 20000) < 0)
		return -1;
	claude_open = 1;
	return fx_open_run(&claude, RUN, session, "/tmp", "claude", "full-auto");
}

void close_claude(void)
{
	if (claude_open)
		hb_client_close(&claude);
	claude_open = 0;
}

/* send_mobile_notification with these arguments as the run's toolCall:
 * whether it succeeded, and its text (malloc'd). */
int call_alert(const char *args_json, char **text)
{
	int64_t id = fx_claude_call(&claude, ++requests, "send_mobile_notification", args_json);
	struct hb_env reply;
	json_t *ans, *err;
	int ok;

	if (id < 0)
		fail_msg("the call could not be sent");
	for (;;) {
		char why[256];
		int64_t got = -1;

		/* a call that fails after its attempts takes about 2 s */
		if (hb_client_recv(&claude, &reply, 30000, why, sizeof why) < 0)
			fail_msg("no answer to send_mobile_notification %s: %s", args_json, why);
		hb_env_int(&reply, "id", &got);
		if (got == id)
			break;
		hb_env_free(&reply);
	}
	/* A failed tool is a reply with ok false and still a toolResult. */
	ans = json_loads(hb_env_str_or(&reply, "json", ""), 0, NULL);
	err = json_object_get(ans, "isError");
	if (!json_is_boolean(err))
		fail_msg("no toolResult: %s", hb_env_str_or(&reply, "err.msg", hb_env_str_or(&reply, "json", "?")));
	hb_env_free(&reply);
	ok = !json_is_true(err);
	*text = strdup(fx_jstr(json_array_get(json_object_get(ans, "content"), 0), "text"));
	json_decref(ans);
	assert_non_null(*text);
	drain_events();
	return ok;
}

int64_t claude_permission(const char *event_json)
{
	int64_t id = fx_send_op(&claude, "claude.permission", "json", event_json, (char *)NULL);

	if (id < 0)
		fail_msg("claude.permission could not be sent");
	return id;
}

json_t *claude_answer(int64_t id)
{
	struct hb_env reply;
	json_t *ans;

	for (;;) {
		char why[256];
		int64_t got = -1;

		if (hb_client_recv(&claude, &reply, PATIENCE_MS, why, sizeof why) < 0)
			fail_msg("no answer to claude.permission %lld: %s", (long long)id, why);
		hb_env_int(&reply, "id", &got);
		if (got == id)
			break;
		hb_env_free(&reply);
	}
	ans = json_loads(hb_env_str_or(&reply, "json", ""), 0, NULL);
	if (!ans)
		fail_msg("claude.permission %lld refused: %s", (long long)id, hb_env_str_or(&reply, "err.msg", "?"));
	hb_env_free(&reply);
	return ans;
}

char *args_of(const char *title, const char *body)
{
	json_t *a = json_pack("{s:s, s:s}", "title", title, "body", body);
	char *json = a ? json_dumps(a, JSON_COMPACT) : NULL;

	json_decref(a);
	assert_non_null(json);
	return json;
}

/* An alert that must be receipted: its id into id. */
void receipted(const char *title, const char *body, char id[80])
{
	char *args = args_of(title, body), *text = NULL;
	size_t n;

	if (!call_alert(args, &text))
		fail_msg("alert \"%s\" failed: %s", title, text);
	if (strncmp(text, "Alert alert-", 12) != 0 || !strstr(text, " queued for the relay.") ||
	    !strstr(text, RECEIPT_END))
		fail_msg("not a receipt: %s", text);
	n = strcspn(text + 6, " ");
	assert_true(n > 0 && n < 80);
	snprintf(id, 80, "%.*s", (int)n, text + 6);
	free(args);
	free(text);
}

/* A call that must fail saying each of the NULL-terminated words. */
void refused(const char *args_json, ...)
{
	char *text = NULL;
	const char *w;
	va_list ap;

	if (call_alert(args_json, &text))
		fail_msg("%s was accepted: %s", args_json, text);
	va_start(ap, args_json);
	while ((w = va_arg(ap, const char *)))
		if (!strstr(text, w)) {
			va_end(ap);
			fail_msg("\"%s\" does not say \"%s\"", text, w);
		}
	va_end(ap);
	free(text);
}

/* Remote access on and the relay accepting: the link ready. */
void link_ready(void)
{
	json_t *rep = alerts_report();
	int ready = rep && strcmp(fx_jstr(rep, "link"), "ready") == 0;

	json_decref(rep);
	settings("remote-access", "on");
	if (!ready)
		json_decref(wait_link("ready"));
}

/* The relay restarted in mode, and the link back on it: its hello came
 * (stall: and nothing more), refused (refuse), or ready (accept, hold). */
void relay_switch(const char *mode, const char *cut_after)
{
	size_t m = mark();

	if (relay_as(mode, cut_after) < 0)
		fail_msg("the fake relay did not start in %s mode", mode);
	wait_kind("hello", m, 1);
	if (strcmp(mode, "refuse") == 0)
		wait_kind("refused", m, 1);
	else if (strcmp(mode, "stall") != 0)
		json_decref(wait_link("ready"));
}

/* The text of n copies of the UTF-8 character c (malloc'd). */
char *repeat(const char *c, int n)
{
	size_t len = strlen(c);
	char *s = malloc(len * (size_t)n + 1);

	assert_non_null(s);
	for (int i = 0; i < n; i++)
		memcpy(s + len * (size_t)i, c, len);
	s[len * (size_t)n] = '\0';
	return s;
}

/* The event record of id among evs, which must hold exactly one. */
json_t *the_event(json_t *evs, const char *id)
{
	json_t *r, *found = NULL;
	size_t i;
	int n = 0;

	json_array_foreach(evs, i, r)
		if (strcmp(fx_jstr(r, "id"), id) == 0) {
			found = r;
			n++;
		}
	if (n != 1)
		fail_msg("alert %s reached the relay %d times", id, n);
	return found;
}

/* The events from index from on hold exactly the ids (in this order of
 * first arrival), each once as new (duplicate: false); other records of
 * them only as duplicates, and no other id. */
void exactly_these(size_t from, char ids[][80], int n)
{
	json_t *evs = events_since(from), *r;
	int fresh = 0;
	size_t i;

	json_array_foreach(evs, i, r) {
		const char *id = fx_jstr(r, "id");
		int k;

		for (k = 0; k < n && strcmp(ids[k], id) != 0; k++)
			;
		if (k == n)
			fail_msg("alert %s reached the relay, and no call was receipted with it", id);
		if (!json_is_false(json_object_get(r, "duplicate")))
			continue;
		if (fresh >= n || strcmp(ids[fresh], id) != 0)
			fail_msg("alert %s reached the relay as new in place %d; receipt %d was %s", id, fresh + 1,
				 fresh + 1, fresh < n ? ids[fresh] : "(none)");
		fresh++;
	}
	if (fresh != n)
		fail_msg("%d of %d receipted alerts reached the relay", fresh, n);
	json_decref(evs);
}

/* ---- the group --------------------------------------------------------- */

/* The broker on conf (freed here), the relay, the settings but remote
 * access, the events and the Claude run. */
static int setup_on(char *conf)
{
	const char *cred[] = { "settings", "device-credential", "set", NULL };
	char *out = NULL;
	int rc;

	if (!conf || tls_make(&tls, "itest_alerts", NULL) < 0) {
		free(conf);
		return -1;
	}
	snprintf(record, sizeof record, "%s/relay.jsonl", tls.dir);
	/* the CA in the config folder: the one folder svc-alerts reads
	 * settings from (its confine line) */
	rc = relay_as("accept", NULL) == 0 && fx_prepare(&F, conf) == 0 ? 0 : -1;
	if (rc == 0) {
		char cmd[1200];

		snprintf(ca_env, sizeof ca_env, "HB_RELAY_CA_FILE=%s/config/relay-ca.pem", F.dir);
		snprintf(cmd, sizeof cmd, "mkdir -p -m 700 '%s/config' && cp '%s' '%s'", F.dir, tls.ca, ca_env + 17);
		rc = system(cmd) == 0 && fx_start_prepared(&F, broker_env) == 0 ? 0 : -1;
	}
	free(conf);
	if (rc < 0)
		return -1;
	/* Signed in, a relay set, notifications on; remote access stays off
	 * for the first test. */
	if (fx_hbctl_input(&F, CRED "\n", &out, cred) != 0) {
		fprintf(stderr, "hbctl settings device-credential set: %s\n", out ? out : "");
		free(out);
		return -1;
	}
	free(out);
	{
		const char *url[] = { "settings", "relay-url", "set", relay.url, NULL };
		const char *notify[] = { "settings", "notifications", "on", NULL };

		out = NULL;
		rc = fx_hbctl(&F, &out, url);
		free(out);
		out = NULL;
		if (rc != 0 || fx_hbctl(&F, &out, notify) != 0)
			rc = -1;
		free(out);
	}
	if (rc < 0)
		return -1;
	ck_sub_open(&events, &F, "");
	events_open = 1;
	if (fx_create_session(&F, SESSION_TITLE, "claude", "/tmp", "full-auto", session, sizeof session) < 0)
		return -1;
	return open_claude();
}

int alerts_setup(void **state)
{
	(void)state;
	return setup_on(fx_deployed_config(NULL, "svc-sessions", "svc-alerts", (char *)NULL));
}

int alerts_setup_idling(void **state)
{
	char lines[80];

	(void)state;
	snprintf(lines, sizeof lines, "idle = %dms\nwake = config\n", ALERTS_IDLE_MS);
	return setup_on(fx_config_add_lines(fx_deployed_config(NULL, "svc-sessions", "svc-alerts", (char *)NULL),
					    "svc-alerts", lines));
}

int alerts_teardown(void **state)
{
	int rc;

	(void)state;
	close_claude();
	if (events_open)
		ck_sub_close(&events);
	events_open = 0;
	rc = fx_stop_clean(&F);
	if (relay_running && fake_relay_stop(&relay) < 0)
		rc = -1;
	relay_running = 0;
	tls_remove(&tls);
	return rc;
}
