/*
 * fetch - the libcurl side: the write callback is the only reader of the
 * answer's body.  A 200's bytes go to the speech answer reader as they
 * come; any other status's bytes are kept (its first 64 KiB) for the
 * sentence that names the error.  The transfer is cut short, by
 * returning 0 from the callback, as soon as its outcome is known.  A tap
 * sees the samples after every piece, on the same thread.
 */
#include "fetch.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "gemini_error.h"
#include "url.h"

/* Gemini's error bodies are a few hundred bytes; the sentence is in the
 * first ones, so a longer one need not be read to the end. */
#define ERROR_BODY_MAX (64u << 10)
/* libcurl's default of 16 KiB means 470 callbacks for one answer. */
#define RECV_BUFFER (256L << 10)

struct transfer {
	CURL *curl;
	struct speech_answer *answer;
	const struct hb_gemini *g;
	const struct speech_fetch_tap *tap;
	char tap_err[512];  /* the tap's reason to stop, when it stopped us */
	long status;        /* 0 until the body's first byte */
	char *error_body;   /* a status other than 200: its text */
	size_t error_len;
	int stopped;        /* we ended the transfer: its outcome was known */
	int no_memory;
};

_Static_assert(CURL_ERROR_SIZE <= 512, "the error buffer below is large enough");

int speech_fetch_open(struct speech_fetch *f)
{
	f->curl = curl_easy_init();
	return f->curl ? 0 : -1;
}

void speech_fetch_close(struct speech_fetch *f)
{
	curl_easy_cleanup(f->curl);
	f->curl = NULL;
}

static size_t on_data(char *data, size_t size, size_t nmemb, void *arg)
{
	struct transfer *t = arg;
	size_t n = size * nmemb, k;

	if (t->status == 0 && (curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &t->status) != CURLE_OK ||
			       t->status == 0))
		t->status = -1; /* no status line: not an answer we can read */
	if (t->status == 200) {
		const int16_t *s;
		size_t have;
		unsigned generation;

		if (speech_answer_feed(t->answer, data, n) < 0) {
			t->stopped = 1;
			return 0; /* libcurl ends the transfer with a write error */
		}
		if (t->tap) {
			s = speech_answer_samples(t->answer, &have, &generation);
			if (t->tap->fn(t->tap->arg, s, have, generation, t->tap_err, sizeof t->tap_err) < 0) {
				if (!t->tap_err[0])
					snprintf(t->tap_err, sizeof t->tap_err, "the audio could not be written");
				t->stopped = 1;
				return 0;
			}
		}
		return n;
	}
	if (!t->error_body && !(t->error_body = malloc(ERROR_BODY_MAX + 1))) {
		t->no_memory = t->stopped = 1;
		return 0;
	}
	k = n < ERROR_BODY_MAX - t->error_len ? n : ERROR_BODY_MAX - t->error_len;
	memcpy(t->error_body + t->error_len, data, k);
	t->error_len += k;
	t->error_body[t->error_len] = '\0';
	if (k < n) {
		t->stopped = 1;
		return 0;
	}
	return n;
}

static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	const struct hb_gemini *g = ((struct transfer *)arg)->g;

	(void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
	return g->cancelled && g->cancelled(g->cancel_arg) ? 1 : 0;
}

static int set_options(struct transfer *t, const char *url, struct curl_slist *headers, const char *body,
		       char *errbuf)
{
	CURL *c = t->curl;

	return curl_easy_setopt(c, CURLOPT_URL, url) != CURLE_OK ||
			       curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers) != CURLE_OK ||
			       curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK ||
			       curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L) != CURLE_OK ||
			       curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L) != CURLE_OK ||
			       curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, t->g->connect_timeout_ms) != CURLE_OK ||
			       curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, t->g->timeout_ms) != CURLE_OK ||
			       curl_easy_setopt(c, CURLOPT_BUFFERSIZE, RECV_BUFFER) != CURLE_OK ||
			       curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data) != CURLE_OK ||
			       curl_easy_setopt(c, CURLOPT_WRITEDATA, t) != CURLE_OK ||
			       curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L) != CURLE_OK ||
			       curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress) != CURLE_OK ||
			       curl_easy_setopt(c, CURLOPT_XFERINFODATA, t) != CURLE_OK ||
			       curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf) != CURLE_OK ||
			       curl_easy_setopt(c, CURLOPT_POSTFIELDS, body) != CURLE_OK ||
			       curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body)) != CURLE_OK
		       ? -1
		       : 0;
}

/* The header lines; "Expect:" keeps a large POST from waiting for a
 * "100 Continue" that some servers never send. */
static struct curl_slist *header_list(const char *key_line)
{
	static const char *const lines[] = { "Expect:", "Content-Type: application/json", NULL };
	struct curl_slist *list = NULL, *next;

	for (int i = 0; lines[i]; i++) {
		if (!(next = curl_slist_append(list, lines[i]))) {
			curl_slist_free_all(list);
			return NULL;
		}
		list = next;
	}
	if (!(next = curl_slist_append(list, key_line))) {
		curl_slist_free_all(list);
		return NULL;
	}
	return next;
}

/* The key leaves no copy behind in the list's memory. */
static void free_headers(struct curl_slist *headers)
{
	for (struct curl_slist *h = headers; h; h = h->next)
		memset(h->data, 0, strlen(h->data));
	curl_slist_free_all(headers);
}

/* A transfer that got no whole answer, in the shared client's words. */
static enum hb_gemini_outcome transfer_failed(const struct hb_gemini *g, CURLcode cc, const char *errbuf, char *err,
					      size_t errlen)
{
	if (cc == CURLE_ABORTED_BY_CALLBACK) {
		snprintf(err, errlen, "cancelled");
		return HB_GEMINI_CANCELLED;
	}
	if (cc == CURLE_OPERATION_TIMEDOUT) {
		snprintf(err, errlen, "Gemini did not answer within %ld s", g->timeout_ms / 1000);
		return HB_GEMINI_RETRY;
	}
	snprintf(err, errlen, "cannot reach Gemini at %.200s: %.200s", g->base_url,
		 errbuf[0] ? errbuf : curl_easy_strerror(cc));
	/* A broken URL or TLS setup stays broken; a dropped connection may not. */
	return cc == CURLE_UNSUPPORTED_PROTOCOL || cc == CURLE_URL_MALFORMAT || cc == CURLE_PEER_FAILED_VERIFICATION ||
			       cc == CURLE_SSL_CONNECT_ERROR || cc == CURLE_OUT_OF_MEMORY
		       ? HB_GEMINI_FAIL
		       : HB_GEMINI_RETRY;
}

/* The whole answer came (or enough of it): what it says. */
static enum hb_gemini_outcome answered(struct transfer *t, struct speech_audio *out, long *retry_after_ms,
				       char *err, size_t errlen)
{
	enum speech_audio_result r;

	if (t->no_memory) {
		snprintf(err, errlen, "out of memory while reading Gemini's answer");
		return HB_GEMINI_FAIL;
	}
	if (t->tap_err[0]) {
		snprintf(err, errlen, "%s", t->tap_err);
		return HB_GEMINI_FAIL;
	}
	if (t->status == 200) {
		r = speech_answer_end(t->answer, out, err, errlen);
		return r == SPEECH_AUDIO_OK ? HB_GEMINI_OK : r == SPEECH_AUDIO_RETRY ? HB_GEMINI_RETRY : HB_GEMINI_FAIL;
	}
	*retry_after_ms = hb_gemini_describe_error(t->status, t->error_body, t->error_len, err, errlen);
	return hb_gemini_status_retryable(t->status) ? HB_GEMINI_RETRY : HB_GEMINI_FAIL;
}

enum hb_gemini_outcome speech_fetch_audio(struct speech_fetch *f, const struct hb_gemini *g, const char *model,
					  const char *body, const struct speech_fetch_tap *tap, struct speech_audio *out,
					  long *retry_after_ms, char *err, size_t errlen)
{
	char url[HB_GEMINI_URL_MAX + 200], key[HB_GEMINI_KEY_MAX + 32], errbuf[512] = "";
	struct transfer t = { .curl = f->curl, .g = g, .tap = tap };
	struct curl_slist *headers;
	enum hb_gemini_outcome rc;
	CURLcode cc;

	memset(out, 0, sizeof *out);
	*retry_after_ms = -1;
	if (!hb_gemini_model_ok(model)) {
		snprintf(err, errlen, "the model name \"%.100s\" is not valid", model);
		return HB_GEMINI_FAIL;
	}
	snprintf(url, sizeof url, "%s/v1beta/models/%s:generateContent", g->base_url, model);
	/* The key goes nowhere but to the configured Gemini. */
	if (!hb_url_same_origin(url, g->base_url)) {
		snprintf(err, errlen, "refusing to send the Gemini key to %.200s: it is not %.200s", url, g->base_url);
		return HB_GEMINI_FAIL;
	}
	if (!(t.answer = speech_answer_new(SPEECH_ANSWER_MAX))) {
		snprintf(err, errlen, "out of memory while preparing the request");
		return HB_GEMINI_FAIL;
	}
	snprintf(key, sizeof key, "x-goog-api-key: %s", g->key);
	headers = header_list(key);
	memset(key, 0, sizeof key);
	if (!headers) {
		speech_answer_free(t.answer);
		snprintf(err, errlen, "out of memory while preparing the request");
		return HB_GEMINI_FAIL;
	}
	/* Options start afresh each time; the connection stays. */
	curl_easy_reset(f->curl);
	if (set_options(&t, url, headers, body, errbuf) < 0) {
		snprintf(err, errlen, "libcurl refused an option of the request");
		rc = HB_GEMINI_FAIL;
	} else if ((cc = curl_easy_perform(f->curl)) == CURLE_OK || (cc == CURLE_WRITE_ERROR && t.stopped)) {
		if (t.status == 0 && (curl_easy_getinfo(f->curl, CURLINFO_RESPONSE_CODE, &t.status) != CURLE_OK))
			t.status = -1;
		rc = answered(&t, out, retry_after_ms, err, errlen);
	} else {
		rc = transfer_failed(g, cc, errbuf, err, errlen);
	}
	/* Nothing of this call (its header list, error buffer) stays set. */
	curl_easy_reset(f->curl);
	free_headers(headers);
	free(t.error_body);
	speech_answer_free(t.answer);
	return rc;
}
