/*
 * gemini - the Gemini client: settings, a request with the key in its
 * header (the transfer itself is http.c), and what a failure means
 * (gemini_error.c).
 */
#include "gemini.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tunables.h"
#include "gemini_error.h"
#include "http.h"
#include "url.h"

/* An answer larger than this is not a TTS or video answer: stop reading. */
#define MAX_ANSWER (64u << 20)

static int check_base_url(const char *url, char *err, size_t errlen)
{
	struct hb_url u;

	if (hb_url_parse(url, &u) < 0 || u.userinfo || u.has_query || u.has_fragment ||
	    (!hb_url_scheme_is(&u, "https") && !hb_url_scheme_is(&u, "http"))) {
		snprintf(err, errlen, "the Gemini base URL \"%.200s\" is not an http(s) URL without a query", url);
		return -1;
	}
	/* The key goes in a header: over plain http only to this machine. */
	if (!hb_url_transport_ok(&u)) {
		snprintf(err, errlen, "the Gemini base URL must use https (plain http only for 127.0.0.1)");
		return -1;
	}
	return 0;
}

int hb_gemini_configure(struct hb_gemini *g, const struct hb_paths *p, char *err, size_t errlen)
{
	size_t n;
	int rc;

	memset(g, 0, sizeof *g);
	if (hb_settings_check_dir(p, err, errlen) < 0)
		return -1;
	if ((rc = hb_settings_gemini_key(p, g->key, sizeof g->key, err, errlen)) != 0) {
		if (rc > 0)
			snprintf(err, errlen, "%s", HB_GEMINI_NO_KEY);
		return -1;
	}
	for (const char *k = g->key; *k; k++)
		if ((unsigned char)*k < 0x21 || (unsigned char)*k == 0x7f) {
			hb_gemini_forget(g);
			snprintf(err, errlen, "The saved Gemini API key contains blanks or control characters; "
				 "save it again in Settings > API Keys.");
			return -1;
		}
	if (hb_settings_param_string(p, HB_PARAM_GEMINI_BASE_URL, g->base_url, sizeof g->base_url, err, errlen) < 0 ||
	    check_base_url(g->base_url, err, errlen) < 0) {
		hb_gemini_forget(g);
		return -1;
	}
	n = strlen(g->base_url);
	while (n > 0 && g->base_url[n - 1] == '/')
		g->base_url[--n] = '\0';
	g->connect_timeout_ms = hb_tunable(HB_T_GEMINI_CONNECT_TIMEOUT_MS);
	g->timeout_ms = hb_tunable(HB_T_GEMINI_TIMEOUT_MS);
	return 0;
}

void hb_gemini_forget(struct hb_gemini *g)
{
	/* volatile: the compiler may not drop a store to memory it sees die. */
	volatile char *k = g->key;

	for (size_t i = 0; i < sizeof g->key; i++)
		k[i] = 0;
}

int hb_gemini_model_ok(const char *model)
{
	if (!*model || strlen(model) > 128)
		return 0;
	for (const char *c = model; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		      *c == '.' || *c == '-' || *c == '_'))
			return 0;
	return 1;
}

/* What a transfer that got no HTTP answer means. */
static enum hb_gemini_outcome transfer_failed(const struct hb_gemini *g, enum hb_http_result res,
					      const struct hb_http_response *rs, struct hb_gemini_reply *out)
{
	switch (res) {
	case HB_HTTP_CANCELLED:
		snprintf(out->message, sizeof out->message, "cancelled");
		return HB_GEMINI_CANCELLED;
	case HB_HTTP_TOO_LARGE:
		snprintf(out->message, sizeof out->message, "Gemini's answer is larger than %u MiB", MAX_ANSWER >> 20);
		return HB_GEMINI_FAIL;
	case HB_HTTP_TIMEOUT:
		snprintf(out->message, sizeof out->message, "Gemini did not answer within %ld s", g->timeout_ms / 1000);
		return HB_GEMINI_RETRY;
	default:
		snprintf(out->message, sizeof out->message, "cannot reach Gemini at %.200s: %.200s", g->base_url,
			 rs->error);
		return res == HB_HTTP_BROKEN ? HB_GEMINI_FAIL : HB_GEMINI_RETRY;
	}
}

static enum hb_gemini_outcome answered(const struct hb_gemini_request *rq, struct hb_http_response *rs,
				       struct hb_gemini_reply *out)
{
	out->status = rs->status;
	memcpy(out->captured, rs->captured, sizeof out->captured);
	if (rs->status != 200) {
		out->retry_after_ms =
			hb_gemini_describe_error(rs->status, rs->body, rs->len, out->message, sizeof out->message);
		return hb_gemini_status_retryable(rs->status) ? HB_GEMINI_RETRY : HB_GEMINI_FAIL;
	}
	if (!rs->body && rq->empty_ok)
		return HB_GEMINI_OK;
	if (!rs->body || hb_gemini_parse_answer(out, rs->body, rs->len) < 0) {
		rs->body = NULL; /* taken over */
		snprintf(out->message, sizeof out->message, "Gemini's answer is not a JSON object");
		return HB_GEMINI_RETRY;
	}
	rs->body = NULL;
	return HB_GEMINI_OK;
}

enum hb_gemini_outcome hb_gemini_send(const struct hb_gemini *g, const struct hb_gemini_request *rq,
				      struct hb_gemini_reply *out)
{
	const char *lines[12];
	char key[HB_GEMINI_KEY_MAX + 32];
	struct hb_http_request hr = {
		.method = rq->method, .url = rq->url, .headers = lines, .body = rq->body, .body_len = rq->body_len,
		.capture = rq->capture, .connect_timeout_ms = g->connect_timeout_ms, .timeout_ms = g->timeout_ms,
		.max_answer = MAX_ANSWER, .cancelled = g->cancelled, .cancel_arg = g->cancel_arg,
	};
	struct hb_http_response rs;
	enum hb_http_result res;
	enum hb_gemini_outcome rc;
	size_t n = 0;

	memset(out, 0, sizeof *out);
	out->retry_after_ms = -1;
	/* The key goes nowhere but to the configured Gemini. */
	if (!hb_url_same_origin(rq->url, g->base_url)) {
		snprintf(out->message, sizeof out->message, "refusing to send the Gemini key to %.200s: it is not %.200s",
			 rq->url, g->base_url);
		return HB_GEMINI_FAIL;
	}
	snprintf(key, sizeof key, "x-goog-api-key: %s", g->key);
	lines[n++] = key;
	for (int i = 0; rq->headers && rq->headers[i] && n + 1 < sizeof lines / sizeof lines[0]; i++)
		lines[n++] = rq->headers[i];
	lines[n] = NULL;
	res = hb_http_perform(&hr, &rs);
	memset(key, 0, sizeof key);
	rc = res == HB_HTTP_ANSWERED ? answered(rq, &rs, out) : transfer_failed(g, res, &rs, out);
	hb_http_response_free(&rs);
	return rc;
}

enum hb_gemini_outcome hb_gemini_send_retrying(const struct hb_gemini *g, const struct hb_gemini_request *rq,
					       int attempts, long base_ms, struct hb_gemini_reply *out)
{
	enum hb_gemini_outcome rc = HB_GEMINI_FAIL;
	int made = 0;

	for (int a = 0; a < attempts; a++) {
		if (a > 0) {
			long wait = hb_gemini_backoff_ms(a, base_ms, out->retry_after_ms);
			if (wait > HB_GEMINI_MAX_RETRY_DELAY_MS) {
				size_t n = strlen(out->message);
				snprintf(out->message + n, sizeof out->message - n,
					 " (Gemini asks to wait %ld s before trying again)", (wait + 999) / 1000);
				return rc;
			}
			hb_gemini_reply_free(out);
			if (hb_gemini_sleep(g, wait) < 0) {
				snprintf(out->message, sizeof out->message, "cancelled");
				return HB_GEMINI_CANCELLED;
			}
		}
		rc = hb_gemini_send(g, rq, out);
		made++;
		if (rc != HB_GEMINI_RETRY)
			return rc;
	}
	if (made > 1) {
		size_t n = strlen(out->message);
		snprintf(out->message + n, sizeof out->message - n, " (%d attempts)", made);
	}
	return rc;
}

enum hb_gemini_outcome hb_gemini_generate(const struct hb_gemini *g, const char *model, const char *body,
					  struct hb_gemini_reply *out)
{
	static const char *const json[] = { "Content-Type: application/json", NULL };
	char url[HB_GEMINI_URL_MAX + 200];
	struct hb_gemini_request rq = { .method = "POST", .url = url, .headers = json, .body = body,
					.body_len = strlen(body) };

	if (!hb_gemini_model_ok(model)) {
		memset(out, 0, sizeof *out);
		out->retry_after_ms = -1;
		snprintf(out->message, sizeof out->message, "the model name \"%.100s\" is not valid", model);
		return HB_GEMINI_FAIL;
	}
	snprintf(url, sizeof url, "%s/v1beta/models/%s:generateContent", g->base_url, model);
	return hb_gemini_send(g, &rq, out);
}

int hb_gemini_sleep(const struct hb_gemini *g, long ms)
{
	while (ms > 0) {
		long step = ms < 20 ? ms : 20;
		struct timespec ts = { 0, step * 1000000L };

		if (g->cancelled && g->cancelled(g->cancel_arg))
			return -1;
		nanosleep(&ts, NULL);
		ms -= step;
	}
	return g->cancelled && g->cancelled(g->cancel_arg) ? -1 : 0;
}
