/*
 * itest_secrets - GEMINI_API_KEY in hb-broker's environment reaches only
 * the services whose section of services.conf names it (`secrets =`):
 * svc-speech and svc-video as deployed get it, the test service svc-echo
 * does not unless its section asks; a name one service declares is kept
 * from the others; ordinary variables still pass.  And `hbctl settings`
 * says that no setting removes a key in the environment, of the broker or
 * of hbctl, and `gemini-key delete` fails saying so.
 *
 * The relay link's settings through `hbctl settings`: the relay URL set,
 * refused and deleted, remote access on and off, and the device
 * credential read from standard input into a 0600 file and deleted; the
 * credential appears in no output of hbctl, refused or not, and in no
 * line of the broker's log.
 *
 * svc-echo's env tool answers "NAME is set" or "NAME is unset", never the
 * value.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../harness/harness.h"

#define KEY "AIzaTestKeyFromTheBrokerEnvironment"
#define NO_KEY "Add a Gemini API key in Settings > API Keys."

static const char echo_section[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 2\n"
	"tools = env\n";

static const char *const key_env[] = { "GEMINI_API_KEY=" KEY, "HB_TEST_TOKEN=token", "HB_TEST_PLAIN=plain", NULL };

static struct fixture F;

static int teardown(void **state)
{
	(void)state;
	unsetenv("GEMINI_API_KEY");
	if (F.dir[0])
		fx_stop(&F, NULL);
	memset(&F, 0, sizeof F);
	return 0;
}

/* The sections given, joined (malloc'd); NULL entries are skipped. */
static char *config_of(const char *a, const char *b, const char *c)
{
	const char *parts[3] = { a, b, c };
	size_t len = 1;
	char *out;

	for (int i = 0; i < 3; i++)
		len += parts[i] ? strlen(parts[i]) + 1 : 0;
	assert_non_null(out = calloc(1, len));
	for (int i = 0; i < 3; i++)
		if (parts[i]) {
			strcat(out, parts[i]);
			strcat(out, "\n");
		}
	return out;
}

/* What svc-echo says about the variable name. */
static void assert_env(const char *name, const char *want)
{
	char json[128], expect[128], *text;
	int ok;

	snprintf(json, sizeof json, "{\"name\":\"%s\"}", name);
	snprintf(expect, sizeof expect, "%s is %s", name, want);
	assert_int_equal(fx_call(&F, "env", json, &ok, &text), 0);
	if (!ok || strcmp(text, expect) != 0)
		fail_msg("svc-echo: \"%s\", expected \"%s\"", text, expect);
	free(text);
}

/* A tool of a Gemini service called without arguments: with a key it gets
 * as far as the arguments (no request is sent); without one it says
 * exactly NO_KEY. */
static void assert_has_key(const char *tool, const char *arg)
{
	char *text;
	int ok;

	assert_int_equal(fx_call(&F, tool, "{}", &ok, &text), 0);
	assert_false(ok);
	if (strcmp(text, NO_KEY) == 0 || !strstr(text, arg))
		fail_msg("%s did not get the key from the broker's environment: %s", tool, text);
	free(text);
}

static void test_key_only_where_declared(void **state)
{
	char *speech = fx_deployed_service("svc-speech"), *video = fx_deployed_service("svc-video");
	char *conf, *log;

	(void)state;
	assert_non_null(speech);
	assert_non_null(video);
	conf = config_of(echo_section, speech, video);
	assert_int_equal(fx_start(&F, conf, key_env), 0);
	/* svc-echo does not ask for it: it does not get it. */
	assert_env("GEMINI_API_KEY", "unset");
	/* Nothing else is taken away. */
	assert_env("HB_TEST_TOKEN", "set");
	assert_env("HB_TEST_PLAIN", "set");
	/* svc-speech and svc-video as deployed do get it (no key is saved). */
	assert_has_key("synthesize_speech", "text");
	assert_has_key("extract_video_context", "exactly one of youtube_url");
	/* And the key is in no log line. */
	log = fx_read_text(F.log);
	assert_null(strstr(log, KEY));
	free(log);
	assert_int_equal(fx_stop(&F, NULL), 0);
	memset(&F, 0, sizeof F);
	free(conf);
	free(speech);
	free(video);
}

static void test_declared_secrets_reach_their_service(void **state)
{
	char *sessions = fx_deployed_service("svc-sessions"), *conf, *theirs;
	size_t n;

	(void)state;
	assert_non_null(sessions);
	/* svc-echo asks for both. */
	conf = config_of(echo_section, "secrets = GEMINI_API_KEY\nsecrets = HB_TEST_TOKEN", NULL);
	assert_int_equal(fx_start(&F, conf, key_env), 0);
	assert_env("GEMINI_API_KEY", "set");
	assert_env("HB_TEST_TOKEN", "set");
	assert_int_equal(fx_stop(&F, NULL), 0);
	memset(&F, 0, sizeof F);
	free(conf);

	/* Another service asks for HB_TEST_TOKEN: svc-echo no longer gets it. */
	n = strlen(sessions) + 64;
	assert_non_null(theirs = malloc(n));
	snprintf(theirs, n, "%s\nsecrets = HB_TEST_TOKEN\n", sessions);
	conf = config_of(echo_section, theirs, NULL);
	assert_int_equal(fx_start(&F, conf, key_env), 0);
	assert_env("HB_TEST_TOKEN", "unset");
	assert_env("HB_TEST_PLAIN", "set");
	assert_int_equal(fx_stop(&F, NULL), 0);
	memset(&F, 0, sizeof F);
	free(conf);
	free(theirs);
	free(sessions);
}

static void test_bad_secrets_line(void **state)
{
	char *conf = config_of(echo_section, "secrets = GEMINI-API-KEY", NULL), *log;
	int status;

	(void)state;
	assert_int_equal(fx_prepare(&F, conf), 0);
	F.broker = fx_spawn_broker(&F, NULL, "broker.log");
	status = fx_wait_bounded(F.broker, 20000);
	F.broker = 0;
	assert_int_not_equal(status, -1);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0);
	log = fx_read_text(F.log);
	if (!strstr(log, "services.conf:6: secrets: \"GEMINI-API-KEY\" is not an environment variable name"))
		fail_msg("the broker's log does not name the bad line:\n%s", log);
	free(log);
	free(conf);
}

/* hbctl settings with args; its output (malloc'd) and exit status. */
static char *settings(const char *const *args, int want_status)
{
	char *out;
	int rc = fx_hbctl(&F, &out, args);

	if (rc != want_status)
		fail_msg("hbctl exited %d, not %d:\n%s", rc, want_status, out);
	assert_null(strstr(out, KEY));
	return out;
}

static void test_settings_say_env_key(void **state)
{
	static const char *const show[] = { "settings", NULL };
	static const char *const del[] = { "settings", "gemini-key", "delete", NULL };
	char *out;

	(void)state;
	/* The key in the broker's environment only (not in hbctl's). */
	assert_int_equal(fx_start(&F, echo_section, key_env), 0);
	assert_int_equal(fx_save_gemini_key("AIzaSavedKey"), 0);
	out = settings(show, 0);
	assert_non_null(strstr(out, "gemini-key     from the environment (GEMINI_API_KEY, set for hb-broker); "
				    "deleting it in settings cannot remove it: unset it where hb-broker is started "
				    "(a key is saved too)"));
	free(out);
	/* Deleting removes the saved key but says the key stays: exit 1. */
	out = settings(del, 1);
	assert_non_null(strstr(out, "the saved key is deleted, but a key still comes from the environment "
				    "(GEMINI_API_KEY, set for hb-broker); deleting it in settings cannot remove it: "
				    "unset it where hb-broker is started"));
	free(out);
	out = settings(show, 0);
	assert_null(strstr(out, "a key is saved too"));
	free(out);
	assert_int_equal(fx_stop(&F, NULL), 0);
	memset(&F, 0, sizeof F);

	/* A broker without it: nothing to say... */
	assert_int_equal(fx_start(&F, echo_section, NULL), 0);
	out = settings(show, 0);
	assert_non_null(strstr(out, "gemini-key     not set\n"));
	free(out);
	out = settings(del, 0);
	free(out);
	/* ...until hbctl itself has it in its environment. */
	setenv("GEMINI_API_KEY", KEY, 1);
	out = settings(show, 0);
	assert_non_null(strstr(out, "from the environment (GEMINI_API_KEY, set for hbctl); deleting it in "
				    "settings cannot remove it"));
	free(out);
	out = settings(del, 1);
	assert_non_null(strstr(out, "cannot remove it"));
	free(out);
	unsetenv("GEMINI_API_KEY");
	assert_int_equal(fx_stop(&F, NULL), 0);
	memset(&F, 0, sizeof F);
}

#define CRED "devcred-3f9a1c7e-NOT-FOR-PRINTING"

/* hbctl with args and input on its standard input (NULL: none); exits
 * want_status; its output (malloc'd) never holds the credential. */
static char *relay_hbctl(const char *input, int want_status, const char *a, const char *b, const char *c)
{
	const char *args[] = { "settings", a, b, c, NULL };
	char *out;
	int rc = fx_hbctl_input(&F, input ? input : "", &out, a ? args : (const char *const[]){ "settings", NULL });

	if (rc != want_status)
		fail_msg("hbctl settings %s %s %s exited %d, not %d:\n%s", a ? a : "", b ? b : "", c ? c : "", rc,
			 want_status, out);
	if (strstr(out, CRED) || strstr(out, "NOT-FOR-PRINTING"))
		fail_msg("hbctl printed the device credential:\n%s", out);
	return out;
}

static void test_relay_settings(void **state)
{
	char path[600], *out, *log;
	struct stat st;

	(void)state;
	assert_int_equal(fx_start(&F, echo_section, NULL), 0);
	out = relay_hbctl(NULL, 0, NULL, NULL, NULL);
	assert_non_null(strstr(out, "relay-url      not set\nremote-access  off\ndevice-credential not set\n"));
	free(out);

	/* The URL: wss, or ws to loopback; the others refused, nothing saved. */
	free(relay_hbctl(NULL, 0, "relay-url", "set", "wss://relay.example/device"));
	out = relay_hbctl(NULL, 1, "relay-url", "set", "ws://relay.example/device");
	assert_non_null(strstr(out, "hbctl: the relay URL must start with wss://; ws:// is only for a relay on this "
				    "machine (127.0.0.1, [::1] or localhost)\n"));
	free(out);
	out = relay_hbctl(NULL, 1, "relay-url", "set", "https://relay.example/device");
	assert_non_null(strstr(out, "hbctl: the relay URL must start with wss://\n"));
	free(out);
	out = relay_hbctl(NULL, 1, "relay-url", "set", "wss://me:" CRED "@relay.example/");
	assert_non_null(strstr(out, "must not hold a user name or password"));
	free(out);
	out = relay_hbctl(NULL, 0, "relay-url", "set", "ws://127.0.0.1:9000/device");
	assert_non_null(strstr(out, "relay-url      ws://127.0.0.1:9000/device\n"));
	free(out);

	out = relay_hbctl(NULL, 0, "remote-access", "on", NULL);
	assert_non_null(strstr(out, "remote-access  on\n"));
	free(out);

	/* The credential, from standard input, into a 0600 file. */
	out = relay_hbctl(CRED "\n", 0, "device-credential", "set", NULL);
	assert_non_null(strstr(out, "device-credential saved\n"));
	free(out);
	snprintf(path, sizeof path, "%s/config/device-credential", F.dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	snprintf(path, sizeof path, "%s/config/settings.json", F.dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	/* Refused ones do not echo it, and leave the saved one. */
	out = relay_hbctl("two " CRED "\n", 1, "device-credential", "set", NULL);
	assert_non_null(strstr(out, "hbctl: a device credential is 1 to 4096 printable ASCII characters without "
				    "blanks\n"));
	free(out);
	out = relay_hbctl("", 1, "device-credential", "set", NULL);
	assert_non_null(strstr(out, "hbctl: give the device credential on standard input\n"));
	free(out);
	/* Never on the command line (where ps shows it): a usage error. */
	out = relay_hbctl(NULL, 100, "device-credential", "set", CRED);
	free(out);
	out = relay_hbctl(NULL, 0, NULL, NULL, NULL);
	assert_non_null(strstr(out, "relay-url      ws://127.0.0.1:9000/device\nremote-access  on\n"
				    "device-credential saved\n"));
	free(out);

	/* Off and deleted again. */
	free(relay_hbctl(NULL, 0, "remote-access", "off", NULL));
	free(relay_hbctl(NULL, 0, "relay-url", "delete", NULL));
	out = relay_hbctl(NULL, 0, "device-credential", "delete", NULL);
	assert_non_null(strstr(out, "relay-url      not set\nremote-access  off\ndevice-credential not set\n"));
	free(out);
	snprintf(path, sizeof path, "%s/config/device-credential", F.dir);
	assert_int_equal(access(path, F_OK), -1);

	/* A bad URL written by hand: shown as its sentence, exit 1. */
	snprintf(path, sizeof path, "%s/config/settings.json", F.dir);
	{
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fputs("{\"relayUrl\":\"http://relay.example/\"}", f);
		assert_int_equal(fclose(f), 0);
	}
	out = relay_hbctl(NULL, 1, NULL, NULL, NULL);
	assert_non_null(strstr(out, "relay-url      not usable: settings.json: relayUrl: the relay URL must start "
				    "with wss://; set it again with hbctl settings relay-url set\n"));
	free(out);

	log = fx_read_text(F.log);
	assert_null(strstr(log, CRED));
	assert_null(strstr(log, "NOT-FOR-PRINTING"));
	free(log);
	assert_int_equal(fx_stop(&F, NULL), 0);
	memset(&F, 0, sizeof F);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_key_only_where_declared, teardown),
		cmocka_unit_test_teardown(test_declared_secrets_reach_their_service, teardown),
		cmocka_unit_test_teardown(test_bad_secrets_line, teardown),
		cmocka_unit_test_teardown(test_settings_say_env_key, teardown),
		cmocka_unit_test_teardown(test_relay_settings, teardown),
	};

	/* The test's own environment must not hand anyone a key. */
	unsetenv("GEMINI_API_KEY");
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
