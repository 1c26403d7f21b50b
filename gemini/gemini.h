/*
 * gemini - the one HTTP client of the Gemini REST API (generateContent),
 * shared by svc-speech and svc-video.
 *
 * One blocking request per call on the calling thread (http.c), so that a
 * service runs several at once from several threads.  The key travels only
 * in the x-goog-api-key header: never in a URL, never in a log line.  The
 * base URL is a parameter (HB_PARAM_GEMINI_BASE_URL: settings.json
 * "geminiBaseUrl", or HB_GEMINI_BASE_URL; params.c) so that tests point the client at a local fake; plain
 * http is accepted only for a loopback host, where the key stays on the
 * machine.  A request ends early when the caller's cancel test says so
 * (polled from libcurl's progress callback).
 */
#ifndef HB_GEMINI_H
#define HB_GEMINI_H

#include <jansson.h>
#include <stddef.h>

#include "http.h"
#include "paths.h"
#include "settings.h"

#define HB_GEMINI_NO_KEY "Add a Gemini API key in Settings > API Keys."
#define HB_GEMINI_URL_MAX 512

struct hb_gemini {
	char base_url[HB_GEMINI_URL_MAX]; /* without a trailing slash */
	char key[HB_GEMINI_KEY_MAX + 1];
	long connect_timeout_ms;
	long timeout_ms;                  /* the whole request, answer included */
	/* Nonzero aborts the request in flight (the call was cancelled). */
	int (*cancelled)(void *arg);
	void *cancel_arg;
};

enum hb_gemini_outcome {
	HB_GEMINI_OK,        /* HTTP 200 with a JSON object body */
	HB_GEMINI_RETRY,     /* worth another attempt: 429, 500, 503, 504, network, timeout */
	HB_GEMINI_FAIL,      /* retrying cannot help (other 4xx, a bad answer, a bad setting) */
	HB_GEMINI_CANCELLED,
};

#define HB_GEMINI_MAX_BLOBS 16

struct hb_gemini_reply {
	long status;          /* HTTP status; 0 when no answer came */
	json_t *body;         /* the parsed answer on HB_GEMINI_OK */
	long retry_after_ms;  /* RetryInfo.retryDelay of a 429; -1 without one */
	char message[768];    /* what went wrong, for a person */
	/* Long base64 strings (inlineData.data) stay out of the JSON parser,
	 * which would take ~20 ns a byte over megabytes of audio: in body they
	 * are placeholders, read with hb_gemini_string. */
	char *text;           /* the answer as received */
	struct { size_t off, len; } blobs[HB_GEMINI_MAX_BLOBS];
	int nblobs;
	/* The response headers the request named in capture ("" when absent). */
	char captured[HB_HTTP_MAX_CAPTURE][HB_HTTP_HEADER_MAX];
};

/* Any request to the Gemini REST API (the Files API's upload, polling and
 * delete; generateContent goes through hb_gemini_generate). */
struct hb_gemini_request {
	const char *method;           /* GET, POST or DELETE */
	const char *url;              /* absolute, on the base URL's origin: the key goes nowhere else */
	const char *const *headers;   /* more header lines, NULL-terminated (at most 10) */
	const void *body;
	size_t body_len;
	const char *const *capture;   /* response headers to keep in reply->captured (at most 3) */
	int empty_ok;                 /* a 200 without a body is a success (reply->body NULL) */
};

/* Fill g for a call: the key (read now: a deleted key fails the very next
 * call with HB_GEMINI_NO_KEY), the base URL and the timeouts
 * (HB_GEMINI_CONNECT_TIMEOUT_MS, default 10 s; HB_GEMINI_TIMEOUT_MS,
 * default 300 s).  0, or -1 with err. */
int hb_gemini_configure(struct hb_gemini *g, const struct hb_paths *p, char *err, size_t errlen);
/* Forget the key (zeroed, so no copy outlives the call). */
void hb_gemini_forget(struct hb_gemini *g);
/* A model name as it goes in a URL path: letters, digits, '.', '-', '_'. */
int hb_gemini_model_ok(const char *model);

/* Send rq with the key in its x-goog-api-key header.  HB_GEMINI_OK is a
 * 200 with a JSON object (or, with empty_ok, no body). */
enum hb_gemini_outcome hb_gemini_send(const struct hb_gemini *g, const struct hb_gemini_request *rq,
				      struct hb_gemini_reply *out);
/* hb_gemini_send up to attempts times while the outcome is HB_GEMINI_RETRY,
 * waiting hb_gemini_backoff_ms (base_ms doubling, or Gemini's longer
 * RetryInfo) between them; a wait over HB_GEMINI_MAX_RETRY_DELAY_MS ends
 * it.  The message of a final failure says how many attempts were made. */
enum hb_gemini_outcome hb_gemini_send_retrying(const struct hb_gemini *g, const struct hb_gemini_request *rq,
					       int attempts, long base_ms, struct hb_gemini_reply *out);
/* POST body (JSON text) to {base}/v1beta/models/{model}:generateContent. */
enum hb_gemini_outcome hb_gemini_generate(const struct hb_gemini *g, const char *model, const char *body,
					  struct hb_gemini_reply *out);
void hb_gemini_reply_free(struct hb_gemini_reply *r);
/* Parse an answer's text into r->body (text is taken over, freed with the
 * reply).  0, or -1 when it is not a JSON object. */
int hb_gemini_parse_answer(struct hb_gemini_reply *r, char *text, size_t len);
/* The bytes of a string value of r->body (a placeholder gives its base64
 * text); NULL when v is not a string. */
const char *hb_gemini_string(const struct hb_gemini_reply *r, const json_t *v, size_t *len);

/* Sleep ms, waking early (returning -1) when g->cancelled says so. */
int hb_gemini_sleep(const struct hb_gemini *g, long ms);

#endif
