/*
 * proc_state - whether a process is stopped (SIGSTOP, Ctrl-Z, a debugger):
 * a client waiting for a stopped broker would wait for its whole limit,
 * so it looks, and says so instead (client.h); and whether a process
 * that wrote something down still runs, told from a later process that
 * got its pid by its start time (svc-explainer's open timeline rows).
 */
#ifndef HB_PROC_STATE_H
#define HB_PROC_STATE_H

#include <sys/types.h>

/* 1 when pid is stopped, 0 when it runs, is gone or cannot be looked at
 * (no /proc: not on Linux). */
int hb_process_stopped(pid_t pid);

/* The start time of pid (clock ticks after boot), to write down beside
 * the pid: 0 when it cannot be known (no /proc). */
unsigned long long hb_process_start(pid_t pid);
/* Whether the process pid that started at start (hb_process_start; 0:
 * not known) has ended: no such process, a zombie, or another process
 * that has its pid since.  Without /proc, kill(pid, 0): ESRCH is gone
 * and EPERM is there (a process out of reach, e.g. in another Landlock
 * domain, still runs). */
int hb_process_gone(pid_t pid, unsigned long long start);

#endif
