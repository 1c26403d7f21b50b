/*
 * turn_row - the fields of a turn_completed row, one writer for both
 * projectors, so a live view shows the end of a Claude turn and of a
 * Codex turn with the same words: its status, how long it ran, the
 * tokens it took in (cached ones included, and of them how many came from
 * the cache) and gave out, and its cost where the agent reports one
 * (Claude does, Codex does not).
 */
#ifndef HB_TIMELINE_TURN_ROW_H
#define HB_TIMELINE_TURN_ROW_H

#include <jansson.h>

/* What an agent reported about one turn; a field it did not report is
 * negative and stays off the row. */
struct tl_turn_end {
	const char *status;		/* "completed", "interrupted" or "failed" */
	long long duration_ms;
	long long tokens_in, cached_tokens_in, tokens_out;
	double cost_usd;
};

/* A turn_end with nothing reported yet, for status. */
void tl_turn_end_init(struct tl_turn_end *end, const char *status);
/* Set turn (the turn's id, also in the row's id), status, durationMs,
 * tokensIn, cachedTokensIn, tokensOut and costUsd on row. */
void tl_turn_end_fields(json_t *row, const char *turn, const struct tl_turn_end *end);

#endif
