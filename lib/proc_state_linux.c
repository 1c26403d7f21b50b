/*
 * proc_state_linux - proc_state.h from /proc/PID/stat: its third field is
 * the state, T (stopped by a signal) or t (stopped by a tracer), Z or X
 * (ended, not yet reaped), and its 22nd the start time.  The file is
 * readable for any process, also one in another Landlock domain, and
 * these two fields are shown without ptrace access.
 */
#ifdef __linux__

#include "proc_state.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The state letter and the start time of pid; -1 when there is no such
 * process (errno ENOENT) or its line cannot be read. */
static int read_stat(pid_t pid, char *state, unsigned long long *start)
{
	char path[64], line[1024], *p;
	FILE *in;
	int rc = -1;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if (!(in = fopen(path, "r")))
		return -1;
	/* "PID (COMM) S ...": the name may hold spaces and parentheses */
	if (fgets(line, sizeof line, in) && (p = strrchr(line, ')')) && p[1] == ' ' && p[2]) {
		*state = p[2];
		p += 3;
		/* fields 4 to 21, then the start time */
		for (int field = 4; field <= 22 && p; field++) {
			p = strchr(p, ' ');
			if (p && field < 22)
				p++;
		}
		*start = p ? strtoull(p, NULL, 10) : 0;
		rc = 0;
	}
	fclose(in);
	if (rc < 0)
		errno = EIO;
	return rc;
}

int hb_process_stopped(pid_t pid)
{
	unsigned long long start;
	char state;

	return read_stat(pid, &state, &start) == 0 && (state == 'T' || state == 't');
}

unsigned long long hb_process_start(pid_t pid)
{
	unsigned long long start;
	char state;

	return read_stat(pid, &state, &start) == 0 ? start : 0;
}

int hb_process_gone(pid_t pid, unsigned long long start)
{
	unsigned long long now;
	char state;

	if (pid <= 0)
		return 1;
	if (read_stat(pid, &state, &now) < 0) /* no /proc here: ask the kernel */
		return errno == ENOENT || (kill(pid, 0) < 0 && errno == ESRCH);
	return state == 'Z' || state == 'X' || (start && now != start);
}

#endif
