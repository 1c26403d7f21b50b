/*
 * row_words - the sentences of the rows that say where a turn is: its
 * end ("turn completed · 12.3 s · 4,210 in (3,100 cached) / 320 out tokens
 * · $0.0132"), a retry ("retrying in 4 s (attempt 2 of 10): overloaded")
 * and a rate limit ("rate limited until 14:05 (five-hour limit)").  One
 * writer for the saved view (row_text.c) and the live view
 * (hbctl/live_line.c), so both say it in the same words.
 */
#ifndef HB_TIMELINE_ROW_WORDS_H
#define HB_TIMELINE_ROW_WORDS_H

#include <jansson.h>
#include <stdio.h>

/* A turn_completed row's sentence after "turn ": its status, and what
 * the agent reported of duration, tokens and cost (each only when on the
 * row): "completed · 12.3 s · 4,210 in (3,100 cached) / 320 out tokens ·
 * $0.0132". */
void tl_turn_words(FILE *f, const json_t *row);
/* A retry row's sentence: the wait, the attempt of how many, the reason. */
void tl_retry_words(FILE *f, const json_t *row);
/* A rate_limit row's sentence: limited until (its resetsAt, local time),
 * or near the limit; which limit. */
void tl_rate_limit_words(FILE *f, const json_t *row);
/* Whether a turn_completed row's status is other than completed (a
 * failed or interrupted turn: shown as an error). */
int tl_turn_went_wrong(const json_t *row);

#endif
