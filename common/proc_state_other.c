/*
 * proc_state_other - proc_state.h where there is no /proc (macOS): a
 * stopped broker is not told from a slow one, and the client waits for
 * its limit.
 */
#ifndef __linux__

#include "proc_state.h"

int hb_process_stopped(pid_t pid)
{
	(void)pid;
	return 0;
}

#endif
