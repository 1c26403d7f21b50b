/*
 * itest_alerts_relay - send_mobile_notification through the real
 * hb-broker, svc-sessions and svc-alerts when the relay or the processes
 * fail (alerts_rig.h).  What each shows:
 *  - a relay that cuts the link with alerts in flight: none lost, none
 *    repeated to the phone, in order;
 *  - SIGKILL of svc-alerts, then of the broker, with alerts queued at a
 *    relay that acknowledges nothing: each reaches the relay once, after
 *    the restart, and the sessions service is undisturbed;
 *  - the device credential is in no log, status, event, record or file
 *    but its own.
 *
 *
 * The fourth kills the broker and starts a new one on the same folder.
 * Waits are bounded patience (PATIENCE_MS) for what must come, never a
 * measure of speed.
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
		cmocka_unit_test(test_untrusted_certificate),
		cmocka_unit_test(test_relay_drop_in_flight),
		cmocka_unit_test(test_kill_service_with_queue),
		cmocka_unit_test(test_kill_broker_with_queue),
		cmocka_unit_test(test_credential_never_appears),
	};

	return ck_run_group_tests(tests, alerts_setup, alerts_teardown);
}
