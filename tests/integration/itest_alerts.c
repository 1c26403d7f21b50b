/*
 * itest_alerts - send_mobile_notification through the real hb-broker,
 * svc-sessions and svc-alerts, to the tests' fake regional relay
 * (alerts_rig.h).  The test plays a Claude run (run.open,
 * then toolCall on the same connection), so the broker binds the session
 * and the run of each alert; the settings change through hbctl, as the
 * desktop's Settings do.
 *
 * One broker serves the tests in order; the first runs while it is fresh
 * (remote access off since it started).  What each shows:
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
 * (The relay's failures, kills and the credential: itest_alerts_relay.c.)
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
#include "alerts_rig.h"

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
	};

	return ck_run_group_tests(tests, alerts_setup, alerts_teardown);
}
