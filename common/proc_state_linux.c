/*
 * proc_state_linux - proc_state.h from /proc/PID/stat: its third field is
 * the state, T (stopped by a signal) or t (stopped by a tracer).
 */
#ifdef __linux__

#include "proc_state.h"

#include <stdio.h>
#include <string.h>

int hb_process_stopped(pid_t pid)
{
	char path[64], line[512], *paren;
	FILE *in;
	int stopped = 0;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if (!(in = fopen(path, "r")))
		return 0;
	/* "PID (COMM) S ...": the name may hold spaces and parentheses */
	if (fgets(line, sizeof line, in) && (paren = strrchr(line, ')')) && paren[1] == ' ')
		stopped = paren[2] == 'T' || paren[2] == 't';
	fclose(in);
	return stopped;
}

#endif
