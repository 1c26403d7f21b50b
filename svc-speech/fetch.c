/*
 * fetch - the sink of the streamed request is the only reader of the
 * answer's body.  A 200's bytes go to the speech answer reader as they
 * come; any other status's bytes are kept (its first 64 KiB) for the
 * sentence that names the error.  The transfer is cut short, by the sink
 * refusing a piece, as soon as its outcome is known.  A tap sees the
 * samples after every piece, on the same thread.
 */
#include "fetch.h"

#include <stdint.h>
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
	struct speech_answer *answer;
	const struct speech_fetch_tap *tap;
	char tap_err[512];  /* the tap's reason to stop, when it stopped us */
	char *error_body;   /* a status other than 200: its text */
	size_t error_len;
	int no_memory;
};

int speech_fetch_open(struct speech_fetch *f)
{
	f->conn = hb_http_conn_new();
	return f->conn ? 0 : -1;
}

void speech_fetch_close(struct speech_fetch *f)
{
	hb_http_conn_free(f->conn);
	f->conn = NULL;
}

/* The sink: n takes the piece, 0 ends the transfer (its outcome is known). */
static size_t on_body(void *arg, long status, const void *data, size_t n)
{
	struct transfer *t = arg;
	size_t k;

	if (status == 200) {
		const int16_t *s;
		size_t have;
		unsigned generation;

		if (speech_answer_feed(t->answer, data, n) < 0)
			return 0;
		if (t->tap) {
			s = speech_answer_samples(t->answer, &have, &generation);
			if (t->tap->fn(t->tap->arg, s, have, generation, t->tap_err, sizeof t->tap_err) < 0) {
				if (!t->tap_err[0])
					snprintf(t->tap_err, sizeof t->tap_err, "the audio could not be written");
				return 0;
			}
		}
		return n;
	}
	if (!t->error_body && !(t->error_body = malloc(ERROR_BODY_MAX + 1))) {
		t->no_memory = 1;
		return 0;
	}
	k = n < ERROR_BODY_MAX - t->error_len ? n : ERROR_BODY_MAX - t->error_len;
	memcpy(t->error_body + t->error_len, data, k);
	t->error_len += k;
	t->error_body[t->error_len] = '\0';
	return k < n ? 0 : n;
}

/* A transfer that got no answer, in the shared client's words. */
static enum hb_gemini_outcome transfer_failed(const struct hb_gemini *g, enum hb_http_result res,
					      const struct hb_http_response *rs, char *err, size_t errlen)
{
	if (res == HB_HTTP_CANCELLED) {
		snprintf(err, errlen, "cancelled");
		return HB_GEMINI_CANCELLED;
	}
	if (res == HB_HTTP_TIMEOUT) {
		snprintf(err, errlen, "Gemini did not answer within %ld s", g->timeout_ms / 1000);
		return HB_GEMINI_RETRY;
	}
	snprintf(err, errlen, "cannot reach Gemini at %.200s: %.200s", g->base_url, rs->error);
	return res == HB_HTTP_BROKEN ? HB_GEMINI_FAIL : HB_GEMINI_RETRY;
}

/* The whole answer came (or enough of it): what it says. */
static enum hb_gemini_outcome answered(struct transfer *t, long status, struct speech_audio *out,
				       long *retry_after_ms, char *err, size_t errlen)
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
	if (status == 200) {
		r = speech_answer_end(t->answer, out, err, errlen);
		return r == SPEECH_AUDIO_OK ? HB_GEMINI_OK : r == SPEECH_AUDIO_RETRY ? HB_GEMINI_RETRY : HB_GEMINI_FAIL;
	}
	*retry_after_ms = hb_gemini_describe_error(status, t->error_body, t->error_len, err, errlen);
	return hb_gemini_status_retryable(status) ? HB_GEMINI_RETRY : HB_GEMINI_FAIL;
}

enum hb_gemini_outcome speech_fetch_audio(struct speech_fetch *f, const struct hb_gemini *g, const char *model,
					  const char *body, const struct speech_fetch_tap *tap, struct speech_audio *out,
					  long *retry_after_ms, char *err, size_t errlen)
{
	char url[HB_GEMINI_URL_MAX + 200], key[HB_GEMINI_KEY_MAX + 32];
	const char *const lines[] = { "Content-Type: application/json", key, NULL };
	/* No byte limit of ours: the reader has its own (SPEECH_ANSWER_MAX),
	 * with its own sentence, and an error body is cut at ERROR_BODY_MAX. */
	const struct hb_http_request rq = {
		.method = "POST", .url = url, .headers = lines, .body = body, .body_len = strlen(body),
		.connect_timeout_ms = g->connect_timeout_ms, .timeout_ms = g->timeout_ms, .max_answer = SIZE_MAX,
		.recv_buffer = RECV_BUFFER, .cancelled = g->cancelled, .cancel_arg = g->cancel_arg,
	};
	struct transfer t = { .tap = tap };
	const struct hb_http_sink sink = { on_body, &t };
	struct hb_http_response rs;
	enum hb_http_result res;
	enum hb_gemini_outcome rc;

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
	res = hb_http_stream(f->conn, &rq, &sink, &rs);
	memset(key, 0, sizeof key);
	rc = res == HB_HTTP_ANSWERED ? answered(&t, rs.status, out, retry_after_ms, err, errlen)
				     : transfer_failed(g, res, &rs, err, errlen);
	hb_http_response_free(&rs);
	free(t.error_body);
	speech_answer_free(t.answer);
	return rc;
}
