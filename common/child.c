/*
 * child - fork/exec with stdio pipes and an exec-failure pipe (see
 * broker/spawn.c for why only async-signal-safe work happens in between).
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

static int cloexec_pipe(int fd[2])
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

int child_spawn(struct child *c, char *const argv[], char *const envp[], int flags,
		char *err, size_t errlen)
{
	int to[2], from[2], ex[2], child_errno = 0;
	pid_t parent;
	ssize_t n;

	if (cloexec_pipe(to) < 0 || cloexec_pipe(from) < 0 || cloexec_pipe(ex) < 0) {
		snprintf(err, errlen, "cannot make pipes: %s", strerror(errno));
		return -1;
	}
	parent = getpid();
	c->pid = fork();
	if (c->pid == 0) {
		dup2(to[0], STDIN_FILENO);
		dup2(from[1], STDOUT_FILENO);
		if (flags & CHILD_OWN_GROUP)
			setpgid(0, 0);
		if ((flags & CHILD_OWN_GROUP) && (flags & CHILD_PARENT_DEATH)) {
			pid_t me = getpid(), program = fork();
			if (program < 0) {
				child_errno = errno;
				(void)!write(ex[1], &child_errno, sizeof child_errno);
				_exit(127);
			}
			if (program > 0)
				guard(program, parent);
			parent = me; /* the program dies with its guard */
		}
		/* A parent that died before this line is not noticed by the
		 * kernel: then we are already orphaned, and go. */
		if ((flags & CHILD_PARENT_DEATH) && (hb_pdeath_kill() < 0 || getppid() != parent)) {
			child_errno = getppid() != parent ? ESRCH : errno;
			(void)!write(ex[1], &child_errno, sizeof child_errno);
			_exit(127);
		}
		signal(SIGPIPE, SIG_DFL);
		if (envp)
			environ = (char **)envp;
		execvp(argv[0], argv);
		child_errno = errno;
		(void)!write(ex[1], &child_errno, sizeof child_errno);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	close(ex[1]);
	if (c->pid < 0) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		close(to[1]);
		close(from[0]);
		close(ex[0]);
		return -1;
	}
	do
		n = read(ex[0], &child_errno, sizeof child_errno);
	while (n < 0 && errno == EINTR);
	close(ex[0]);
	if (n == (ssize_t)sizeof child_errno) {
		snprintf(err, errlen, "cannot execute %s: %s", argv[0], strerror(child_errno));
		waitpid(c->pid, NULL, 0);
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
