/*
 * proc_state_other - proc_state.h where there is no /proc (macOS): a
 * stopped broker is not told from a slow one, and the client waits for
 * its limit; a process is judged by kill(pid, 0) alone, so a pid taken
 * by a later process counts as the old one still running.
 */
#ifndef __linux__

#include "proc_state.h"

#include <errno.h>
#include <signal.h>

int hb_process_stopped(pid_t pid)
{
	(void)pid;
	return 0;
}

unsigned long long hb_process_start(pid_t pid)
{
	(void)pid;
	return 0;
}

int hb_process_gone(pid_t pid, unsigned long long start)
{
	(void)start;
	return pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH);
}

#endif
