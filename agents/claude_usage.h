/*
 * claude_usage - the cached plan usage reading of a Claude account (page
 * 003, "Accounts and usage"): one reading per account per minute, shared
 * by every reader, cleared when a Claude run finishes; and the last rate
 * limits codex app-server reported, which hbctl usage shows beside them.
 *
 * The reading is a file in the cache folder, claude-usage/ACCOUNT.json,
 * mode 0600: {"at": SECONDS SINCE 1970, "reading": THE HOST'S usage ANSWER};
 * ACCOUNT is "default" (this computer's Claude sign-in) or an added
 * account's name (claude_account.h).
 */
#ifndef HB_CLAUDE_USAGE_H
#define HB_CLAUDE_USAGE_H

#include <jansson.h>
#include <stddef.h>
#include <time.h>

#include "paths.h"

#define HB_CLAUDE_USAGE_FRESH_S 60 /* a reading serves every reader for a minute */

/* The reading of account taken less than a minute before now (and not
 * after it: a clock set back does not make one last), a new reference;
 * NULL when there is none, it is older, or the file is not ours to trust
 * (not a regular file of this user with mode 0600, not the format).
 * *at: when it was taken. */
json_t *hb_claude_usage_cached(const struct hb_paths *p, const char *account, time_t now, time_t *at_out);
/* Keep reading as account's, taken at now: written whole to a new file
 * (mode 0600) and renamed over the old one, so a reader sees one or the
 * other.  0, or -1 with a sentence in err. */
int hb_claude_usage_store(const struct hb_paths *p, const char *account, const json_t *reading, time_t now,
			  char *err, size_t errlen);
/* Take account's usage lock (a POSIX record lock on claude-usage/
 * ACCOUNT.lock), waiting up to wait_ms for another reader to let it go:
 * a reader that finds no reading takes it, looks again, and only then
 * starts Claude Code, so readers at once start it once.  The descriptor
 * to close to let it go, or -1 with a sentence in err (the caller reads
 * without it: two starts are nothing worse). */
int hb_claude_usage_lock(const struct hb_paths *p, const char *account, int wait_ms, char *err, size_t errlen);
/* Clear account's reading: 0 (also when there was none), or -1 with err. */
int hb_claude_usage_forget(const struct hb_paths *p, const char *account, char *err, size_t errlen);

/* Codex: the rate limits codex app-server reported last (the rateLimits
 * of account/rateLimits/updated, which hb-codex-bridge passes on), in
 * codex-usage/default.json, the same format and mode.  Store: 0, or -1
 * with err.  Last: the reading of any age (not one dated after now), a
 * new reference, *at when it was reported; NULL when there is none. */
int hb_codex_usage_store(const struct hb_paths *p, const json_t *rate_limits, time_t now, char *err, size_t errlen);
json_t *hb_codex_usage_last(const struct hb_paths *p, time_t now, time_t *at_out);

#endif
