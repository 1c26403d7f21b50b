/*
 * scale_sessions_report - the tables of the scale benchmark's part 1
 * (scale_sessions.c): per count and action the three ways' p50/p99, the
 * page faults and svc-sessions' own CPU per call, how each figure grows
 * from one count to the next, and the listSessions target beside its
 * figure ("met" or "missed", never a pass/fail verdict).
 */
#ifndef BENCH_SCALE_SESSIONS_REPORT_H
#define BENCH_SCALE_SESSIONS_REPORT_H

#include "scale_sessions_rig.h"

/* Print the figures of rigs[0..n-1] (n >= 1, counts ascending) on stdout. */
void scale_sessions_report(const struct count_rig *rigs, int n);

#endif
