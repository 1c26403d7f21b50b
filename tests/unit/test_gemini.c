/*
 * test_gemini - the shared Gemini client without a network: error bodies
 * as a person reads them, which answers are worth a retry and how long to
 * wait, base64, and the settings the client is built from (the key read
 * each time, the base URL and its loopback-only http, env over file, and
 * settings.json keys kept when another setting changes).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base64.h"
#include "gemini.h"
#include "gemini_error.h"
#include "settings.h"
#include "../harness/tmp_home.h"

static void test_retryable_statuses(void **state)
{
	static const long yes[] = { 429, 500, 503, 504 }, no[] = { 200, 400, 401, 402, 403, 404, 409, 501, 502 };

	(void)state;
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
		assert_true(hb_gemini_status_retryable(yes[i]));
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		assert_false(hb_gemini_status_retryable(no[i]));
}

static void test_error_bodies(void **state)
{
	/* The 429 of gemini.md (Roo-Code#3883), with RetryInfo among other details. */
	static const char quota[] =
		"{\"error\":{\"code\":429,\"message\":\"You exceeded your current quota, please check your plan and "
		"billing details.\",\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":\"type.googleapis.com/"
		"google.rpc.QuotaFailure\",\"violations\":[]},{\"@type\":\"type.googleapis.com/google.rpc.Help\","
		"\"links\":[]},{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"26s\"}]}}";
	static const char overloaded[] =
		"{\"error\":{\"code\":503,\"message\":\"The model is overloaded. Please try again later.\","
		"\"status\":\"UNAVAILABLE\"}}";
	static const char accents[] = "{\"error\":{\"message\":\"ééééééééééééééééééééééé\"}}";
	static const char bare[] = "{\"error\":{\"code\":429,\"message\":\"Resource has been exhausted (e.g. check "
				   "quota).\",\"status\":\"RESOURCE_EXHAUSTED\"}}";
	char out[512];

	(void)state;
	assert_int_equal(hb_gemini_describe_error(429, quota, strlen(quota), out, sizeof out), 26000);
	assert_string_equal(out, "Gemini's rate limit or quota for this key is used up (HTTP 429 RESOURCE_EXHAUSTED): "
				 "You exceeded your current quota, please check your plan and billing details.");
	assert_int_equal(hb_gemini_describe_error(503, overloaded, strlen(overloaded), out, sizeof out), -1);
	assert_string_equal(out, "Gemini is overloaded or down (HTTP 503 UNAVAILABLE): The model is overloaded. "
				 "Please try again later.");
	/* A 429 without details (generative-ai-docs#236). */
	assert_int_equal(hb_gemini_describe_error(429, bare, strlen(bare), out, sizeof out), -1);
	assert_non_null(strstr(out, "(HTTP 429 RESOURCE_EXHAUSTED): Resource has been exhausted"));
	/* Not JSON (a proxy's page): its start, on one line. */
	assert_int_equal(hb_gemini_describe_error(502, "<html>\nBad\tGateway</html>", 25, out, sizeof out), -1);
	assert_string_equal(out, "Gemini had a server error (HTTP 502): <html> Bad Gateway</html>");
	hb_gemini_describe_error(403, "", 0, out, sizeof out);
	assert_string_equal(out, "Gemini refused the API key (check it in Settings > API Keys) (HTTP 403): "
				 "no error message in the answer");
	/* A message cut short never ends inside a UTF-8 sequence. */
	hb_gemini_describe_error(400, accents, strlen(accents), out, 60);
	assert_int_equal(strncmp(out, "Gemini refused the request (HTTP 400): é", 41), 0);
	assert_int_equal((strlen(out) - strlen("Gemini refused the request (HTTP 400): ")) % 2, 0);
}

static void test_durations_and_backoff(void **state)
{
	(void)state;
	assert_int_equal(hb_gemini_parse_duration_ms("26s"), 26000);
	assert_int_equal(hb_gemini_parse_duration_ms("1.5s"), 1500);
	assert_int_equal(hb_gemini_parse_duration_ms("0.250s"), 250);
	assert_int_equal(hb_gemini_parse_duration_ms("26"), -1);
	assert_int_equal(hb_gemini_parse_duration_ms("s"), -1);
	assert_int_equal(hb_gemini_parse_duration_ms("-1s"), -1);
	assert_int_equal(hb_gemini_parse_duration_ms(NULL), -1);
	/* Growing: base, twice base, four times base ... capped. */
	assert_int_equal(hb_gemini_backoff_ms(1, 1000, -1), 1000);
	assert_int_equal(hb_gemini_backoff_ms(2, 1000, -1), 2000);
	assert_int_equal(hb_gemini_backoff_ms(3, 1000, -1), 4000);
	assert_int_equal(hb_gemini_backoff_ms(20, 1000, -1), HB_GEMINI_MAX_RETRY_DELAY_MS);
	/* The server's RetryInfo wins when it asks for longer, not shorter. */
	assert_int_equal(hb_gemini_backoff_ms(1, 1000, 26000), 26000);
	assert_int_equal(hb_gemini_backoff_ms(2, 1000, 500), 2000);
}

static void test_base64(void **state)
{
	size_t n;
	unsigned char *b;

	(void)state;
	assert_non_null(b = hb_base64_decode("TWFu", 4, &n));
	assert_int_equal(n, 3);
	assert_memory_equal(b, "Man", 3);
	free(b);
	assert_non_null(b = hb_base64_decode("TWE=", 4, &n));
	assert_int_equal(n, 2);
	free(b);
	assert_non_null(b = hb_base64_decode("TQ", 2, &n)); /* padding optional */
	assert_int_equal(n, 1);
	assert_int_equal(b[0], 'M');
	free(b);
	assert_non_null(b = hb_base64_decode("//+A", 4, &n));
	assert_int_equal(n, 3);
	assert_int_equal(b[0], 0xff);
	assert_int_equal(b[2], 0x80);
	free(b);
	assert_non_null(b = hb_base64_decode("", 0, &n));
	assert_int_equal(n, 0);
	free(b);
	assert_null(hb_base64_decode("TW-u", 4, &n));
	assert_null(hb_base64_decode("TWFuT", 5, &n));
	assert_null(hb_base64_decode("TW u", 4, &n));
}

/* A temporary HB_HOME for the settings tests. */
static char home[64];

static int make_home(void **state)
{
	(void)state;
	return fx_tmp_home(home, sizeof home, "hbgemtest", "GEMINI_API_KEY", "HB_GEMINI_BASE_URL", (char *)NULL);
}

static int remove_home(void **state)
{
	(void)state;
	return fx_tmp_home_remove(home);
}

static void write_settings(const struct hb_paths *p, const char *json)
{
	char path[1100];
	FILE *f;

	assert_int_equal(hb_mkdir_p(p->config, 0700), 0);
	snprintf(path, sizeof path, "%s/settings.json", p->config);
	assert_non_null(f = fopen(path, "w"));
	fputs(json, f);
	assert_int_equal(fclose(f), 0);
}

static void test_configure(void **state)
{
	struct hb_paths p;
	struct hb_gemini g;
	char err[512];

	(void)state;
	assert_int_equal(hb_paths_resolve(&p, err, sizeof err), 0);
	/* No key: the product's sentence, exactly. */
	assert_int_equal(hb_gemini_configure(&g, &p, err, sizeof err), -1);
	assert_string_equal(err, HB_GEMINI_NO_KEY);
	assert_string_equal(err, "Add a Gemini API key in Settings > API Keys.");
	assert_int_equal(hb_settings_save_gemini_key(&p, "AIzaSaved", err, sizeof err), 0);
	assert_int_equal(hb_gemini_configure(&g, &p, err, sizeof err), 0);
	assert_string_equal(g.key, "AIzaSaved");
	assert_string_equal(g.base_url, hb_param(HB_PARAM_GEMINI_BASE_URL)->dflt);
	hb_gemini_forget(&g);
	assert_string_equal(g.key, "");
	/* The environment's key wins; the base URL from the file, its slash dropped. */
	setenv("GEMINI_API_KEY", "AIzaFromEnv", 1);
	write_settings(&p, "{\"geminiBaseUrl\":\"https://proxy.example/\"}");
	assert_int_equal(hb_gemini_configure(&g, &p, err, sizeof err), 0);
	assert_string_equal(g.key, "AIzaFromEnv");
	assert_string_equal(g.base_url, "https://proxy.example");
	/* ... and HB_GEMINI_BASE_URL over the file. */
	setenv("HB_GEMINI_BASE_URL", "http://127.0.0.1:9", 1);
	assert_int_equal(hb_gemini_configure(&g, &p, err, sizeof err), 0);
	assert_string_equal(g.base_url, "http://127.0.0.1:9");
	/* Plain http only to this machine; other schemes and queries never. */
	setenv("HB_GEMINI_BASE_URL", "http://example.com", 1);
	assert_int_equal(hb_gemini_configure(&g, &p, err, sizeof err), -1);
	assert_non_null(strstr(err, "must use https"));
	setenv("HB_GEMINI_BASE_URL", "ftp://127.0.0.1", 1);
	assert_int_equal(hb_gemini_configure(&g, &p, err, sizeof err), -1);
	setenv("HB_GEMINI_BASE_URL", "https://x.example/?key=1", 1);
	assert_int_equal(hb_gemini_configure(&g, &p, err, sizeof err), -1);
	setenv("HB_GEMINI_BASE_URL", "https://user@x.example", 1);
	assert_int_equal(hb_gemini_configure(&g, &p, err, sizeof err), -1);
	unsetenv("HB_GEMINI_BASE_URL");
	/* A key that would break the header is refused, not sent. */
	setenv("GEMINI_API_KEY", "AIza\r\nX-Evil: 1", 1);
	assert_int_equal(hb_gemini_configure(&g, &p, err, sizeof err), -1);
	assert_non_null(strstr(err, "control characters"));
	unsetenv("GEMINI_API_KEY");
	/* Deleted: the next configure fails again. */
	assert_int_equal(hb_settings_delete_gemini_key(&p, err, sizeof err), 0);
	assert_int_equal(hb_gemini_configure(&g, &p, err, sizeof err), -1);
	assert_string_equal(err, HB_GEMINI_NO_KEY);
	assert_true(hb_gemini_model_ok("gemini-3.1-flash-tts-preview"));
	assert_false(hb_gemini_model_ok("../files"));
	assert_false(hb_gemini_model_ok("m:generateContent?x"));
	assert_false(hb_gemini_model_ok(""));
}

static void test_string_settings_survive(void **state)
{
	const char *video_default = hb_param(HB_PARAM_VIDEO_MODEL)->dflt;
	struct hb_paths p;
	struct hb_settings s;
	char err[512], v[64];

	(void)state;
	assert_int_equal(hb_paths_resolve(&p, err, sizeof err), 0);
	unsetenv("HB_GEMINI_SPEECH_MODEL");
	unsetenv("HB_GEMINI_VIDEO_MODEL");
	write_settings(&p, "{\"speechModel\":\"gemini-tts-x\",\"notifications\":false}");
	assert_int_equal(hb_settings_param_string(&p, HB_PARAM_SPEECH_MODEL, v, sizeof v, err, sizeof err), 0);
	assert_string_equal(v, "gemini-tts-x");
	assert_int_equal(hb_settings_param_string(&p, HB_PARAM_VIDEO_MODEL, v, sizeof v, err, sizeof err), 0);
	assert_string_equal(v, video_default);
	setenv("HB_GEMINI_SPEECH_MODEL", "from-env", 1);
	assert_int_equal(hb_settings_param_string(&p, HB_PARAM_SPEECH_MODEL, v, sizeof v, err, sizeof err), 0);
	assert_string_equal(v, "from-env");
	unsetenv("HB_GEMINI_SPEECH_MODEL");
	/* Turning notifications on keeps the other keys. */
	assert_int_equal(hb_settings_set_notifications(&p, 1, err, sizeof err), 0);
	assert_int_equal(hb_settings_load(&p, &s, err, sizeof err), 0);
	assert_true(s.notifications);
	assert_int_equal(hb_settings_param_string(&p, HB_PARAM_SPEECH_MODEL, v, sizeof v, err, sizeof err), 0);
	assert_string_equal(v, "gemini-tts-x");
	/* Wrong type and too long are errors that name the key. */
	write_settings(&p, "{\"speechModel\":7}");
	assert_int_equal(hb_settings_param_string(&p, HB_PARAM_SPEECH_MODEL, v, sizeof v, err, sizeof err), -1);
	assert_non_null(strstr(err, "speechModel must be a string"));
	write_settings(&p, "{\"speechModel\":\"0123456789012345678901234567890123456789012345678901234567890123456789\"}");
	assert_int_equal(hb_settings_param_string(&p, HB_PARAM_SPEECH_MODEL, v, sizeof v, err, sizeof err), -1);
	assert_non_null(strstr(err, "longer than 63 bytes"));
	write_settings(&p, "{broken");
	assert_int_equal(hb_settings_param_string(&p, HB_PARAM_SPEECH_MODEL, v, sizeof v, err, sizeof err), -1);
	assert_non_null(strstr(err, "fix or delete it"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_retryable_statuses),
		cmocka_unit_test(test_error_bodies),
		cmocka_unit_test(test_durations_and_backoff),
		cmocka_unit_test(test_base64),
		cmocka_unit_test_setup_teardown(test_configure, make_home, remove_home),
		cmocka_unit_test_setup_teardown(test_string_settings_survive, make_home, remove_home),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
