/*
 * proc_state - whether a process is stopped (SIGSTOP, Ctrl-Z, a debugger):
 * a client waiting for a stopped broker would wait for its whole limit,
 * so it looks, and says so instead (client.h).
 */
#ifndef HB_PROC_STATE_H
#define HB_PROC_STATE_H

#include <sys/types.h>

/* 1 when pid is stopped, 0 when it runs, is gone or cannot be looked at
 * (no /proc: not on Linux). */
int hb_process_stopped(pid_t pid);

#endif
