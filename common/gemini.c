/*
 * gemini - the libcurl side of the Gemini client: settings, the request,
 * the answer in memory, and what a failure means (gemini_error.c).
 */
#include "gemini.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "envvar.h"
#include "gemini_error.h"

/* An answer larger than this is not a TTS or video answer: stop reading. */
#define MAX_ANSWER (64u << 20)

struct buffer {
	char *data;
	size_t len, cap;
	int too_large;
};

/* The host of an http:// or https:// URL, into host (no port). */
static int url_host(const char *url, char *host, size_t hostlen)
{
	const char *p = strstr(url, "://"), *end;
	size_t n;

	if (!p)
		return -1;
	p += 3;
	if (*p == '[') {
		end = strchr(p, ']');
		if (!end)
			return -1;
		end++;
	} else {
		end = p + strcspn(p, ":/?#");
	}
	n = (size_t)(end - p);
	if (n == 0 || n >= hostlen || memchr(p, '@', n))
		return -1;
	memcpy(host, p, n);
	host[n] = '\0';
	return 0;
}

static int check_base_url(const char *url, char *err, size_t errlen)
{
	char host[256];

	if (url_host(url, host, sizeof host) < 0 || strpbrk(url, " \t\r\n?#") ||
	    (strncmp(url, "https://", 8) != 0 && strncmp(url, "http://", 7) != 0)) {
		snprintf(err, errlen, "the Gemini base URL \"%.200s\" is not an http(s) URL without a query", url);
		return -1;
	}
	/* The key goes in a header: over plain http only to this machine. */
	if (strncmp(url, "http://", 7) == 0 && strcmp(host, "127.0.0.1") != 0 && strcmp(host, "[::1]") != 0 &&
	    strcasecmp(host, "localhost") != 0) {
		snprintf(err, errlen, "the Gemini base URL must use https (plain http only for 127.0.0.1)");
		return -1;
	}
	return 0;
}

int hb_gemini_configure(struct hb_gemini *g, const struct hb_paths *p, char *err, size_t errlen)
{
	size_t n;

	memset(g, 0, sizeof *g);
	if (hb_settings_gemini_key(p, g->key, sizeof g->key) < 0) {
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
	if (hb_settings_string(p, "geminiBaseUrl", "HB_GEMINI_BASE_URL", HB_GEMINI_DEFAULT_BASE_URL, g->base_url,
			       sizeof g->base_url, err, errlen) < 0 ||
	    check_base_url(g->base_url, err, errlen) < 0) {
		hb_gemini_forget(g);
		return -1;
	}
	n = strlen(g->base_url);
	while (n > 0 && g->base_url[n - 1] == '/')
		g->base_url[--n] = '\0';
	g->connect_timeout_ms = hb_getenv_int("HB_GEMINI_CONNECT_TIMEOUT_MS", 10000, 10, 600000);
	g->timeout_ms = hb_getenv_int("HB_GEMINI_TIMEOUT_MS", 300000, 10, 3600000);
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

static size_t on_data(char *data, size_t size, size_t nmemb, void *arg)
{
	struct buffer *b = arg;
	size_t n = size * nmemb;

	if (b->len + n > MAX_ANSWER) {
		b->too_large = 1;
		return 0; /* libcurl ends the transfer with a write error */
	}
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 65536;
		char *d;
		while (cap < b->len + n + 1)
			cap *= 2;
		if (!(d = realloc(b->data, cap)))
			return 0;
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, data, n);
	b->len += n;
	b->data[b->len] = '\0';
	return n;
}

static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	const struct hb_gemini *g = arg;

	(void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
	return g->cancelled && g->cancelled(g->cancel_arg) ? 1 : 0;
}

/* What a transfer that got no HTTP answer means. */
static enum hb_gemini_outcome transfer_failed(const struct hb_gemini *g, CURLcode rc, const struct buffer *b,
					      const char *curl_err, struct hb_gemini_reply *out)
{
	if (rc == CURLE_ABORTED_BY_CALLBACK) {
		snprintf(out->message, sizeof out->message, "cancelled");
		return HB_GEMINI_CANCELLED;
	}
	if (b->too_large) {
		snprintf(out->message, sizeof out->message, "Gemini's answer is larger than %u MiB", MAX_ANSWER >> 20);
		return HB_GEMINI_FAIL;
	}
	if (rc == CURLE_OPERATION_TIMEDOUT) {
		snprintf(out->message, sizeof out->message, "Gemini did not answer within %ld s", g->timeout_ms / 1000);
		return HB_GEMINI_RETRY;
	}
	snprintf(out->message, sizeof out->message, "cannot reach Gemini at %.200s: %.200s", g->base_url,
		 *curl_err ? curl_err : curl_easy_strerror(rc));
	/* A broken URL or TLS setup stays broken; a dropped connection may not. */
	return rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT || rc == CURLE_PEER_FAILED_VERIFICATION ||
			       rc == CURLE_SSL_CONNECT_ERROR || rc == CURLE_OUT_OF_MEMORY
		       ? HB_GEMINI_FAIL
		       : HB_GEMINI_RETRY;
}

static enum hb_gemini_outcome answered(long status, struct buffer *b, struct hb_gemini_reply *out)
{
	out->status = status;
	if (status != 200) {
		out->retry_after_ms = hb_gemini_describe_error(status, b->data, b->len, out->message, sizeof out->message);
		return hb_gemini_status_retryable(status) ? HB_GEMINI_RETRY : HB_GEMINI_FAIL;
	}
	if (!b->data || hb_gemini_parse_answer(out, b->data, b->len) < 0) {
		b->data = NULL; /* taken over */
		snprintf(out->message, sizeof out->message, "Gemini's answer is not a JSON object");
		return HB_GEMINI_RETRY;
	}
	b->data = NULL;
	return HB_GEMINI_OK;
}

enum hb_gemini_outcome hb_gemini_generate(const struct hb_gemini *g, const char *model, const char *body,
					  struct hb_gemini_reply *out)
{
	char url[HB_GEMINI_URL_MAX + 200], header[HB_GEMINI_KEY_MAX + 32], curl_err[CURL_ERROR_SIZE] = "";
	struct curl_slist *headers = NULL, *h;
	struct buffer b = { 0 };
	enum hb_gemini_outcome rc = HB_GEMINI_FAIL;
	CURLcode cc;
	CURL *curl;
	long status = 0;

	memset(out, 0, sizeof *out);
	out->retry_after_ms = -1;
	if (!hb_gemini_model_ok(model)) {
		snprintf(out->message, sizeof out->message, "the model name \"%.100s\" is not valid", model);
		return HB_GEMINI_FAIL;
	}
	snprintf(url, sizeof url, "%s/v1beta/models/%s:generateContent", g->base_url, model);
	snprintf(header, sizeof header, "x-goog-api-key: %s", g->key);
	if ((headers = curl_slist_append(NULL, "Content-Type: application/json")) &&
	    !(h = curl_slist_append(headers, header))) {
		curl_slist_free_all(headers);
		headers = NULL;
	}
	if (!(curl = curl_easy_init()) || !headers) {
		snprintf(out->message, sizeof out->message, "out of memory while preparing the Gemini request");
		goto done;
	}
	if (curl_easy_setopt(curl, CURLOPT_URL, url) != CURLE_OK ||
	    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers) != CURLE_OK ||
	    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body) != CURLE_OK ||
	    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK ||
	    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L) != CURLE_OK ||
	    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L) != CURLE_OK ||
	    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, g->connect_timeout_ms) != CURLE_OK ||
	    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, g->timeout_ms) != CURLE_OK ||
	    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_data) != CURLE_OK ||
	    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &b) != CURLE_OK ||
	    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L) != CURLE_OK ||
	    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress) != CURLE_OK ||
	    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, (void *)g) != CURLE_OK ||
	    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, curl_err) != CURLE_OK) {
		snprintf(out->message, sizeof out->message, "libcurl refused an option of the Gemini request");
		goto done;
	}
	cc = curl_easy_perform(curl);
	if (cc != CURLE_OK)
		rc = transfer_failed(g, cc, &b, curl_err, out);
	else if (curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK)
		snprintf(out->message, sizeof out->message, "libcurl lost the HTTP status of Gemini's answer");
	else
		rc = answered(status, &b, out);
done:
	memset(header, 0, sizeof header);
	for (h = headers; h; h = h->next) /* libcurl's copy of the key too */
		memset(h->data, 0, strlen(h->data));
	curl_slist_free_all(headers);
	curl_easy_cleanup(curl);
	free(b.data);
	return rc;
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
