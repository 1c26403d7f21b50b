/*
 * itest_catalog - build_app_capabilities through the real broker: which
 * tools are listed under which settings, the approval classes, the two
 * output forms, the notification policy's one description, settings read
 * again on every request, and the Gemini key never shown.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../harness/harness.h"

static struct fixture F;

/* A broker with svc-sessions as deploy/services.conf has it, and no other
 * service: the catalog lists the rest by settings, not by what runs. */
static void start(const char *const *env)
{
	char *conf = fx_deployed_service("svc-sessions");
	int rc;

	assert_non_null(conf);
	rc = fx_start(&F, conf, env);
	free(conf);
	assert_int_equal(rc, 0);
}

static json_t *catalog(const char *agent)
{
	const char *args[] = { "catalog", "--for", agent, NULL };
	char *out;
	json_t *j;

	assert_int_equal(fx_hbctl(&F, &out, args), 0);
	j = json_loads(out, 0, NULL);
	if (!j)
		fail_msg("not JSON: %s", out);
	free(out);
	return j;
}

static void settings(const char *what, const char *value)
{
	const char *args[] = { "settings", what, value, NULL };
	char *out;

	assert_int_equal(fx_hbctl(&F, &out, args), 0);
	free(out);
}

/* "a,b,c" of the Codex tool names. */
static void codex_names(char *out, size_t outlen)
{
	json_t *c = catalog("codex"), *ns, *t;
	size_t i, n = 0;

	assert_int_equal(json_array_size(json_object_get(c, "dynamicTools")), 1);
	ns = json_array_get(json_object_get(c, "dynamicTools"), 0);
	assert_string_equal(json_string_value(json_object_get(ns, "type")), "namespace");
	assert_string_equal(json_string_value(json_object_get(ns, "name")), "hbcode");
	out[0] = '\0';
	json_array_foreach(json_object_get(ns, "tools"), i, t) {
		assert_string_equal(json_string_value(json_object_get(t, "type")), "function");
		assert_true(json_is_object(json_object_get(t, "inputSchema")));
		n += (size_t)snprintf(out + n, outlen - n, "%s%s", n ? "," : "",
				      json_string_value(json_object_get(t, "name")));
	}
	json_decref(c);
}

static const char *claude_description(json_t *c, const char *tool)
{
	json_t *t;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(c, "appCapabilities"), "tools"), i, t)
		if (strcmp(json_string_value(json_object_get(t, "name")), tool) == 0)
			return json_string_value(json_object_get(t, "description"));
	return NULL;
}

static void test_listing_follows_settings(void **state)
{
	char names[1024];
	const char *env[] = { NULL };

	(void)state;
	start(env);
	codex_names(names, sizeof names);
	assert_string_equal(names, "use_user_browser,maintain_sessions,manage_sessions,send_session_message");

	settings("notifications", "on");
	codex_names(names, sizeof names);
	assert_string_equal(names, "use_user_browser,maintain_sessions,manage_sessions,send_session_message,"
				   "send_mobile_notification");
	settings("notifications", "off");
	{
		const char *args[] = { "settings", "gemini-key", "set", NULL };
		char path[400], *out;
		FILE *key;
		struct stat st;

		/* The key on standard input, as hbctl takes it. */
		snprintf(path, sizeof path, "%s/key.txt", F.dir);
		key = fopen(path, "w");
		assert_non_null(key);
		fputs("AIzaSecretForTest123\n", key);
		fclose(key);
		assert_non_null(freopen(path, "r", stdin));
		assert_int_equal(fx_hbctl(&F, &out, args), 0);
		assert_null(strstr(out, "AIzaSecretForTest123"));
		assert_non_null(strstr(out, "saved"));
		free(out);
		snprintf(path, sizeof path, "%s/config/gemini-api-key", F.dir);
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_mode & 0777, 0600);
	}
	codex_names(names, sizeof names);
	assert_string_equal(names, "use_user_browser,maintain_sessions,manage_sessions,send_session_message,"
				   "synthesize_speech,create_explainer_video,extract_video_context");
	settings("notifications", "on");
	codex_names(names, sizeof names);
	{
		int commas = 0;
		for (const char *p = names; *p; p++)
			commas += *p == ',';
		assert_int_equal(commas + 1, 8); /* eight at most, all eight now */
	}
	settings("gemini-key", "delete");
	codex_names(names, sizeof names);
	assert_null(strstr(names, "synthesize_speech"));
	assert_non_null(strstr(names, "send_mobile_notification"));
	assert_int_equal(fx_stop(&F, NULL), 0);
}

static void test_claude_form_and_policy(void **state)
{
	const char *env[] = { "GEMINI_API_KEY=AIzaFromEnvironment", NULL };
	json_t *c, *t, *allowed;
	char *important, *log;
	size_t i;
	FILE *in;

	(void)state;
	start(env);
	settings("notifications", "on");
	c = catalog("claude");
	assert_string_equal(json_string_value(json_object_get(json_object_get(c, "appCapabilities"), "server")),
			    "hbcode");
	json_array_foreach(json_object_get(json_object_get(c, "appCapabilities"), "tools"), i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));
		const char *cls = json_string_value(json_object_get(t, "approval"));
		if (strcmp(name, "maintain_sessions") == 0) {
			assert_string_equal(cls, "read-only");
			assert_true(json_is_true(json_object_get(json_object_get(t, "annotations"), "readOnlyHint")));
		} else if (strcmp(name, "send_session_message") == 0) {
			assert_string_equal(cls, "desktop");
		} else {
			assert_string_equal(cls, "agent");
		}
	}
	/* The key in the environment lists the Gemini tools: eight. */
	assert_int_equal(i, 8);
	allowed = json_object_get(c, "allowedTools");
	assert_int_equal(json_array_size(allowed), 2);
	assert_string_equal(json_string_value(json_array_get(allowed, 0)), "mcp__hbcode__maintain_sessions");
	assert_string_equal(json_string_value(json_array_get(allowed, 1)), "mcp__hbcode__send_session_message");
	important = strdup(claude_description(c, "send_mobile_notification"));
	json_decref(c);

	settings("policy", "frequent");
	c = catalog("claude");
	assert_string_not_equal(claude_description(c, "send_mobile_notification"), important);
	assert_non_null(strstr(claude_description(c, "send_mobile_notification"), "milestones"));
	assert_null(strstr(important, "milestones"));
	json_decref(c);
	free(important);

	/* The key is in no log line of the broker or its services. */
	in = fopen(F.log, "r");
	assert_non_null(in);
	log = calloc(1, 1 << 20);
	assert_non_null(log);
	assert_true(fread(log, 1, (1 << 20) - 1, in) > 0);
	fclose(in);
	assert_null(strstr(log, "AIzaFromEnvironment"));
	free(log);
	assert_int_equal(fx_stop(&F, NULL), 0);
}

static void test_unserved_tools_are_honest(void **state)
{
	const char *browser[] = { "call", "use_user_browser", "{\"action\":\"open\"}", NULL };
	const char *speech[] = { "call", "synthesize_speech", "{\"text\":\"hi\"}", NULL };
	const char *bad[] = { "catalog", "--for", "gpt", NULL };
	char *out;

	(void)state;
	start(NULL);
	assert_int_equal(fx_hbctl(&F, &out, browser), 1);
	assert_non_null(strstr(out, "The browser bridge is off"));
	free(out);
	assert_int_equal(fx_hbctl(&F, &out, speech), 1);
	assert_non_null(strstr(out, "synthesize_speech is not available: its service (svc-speech)"));
	free(out);
	assert_int_equal(fx_hbctl(&F, &out, bad), 1);
	assert_non_null(strstr(out, "\"codex\" or \"claude\""));
	free(out);
	assert_int_equal(fx_stop(&F, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listing_follows_settings),
		cmocka_unit_test(test_claude_form_and_policy),
		cmocka_unit_test(test_unserved_tools_are_honest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
