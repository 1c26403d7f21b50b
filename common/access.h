/*
 * access - the one access scale of HB Code sessions and runs, for both
 * agents: read-only < full-auto < full-access < unrestricted.
 *
 * Every rule that compares access (the hold of a session message, what an
 * agent may set with manage_sessions, the permission mode of a Claude run,
 * the sandbox of a Codex turn) goes through this file, so the order is
 * written once.
 */
#ifndef HB_ACCESS_H
#define HB_ACCESS_H

#define HB_ACCESS_LEVELS 4

/* The levels in order, NULL-terminated: for argument checks. */
extern const char *const hb_access_levels[HB_ACCESS_LEVELS + 1];

/* 0 read-only, 1 full-auto, 2 full-access, 3 unrestricted; -1 unknown. */
int hb_access_rank(const char *access);
/* "read-only" -> "read-only access", "full-auto" -> "full auto", ...: for
 * people; an unknown level says so. */
const char *hb_access_words(const char *access);

#endif
