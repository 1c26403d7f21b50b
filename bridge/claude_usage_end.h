/*
 * claude_usage_end - a finished Claude run clears its account's usage
 * reading (agents/claude_usage.h), page 003 "Accounts and usage".
 */
#ifndef HB_CLAUDE_USAGE_END_H
#define HB_CLAUDE_USAGE_END_H

/* The run on account is over, however it ended: its turns changed the
 * usage, so that account's reading no longer holds and the next reader
 * takes a new one.  A failure is logged, never fatal. */
void claude_usage_run_ended(const char *account);

#endif
