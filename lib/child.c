/*
 * child - fork/exec with an exec-failure pipe: a close-on-exec pipe
 * carries errno back when the exec (or the work before it) fails; EOF on
 * it means the exec happened.
 *
 * The child may only call async-signal-safe functions between fork and
 * exec (the broker has libzmq's threads), so argv and envp are built
 * before the fork, and every signal is blocked across it: no handler of
 * ours may run in the child before its dispositions are reset.
 *
 * The group's guard (child.h) exists because the parent-death signal
 * reaches only our own child: an agent host killed by it leaves Claude
 * Code, its child, running for as long as its turn lasts.  The guard
 * never execs, so it too calls only async-signal-safe functions (fork
 * among them: this process is single-threaded now), and it closes every
 * descriptor it inherited, the close-on-exec ones too, so that it holds
 * no pipe end, socket or lock of ours.  It looks for our death by polling
 * getppid(), which every system has, ten times a second.
 */
#include "child.h"
#include "pdeath.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GUARD_TICK_MS 100

extern char **environ;

/* Every descriptor of this process closed. */
static void close_all(void)
{
	struct rlimit rl;
	int max = 65536;

#ifdef SYS_close_range
	if (syscall(SYS_close_range, 0U, ~0U, 0U) == 0)
		return;
#endif
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)max)
		max = (int)rl.rlim_cur;
	for (int fd = 0; fd < max; fd++)
		close(fd);
}

/* The program has ended with status: what it left in the group goes too
 * (it may have ended because we died and its input closed, before the
 * guard saw us go).  To pass the status on, the guard steps out of the
 * group first, into ours; when it cannot, it goes with the group. */
static _Noreturn void program_ended(pid_t parent, int status)
{
	pid_t group = getpgid(parent);

	if (group > 0 && setpgid(0, group) == 0)
		kill(-getpid(), SIGKILL);
	else
		kill(0, SIGKILL);
	_exit(status);
}

/* The guard's life (see child.h): until the program ends, or we do. */
static _Noreturn void guard(pid_t program, pid_t parent)
{
	struct timespec tick = { GUARD_TICK_MS / 1000, (GUARD_TICK_MS % 1000) * 1000000L };
	int st = 0;

	close_all();
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	for (;;) {
		pid_t r = waitpid(program, &st, WNOHANG);

		if (r == program)
			program_ended(parent, WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1);
		if (r < 0 && errno != EINTR)
			program_ended(parent, 1);
		if (getppid() != parent) {
			kill(0, SIGKILL); /* the whole group, the guard too */
			_exit(1);
		}
		nanosleep(&tick, NULL);
	}
}

int child_pipe(int fd[2])
{
	if (pipe(fd) < 0)
		return -1;
	if (fcntl(fd[0], F_SETFD, FD_CLOEXEC) < 0 || fcntl(fd[1], F_SETFD, FD_CLOEXEC) < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	return 0;
}

/* In the child: errno e to the parent, and out. */
static _Noreturn void child_failed(int ex, int e)
{
	(void)!write(ex, &e, sizeof e);
	_exit(127);
}

/* In the child: caught signals (ours, whose handlers must not run here)
 * and SIGPIPE back to their defaults; with all, every signal. */
static void default_signals(int all)
{
	struct sigaction dfl, cur;

	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	for (int sig = 1; sig < 32; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		if (all || sig == SIGPIPE ||
		    (sigaction(sig, NULL, &cur) == 0 && cur.sa_handler != SIG_IGN && cur.sa_handler != SIG_DFL))
			sigaction(sig, &dfl, NULL);
	}
}

/* In the child, after the fork: everything up to the exec, which only
 * returns on failure (then errno goes back on ex).  old: the signal mask
 * before the fork; parent: our pid. */
static _Noreturn void run_child(const struct child_exec *x, int ex, const sigset_t *old, pid_t parent)
{
	default_signals(x->flags & CHILD_DEFAULT_SIGNALS);
	if (x->flags & CHILD_OWN_GROUP)
		setpgid(0, 0);
	/* dup2 clears close-on-exec on the copies: the descriptors
	 * themselves may be close-on-exec. */
	if ((x->in >= 0 && dup2(x->in, STDIN_FILENO) < 0) || (x->out >= 0 && dup2(x->out, STDOUT_FILENO) < 0) ||
	    (x->err >= 0 && dup2(x->err, STDERR_FILENO) < 0))
		child_failed(ex, errno);
	if (x->keep >= 0) {
		int fl = fcntl(x->keep, F_GETFD);

		if (fl < 0 || fcntl(x->keep, F_SETFD, fl & ~FD_CLOEXEC) < 0)
			child_failed(ex, errno);
	}
	pthread_sigmask(SIG_SETMASK, old, NULL);
	if ((x->flags & CHILD_OWN_GROUP) && (x->flags & CHILD_PARENT_DEATH)) {
		pid_t me = getpid(), program = fork();

		if (program < 0)
			child_failed(ex, errno);
		if (program > 0)
			guard(program, parent);
		parent = me; /* the program dies with its guard */
	}
	/* A parent that died before this line is not noticed by the
	 * kernel: then we are already orphaned, and go. */
	if ((x->flags & CHILD_PARENT_DEATH) && (hb_pdeath_kill() < 0 || getppid() != parent))
		child_failed(ex, getppid() != parent ? ESRCH : errno);
	if (x->path) {
		execve(x->path, x->argv, x->envp ? x->envp : environ);
	} else {
		if (x->envp)
			environ = (char **)x->envp;
		execvp(x->argv[0], x->argv);
	}
	child_failed(ex, errno);
}

/* child_start; *started gets the pid of a child whose exec failed too
 * (for a caller that waits for it), else -1. */
static pid_t start(const struct child_exec *x, pid_t *started, char *err, size_t errlen)
{
	int ex[2], child_errno = 0;
	sigset_t all, old;
	pid_t parent = getpid(), pid;
	ssize_t n;

	*started = -1;
	if (child_pipe(ex) < 0) {
		snprintf(err, errlen, "cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0)
		run_child(x, ex[1], &old, parent);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(ex[1]);
	if (pid < 0) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		close(ex[0]);
		return -1;
	}
	*started = pid;
	do
		n = read(ex[0], &child_errno, sizeof child_errno);
	while (n < 0 && errno == EINTR);
	close(ex[0]);
	if (n == (ssize_t)sizeof child_errno) {
		snprintf(err, errlen, "cannot execute %s: %s", x->path ? x->path : x->argv[0], strerror(child_errno));
		return -1;
	}
	return pid;
}

pid_t child_start(const struct child_exec *x, char *err, size_t errlen)
{
	pid_t started;

	return start(x, &started, err, errlen);
}

int child_spawn(struct child *c, char *const argv[], char *const envp[], int flags,
		char *err, size_t errlen)
{
	int to[2], from[2];
	struct child_exec x;
	pid_t started;

	if (child_pipe(to) < 0) {
		snprintf(err, errlen, "cannot make pipes: %s", strerror(errno));
		return -1;
	}
	if (child_pipe(from) < 0) {
		snprintf(err, errlen, "cannot make pipes: %s", strerror(errno));
		close(to[0]);
		close(to[1]);
		return -1;
	}
	x = (struct child_exec){ .path = NULL, .argv = argv, .envp = envp, .in = to[0], .out = from[1], .err = -1,
				 .keep = -1, .flags = flags };
	c->pid = start(&x, &started, err, errlen);
	close(to[0]);
	close(from[1]);
	if (c->pid < 0) {
		if (started > 0)
			while (waitpid(started, NULL, 0) < 0 && errno == EINTR)
				;
		close(to[1]);
		close(from[0]);
		return -1;
	}
	c->in = to[1];
	c->out = from[0];
	return 0;
}

int child_wait(struct child *c)
{
	int st = 0;

	while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
}
