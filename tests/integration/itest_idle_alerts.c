/*
 * itest_idle_alerts - svc-alerts runs only while it is needed (issue 38):
 * the real hb-broker, svc-sessions and svc-alerts and the tests' fake
 * relay (alerts_rig.h), with svc-alerts started at boot, stopped after
 * ALERTS_IDLE_MS without a call when its task, asked by the broker
 * (idle.ask), says the settings want no relay link, and started again by
 * a change of the config folder (wake = config).  The broker reads no
 * setting: `hbctl settings remote-access on` writes settings.json, the
 * folder's change starts svc-alerts, and svc-alerts judges it.  What
 * each test shows:
 *  - remote access off: stopped after its idle time, and `hbctl status`
 *    says so; a call (send_mobile_notification) starts it, is refused as
 *    ever with the reason, and it stops again;
 *  - remote access on: started by the change, the link comes up and
 *    stays over many idle times (status: holdsWork), and an approval
 *    card reaches the phone through it;
 *  - remote access off again: it stops.
 * Waits are bounded patience, never a measure of speed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/checks.h"
#include "../harness/harness.h"
#include "alerts_rig.h"

#define CARD                                                                                                   \
	"{\"requestId\":\"perm-idle\",\"tool\":\"Bash\",\"input\":{\"command\":\"make clean\"},\"toolUseId\":" \
	"\"tu-idle\",\"cwd\":\"/work/proj\"}"

static void test_off_idles(void **state)
{
	long long gen;
	char *args = args_of("Build done", "All green");

	(void)state;
	ck_svc_str_equal(&F, "svc-alerts", "start", "boot");
	ck_svc_str_equal(&F, "svc-alerts", "wake", "config");
	ck_wait_stopped_idle(&F, "svc-alerts");
	ck_hbctl_status_says(&F, "idle (stopped after 500 ms)");
	assert_int_equal(fx_service_num(&F, "svc-alerts", "restarts"), 0);
	gen = fx_service_num(&F, "svc-alerts", "generation");
	/* A call starts it; with remote access off it is refused as ever. */
	refused(args, "has not started since svc-alerts started", REMOTE_OFF, (char *)NULL);
	free(args);
	assert_int_equal(fx_service_num(&F, "svc-alerts", "generation"), gen + 1);
	ck_wait_stopped_idle(&F, "svc-alerts");
}

static void test_on_wakes_and_stays(void **state)
{
	long long gen = fx_service_num(&F, "svc-alerts", "generation");
	size_t m = mark();
	json_t *rep;

	(void)state;
	ck_svc_str_equal(&F, "svc-alerts", "state", "idle");
	/* The settings change; nothing calls svc-alerts. */
	settings("remote-access", "on");
	rep = wait_link("ready");
	json_decref(rep);
	assert_true(fx_service_num(&F, "svc-alerts", "generation") > gen);
	ck_stays_up_holding_work(&F, "svc-alerts", 6 * ALERTS_IDLE_MS);
	ck_hbctl_status_says(&F, "svc-alerts: stays up while the settings want the relay link");
	/* A card reaches the phone through the link that stays. */
	claude_permission(CARD);
	assert_true(wait_kind("approval", m, 1) >= 1);
}

static void test_off_again_stops(void **state)
{
	long long stops = fx_service_num(&F, "svc-alerts", "idleStops");

	(void)state;
	settings("remote-access", "off");
	ck_wait_stopped_idle(&F, "svc-alerts");
	assert_int_equal(fx_service_num(&F, "svc-alerts", "idleStops"), stops + 1);
	assert_int_equal(fx_service_num(&F, "svc-alerts", "restarts"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_off_idles),
		cmocka_unit_test(test_on_wakes_and_stays),
		cmocka_unit_test(test_off_again_stops),
	};

	return ck_run_group_tests(tests, alerts_setup_idling, alerts_teardown);
}
