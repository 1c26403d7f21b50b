/*
 * child - fork/exec, once for every program of hbcode-tools: the agent
 * process a bridge sits in front of (child_spawn: pipes on its stdin and
 * stdout, stderr shared), and the broker's services and launched bridges
 * (child_start: descriptors of the caller's choosing, a descriptor kept
 * open across exec for a status fd).  A child can have its own process
 * group, so that the whole group can be killed at the end.
 */
#ifndef HB_CHILD_H
#define HB_CHILD_H

#include <stddef.h>
#include <sys/types.h>

/* child_spawn's and child_start's flags.  CHILD_PARENT_DEATH alone kills
 * the child when we die (Linux; see pdeath.h), not what it started.  With
 * CHILD_OWN_GROUP the whole group goes: c->pid is then a guard, a fork of
 * ours that leads the group, runs the program as its own child (which
 * dies with the guard), and kills the group once we are gone, on every
 * system, or once the program has ended, whose exit status it then passes
 * on (128+signal when the program was killed).  The guard keeps
 * none of our descriptors and ignores SIGTERM, SIGINT and SIGHUP: a
 * TERM to the group is the program's to handle. */
#define CHILD_OWN_GROUP   1  /* a process group of its own (pgid = c->pid) */
#define CHILD_PARENT_DEATH 2 /* killed when we die: the child, or its group */
/* Every signal at its default in the program, the ignored ones too (the
 * broker's children); without it only caught signals and SIGPIPE are. */
#define CHILD_DEFAULT_SIGNALS 4

struct child {
	pid_t pid;
	int in;   /* we write: its stdin */
	int out;  /* we read: its stdout */
};

/* What child_start runs, and with which descriptors. */
struct child_exec {
	const char *path;      /* the file to execute; NULL: argv[0], looked up in PATH */
	char *const *argv;     /* NULL-terminated */
	char *const *envp;     /* NULL: our environment */
	int in, out, err;      /* its stdin, stdout, stderr; -1: ours (inherited) */
	int keep;              /* a descriptor of ours left open across exec under
				* the same number (its close-on-exec cleared in the
				* child only), or -1 */
	int flags;             /* CHILD_* */
};

/* Start x; the pid, or -1 with a reason (a failed exec is reported here,
 * not discovered later).  A child whose exec failed has exited with 127
 * and is not waited for: the caller's reaper gets it.  Only
 * async-signal-safe work happens between the fork and the exec (the
 * broker has threads: libzmq's). */
pid_t child_start(const struct child_exec *x, char *err, size_t errlen);
/* argv[0] is looked up in PATH.  envp NULL: our environment.  flags:
 * CHILD_*.  0, or -1 with a reason (a failed exec is reported here, not
 * discovered later). */
int child_spawn(struct child *c, char *const argv[], char *const envp[], int flags,
		char *err, size_t errlen);
/* A pipe whose two ends close on exec (a child gets its own copies by
 * child_exec's in, out or keep): 0, or -1 with errno. */
int child_pipe(int fd[2]);
/* Wait for the child; returns an exit status for our own exit (128+sig). */
int child_wait(struct child *c);

#endif
