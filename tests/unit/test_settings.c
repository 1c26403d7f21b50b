/*
 * test_settings - the relay link's settings (settings.h): the relay URL
 * (wss only, ws to loopback only, every other form refused with its
 * sentence, a bad one saved by hand refused when read), "Allow Remote
 * Access", and the device credential (a 0600 file beside the Gemini key,
 * under any umask, no temporary file left, deleted again); each change
 * leaves the other keys of settings.json as they were, and none reads a
 * config folder that is not private; a settings.json that is a FIFO (in a
 * child the test waits for at most a minute, since a plain open would wait
 * for ever) or larger than HB_SETTINGS_MAX_BYTES is refused by every
 * reader with its sentence, one of exactly that size is read, and a FIFO
 * as the key or the credential counts as saved while its reader refuses
 * it with a sentence naming the file.  The Gemini key's own rules
 * are in test_gemini.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "paths.h"
#include "settings.h"
#include "../harness/harness.h"
#include "../harness/tmp_home.h"

static char home[64];

static int make_home(void **state)
{
	(void)state;
	return fx_tmp_home(home, sizeof home, "hbsettest", "GEMINI_API_KEY", (char *)NULL);
}

static int remove_home(void **state)
{
	(void)state;
	return fx_tmp_home_remove(home);
}

static void resolve(struct hb_paths *p)
{
	char err[512];

	assert_int_equal(hb_paths_resolve(p, err, sizeof err), 0);
}

static void write_settings(const struct hb_paths *p, const char *json)
{
	char path[HB_PATH_MAX + 32];
	FILE *f;

	assert_int_equal(hb_mkdir_p(p->config, 0700), 0);
	snprintf(path, sizeof path, "%s/settings.json", p->config);
	assert_non_null(f = fopen(path, "w"));
	fputs(json, f);
	assert_int_equal(fclose(f), 0);
}

static char *read_settings(const struct hb_paths *p)
{
	char path[HB_PATH_MAX + 32], *text = calloc(1, 4096);
	FILE *f;

	snprintf(path, sizeof path, "%s/settings.json", p->config);
	assert_non_null(text);
	assert_non_null(f = fopen(path, "r"));
	assert_true(fread(text, 1, 4095, f) > 0);
	fclose(f);
	return text;
}

static void test_relay_urls(void **state)
{
	static const char *const good[] = {
		"wss://relay.example/device", "wss://relay.example", "WSS://Relay.Example:8443/d/v1?region=eu",
		"ws://127.0.0.1:9000/device", "ws://[::1]:9000/", "ws://localhost:1/x",
		"wss://127.0.0.1:9443/",
	};
	static const struct {
		const char *url, *why;
	} bad[] = {
		{ "", "the relay URL is empty" },
		{ "relay.example:443/v1", "not an absolute URL" },
		{ "wss://relay .example/", "not an absolute URL" },
		{ "wss://relay.example/caf\xc3\xa9", "not an absolute URL" },
		{ "wss://relay.example:0/", "not an absolute URL" },
		{ "wss://relay.example:65536/", "not an absolute URL" },
		{ "wss:///device", "not an absolute URL" },
		{ "https://relay.example/device", "must start with wss://" },
		{ "http://127.0.0.1/device", "must start with wss://" },
		{ "ws://relay.example/device", "ws:// is only for a relay on this machine" },
		{ "ws://127.0.0.2/device", "ws:// is only for a relay on this machine" },
		{ "ws://10.0.0.1/device", "ws:// is only for a relay on this machine" },
		{ "ws://localhost.relay.example/", "ws:// is only for a relay on this machine" },
		{ "wss://user:pass@relay.example/", "must not hold a user name or password" },
		{ "ws://x@127.0.0.1/", "must not hold a user name or password" },
		{ "wss://relay.example/device#top", "must not have a #fragment" },
	};
	char err[512], longurl[HB_RELAY_URL_MAX + 16];

	(void)state;
	for (size_t i = 0; i < sizeof good / sizeof *good; i++)
		if (hb_settings_check_relay_url(good[i], err, sizeof err) != 0)
			fail_msg("%s refused: %s", good[i], err);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		err[0] = '\0';
		if (hb_settings_check_relay_url(bad[i].url, err, sizeof err) != -1)
			fail_msg("%s accepted", bad[i].url);
		if (!strstr(err, bad[i].why))
			fail_msg("%s: \"%s\", expected \"%s\"", bad[i].url, err, bad[i].why);
		/* The sentence never repeats the URL (it may hold a password). */
		if (*bad[i].url && strstr(err, bad[i].url))
			fail_msg("%s: the sentence repeats the URL: %s", bad[i].url, err);
	}
	/* Exactly the limit passes, one byte more does not. */
	memset(longurl, 'a', sizeof longurl);
	memcpy(longurl, "wss://relay.example/", 20);
	longurl[HB_RELAY_URL_MAX] = '\0';
	assert_int_equal(hb_settings_check_relay_url(longurl, err, sizeof err), 0);
	longurl[HB_RELAY_URL_MAX] = 'a';
	longurl[HB_RELAY_URL_MAX + 1] = '\0';
	assert_int_equal(hb_settings_check_relay_url(longurl, err, sizeof err), -1);
	assert_non_null(strstr(err, "longer than 1024 bytes"));
}

static void test_relay_url_saved(void **state)
{
	struct hb_paths p;
	char url[HB_RELAY_URL_MAX + 1], err[HB_PATH_MAX + 512], *text;

	(void)state;
	resolve(&p);
	/* Nothing set: "" and no error, with or without a settings.json. */
	assert_int_equal(hb_settings_relay_url(&p, url, sizeof url, err, sizeof err), 0);
	assert_string_equal(url, "");
	write_settings(&p, "{\"geminiBaseUrl\":\"https://proxy.example/\",\"notifications\":true}");
	assert_int_equal(hb_settings_relay_url(&p, url, sizeof url, err, sizeof err), 0);
	assert_string_equal(url, "");

	assert_int_equal(hb_settings_set_relay_url(&p, "wss://relay.example/device", err, sizeof err), 0);
	assert_int_equal(hb_settings_relay_url(&p, url, sizeof url, err, sizeof err), 0);
	assert_string_equal(url, "wss://relay.example/device");
	/* A bad one is refused and the saved one stays. */
	assert_int_equal(hb_settings_set_relay_url(&p, "ws://relay.example/device", err, sizeof err), -1);
	assert_non_null(strstr(err, "must start with wss://"));
	assert_int_equal(hb_settings_relay_url(&p, url, sizeof url, err, sizeof err), 0);
	assert_string_equal(url, "wss://relay.example/device");
	/* The other keys are kept. */
	text = read_settings(&p);
	assert_non_null(strstr(text, "\"geminiBaseUrl\":\"https://proxy.example/\""));
	assert_non_null(strstr(text, "\"notifications\":true"));
	free(text);

	assert_int_equal(hb_settings_delete_relay_url(&p, err, sizeof err), 0);
	assert_int_equal(hb_settings_relay_url(&p, url, sizeof url, err, sizeof err), 0);
	assert_string_equal(url, "");
	text = read_settings(&p);
	assert_null(strstr(text, "relayUrl"));
	assert_non_null(strstr(text, "geminiBaseUrl"));
	free(text);
	/* Deleting twice is not an error. */
	assert_int_equal(hb_settings_delete_relay_url(&p, err, sizeof err), 0);

	/* Written by hand: checked again when read, never handed out. */
	write_settings(&p, "{\"relayUrl\":\"ws://relay.example/device\"}");
	strcpy(url, "left over");
	assert_int_equal(hb_settings_relay_url(&p, url, sizeof url, err, sizeof err), -1);
	assert_string_equal(url, "");
	assert_non_null(strstr(err, "settings.json: relayUrl: the relay URL must start with wss://"));
	write_settings(&p, "{\"relayUrl\":7}");
	assert_int_equal(hb_settings_relay_url(&p, url, sizeof url, err, sizeof err), -1);
	assert_non_null(strstr(err, "relayUrl must be a string"));
	write_settings(&p, "{broken");
	assert_int_equal(hb_settings_set_relay_url(&p, "wss://relay.example/", err, sizeof err), -1);
	assert_non_null(strstr(err, "fix or delete it"));
}

static void test_remote_access(void **state)
{
	struct hb_paths p;
	struct hb_settings s;
	char err[HB_PATH_MAX + 512], *text;

	(void)state;
	resolve(&p);
	assert_int_equal(hb_settings_load(&p, &s, err, sizeof err), 0);
	assert_false(s.remote_access);
	write_settings(&p, "{\"relayUrl\":\"wss://relay.example/\",\"notificationPolicy\":\"frequent\"}");
	assert_int_equal(hb_settings_set_remote_access(&p, 1, err, sizeof err), 0);
	assert_int_equal(hb_settings_load(&p, &s, err, sizeof err), 0);
	assert_true(s.remote_access);
	assert_int_equal(s.policy, HB_NOTIFY_FREQUENT);
	text = read_settings(&p);
	assert_non_null(strstr(text, "\"allowRemoteAccess\":true"));
	assert_non_null(strstr(text, "\"relayUrl\":\"wss://relay.example/\""));
	free(text);
	/* Another setting's change keeps it. */
	assert_int_equal(hb_settings_set_notifications(&p, 1, err, sizeof err), 0);
	assert_int_equal(hb_settings_load(&p, &s, err, sizeof err), 0);
	assert_true(s.remote_access);
	assert_int_equal(hb_settings_set_remote_access(&p, 0, err, sizeof err), 0);
	assert_int_equal(hb_settings_load(&p, &s, err, sizeof err), 0);
	assert_false(s.remote_access);
	assert_true(s.notifications);
	/* Not a boolean: an error, not a default. */
	write_settings(&p, "{\"allowRemoteAccess\":\"yes\"}");
	assert_int_equal(hb_settings_load(&p, &s, err, sizeof err), -1);
	assert_non_null(strstr(err, "allowRemoteAccess must be true or false"));
	assert_int_equal(hb_settings_set_remote_access(&p, 1, err, sizeof err), -1);
}

/* The names in the config folder other than the ones given. */
static int stray_files(const struct hb_paths *p)
{
	struct dirent *e;
	int n = 0;
	DIR *d = opendir(p->config);

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "device-credential") &&
		    strcmp(e->d_name, "settings.json") && strcmp(e->d_name, "gemini-api-key"))
			n++;
	closedir(d);
	return n;
}

static void assert_mode_0600(const struct hb_paths *p, const char *name)
{
	char path[HB_PATH_MAX + 32];
	struct stat st;

	snprintf(path, sizeof path, "%s/%s", p->config, name);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
}

static void test_device_credential(void **state)
{
	struct hb_paths p;
	struct hb_settings s;
	char cred[HB_DEVICE_CREDENTIAL_MAX + 1], err[HB_PATH_MAX + 512], big[HB_DEVICE_CREDENTIAL_MAX + 2];
	static const char *const bad[] = { "", "two words", "tab\there", "line\nbreak", "caf\xc3\xa9", "\x7f" };
	mode_t old;

	(void)state;
	resolve(&p);
	assert_int_equal(hb_settings_load(&p, &s, err, sizeof err), 0);
	assert_false(s.signed_in);
	assert_int_equal(hb_settings_device_credential(&p, cred, sizeof cred, err, sizeof err), 1);

	/* A permissive umask does not widen the file. */
	old = umask(0);
	assert_int_equal(hb_settings_save_device_credential(&p, "dev-cred.eyJhbGciOi.sig-1", err, sizeof err), 0);
	umask(old);
	assert_mode_0600(&p, "device-credential");
	assert_int_equal(stray_files(&p), 0);
	assert_int_equal(hb_settings_load(&p, &s, err, sizeof err), 0);
	assert_true(s.signed_in);
	assert_int_equal(hb_settings_device_credential(&p, cred, sizeof cred, err, sizeof err), 0);
	assert_string_equal(cred, "dev-cred.eyJhbGciOi.sig-1");
	/* Beside the Gemini key, and independent of it. */
	assert_int_equal(hb_settings_save_gemini_key(&p, "AIzaKey", err, sizeof err), 0);
	assert_int_equal(hb_settings_delete_gemini_key(&p, err, sizeof err), 0);
	assert_int_equal(hb_settings_device_credential(&p, cred, sizeof cred, err, sizeof err), 0);
	/* Replaced whole. */
	assert_int_equal(hb_settings_save_device_credential(&p, "second", err, sizeof err), 0);
	assert_int_equal(hb_settings_device_credential(&p, cred, sizeof cred, err, sizeof err), 0);
	assert_string_equal(cred, "second");
	/* A caller's buffer too small for it gets nothing, and a sentence. */
	assert_int_equal(hb_settings_device_credential(&p, cred, 6, err, sizeof err), -1);
	assert_non_null(strstr(err, "device-credential holds 6 bytes, more than the 5 it may have"));

	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		assert_int_equal(hb_settings_save_device_credential(&p, bad[i], err, sizeof err), -1);
		assert_string_equal(err, "a device credential is 1 to 4096 printable ASCII characters without blanks");
	}
	memset(big, 'c', sizeof big);
	big[HB_DEVICE_CREDENTIAL_MAX] = '\0';
	assert_int_equal(hb_settings_save_device_credential(&p, big, err, sizeof err), 0);
	assert_int_equal(hb_settings_device_credential(&p, cred, sizeof cred, err, sizeof err), 0);
	assert_int_equal(strlen(cred), HB_DEVICE_CREDENTIAL_MAX);
	big[HB_DEVICE_CREDENTIAL_MAX] = 'c';
	big[HB_DEVICE_CREDENTIAL_MAX + 1] = '\0';
	assert_int_equal(hb_settings_save_device_credential(&p, big, err, sizeof err), -1);
	/* The refused ones left the saved one alone. */
	assert_int_equal(hb_settings_device_credential(&p, cred, sizeof cred, err, sizeof err), 0);
	assert_int_equal(strlen(cred), HB_DEVICE_CREDENTIAL_MAX);

	assert_int_equal(hb_settings_delete_device_credential(&p, err, sizeof err), 0);
	assert_int_equal(hb_settings_load(&p, &s, err, sizeof err), 0);
	assert_false(s.signed_in);
	assert_int_equal(hb_settings_device_credential(&p, cred, sizeof cred, err, sizeof err), 1);
	assert_int_equal(hb_settings_delete_device_credential(&p, err, sizeof err), 0);
}

/* A config folder others may write: nothing is read from it or saved. */
static void test_not_private(void **state)
{
	struct hb_paths p;
	char cred[64], url[HB_RELAY_URL_MAX + 1], err[HB_PATH_MAX + 512];

	(void)state;
	resolve(&p);
	assert_int_equal(hb_settings_save_device_credential(&p, "cred", err, sizeof err), 0);
	assert_int_equal(hb_settings_set_relay_url(&p, "wss://relay.example/", err, sizeof err), 0);
	assert_int_equal(chmod(p.config, 0777), 0);
	assert_int_equal(hb_settings_device_credential(&p, cred, sizeof cred, err, sizeof err), -1);
	assert_non_null(strstr(err, "The device credential file cannot be used: "));
	assert_non_null(strstr(err, p.config));
	assert_int_equal(hb_settings_relay_url(&p, url, sizeof url, err, sizeof err), -1);
	assert_int_equal(hb_settings_save_device_credential(&p, "other", err, sizeof err), -1);
	assert_int_equal(hb_settings_delete_device_credential(&p, err, sizeof err), -1);
	assert_int_equal(chmod(p.config, 0700), 0);
	assert_int_equal(hb_settings_device_credential(&p, cred, sizeof cred, err, sizeof err), 0);
	assert_string_equal(cred, "cred");
}

/* Browser control: off by default, kept beside the others; its URL is
 * Chrome's remote debugging address on this machine only. */
static void test_browser(void **state)
{
	static const char *const good[] = {
		"http://127.0.0.1:9222", "http://localhost:9222/", "http://[::1]:9222", "http://127.0.0.1",
	};
	static const char *const bad[] = {
		"http://10.1.2.3:9222", "http://192.168.1.5:9222", "http://chrome.example:9222",
		"https://127.0.0.1:9222", "ws://127.0.0.1:9222", "http://user@127.0.0.1:9222",
		"http://127.0.0.1:9222/?x=1", "http://127.0.0.1:9222/#f", "", "127.0.0.1:9222",
		"http://127.0.0.2.example:9222",
	};
	struct hb_paths p;
	struct hb_settings s;
	char url[HB_BROWSER_URL_MAX + 1], err[HB_PATH_MAX + 512], *text;

	(void)state;
	resolve(&p);
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		if (hb_settings_check_browser_url(good[i], err, sizeof err) != 0)
			fail_msg("%s refused: %s", good[i], err);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (hb_settings_check_browser_url(bad[i], err, sizeof err) != -1)
			fail_msg("%s accepted", bad[i]);
	assert_int_equal(hb_settings_check_browser_url("http://10.1.2.3:9222", err, sizeof err), -1);
	assert_non_null(strstr(err, "must name this machine"));

	assert_int_equal(hb_settings_load(&p, &s, err, sizeof err), 0);
	assert_false(s.browser);
	write_settings(&p, "{\"relayUrl\":\"wss://relay.example/\",\"notifications\":true}");
	assert_int_equal(hb_settings_set_browser(&p, 1, err, sizeof err), 0);
	assert_int_equal(hb_settings_load(&p, &s, err, sizeof err), 0);
	assert_true(s.browser);
	assert_true(s.notifications);
	assert_int_equal(hb_settings_set_browser_url(&p, "http://127.0.0.1:9222", err, sizeof err), 0);
	assert_int_equal(hb_settings_set_browser_url(&p, "http://10.1.2.3:9222", err, sizeof err), -1);
	assert_int_equal(hb_settings_browser_url(&p, url, sizeof url, err, sizeof err), 0);
	assert_string_equal(url, "http://127.0.0.1:9222");
	text = read_settings(&p);
	assert_non_null(strstr(text, "\"browserControl\":true"));
	assert_non_null(strstr(text, "\"relayUrl\":\"wss://relay.example/\""));
	free(text);
	assert_int_equal(hb_settings_delete_browser_url(&p, err, sizeof err), 0);
	assert_int_equal(hb_settings_browser_url(&p, url, sizeof url, err, sizeof err), 0);
	assert_string_equal(url, "");
	assert_int_equal(hb_settings_set_browser(&p, 0, err, sizeof err), 0);
	assert_int_equal(hb_settings_load(&p, &s, err, sizeof err), 0);
	assert_false(s.browser);
	/* Written by hand: checked again, never handed out. */
	write_settings(&p, "{\"browserUrl\":\"http://10.1.2.3:9222\"}");
	strcpy(url, "left over");
	assert_int_equal(hb_settings_browser_url(&p, url, sizeof url, err, sizeof err), -1);
	assert_string_equal(url, "");
	assert_non_null(strstr(err, "browserUrl: the browser URL must name this machine"));
	write_settings(&p, "{\"browserControl\":\"yes\"}");
	assert_int_equal(hb_settings_load(&p, &s, err, sizeof err), -1);
	assert_non_null(strstr(err, "browserControl must be true or false"));
}

#define BOUND_MS 60000 /* a bound on a wait, not on speed */

/* In a child, which a reader that blocks would keep: every reader of
 * settings.json refuses the FIFO there with its sentence, and the key and
 * the credential, FIFOs too, count as saved but are refused by their
 * readers with a sentence naming the file. */
static void fifo_readers(const struct hb_paths *p)
{
	char want[HB_PATH_MAX + 256], err[HB_PATH_MAX + 512], val[HB_DEVICE_CREDENTIAL_MAX + 1];
	struct hb_settings s;
	double d;
	int bad = 0;

	snprintf(want, sizeof want, "%s/settings.json is a FIFO (named pipe), not a regular file; replace it with a "
		 "plain file or delete it", p->config);
	if (hb_settings_load(p, &s, err, sizeof err) != -1 || strcmp(err, want) != 0)
		bad = fprintf(stderr, "load: %s\n", err);
	/* Saved, not usable: the tools stay listed and their reader says why. */
	if (!s.gemini_key || !s.signed_in)
		bad = fprintf(stderr, "load: a FIFO key or credential counted as not set\n");
	if (hb_settings_param_string(p, HB_PARAM_SPEECH_MODEL, val, sizeof val, err, sizeof err) != -1 ||
	    strcmp(err, want) != 0)
		bad = fprintf(stderr, "string: %s\n", err);
	if (hb_settings_param_number(p, HB_PARAM_VIDEO_TEMPERATURE, &d, err, sizeof err) != -1 ||
	    strcmp(err, want) != 0)
		bad = fprintf(stderr, "number: %s\n", err);
	if (hb_settings_set_notifications(p, 1, err, sizeof err) != -1 || strcmp(err, want) != 0)
		bad = fprintf(stderr, "set: %s\n", err);
	snprintf(want, sizeof want, "The Gemini key file cannot be used: %s/gemini-api-key is a FIFO (named pipe), "
		 "not a regular file; replace it with a plain file or delete it", p->config);
	if (hb_settings_gemini_key(p, val, sizeof val, err, sizeof err) != -1 || strcmp(err, want) != 0)
		bad = fprintf(stderr, "key: %s\n", err);
	snprintf(want, sizeof want, "The device credential file cannot be used: %s/device-credential is a FIFO "
		 "(named pipe), not a regular file; replace it with a plain file or delete it", p->config);
	if (hb_settings_device_credential(p, val, sizeof val, err, sizeof err) != -1 || strcmp(err, want) != 0)
		bad = fprintf(stderr, "credential: %s\n", err);
	_exit(bad ? 1 : 0);
}

static void test_fifo(void **state)
{
	char path[HB_PATH_MAX + 32];
	struct hb_paths p;
	pid_t pid;
	int st;

	(void)state;
	resolve(&p);
	assert_int_equal(hb_mkdir_p(p.config, 0700), 0);
	for (int i = 0; i < 3; i++) {
		static const char *const names[] = { "settings.json", "gemini-api-key", "device-credential" };
		snprintf(path, sizeof path, "%s/%s", p.config, names[i]);
		assert_int_equal(mkfifo(path, 0600), 0);
	}
	assert_true((pid = fork()) >= 0);
	if (pid == 0)
		fifo_readers(&p);
	st = fx_wait_bounded(pid, BOUND_MS);
	if (st == -1)
		fail_msg("the settings readers did not return within %d ms: they wait on the FIFO", BOUND_MS);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* A settings.json of HB_SETTINGS_MAX_BYTES is read; one byte more is
 * refused with its size in the sentence. */
static void test_oversized(void **state)
{
	char path[HB_PATH_MAX + 32], err[HB_PATH_MAX + 512], want[HB_PATH_MAX + 256], *text;
	struct hb_paths p;
	struct hb_settings s;
	size_t n = HB_SETTINGS_MAX_BYTES;

	(void)state;
	resolve(&p);
	assert_non_null(text = malloc(n + 2));
	memset(text, ' ', n + 1);
	memcpy(text, "{\"notifications\":true}", 22);
	text[n] = '\0';
	write_settings(&p, text);
	assert_int_equal(hb_settings_load(&p, &s, err, sizeof err), 0);
	assert_true(s.notifications);
	text[n] = ' ';
	text[n + 1] = '\0';
	write_settings(&p, text);
	free(text);
	snprintf(path, sizeof path, "%s/settings.json", p.config);
	snprintf(want, sizeof want, "%s is %zu bytes, more than the %d bytes it may have; fix or delete it", path,
		 n + 1, HB_SETTINGS_MAX_BYTES);
	assert_int_equal(hb_settings_load(&p, &s, err, sizeof err), -1);
	assert_string_equal(err, want);
	assert_int_equal(hb_settings_set_browser(&p, 1, err, sizeof err), -1);
	assert_string_equal(err, want);
}

/* The parameters: the environment wins over the file, which wins over
 * the default, and each value says where it came from; a number is kept
 * in its range; the old readers by key hold to the table's row. */
static void test_parameters(void **state)
{
	char err[HB_PATH_MAX + 512], val[256];
	enum hb_param_source from;
	struct hb_paths p;
	double d;

	(void)state;
	resolve(&p);
	unsetenv("HB_GEMINI_VIDEO_TEMPERATURE");
	unsetenv("HB_EXPLAINER_VOICE");
	unsetenv("HB_CODEX");
	assert_int_equal(hb_settings_param_text(&p, HB_PARAM_EXPLAINER_VOICE, val, sizeof val, &from, err, sizeof err), 0);
	assert_string_equal(val, "Kore");
	assert_int_equal(from, HB_PARAM_FROM_DEFAULT);
	assert_string_equal(hb_param_source_name(hb_param(HB_PARAM_EXPLAINER_VOICE), from), "default");
	assert_int_equal(hb_settings_param_number(&p, HB_PARAM_VIDEO_TEMPERATURE, &d, err, sizeof err), 0);
	assert_true(d == 0.2);

	write_settings(&p, "{\"explainerVoice\":\"Puck\",\"videoTemperature\":1.5}");
	assert_int_equal(hb_settings_param_text(&p, HB_PARAM_EXPLAINER_VOICE, val, sizeof val, &from, err, sizeof err), 0);
	assert_string_equal(val, "Puck");
	assert_string_equal(hb_param_source_name(hb_param(HB_PARAM_EXPLAINER_VOICE), from), "settings.json");
	assert_int_equal(hb_settings_param_text(&p, HB_PARAM_VIDEO_TEMPERATURE, val, sizeof val, &from, err, sizeof err), 0);
	assert_string_equal(val, "1.5");
	assert_int_equal(hb_settings_param_number(&p, HB_PARAM_VIDEO_TEMPERATURE, &d, err, sizeof err), 0);
	assert_true(d == 1.5);

	setenv("HB_EXPLAINER_VOICE", "Charon", 1);
	assert_int_equal(hb_settings_param_text(&p, HB_PARAM_EXPLAINER_VOICE, val, sizeof val, &from, err, sizeof err), 0);
	assert_string_equal(val, "Charon");
	assert_string_equal(hb_param_source_name(hb_param(HB_PARAM_EXPLAINER_VOICE), from), "HB_EXPLAINER_VOICE");
	unsetenv("HB_EXPLAINER_VOICE");

	write_settings(&p, "{\"videoTemperature\":3}");
	assert_int_equal(hb_settings_param_number(&p, HB_PARAM_VIDEO_TEMPERATURE, &d, err, sizeof err), -1);
	assert_string_equal(err, "settings.json: videoTemperature is 3; it must be from 0 to 2");
	setenv("HB_GEMINI_VIDEO_TEMPERATURE", "warm", 1);
	assert_int_equal(hb_settings_param_number(&p, HB_PARAM_VIDEO_TEMPERATURE, &d, err, sizeof err), -1);
	assert_string_equal(err, "HB_GEMINI_VIDEO_TEMPERATURE: videoTemperature is not a number");
	unsetenv("HB_GEMINI_VIDEO_TEMPERATURE");

	/* Without a file's value or a variable, each reads its row's default. */
	write_settings(&p, "{}");
	assert_int_equal(hb_settings_param_string(&p, HB_PARAM_CODEX_PATH, val, sizeof val, err, sizeof err), 0);
	assert_string_equal(val, "codex");
	assert_int_equal(hb_settings_param_string(&p, HB_PARAM_EXPLAINER_VOICE, val, sizeof val, err, sizeof err), 0);
	assert_string_equal(val, "Kore");
	assert_int_equal(hb_settings_param_string(&p, HB_PARAM_CLAUDE_ACCOUNT, val, sizeof val, err, sizeof err), 0);
	assert_string_equal(val, "default");
	assert_int_equal(hb_settings_param_string(&p, HB_PARAM_AGENT_HOST, val, sizeof val, err, sizeof err), 0);
	assert_string_equal(val, "");
	assert_int_equal(hb_settings_param_number(&p, HB_PARAM_EXPLAINER_WORKER_MINUTES, &d, err, sizeof err), 0);
	assert_true(d == 15);

	/* Set and removed by id. */
	assert_int_equal(hb_settings_param_set(&p, HB_PARAM_CODEX_PATH, "/opt/codex", err, sizeof err), 0);
	assert_int_equal(hb_settings_param_string(&p, HB_PARAM_CODEX_PATH, val, sizeof val, err, sizeof err), 0);
	assert_string_equal(val, "/opt/codex");
	assert_int_equal(hb_settings_param_set(&p, HB_PARAM_CODEX_PATH, NULL, err, sizeof err), 0);
	assert_int_equal(hb_settings_param_string(&p, HB_PARAM_CODEX_PATH, val, sizeof val, err, sizeof err), 0);
	assert_string_equal(val, "codex");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_relay_urls),
		cmocka_unit_test_setup_teardown(test_relay_url_saved, make_home, remove_home),
		cmocka_unit_test_setup_teardown(test_remote_access, make_home, remove_home),
		cmocka_unit_test_setup_teardown(test_device_credential, make_home, remove_home),
		cmocka_unit_test_setup_teardown(test_not_private, make_home, remove_home),
		cmocka_unit_test_setup_teardown(test_browser, make_home, remove_home),
		cmocka_unit_test_setup_teardown(test_fifo, make_home, remove_home),
		cmocka_unit_test_setup_teardown(test_oversized, make_home, remove_home),
		cmocka_unit_test_setup_teardown(test_parameters, make_home, remove_home),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
