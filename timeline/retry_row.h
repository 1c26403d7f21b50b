/*
 * retry_row - the fields of the live-only rows of a turn that waits: a
 * retry (a model call failed and the agent tries again) and a rate limit
 * (the account is limited, or near it), one writer for both projectors,
 * so a live view says "retrying in 4 s (attempt 2 of 10): overloaded" of
 * a Claude turn and of a Codex turn with the same fields.
 *
 * Live only: no saved transcript keeps them (Claude's api_retry and
 * rate_limit_event, Codex's error notification with willRetry), so their
 * ids are their own and no saved row replaces them.
 */
#ifndef HB_TIMELINE_RETRY_ROW_H
#define HB_TIMELINE_RETRY_ROW_H

#include <jansson.h>

/* What an agent reported of one retry; a number it did not report is
 * negative, a text NULL, and stays off the row. */
struct tl_retry {
	long long attempt, max_attempts, delay_ms, http_status;
	const char *reason;	/* a short word: "overloaded", "rate limited", "server error" */
	const char *detail;	/* the agent's own sentence, as it gave it */
};

/* A retry with nothing reported yet. */
void tl_retry_init(struct tl_retry *r);
/* Set attempt, maxAttempts, delayMs, httpStatus, reason and detail on row. */
void tl_retry_fields(json_t *row, const struct tl_retry *r);
/* A reason a person reads for an error category (Claude's "overloaded",
 * "rate_limit", "server_error", …) or, without a known one, for an HTTP
 * status (429, 529, 5xx); NULL when neither says anything. */
const char *tl_retry_reason(const char *category, long long http_status);

#endif
