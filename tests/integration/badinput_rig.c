/*
 * badinput_rig - see badinput_rig.h.
 */
#include "badinput_rig.h"

#include "../harness/checks.h"
#include "utf8.h"

#include <msgpack.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

const char *const services[] = { "svc-sessions", "svc-messages", "svc-speech", "svc-video",
					"svc-explainer", "svc-alerts", "svc-browser", NULL };

const char *const tools[] = { "maintain_sessions", "manage_sessions", "send_session_message",
				     "synthesize_speech", "extract_video_context", "create_explainer_video",
				     "send_mobile_notification", "use_user_browser", NULL };

struct fixture F;

pid_t pids[8];

/* ---- helpers ----------------------------------------------------------- */

/* Strict UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF. */
static int valid_utf8(const char *text)
{
	return hb_utf8_valid(text, strlen(text));
}

void show(const char *what, const char *text)
{
	if (!getenv("HB_BADINPUT_SHOW"))
		return;
	fprintf(stderr, "SHOW %s: \"", what);
	for (const unsigned char *p = (const unsigned char *)text; *p; p++)
		if (*p == '"' || *p == '\\')
			fprintf(stderr, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(stderr, "\\x%02x\"\"", *p);
		else
			fputc(*p, stderr);
	fprintf(stderr, "\"\n");
}

/* text must match want as m says, and be UTF-8; what names the case. */
void check_text(const char *what, const char *text, enum match m, const char *want)
{
	int good = m == EXACT	 ? strcmp(text, want) == 0
		   : m == PREFIX ? strncmp(text, want, strlen(want)) == 0
				 : strstr(text, want) != NULL;

	show(what, text);
	if (getenv("HB_BADINPUT_SHOW"))
		return;
	if (!good)
		fail_msg("%s: the answer is\n  \"%.600s\"\nwant %s\n  \"%s\"", what, text,
			 m == EXACT ? "exactly" : m == PREFIX ? "starting with" : "containing", want);
	if (!valid_utf8(text))
		fail_msg("%s: the answer is not UTF-8: \"%.300s\"", what, text);
}

/* One call on c that must fail with want; what names it. */
void expect_refusal(struct hb_client *c, const char *what, const char *tool, const char *json,
		    enum match m, const char *want)
{
	int64_t id = ck_send_call(c, tool, json), got;
	int ok;
	char *text = ck_recv_text(c, &got, &ok);

	if (got != id)
		fail_msg("%s: a reply to %lld came for %lld", what, (long long)got, (long long)id);
	if (ok)
		fail_msg("%s: the call succeeded: %.300s", what, text);
	check_text(what, text, m, want);
	free(text);
}

char *repeat(const char *head, char c, size_t n, const char *tail)
{
	size_t hl = strlen(head), tl = strlen(tail);
	char *s = malloc(hl + n + tl + 1);

	assert_non_null(s);
	memcpy(s, head, hl);
	memset(s + hl, c, n);
	memcpy(s + hl + n, tail, tl + 1);
	return s;
}

/* {"k": [[[ ... ]]]} with DEEP arrays. */
char *deep_nesting(void)
{
	char *s = malloc(2 * DEEP + 16), *p = s;

	assert_non_null(s);
	p += sprintf(p, "{\"k\":");
	memset(p, '[', DEEP);
	p += DEEP;
	memset(p, ']', DEEP);
	p += DEEP;
	strcpy(p, "}");
	return s;
}

/* ---- fixture ---------------------------------------------------------------- */

int badinput_setup(void **state)
{
	static const char *const env[] = { "HB_GEMINI_BASE_URL=http://127.0.0.1:9", NULL };
	static const char *const notify[] = { "settings", "notifications", "on", NULL };
	static const char *const browser[] = { "settings", "browser", "on", NULL };
	char *conf = fx_deployed_config(NULL, "svc-sessions", "svc-messages", "svc-speech", "svc-video",
					"svc-explainer", "svc-alerts", "svc-browser", (char *)NULL);
	char *out = NULL;
	int rc;

	(void)state;
	if (!conf)
		return -1;
	rc = fx_start(&F, conf, env);
	free(conf);
	if (rc < 0)
		return -1;
	fx_use_env(&F);
	if (fx_save_gemini_key(KEY) < 0 || fx_hbctl(&F, &out, notify) != 0) {
		fprintf(stderr, "setup: %s\n", out ? out : "cannot save the key");
		free(out);
		return -1;
	}
	free(out);
	out = NULL;
	if (fx_hbctl(&F, &out, browser) != 0) {
		fprintf(stderr, "setup: hbctl settings browser on: %s\n", out ? out : "?");
		free(out);
		return -1;
	}
	free(out);
	for (int i = 0; services[i]; i++)
		if ((pids[i] = fx_service_pid(&F, services[i])) <= 0) {
			fprintf(stderr, "setup: %s has no pid\n", services[i]);
			return -1;
		}
	return 0;
}

int badinput_teardown(void **state)
{
	(void)state;
	return fx_stop_clean(&F);
}

int badinput_still_up(char *why, size_t len)
{
	json_t *st;
	const char *state, *self;
	char *text = NULL;
	int ok = -1, rc = -1;

	for (int i = 0; services[i]; i++)
		if (fx_service_pid(&F, services[i]) != pids[i]) {
			snprintf(why, len, "%s is pid %ld now, was %ld: it died during the table", services[i],
				 (long)fx_service_pid(&F, services[i]), (long)pids[i]);
			return -1;
		}
	if (kill(F.broker, 0) != 0) {
		snprintf(why, len, "the broker (pid %ld) is gone", (long)F.broker);
		return -1;
	}
	if (!(st = fx_status(&F))) {
		snprintf(why, len, "no answer to status");
		return -1;
	}
	for (int i = 0; services[i]; i++)
		if (!(state = fx_jstr(fx_find_service(st, services[i]), "state")) || strcmp(state, "up") != 0) {
			snprintf(why, len, "%s is %s in status, not up", services[i], state ? state : "missing");
			goto out;
		}
	if (!(self = fx_jstr(json_object_get(st, "broker"), "selfCheck")) || strcmp(self, "ok") != 0) {
		snprintf(why, len, "the broker's selfCheck is %s, not ok", self ? self : "missing");
		goto out;
	}
	if (fx_call(&F, "maintain_sessions", "{\"action\":\"listSessions\"}", &ok, &text) < 0 || ok != 1) {
		snprintf(why, len, "a normal call (listSessions) failed: %s", text ? text : "no answer");
		goto out;
	}
	rc = 0;
out:
	free(text);
	json_decref(st);
	return rc;
}

int badinput_teardown_checked(void **state)
{
	char why[512];
	int up = badinput_still_up(why, sizeof why);

	if (up < 0)
		fprintf(stderr, "after the table: %s\n", why);
	return badinput_teardown(state) < 0 || up < 0 ? -1 : 0;
}
