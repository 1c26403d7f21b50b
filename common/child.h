/*
 * child - the agent process a bridge sits in front of: started with pipes
 * on its stdin and stdout (stderr is shared), optionally in its own
 * process group so that the whole group can be killed at the end.
 */
#ifndef HB_CHILD_H
#define HB_CHILD_H

#include <stddef.h>
#include <sys/types.h>

/* child_spawn's flags.  CHILD_PARENT_DEATH alone kills the child when we
 * die (Linux; see pdeath.h), not what it started.  With CHILD_OWN_GROUP
 * the whole group goes: c->pid is then a guard, a fork of ours that leads
 * the group, runs the program as its own child (which dies with the
 * guard), and kills the group once we are gone, on every system, or once
 * the program has ended, whose exit status it then passes on (128+signal
 * when the program was killed).  The guard keeps
 * none of our descriptors and ignores SIGTERM, SIGINT and SIGHUP: a
 * TERM to the group is the program's to handle. */
#define CHILD_OWN_GROUP   1  /* a process group of its own (pgid = c->pid) */
#define CHILD_PARENT_DEATH 2 /* killed when we die: the child, or its group */

struct child {
	pid_t pid;
	int in;   /* we write: its stdin */
	int out;  /* we read: its stdout */
};

/* argv[0] is looked up in PATH.  envp NULL: our environment.  flags:
 * CHILD_*.  0, or -1 with a reason (a failed exec is reported here, not
 * discovered later). */
int child_spawn(struct child *c, char *const argv[], char *const envp[], int flags,
		char *err, size_t errlen);
/* Wait for the child; returns an exit status for our own exit (128+sig). */
int child_wait(struct child *c);

#endif
