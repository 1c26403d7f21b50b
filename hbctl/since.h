/*
 * since - the time a --since option names: a duration back from now
 * ("90s", "10m", "2h", "3d") or a time ("14:05" today, "2026-12-05",
 * "2026-12-05T14:05" local).  Shared by the commands that take --since.
 */
#ifndef HBCTL_SINCE_H
#define HBCTL_SINCE_H

#include <time.h>

/* The time text names, now being now; -1 when text is none of the above. */
time_t since_parse(const char *text, time_t now);
/* An ISO-8601 UTC time as svc-sessions writes it ("2026-12-05T07:46:08.123Z"),
 * or -1. */
time_t since_iso_utc(const char *text);

#endif
