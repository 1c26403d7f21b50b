/*
 * scale_proc - what the scale benchmark (bench-scale.c) reads of a
 * process's own cost: CPU time and minor page faults, of this process
 * (getrusage) or of another (/proc).  Part 1 charges svc-sessions' work
 * per call with it, part 3 the broker's idle CPU per second.
 */
#ifndef BENCH_SCALE_PROC_H
#define BENCH_SCALE_PROC_H

#include <sys/types.h>

/* Minor page faults of this process so far (0 when unknown). */
long scale_minor_faults(void);
/* The CPU time of pid so far: from /proc/PID/stat (utime + stime, in
 * clock ticks) into *stat_s, and from every thread's schedstat (ns) into
 * *sched_s; its minor page faults into *minflt (may be NULL).  0 or -1. */
int scale_cpu_of(pid_t pid, double *stat_s, double *sched_s, long *minflt);

#endif
