/*
 * gemini_error - Gemini's error bodies and the retry policy.  The message
 * comes from a remote server and goes to a model and a log, so it is cut
 * to one line of printable text.
 */
#include "gemini_error.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hb_gemini_status_retryable(long status)
{
	return status == 429 || status == 500 || status == 503 || status == 504;
}

/* What a person should make of a status, before Gemini's own words. */
static const char *status_meaning(long status)
{
	switch (status) {
	case 400: return "Gemini refused the request";
	case 401:
	case 403: return "Gemini refused the API key (check it in Settings > API Keys)";
	case 404: return "Gemini does not know this model or address";
	case 429: return "Gemini's rate limit or quota for this key is used up";
	case 500: return "Gemini had an internal error";
	case 503: return "Gemini is overloaded or down";
	case 504: return "Gemini ran out of time";
	default: return status >= 500 ? "Gemini had a server error" : "Gemini refused the request";
	}
}

/* Drop a UTF-8 sequence that a cut left incomplete at the end of s. */
static void trim_partial_utf8(char *s)
{
	size_t n = strlen(s), k = 0, want;
	unsigned char lead;

	while (k < n && k < 4 && ((unsigned char)s[n - 1 - k] & 0xc0) == 0x80)
		k++;
	if (k == n)
		return;
	lead = (unsigned char)s[n - 1 - k];
	want = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0;
	if (want != k)
		s[n - 1 - k] = '\0';
}

/* Copy src into out as one line of printable ASCII and UTF-8. */
static void one_line(char *out, size_t outlen, const char *src, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n + 1 < outlen; i++) {
		unsigned char c = (unsigned char)src[i];
		out[n++] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
	}
	out[n] = '\0';
	trim_partial_utf8(out);
}

long hb_gemini_parse_duration_ms(const char *text)
{
	char *end;
	double s;

	if (!text || !*text)
		return -1;
	s = strtod(text, &end);
	if (end == text || strcmp(end, "s") != 0 || s < 0 || s > 86400.0)
		return -1;
	return (long)(s * 1000.0 + 0.5);
}

/* RetryInfo.retryDelay among the details, or -1. */
static long retry_delay(const json_t *details)
{
	const json_t *d;
	size_t i;

	json_array_foreach(details, i, d) {
		const char *type = json_string_value(json_object_get(d, "@type"));
		if (type && strstr(type, "google.rpc.RetryInfo"))
			return hb_gemini_parse_duration_ms(json_string_value(json_object_get(d, "retryDelay")));
	}
	return -1;
}

long hb_gemini_describe_error(long status, const char *body, size_t len, char *out, size_t outlen)
{
	json_t *root = body && len ? json_loadb(body, len, 0, NULL) : NULL;
	const json_t *err = json_object_get(root, "error");
	const char *msg = json_string_value(json_object_get(err, "message"));
	const char *rpc = json_string_value(json_object_get(err, "status"));
	char text[400], code[64];
	long delay = retry_delay(json_object_get(err, "details"));

	if (msg)
		one_line(text, sizeof text, msg, strlen(msg));
	else if (body && len && !root)
		one_line(text, sizeof text, body, len < 200 ? len : 200);
	else
		snprintf(text, sizeof text, "no error message in the answer");
	one_line(code, sizeof code, rpc ? rpc : "", rpc ? strlen(rpc) : 0);
	snprintf(out, outlen, "%s (HTTP %ld%s%s): %s", status_meaning(status), status, *code ? " " : "", code,
		 text);
	trim_partial_utf8(out); /* out may be shorter than the message */
	json_decref(root);
	return delay;
}

long hb_gemini_backoff_ms(int attempt, long base_ms, long retry_after_ms)
{
	long wait = base_ms;

	for (int i = 1; i < attempt && wait < HB_GEMINI_MAX_RETRY_DELAY_MS; i++)
		wait *= 2;
	if (wait > HB_GEMINI_MAX_RETRY_DELAY_MS)
		wait = HB_GEMINI_MAX_RETRY_DELAY_MS;
	return retry_after_ms > wait ? retry_after_ms : wait;
}
