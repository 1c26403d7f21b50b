/*
 * retry_row - see retry_row.h.  Kept apart from the projectors because
 * Claude reports a retry as one message with every number (api_retry)
 * and Codex as an error notification whose sentence holds the attempt
 * ("Reconnecting... 1/3"), yet a row must say both the same way.
 */
#include "retry_row.h"

#include <string.h>

#include "row.h"

void tl_retry_init(struct tl_retry *r)
{
	r->attempt = r->max_attempts = r->delay_ms = r->http_status = -1;
	r->reason = r->detail = NULL;
}

static void set_count(json_t *row, const char *key, long long n)
{
	if (n >= 0)
		json_object_set_new(row, key, json_integer((json_int_t)n));
}

void tl_retry_fields(json_t *row, const struct tl_retry *r)
{
	set_count(row, "attempt", r->attempt);
	set_count(row, "maxAttempts", r->max_attempts);
	set_count(row, "delayMs", r->delay_ms);
	set_count(row, "httpStatus", r->http_status);
	tl_row_str(row, "reason", r->reason, 64);
	tl_row_str(row, "detail", r->detail, 1024);
}

const char *tl_retry_reason(const char *category, long long http_status)
{
	static const char *const words[][2] = {
		{ "overloaded", "overloaded" },	      { "rate_limit", "rate limited" },
		{ "server_error", "server error" },   { "authentication_failed", "authentication failed" },
		{ "billing_error", "billing error" }, { "invalid_request", "invalid request" },
		{ "model_not_found", "model not found" },
	};

	for (size_t i = 0; category && i < sizeof words / sizeof words[0]; i++)
		if (strcmp(category, words[i][0]) == 0)
			return words[i][1];
	if (http_status == 429)
		return "rate limited";
	if (http_status == 529)
		return "overloaded";
	if (http_status == 503)
		return "unavailable";
	if (http_status >= 500 && http_status < 600)
		return "server error";
	if (category && strcmp(category, "unknown") == 0 && http_status < 0)
		return "connection error";	/* Claude: no HTTP answer (a timeout) */
	return NULL;
}
