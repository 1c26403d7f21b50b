/*
 * itest_alerts - send_mobile_notification through the real hb-broker,
 * svc-sessions and svc-alerts, to the tests' fake regional relay
 * (tests/fake-relay/relay.mjs: wss on 127.0.0.1 only, with a throwaway
 * CA that only the broker's environment trusts).
 *
 * The test plays a Claude run (run.open, then toolCall on the same
 * connection), so the broker binds the session and the run of each alert;
 * the settings change through hbctl, as the desktop's Settings do.  The
 * relay is stopped and started again on the same port and record file
 * whenever a test needs another behaviour (accept, refuse, stall, hold,
 * a cut after N events), which to svc-alerts is the same relay
 * restarting.
 *
 * One broker serves the tests in order; the first runs while it is fresh
 * (remote access off since it started), the tenth kills it and starts a
 * new one on the same folder.  What each shows:
 *  - at once: remote access off since svc-alerts started: the call fails
 *    at once with the sentence that says so, and no connection was made;
 *  - requested: a receipt; the event at the relay carries the binding's
 *    session and run, the session's title and the text byte for byte;
 *    status says the link is ready; the spool empties on the ack;
 *  - limits in characters with multibyte text, refused and never cut,
 *    and nothing of a refused call reaches the relay;
 *  - notifications off stops the very next call;
 *  - a started link that is not ready: the failure is counted at the
 *    relay as 9 connections (never timed); remote access turned off
 *    fails the very next call, after the attempts, with no connection;
 *  - a new relay URL while the link is up: the link goes to it at once;
 *  - a refused credential says "sign in again", in the answer and status;
 *  - a relay certificate signed by a CA it does not trust is named with
 *    its verify error, and the answer points at the relay URL and
 *    relayCaFile, not at the network;
 *  - a relay that cuts the link with alerts in flight: none lost, none
 *    repeated to the phone, in order;
 *  - SIGKILL of svc-alerts, then of the broker, with alerts queued at a
 *    relay that acknowledges nothing: each reaches the relay once, after
 *    the restart, and the sessions service is undisturbed;
 *  - the device credential is in no log, status, event, record or file
 *    but its own.
 *
 * Waits are bounded patience (PATIENCE_MS) for what must come, never a
 * measure of speed; the failure after about 2 seconds is shown by the
 * count of connections at the relay.
 */
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

static struct fixture F;
static struct tls_fixture tls;       /* the certificates; the record file lives there too */
static struct fake_relay relay;
static int relay_running, relay_port;
static char record[200];
static char ca_env[400];
static const char *broker_env[] = {
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
static char session[64];
static struct ck_sub events;
static int events_open, events_seen, reports_seen, cred_in_events;

/* ---- the events of the whole run ---------------------------------------- */

/* Read what the events socket holds: counted, and searched for the
 * credential (topic and body). */
static void drain_events(void)
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

static void pause_ms(int ms)
{
	drain_events();
	fx_sleep_ms(ms);
}

/* ---- the fake relay ---------------------------------------------------- */

/* The relay in mode (cut after cut_after events when not NULL), on the
 * port it had before and the same record file: the same relay, restarted. */
static int relay_as(const char *mode, const char *cut_after)
{
	struct fake_relay_opts o = { .mode = mode, .credential = CRED, .record = record, .port = relay_port,
				     .tls = &tls, .cut_after = cut_after };

	if (relay_running && fake_relay_stop(&relay) < 0)
		fprintf(stderr, "itest_alerts: the fake relay did not end cleanly\n");
	relay_running = 0;
	if (fake_relay_start(&relay, &o) < 0)
		return -1;
	relay_running = 1;
	relay_port = relay.node.port;
	return 0;
}

/* The records so far (a line being written may be cut: read again). */
static json_t *records(void)
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

static size_t mark(void)
{
	json_t *all = records();
	size_t n = json_array_size(all);

	json_decref(all);
	return n;
}

/* Records of kind from index from on. */
static int count_kind(const char *kind, size_t from)
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
static int wait_kind(const char *kind, size_t from, int want)
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
static json_t *events_since(size_t from)
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
static int spool_rows(void)
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

static void wait_spool_empty(void)
{
	long long end = fx_now_ms() + PATIENCE_MS;
	int n;

	while ((n = spool_rows()) != 0 && fx_now_ms() < end)
		pause_ms(20);
	if (n != 0)
		fail_msg("the spool still holds %d alerts", n);
}

/* svc-alerts' report in status (a copy), or NULL when it has none. */
static json_t *alerts_report(void)
{
	json_t *st = fx_status(&F), *svc = st ? fx_find_service(st, "svc-alerts") : NULL;
	json_t *rep = svc ? json_deep_copy(json_object_get(svc, "report")) : NULL;

	json_decref(st);
	return rep;
}

/* Wait until status says the link is phase; the report then (a copy). */
static json_t *wait_link(const char *phase)
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
static void settings(const char *what, const char *value)
{
	const char *args[] = { "settings", what, value, NULL };
	char *out = NULL;
	int rc = fx_hbctl(&F, &out, args);

	if (rc != 0)
		fail_msg("hbctl settings %s %s exited %d: %s", what, value ? value : "", rc, out ? out : "");
	free(out);
}

/* ---- calls as the Claude run -------------------------------------------- */

static int open_claude(void)
{
	if (fx_client(&F, &claude, 20000) < 0)
		return -1;
	claude_open = 1;
	return fx_open_run(&claude, RUN, session, "/tmp", "claude", "full-auto");
}

static void close_claude(void)
{
	if (claude_open)
		hb_client_close(&claude);
	claude_open = 0;
}

/* send_mobile_notification with these arguments as the run's toolCall:
 * whether it succeeded, and its text (malloc'd). */
static int call_alert(const char *args_json, char **text)
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

static char *args_of(const char *title, const char *body)
{
	json_t *a = json_pack("{s:s, s:s}", "title", title, "body", body);
	char *json = a ? json_dumps(a, JSON_COMPACT) : NULL;

	json_decref(a);
	assert_non_null(json);
	return json;
}

/* An alert that must be receipted: its id into id. */
static void receipted(const char *title, const char *body, char id[80])
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
static void refused(const char *args_json, ...)
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
static void link_ready(void)
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
static void relay_switch(const char *mode, const char *cut_after)
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
static char *repeat(const char *c, int n)
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
static json_t *the_event(json_t *evs, const char *id)
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
static void exactly_these(size_t from, char ids[][80], int n)
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

static int setup(void **state)
{
	char *conf = fx_deployed_config(NULL, "svc-sessions", "svc-alerts", (char *)NULL);
	const char *cred[] = { "settings", "device-credential", "set", NULL };
	char *out = NULL;
	int rc;

	(void)state;
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

static int teardown(void **state)
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

/* ---- the tests --------------------------------------------------------- */

/* Remote access has been off since svc-alerts started: the link never
 * started, so the call fails at once (the sentence of that outcome, not
 * the attempts'), and the relay saw no connection. */
static void test_at_once_when_never_started(void **state)
{
	char *args = args_of("Build fixed", "All tests pass."), *text = NULL;
	json_t *rep;

	(void)state;
	rep = wait_link("never started");
	if (!strstr(fx_jstr(rep, "lastError"), REMOTE_OFF))
		fail_msg("the report does not say why: %s", fx_jstr(rep, "lastError"));
	json_decref(rep);
	if (call_alert(args, &text))
		fail_msg("sent with remote access off: %s", text);
	if (!strstr(text, "No alert was sent: the desktop's link to the relay has not started since svc-alerts "
			  "started.") ||
	    !strstr(text, REMOTE_OFF) || !strstr(text, "hbctl settings remote-access on") || strstr(text, "attempts"))
		fail_msg("not the at-once failure: %s", text);
	free(text);
	free(args);
	assert_int_equal(count_kind("connection", 0), 0);
	assert_int_equal(spool_rows() <= 0, 1);
	rep = alerts_report();
	assert_string_equal(fx_jstr(rep, "link"), "never started");
	json_decref(rep);
}

/* Requested: a receipt at once; the event carries the binding's session
 * and run, the session's title and the text exactly; the link is ready
 * in status; the relay's ack empties the spool. */
static void test_requested(void **state)
{
	const char *title = "Build fixed", *body = "All 212 tests pass.\nThe flaky one was a \"race\".";
	char id[80];
	json_t *evs, *ev, *rep, *all, *r;
	size_t m, i;
	int hello_ok = 0;

	(void)state;
	link_ready();
	m = mark();
	receipted(title, body, id);
	wait_kind("event", m, 1);
	evs = events_since(m);
	ev = the_event(evs, id);
	assert_string_equal(fx_jstr(ev, "sessionId"), session);
	assert_string_equal(fx_jstr(ev, "runId"), RUN);
	assert_string_equal(fx_jstr(ev, "sessionTitle"), SESSION_TITLE);
	assert_string_equal(fx_jstr(ev, "title"), title);
	assert_string_equal(fx_jstr(ev, "body"), body);
	assert_true(json_is_false(json_object_get(ev, "duplicate")));
	assert_int_equal(strlen(fx_jstr(ev, "createdAt")), 24);
	json_decref(evs);

	rep = alerts_report();
	assert_non_null(rep);
	assert_string_equal(fx_jstr(rep, "link"), "ready");
	json_decref(rep);
	wait_spool_empty();

	/* The relay took the credential (it records only that). */
	all = records();
	json_array_foreach(all, i, r)
		if (strcmp(fx_jstr(r, "kind"), "hello") == 0 && json_is_true(json_object_get(r, "credentialOk")))
			hello_ok++;
	json_decref(all);
	assert_true(hello_ok > 0);
}

/* Limits in characters: 60 and 180 of multibyte characters go, byte for
 * byte; 61 and 181 are refused with the limits in the sentence, as are an
 * empty title and an unknown argument; nothing refused reaches the relay. */
static void test_limits_in_characters(void **state)
{
	char *e60 = repeat("\xc3\xa9", 60), *e61 = repeat("\xc3\xa9", 61);         /* é */
	char *bell60 = repeat("\xf0\x9f\x94\x94", 60);                             /* 🔔, 4 bytes */
	char *ri180 = repeat("\xe6\x97\xa5", 180), *ri181 = repeat("\xe6\x97\xa5", 181); /* 日 */
	char ids[3][80], *args;
	json_t *evs;
	size_t m;

	(void)state;
	link_ready();
	m = mark();
	receipted(e60, ri180, ids[0]);
	receipted(bell60, "Bells.", ids[1]);
	wait_kind("event", m, 2);
	evs = events_since(m);
	assert_string_equal(fx_jstr(the_event(evs, ids[0]), "title"), e60);
	assert_string_equal(fx_jstr(the_event(evs, ids[0]), "body"), ri180);
	assert_string_equal(fx_jstr(the_event(evs, ids[1]), "title"), bell60);
	json_decref(evs);

	m = mark();
	args = args_of(e61, "x");
	refused(args, "The title is 61 characters", "at most 60", "Nothing was sent.", (char *)NULL);
	free(args);
	args = args_of("x", ri181);
	refused(args, "The body is 181 characters", "at most 180", (char *)NULL);
	free(args);
	args = args_of("", "x");
	refused(args, "The title is empty", (char *)NULL);
	free(args);
	args = args_of("x", "");
	refused(args, "The body is empty", (char *)NULL);
	free(args);
	refused("{\"title\":\"x\",\"body\":\"y\",\"priority\":\"high\"}", "takes only title and body", "priority",
		(char *)NULL);
	refused("{\"title\":\"x\"}", "needs a title and a body", (char *)NULL);
	/* One more that goes: the only event since the refused ones. */
	receipted("After the refusals", "Only this one.", ids[2]);
	wait_kind("event", m, 1);
	evs = events_since(m);
	assert_int_equal(json_array_size(evs), 1);
	assert_string_equal(fx_jstr(json_array_get(evs, 0), "id"), ids[2]);
	json_decref(evs);
	wait_spool_empty();
	free(e60);
	free(e61);
	free(bell60);
	free(ri180);
	free(ri181);
}

/* Notifications off stops the next call, and nothing reaches the relay. */
static void test_notifications_off(void **state)
{
	char *args = args_of("Will not go", "Notifications are off."), id[80], after[80];
	json_t *evs;
	size_t m;

	(void)state;
	link_ready();
	receipted("Before", "Notifications are on.", id);
	settings("notifications", "off");
	m = mark();
	refused(args, "Desktop and phone notifications are off, so no alert was sent.",
		"hbctl settings notifications on", (char *)NULL);
	settings("notifications", "on");
	receipted("After", "Notifications are on again.", after);
	wait_kind("event", m, 1);
	evs = events_since(m);
	/* "Before" may arrive after the mark; "Will not go" never. */
	for (size_t i = 0; i < json_array_size(evs); i++) {
		const char *got = fx_jstr(json_array_get(evs, i), "id");
		if (strcmp(got, id) != 0 && strcmp(got, after) != 0)
			fail_msg("alert %s reached the relay with notifications off", got);
	}
	json_decref(evs);
	wait_spool_empty();
	free(args);
}

/* A started link that is not ready: the call restarts it 8 more times and
 * fails; the relay counts the 9 connections (hello and no ready, ever).
 * With remote access off the attempts make no connection at all. */
static void test_not_ready_counted_at_relay(void **state)
{
	char *args = args_of("Stalled", "The relay never says ready."), *text = NULL;
	size_t m;
	int n;

	(void)state;
	link_ready();
	relay_switch("stall", NULL);
	m = mark();
	refused(args, "No alert was sent", NOT_READY, (char *)NULL);
	/* The last restart may still be on its way to the relay. */
	n = wait_kind("hello", m, 9);
	pause_ms(300);
	if ((n = count_kind("hello", m)) != 9 || count_kind("connection", m) != 9)
		fail_msg("the relay saw %d connections and %d hellos during the call, not 9", count_kind("connection", m),
			 n);
	assert_int_equal(count_kind("event", m), 0);

	/* Remote access off after the link was ready: the very next call
	 * (the link may not have read the settings yet) makes the attempts,
	 * no connection, and fails. */
	relay_switch("accept", NULL);
	json_decref(wait_link("ready"));
	m = mark();
	settings("remote-access", "off");
	if (call_alert(args, &text))
		fail_msg("sent with remote access off: %s", text);
	if (!strstr(text, NOT_READY) || !strstr(text, REMOTE_OFF) || !strstr(text, "hbctl settings remote-access on"))
		fail_msg("not the failure of remote access off: %s", text);
	free(text);
	json_decref(wait_link("down"));
	assert_int_equal(count_kind("connection", m), 0);
	assert_int_equal(count_kind("event", m), 0);
	/* On again: one connection, the link's own, so none came before it. */
	settings("remote-access", "on");
	json_decref(wait_link("ready"));
	assert_int_equal(count_kind("connection", m), 1);
	assert_int_equal(count_kind("event", m), 0);
	free(args);
}

/* A new relay URL while the link is up: the link goes to it at once,
 * with no call to restart it. */
static void test_relay_url_changed(void **state)
{
	char url[200], *out = NULL;
	const char *args[] = { "settings", "relay-url", "set", url, NULL };
	size_t m;

	(void)state;
	link_ready();
	m = mark();
	/* the same relay under another path: the relay takes any path */
	snprintf(url, sizeof url, "%s/moved", relay.url);
	if (fx_hbctl(&F, &out, args) != 0)
		fail_msg("hbctl settings relay-url set %s: %s", url, out ? out : "");
	free(out);
	if (wait_kind("hello", m, 1) < 1)
		fail_msg("the link did not connect again after the relay's URL changed");
	json_decref(wait_link("ready"));
	snprintf(url, sizeof url, "%s", relay.url);
	if (fx_hbctl(&F, &out, args) != 0)
		fail_msg("hbctl settings relay-url set %s: %s", url, out ? out : "");
	free(out);
	wait_kind("hello", m, 2);
	json_decref(wait_link("ready"));
}

/* A refused credential: the attempts, then "sign in again" in the answer
 * and in status. */
static void test_refused_credential(void **state)
{
	char *args = args_of("Refused", "The relay refuses the device."), *text = NULL;
	json_t *rep;
	size_t m;

	(void)state;
	link_ready();
	m = mark();
	relay_switch("refuse", NULL);
	if (call_alert(args, &text))
		fail_msg("sent to a relay that refuses the credential: %s", text);
	if (!strstr(text, NOT_READY) || !strstr(text, "sign in again") ||
	    !strstr(text, "hbctl settings device-credential set"))
		fail_msg("not the refused credential's failure: %s", text);
	free(text);
	rep = alerts_report();
	assert_non_null(rep);
	if (!strstr(fx_jstr(rep, "lastError"), "sign in again") || strcmp(fx_jstr(rep, "link"), "ready") == 0)
		fail_msg("status does not say to sign in again: link %s, %s", fx_jstr(rep, "link"),
			 fx_jstr(rep, "lastError"));
	json_decref(rep);
	assert_true(count_kind("refused", m) >= 1);
	assert_int_equal(count_kind("event", m), 0);
	relay_switch("accept", NULL);
	free(args);
}

/* Copy the CA file src over the one svc-alerts trusts (HB_RELAY_CA_FILE). */
static void trust_ca(const char *src)
{
	char cmd[1200];

	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", src, ca_env + strlen("HB_RELAY_CA_FILE="));
	assert_int_equal(system(cmd), 0);
}

/* The relay's certificate signed by a CA svc-alerts does not trust: the
 * answer says the relay was reached and its certificate refused, with the
 * verify error, and sends the user to the relay URL and relayCaFile, not
 * to the network; nothing reached the relay.  Trusting the right CA again
 * brings the link back. */
static void test_untrusted_certificate(void **state)
{
	char *args = args_of("Untrusted", "The relay's certificate is not trusted."), *text = NULL;
	size_t m;
	int ok;

	(void)state;
	link_ready();
	trust_ca(tls.other_ca);
	m = mark();
	/* The relay restarted: the link drops and connects again, under the
	 * CA file as it is now. */
	if (relay_as("accept", NULL) < 0)
		fail_msg("the fake relay did not start again");
	ok = call_alert(args, &text);
	/* Trusted again before any check, so that a failure here leaves the
	 * next tests their link. */
	trust_ca(tls.ca);
	if (ok)
		fail_msg("sent to a relay whose certificate is not trusted: %s", text);
	if (!strstr(text, NOT_READY) ||
	    !strstr(text, "The relay was reached, but its certificate was refused (the certificate of localhost was "
			  "refused: unable to get local issuer certificate), so nothing was sent.") ||
	    !strstr(text, "relayCaFile") || strstr(text, "Check the network connection"))
		fail_msg("not the refused certificate's failure: %s", text);
	free(text);
	assert_int_equal(count_kind("hello", m), 0);
	assert_int_equal(count_kind("event", m), 0);
	relay_switch("accept", NULL);
	free(args);
}

/* The relay cuts the link after every 2 acknowledged events, the third
 * recorded but not acknowledged: 6 receipted alerts each reach it once as
 * new, in the order of the receipts, and nothing else does. */
static void test_relay_drop_in_flight(void **state)
{
	char ids[6][80], title[32];
	json_t *evs;
	size_t m;
	int resent = 0;

	(void)state;
	link_ready();
	relay_switch("accept", "2");
	m = mark();
	for (int i = 0; i < 6; i++) {
		snprintf(title, sizeof title, "In flight %d", i + 1);
		receipted(title, "Sent while the relay drops the link.", ids[i]);
	}
	wait_spool_empty();
	exactly_these(m, ids, 6);
	/* The cut happened: some alert was sent again. */
	evs = events_since(m);
	for (size_t i = 0; i < json_array_size(evs); i++)
		resent += json_is_true(json_object_get(json_array_get(evs, i), "duplicate"));
	json_decref(evs);
	if (resent < 1 || count_kind("connection", m) < 2)
		fail_msg("the relay never cut the link (%d resent)", resent);
	relay_switch("accept", NULL);
}

/* A relay that acknowledges nothing: 3 receipted alerts stay spooled. */
static void three_held(char ids[3][80], size_t *m)
{
	link_ready();
	relay_switch("hold", NULL);
	*m = mark();
	for (int i = 0; i < 3; i++) {
		char title[32];

		snprintf(title, sizeof title, "Queued %d", i + 1);
		receipted(title, "Held by the relay.", ids[i]);
	}
	wait_kind("event", *m, 3);
	assert_int_equal(spool_rows(), 3);
}

/* The sessions service answers as before. */
static void sessions_undisturbed(pid_t sessions)
{
	char *text = NULL;
	int ok = 0;

	assert_int_equal(fx_call(&F, "maintain_sessions", "{\"action\":\"listSessions\"}", &ok, &text), 0);
	if (!ok || !strstr(text, session))
		fail_msg("maintain_sessions: %s", text ? text : "");
	free(text);
	if (sessions)
		assert_int_equal(fx_service_pid(&F, "svc-sessions"), sessions);
}

/* SIGKILL of svc-alerts with 3 alerts unacknowledged: after its restart,
 * at a relay that acknowledges, each reaches the relay once as new and
 * nothing else does; svc-sessions went on. */
static void test_kill_service_with_queue(void **state)
{
	char ids[3][80];
	long long gen;
	pid_t pid, sessions;
	size_t m;

	(void)state;
	three_held(ids, &m);
	pid = fx_service_pid(&F, "svc-alerts");
	gen = fx_service_num(&F, "svc-alerts", "generation");
	sessions = fx_service_pid(&F, "svc-sessions");
	assert_true(pid > 0 && sessions > 0);
	assert_int_equal(kill(pid, SIGKILL), 0);
	ck_wait_gone(pid);
	assert_int_equal(fx_wait_up(&F, "svc-alerts", gen + 1, PATIENCE_MS), 0);
	relay_switch("accept", NULL);
	wait_spool_empty();
	exactly_these(m, ids, 3);
	sessions_undisturbed(sessions);
}

/* SIGKILL of the broker (its services go with it) with 3 alerts
 * unacknowledged: a new broker on the same folder sends each once. */
static void test_kill_broker_with_queue(void **state)
{
	char ids[3][80], after[80];
	pid_t alerts, sessions;
	json_t *evs;
	size_t m;
	int st;

	(void)state;
	three_held(ids, &m);
	alerts = fx_service_pid(&F, "svc-alerts");
	sessions = fx_service_pid(&F, "svc-sessions");
	assert_true(alerts > 0 && sessions > 0);
	close_claude();
	assert_int_equal(kill(F.broker, SIGKILL), 0);
	while (waitpid(F.broker, &st, 0) < 0 && errno == EINTR)
		;
	F.broker = 0;
	ck_wait_gone(alerts);
	ck_wait_gone(sessions);
	assert_int_equal(spool_rows(), 3);
	if (relay_as("accept", NULL) < 0)
		fail_msg("the fake relay did not start again");
	/* The same log file, so the last test reads both brokers'. */
	F.broker = fx_spawn_broker(&F, broker_env, "broker.log");
	assert_true(F.broker > 0);
	assert_int_equal(fx_wait_up(&F, "svc-sessions", 1, PATIENCE_MS), 0);
	assert_int_equal(fx_wait_up(&F, "svc-alerts", 1, PATIENCE_MS), 0);
	wait_spool_empty();
	exactly_these(m, ids, 3);
	sessions_undisturbed(0);
	/* And the new broker's run sends as before. */
	assert_int_equal(open_claude(), 0);
	m = mark();
	receipted("After the broker", "A new broker, the same session.", after);
	wait_kind("event", m, 1);
	evs = events_since(m);
	assert_string_equal(fx_jstr(the_event(evs, after), "sessionId"), session);
	json_decref(evs);
	wait_spool_empty();
}

/* The credential went into hellos (the relay said it matched) and
 * nowhere else: not the broker's log (the services' too), not status,
 * not the events, not the relay's record, and no file of the broker's
 * folder but the one that keeps it. */
static void test_credential_never_appears(void **state)
{
	const char *status[] = { "status", "--json", NULL };
	char *out = NULL, cmd[600], line[600];
	FILE *grep;
	int rc;

	(void)state;
	pause_ms(200);
	drain_events();
	assert_int_equal(cred_in_events, 0);
	if (reports_seen == 0)
		fail_msg("no service.report event of svc-alerts among %d events: the search saw nothing", events_seen);

	rc = fx_hbctl(&F, &out, status);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "svc-alerts"));
	assert_null(strstr(out, CRED));
	free(out);

	out = fx_read_text(F.log);
	assert_non_null(strstr(out, "relay link ready")); /* svc-alerts logs there */
	assert_null(strstr(out, CRED));
	free(out);
	out = fx_read_text(record);
	assert_non_null(strstr(out, "\"credentialOk\":true"));
	assert_null(strstr(out, CRED));
	free(out);

	/* Every file of the broker's folder, the spool and its journal too. */
	snprintf(cmd, sizeof cmd, "grep -rlaF -D skip -e '%s' '%s'", CRED, F.dir);
	assert_non_null(grep = popen(cmd, "r"));
	while (fgets(line, sizeof line, grep)) {
		char own[400];

		line[strcspn(line, "\n")] = '\0';
		snprintf(own, sizeof own, "%s/config/device-credential", F.dir);
		if (strcmp(line, own) != 0)
			fail_msg("%s holds the device credential", line);
	}
	assert_int_equal(pclose(grep), 0); /* found: the credential's own file */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_at_once_when_never_started),
		cmocka_unit_test(test_requested),
		cmocka_unit_test(test_limits_in_characters),
		cmocka_unit_test(test_notifications_off),
		cmocka_unit_test(test_not_ready_counted_at_relay),
		cmocka_unit_test(test_relay_url_changed),
		cmocka_unit_test(test_refused_credential),
		cmocka_unit_test(test_untrusted_certificate),
		cmocka_unit_test(test_relay_drop_in_flight),
		cmocka_unit_test(test_kill_service_with_queue),
		cmocka_unit_test(test_kill_broker_with_queue),
		cmocka_unit_test(test_credential_never_appears),
	};

	return ck_run_group_tests(tests, setup, teardown);
}
