/*
 * turn_row - see turn_row.h.  Kept apart from the projectors because the
 * two agents report a turn's usage in different shapes (Claude's result
 * message, Codex's token-usage notifications) yet a row must say it the
 * same way.
 */
#include "turn_row.h"

#include "row.h"

void tl_turn_end_init(struct tl_turn_end *end, const char *status)
{
	end->status = status;
	end->duration_ms = end->tokens_in = end->cached_tokens_in = end->tokens_out = -1;
	end->cost_usd = -1;
}

static void set_count(json_t *row, const char *key, long long n)
{
	if (n >= 0)
		json_object_set_new(row, key, json_integer((json_int_t)n));
}

void tl_turn_end_fields(json_t *row, const char *turn, const struct tl_turn_end *end)
{
	tl_row_str(row, "turn", turn, TL_ID_MAX);
	tl_row_str(row, "status", end->status, 32);
	set_count(row, "durationMs", end->duration_ms);
	set_count(row, "tokensIn", end->tokens_in);
	set_count(row, "cachedTokensIn", end->cached_tokens_in);
	set_count(row, "tokensOut", end->tokens_out);
	if (end->cost_usd >= 0)
		/* to a hundredth of a cent's millionth: a sum of the models'
		 * costs would otherwise show its binary rounding (0.0014000000000000002) */
		json_object_set_new(row, "costUsd", json_real((double)(long long)(end->cost_usd * 1e8 + 0.5) / 1e8));
}
