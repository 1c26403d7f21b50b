/*
 * gemini_error - what a Gemini answer that is not a success means: the
 * error body ({"error":{code,message,status,details}}) turned into a
 * sentence, whether another attempt can help, and how long to wait first.
 *
 * Pure functions on the status and the body text, so the policy is tested
 * without a network.
 */
#ifndef HB_GEMINI_ERROR_H
#define HB_GEMINI_ERROR_H

#include <stddef.h>

/* The longest wait we accept from Gemini's RetryInfo before giving up on
 * a retry inside one tool call. */
#define HB_GEMINI_MAX_RETRY_DELAY_MS 60000L

/* 1 when an HTTP status is worth another attempt (429, 500, 503, 504). */
int hb_gemini_status_retryable(long status);
/* Describe an error answer: out gets e.g. "Gemini is overloaded or down
 * (HTTP 503 UNAVAILABLE): The model is overloaded. Please try again later."; the
 * return value is RetryInfo.retryDelay in ms, or -1 without one. */
long hb_gemini_describe_error(long status, const char *body, size_t len, char *out, size_t outlen);
/* "26s", "1.5s", "0.250s" in ms; -1 when it is not such a duration. */
long hb_gemini_parse_duration_ms(const char *text);
/* The wait before attempt number `attempt` (1 = the first retry): base_ms
 * doubling with each attempt, but never less than the server's
 * retry_after_ms (-1: none). */
long hb_gemini_backoff_ms(int attempt, long base_ms, long retry_after_ms);

#endif
